#include "tools/ycsb/rocksdb_options.h"

#include <algorithm>
#include <functional>
#include <map>
#include <strings.h>

#include <rocksdb/convenience.h>
#include <rocksdb/table.h>

#include "tierfs/hints.h"
#include "util/size.h"

namespace tierfs {
namespace ycsb {

using rocksdb::Status;

namespace {

Status Bad(const std::string& key, const std::string& value, const std::string& expected) {
  return Status::InvalidArgument("property '" + key + "': '" + value + "' is not " + expected);
}

Status ParseSizeProperty(const std::string& key, const std::string& value, uint64_t* out) {
  if (!ParseSize(value, out)) return Bad(key, value, "a size (bytes, with optional K, M, G, T)");
  return Status::OK();
}

Status ParseDbPaths(const std::string& key, const std::string& value,
                    std::vector<rocksdb::DbPath>* out) {
  out->clear();
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = std::min(value.find(',', start), value.size());
    const std::string item = value.substr(start, comma - start);
    const size_t colon = item.rfind(':');
    uint64_t size = 0;
    if (colon == std::string::npos || colon == 0 || !ParseSize(item.substr(colon + 1), &size)) {
      return Bad(key, value, "a list PATH:SIZE[,PATH:SIZE...] (bad entry '" + item + "')");
    }
    out->emplace_back(item.substr(0, colon), size);
    start = comma + 1;
  }
  return Status::OK();
}

Status ParseTemperature(const std::string& key, const std::string& value,
                        rocksdb::Temperature* out) {
  static const std::pair<const char*, rocksdb::Temperature> kNames[] = {
      {"kUnknown", rocksdb::Temperature::kUnknown},
      {"kHot", rocksdb::Temperature::kHot},
      {"kWarm", rocksdb::Temperature::kWarm},
      {"kCold", rocksdb::Temperature::kCold}};
  for (const auto& name : kNames) {
    // "kWarm", "kwarm" and "warm" all name kWarm.
    if (strcasecmp(value.c_str(), name.first) == 0 || strcasecmp(value.c_str(), name.first + 1) == 0) {
      *out = name.second;
      return Status::OK();
    }
  }
  return Bad(key, value, "a temperature (kUnknown, kHot, kWarm, kCold)");
}

Status ParseCompression(const std::string& key, const std::string& value,
                        rocksdb::CompressionType* out) {
  static const std::pair<const char*, rocksdb::CompressionType> kNames[] = {
      {"none", rocksdb::kNoCompression},     {"snappy", rocksdb::kSnappyCompression},
      {"lz4", rocksdb::kLZ4Compression},     {"lz4hc", rocksdb::kLZ4HCCompression},
      {"zstd", rocksdb::kZSTD},              {"zlib", rocksdb::kZlibCompression},
      {"bzip2", rocksdb::kBZip2Compression}};
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  std::string available = "none";
  for (const auto& name : kNames) {
    const bool usable = name.second == rocksdb::kNoCompression ||
                        std::find(supported.begin(), supported.end(), name.second) != supported.end();
    if (usable && name.second != rocksdb::kNoCompression) available += std::string(", ") + name.first;
    if (strcasecmp(value.c_str(), name.first) != 0) continue;
    if (!usable) {
      return Status::InvalidArgument("property '" + key + "': compression '" + value +
                                     "' is not supported by this librocksdb");
    }
    *out = name.second;
    return Status::OK();
  }
  return Bad(key, value, "a compression this librocksdb supports (" + available + ")");
}

}  // namespace

Status ParseRocksDbConfig(const Properties& props, RocksDbConfig* c) {
  using Setter = std::function<Status(const std::string& key, const std::string& value)>;
  const std::map<std::string, Setter> setters = {
      {"rocksdb.dir", [&](const std::string&, const std::string& v) { c->dir = v; return Status::OK(); }},
      {"rocksdb.fs_uri", [&](const std::string&, const std::string& v) { c->fs_uri = v; return Status::OK(); }},
      {"rocksdb.options_file",
       [&](const std::string&, const std::string& v) { c->options_file = v; return Status::OK(); }},
      {"rocksdb.optionsfile",
       [&](const std::string&, const std::string& v) { c->options_file = v; return Status::OK(); }},
      {"rocksdb.db_paths", [&](const std::string& k, const std::string& v) { return ParseDbPaths(k, v, &c->db_paths); }},
      {"rocksdb.wal_dir", [&](const std::string&, const std::string& v) { c->wal_dir = v; return Status::OK(); }},
      {"rocksdb.last_level_temperature",
       [&](const std::string& k, const std::string& v) {
         c->has_last_level_temperature = true;
         return ParseTemperature(k, v, &c->last_level_temperature);
       }},
      {"rocksdb.block_cache_size",
       [&](const std::string& k, const std::string& v) {
         c->has_block_cache_size = true;
         return ParseSizeProperty(k, v, &c->block_cache_size);
       }},
      {"rocksdb.persistent_cache_path",
       [&](const std::string&, const std::string& v) { c->persistent_cache_path = v; return Status::OK(); }},
      {"rocksdb.persistent_cache_size",
       [&](const std::string& k, const std::string& v) {
         Status s = ParseSizeProperty(k, v, &c->persistent_cache_size);
         if (s.ok() && c->persistent_cache_size < kMinPersistentCacheSize) {
           s = Bad(k, v, "at least 120M (RocksDB's persistent cache files are 100 MiB each, "
                         "and a cache that cannot evict one while it writes the next hangs)");
         }
         return s;
       }},
      {"rocksdb.compression",
       [&](const std::string& k, const std::string& v) {
         c->has_compression = true;
         return ParseCompression(k, v, &c->compression);
       }},
      {"rocksdb.write_buffer_size",
       [&](const std::string& k, const std::string& v) {
         c->has_write_buffer_size = true;
         return ParseSizeProperty(k, v, &c->write_buffer_size);
       }},
      {"rocksdb.use_direct_io",
       [&](const std::string& k, const std::string&) {
         c->has_use_direct_io = true;
         return props.GetBool(k, false, &c->use_direct_io);
       }},
      {"rocksdb.num_levels",
       [&](const std::string& k, const std::string& v) {
         int64_t n = 0;
         Status s = props.GetInt64(k, 0, &n);
         if (s.ok() && (n < 1 || n > 100)) s = Bad(k, v, "a level count in [1, 100]");
         c->has_num_levels = true;
         c->num_levels = int(n);
         return s;
       }},
      {"rocksdb.wait_for_compaction",
       [&](const std::string& k, const std::string&) {
         return props.GetBool(k, false, &c->wait_for_compaction);
       }},
      {"rocksdb.max_bytes_for_level_base",
       [&](const std::string& k, const std::string& v) {
         c->has_max_bytes_for_level_base = true;
         return ParseSizeProperty(k, v, &c->max_bytes_for_level_base);
       }},
  };

  for (const auto& property : props.all()) {
    const std::string& key = property.first;
    if (key.compare(0, 8, "rocksdb.") != 0) continue;
    auto setter = setters.find(key);
    if (setter == setters.end()) {
      std::string known;
      for (const auto& s : setters) known += (known.empty() ? "" : ", ") + s.first;
      return Status::InvalidArgument("unknown property '" + key + "' (known: " + known + ")");
    }
    Status s = setter->second(key, property.second);
    if (!s.ok()) return s;
  }
  if (c->dir.empty()) return Status::InvalidArgument("property 'rocksdb.dir' is required");
  if (c->persistent_cache_path.empty() != (c->persistent_cache_size == 0)) {
    return Status::InvalidArgument(
        "properties 'rocksdb.persistent_cache_path' and 'rocksdb.persistent_cache_size' go together");
  }
  return Status::OK();
}

void ApplyDbOverrides(const RocksDbConfig& c, rocksdb::DBOptions* options) {
  options->create_if_missing = true;
  options->create_missing_column_families = true;
  // Tells TierFS each new table file's level and column family; a no-op for
  // a database on another file system. Once, if the OPTIONS file has it already.
  std::shared_ptr<rocksdb::EventListener> listener = tierfs::NewTierFSListener();
  const bool present = std::any_of(options->listeners.begin(), options->listeners.end(),
                                   [&](const auto& l) { return l && std::string(l->Name()) == listener->Name(); });
  if (!present) options->listeners.push_back(listener);
  if (!c.db_paths.empty()) options->db_paths = c.db_paths;
  if (!c.wal_dir.empty()) options->wal_dir = c.wal_dir;
  if (c.has_use_direct_io) {
    options->use_direct_reads = c.use_direct_io;
    options->use_direct_io_for_flush_and_compaction = c.use_direct_io;
  }
}

Status ApplyCfOverrides(const RocksDbConfig& c, const std::shared_ptr<rocksdb::Cache>& block_cache,
                        rocksdb::ColumnFamilyOptions* options,
                        const std::shared_ptr<rocksdb::PersistentCache>& persistent_cache) {
  if (c.has_last_level_temperature) options->last_level_temperature = c.last_level_temperature;
  if (c.has_compression) {
    // One compression for every level, whatever the OPTIONS file said per level.
    options->compression = c.compression;
    options->compression_per_level.clear();
    options->bottommost_compression = rocksdb::kDisableCompressionOption;
  }
  if (c.has_write_buffer_size) options->write_buffer_size = c.write_buffer_size;
  if (c.has_num_levels) options->num_levels = c.num_levels;
  if (c.has_max_bytes_for_level_base) options->max_bytes_for_level_base = c.max_bytes_for_level_base;
  if (c.has_block_cache_size || persistent_cache) {
    const auto* current = options->table_factory
                              ? options->table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()
                              : nullptr;
    if (current == nullptr) {
      return Status::InvalidArgument(std::string("property '") +
                                     (c.has_block_cache_size ? "rocksdb.block_cache_size"
                                                             : "rocksdb.persistent_cache_path") +
                                     "': the table format is not block-based");
    }
    rocksdb::BlockBasedTableOptions table = *current;
    if (c.has_block_cache_size) {
      table.block_cache = block_cache;
      table.no_block_cache = block_cache == nullptr;
    }
    if (persistent_cache) table.persistent_cache = persistent_cache;
    options->table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  }
  return Status::OK();
}

}  // namespace ycsb
}  // namespace tierfs
