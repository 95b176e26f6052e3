// The live-only RocksDB options and their OPTIONS file (rocksdb_options.h).
#include "tools/tune/rocksdb_options.h"

#include <fstream>
#include <sstream>

#include "util/size.h"

namespace tierfs {
namespace tune {

const std::vector<RocksDbOption>& LiveOptions() {
  // RocksDB 7.8's defaults: include/rocksdb/options.h, advanced_options.h and
  // table.h ("If NULL, rocksdb will automatically create and use an 8MB
  // internal cache"; db_bench's --cache_size defaults to the same 8 MiB).
  static const std::vector<RocksDbOption> options = {
      {"block_cache_size", "TableOptions", RocksDbKind::kSize, "8M"},
      {"write_buffer_size", "CFOptions", RocksDbKind::kSize, "64M"},
      {"max_bytes_for_level_base", "CFOptions", RocksDbKind::kSize, "256M"},
      {"max_bytes_for_level_multiplier", "CFOptions", RocksDbKind::kInteger, "10"},
      {"target_file_size_base", "CFOptions", RocksDbKind::kSize, "64M"},
      {"compaction_readahead_size", "DBOptions", RocksDbKind::kSize, "0"},
      {"use_direct_reads", "DBOptions", RocksDbKind::kFlag, "false"},
      {"use_direct_io_for_flush_and_compaction", "DBOptions", RocksDbKind::kFlag, "false"},
  };
  return options;
}

const RocksDbOption* FindLiveOption(const std::string& name) {
  for (const RocksDbOption& o : LiveOptions()) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

bool IsRocksDbKey(const std::string& key) { return key.rfind(kRocksDbPrefix, 0) == 0; }

bool CheckRocksDbValue(const std::string& name, const std::string& value, std::string* error) {
  const RocksDbOption* o = FindLiveOption(name);
  if (!o) {
    std::string known;
    for (const RocksDbOption& k : LiveOptions()) known += (known.empty() ? "" : ", ") + k.name;
    *error = "unknown RocksDB option '" + std::string(kRocksDbPrefix) + name + "' (known: " +
             known + ")";
    return false;
  }
  uint64_t n = 0;
  switch (o->kind) {
    case RocksDbKind::kSize:
      if (ParseSize(value, &n)) return true;
      *error = kRocksDbPrefix + name + ": '" + value + "' is not a size (4096, 64K, 8M, 1G)";
      return false;
    case RocksDbKind::kInteger:
      if (value.find_first_not_of("0123456789") == std::string::npos && ParseSize(value, &n) &&
          n >= 1) {
        return true;
      }
      *error = kRocksDbPrefix + name + ": '" + value + "' is not a positive integer";
      return false;
    case RocksDbKind::kFlag:
      if (value == "true" || value == "false") return true;
      *error = kRocksDbPrefix + name + ": '" + value + "' is neither true nor false";
      return false;
  }
  return false;
}

void SplitConfiguration(const std::string& configuration, std::string* uri,
                        std::map<std::string, std::string>* options) {
  std::string rest;
  std::stringstream in(configuration);
  bool first = true;
  for (std::string item; std::getline(in, item, ';'); first = false) {
    if (!first && IsRocksDbKey(item)) {
      const size_t colon = item.find(':');
      const size_t prefix = sizeof(kRocksDbPrefix) - 1;
      const std::string name =
          item.substr(prefix, colon == std::string::npos ? std::string::npos : colon - prefix);
      if (options) (*options)[name] = colon == std::string::npos ? "" : item.substr(colon + 1);
      continue;
    }
    rest += (first ? "" : ";") + item;
  }
  if (uri) *uri = rest;
}

bool OptionsFileText(const std::map<std::string, std::string>& options, std::string* text,
                     std::string* error) {
  std::map<std::string, std::string> lines;  // section -> its "  name=value\n" lines
  lines["DBOptions"] = "  create_if_missing=true\n  listeners={TierFSListener}\n";
  for (const auto& [name, value] : options) {
    if (!CheckRocksDbValue(name, value, error)) return false;
    const RocksDbOption& o = *FindLiveOption(name);
    uint64_t bytes = 0;
    std::string v = value;
    if (o.kind == RocksDbKind::kSize && ParseSize(value, &bytes)) v = std::to_string(bytes);
    lines[o.section] += "  " + (name == "block_cache_size" ? std::string("block_cache") : name) +
                        "=" + v + "\n";
  }
  *text = "[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n";
  *text += "[DBOptions]\n" + lines["DBOptions"];
  *text += "[CFOptions \"default\"]\n" + lines["CFOptions"];
  *text += "[TableOptions/BlockBasedTable \"default\"]\n" + lines["TableOptions"];
  return true;
}

bool WriteOptionsFile(const std::map<std::string, std::string>& options, const std::string& path,
                      std::string* error) {
  std::string text;
  if (!OptionsFileText(options, &text, error)) return false;
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    *error = "cannot write the OPTIONS file '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace tune
}  // namespace tierfs
