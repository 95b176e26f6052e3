// The RocksDB options tierfs-tune may tune for live runs, and the OPTIONS
// file they become. In a search space (space.h) such an option is the key
// `rocksdb.NAME` (rocksdb.write_buffer_size): it is live-only, because the
// simulator replays TierFS's I/O traces and runs no RocksDB, so nothing it
// measures depends on these options. A configuration of a space that holds
// them is written as one string, the TierFS URI with the `rocksdb.NAME:VALUE`
// items among its keys; SplitConfiguration takes it apart into the URI
// TierFS accepts and the options an OPTIONS file carries.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tierfs {
namespace tune {

// The prefix of a live-only key in a space and a configuration.
constexpr char kRocksDbPrefix[] = "rocksdb.";

enum class RocksDbKind {
  kSize,     // bytes; a space spells them as sizes (64M), the file as an integer
  kInteger,  // a plain positive integer
  kFlag,     // true or false
};

// One tunable option: its name as the OPTIONS file spells it (block_cache_size
// excepted: it is the BlockBasedTable's `block_cache`, made an LRU cache of
// that many bytes), the file's section, its kind, and RocksDB 7.8's default as
// a space spells it (a space without default= starts there).
struct RocksDbOption {
  std::string name;
  std::string section;  // "DBOptions", "CFOptions" or "TableOptions"
  RocksDbKind kind;
  std::string rocksdb_default;
};

// Every option a space may name after `rocksdb.`.
const std::vector<RocksDbOption>& LiveOptions();
// The option `name` (without the prefix), or nullptr.
const RocksDbOption* FindLiveOption(const std::string& name);
// True if `key` is a live-only key (starts with `rocksdb.`).
bool IsRocksDbKey(const std::string& key);

// Checks `value` for option `name` (without the prefix). False and *error
// naming the option and the value if the option is unknown (the known ones
// listed) or the value is not of its kind.
bool CheckRocksDbValue(const std::string& name, const std::string& value, std::string* error);

// Takes `configuration` apart: *uri gets it without its `rocksdb.` items (a
// URI TierFS accepts), *options those items by name without the prefix
// ("write_buffer_size" -> "8M"). Either output may be null.
void SplitConfiguration(const std::string& configuration, std::string* uri,
                        std::map<std::string, std::string>* options);

// The text of a RocksDB 7.8 OPTIONS file carrying `options` (names without
// the prefix, values as a space spells them): create_if_missing, the
// TierFSListener (which tells TierFS each table's level, README "Levels and
// column families"; loading the file needs the plugin), and each option in
// its section, sizes as bytes. Options not given keep RocksDB's defaults.
// False and *error naming the option on an unknown option or a bad value.
bool OptionsFileText(const std::map<std::string, std::string>& options, std::string* text,
                     std::string* error);
// OptionsFileText written to `path`. False and *error naming the path when
// it cannot be written.
bool WriteOptionsFile(const std::map<std::string, std::string>& options, const std::string& path,
                      std::string* error);

}  // namespace tune
}  // namespace tierfs
