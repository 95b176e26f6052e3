// The RocksDB binding's properties (rocksdb.*) and how they shape the
// RocksDB options. Every rocksdb.* key not listed here is an error naming it.
//
//   rocksdb.dir                     database path (required); with
//                                   rocksdb.fs_uri, a path inside that file system
//   rocksdb.fs_uri                  a registered FileSystem, e.g. tierfs://...
//                                   (FileSystem::CreateFromString); default: the host's
//   rocksdb.options_file            a RocksDB OPTIONS file to start from (YCSB's
//                                   name rocksdb.optionsfile works too); read from
//                                   the host; the properties below override it
//   rocksdb.db_paths                "PATH:SIZE,PATH:SIZE" -> Options::db_paths
//   rocksdb.wal_dir                 the WAL's directory (Options::wal_dir), e.g. on
//                                   the fast device beside a database on a slow one
//   rocksdb.last_level_temperature  kUnknown | kHot | kWarm | kCold
//   rocksdb.block_cache_size        LRU block cache bytes (K, M, G, T), 0 for none
//   rocksdb.persistent_cache_path   RocksDB's persistent read cache (BlockCacheTier,
//   rocksdb.persistent_cache_size   as db_bench --read_cache_path/--read_cache_size):
//                                   a directory (inside rocksdb.fs_uri's file system,
//                                   like rocksdb.dir) and its size, at least 120M
//                                   (RocksDB's cache files are 100 MiB each: it
//                                   refuses a smaller cache, and one under ~113 MiB
//                                   can never evict, which hangs its writer); both
//                                   or neither
//   rocksdb.compression             none | snappy | lz4 | lz4hc | zstd | zlib | bzip2;
//                                   every level; an error if librocksdb lacks it
//   rocksdb.write_buffer_size       memtable bytes
//   rocksdb.use_direct_io           true | false: direct reads and direct
//                                   flush/compaction I/O
//   rocksdb.num_levels              LSM levels
//   rocksdb.max_bytes_for_level_base  bytes of level 1
//   rocksdb.wait_for_compaction     true | false (default): at close, flush the
//                                   memtables and wait until no flush or compaction
//                                   is pending or running (db_bench's
//                                   waitforcompaction), so that the next phase
//                                   starts on a settled LSM; the wait counts in the
//                                   phase's runtime (the CLEANUP operation)
//
// Unset, the options are RocksDB's defaults (or the OPTIONS file's), with
// create_if_missing and create_missing_column_families on and TierFS's event
// listener added (it leaves databases not on TierFS alone). YCSB's Java
// binding instead calls optimizeLevelStyleCompaction() and
// increaseParallelism(); use an OPTIONS file for that.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/options.h>
#include <rocksdb/persistent_cache.h>
#include <rocksdb/status.h>

#include "tools/ycsb/properties.h"

namespace tierfs {
namespace ycsb {

struct RocksDbConfig {
  std::string dir;
  std::string fs_uri;        // "" for the default file system
  std::string options_file;  // "" for none

  // Overrides; has_* false leaves the option as it is.
  std::vector<rocksdb::DbPath> db_paths;
  std::string wal_dir;  // "" leaves it as it is
  bool has_last_level_temperature = false;
  rocksdb::Temperature last_level_temperature = rocksdb::Temperature::kUnknown;
  bool has_block_cache_size = false;
  uint64_t block_cache_size = 0;
  std::string persistent_cache_path;  // "" for none
  uint64_t persistent_cache_size = 0;
  bool has_compression = false;
  rocksdb::CompressionType compression = rocksdb::kNoCompression;
  bool has_write_buffer_size = false;
  uint64_t write_buffer_size = 0;
  bool has_use_direct_io = false;
  bool use_direct_io = false;
  bool has_num_levels = false;
  int num_levels = 0;
  bool has_max_bytes_for_level_base = false;
  uint64_t max_bytes_for_level_base = 0;
  bool wait_for_compaction = false;
};

// Reads the rocksdb.* properties. InvalidArgument names an unknown key, a
// missing rocksdb.dir or a bad value (with the values that are allowed).
rocksdb::Status ParseRocksDbConfig(const Properties& props, RocksDbConfig* config);

// Applies the database-wide overrides (db_paths, wal_dir, direct I/O) and the
// binding's fixed settings to *options.
void ApplyDbOverrides(const RocksDbConfig& config, rocksdb::DBOptions* options);

// Applies the per-column-family overrides to *options; `block_cache` is the
// cache shared by all column families (null unless block_cache_size > 0),
// `persistent_cache` the persistent read cache (null unless
// persistent_cache_path is set). InvalidArgument if either is asked of a
// table format that is not block-based.
rocksdb::Status ApplyCfOverrides(
    const RocksDbConfig& config, const std::shared_ptr<rocksdb::Cache>& block_cache,
    rocksdb::ColumnFamilyOptions* options,
    const std::shared_ptr<rocksdb::PersistentCache>& persistent_cache = nullptr);

// RocksDB's smallest workable persistent read cache. Its cache files are
// PersistentCacheConfig::cache_file_size, 100 MiB, which NewPersistentCache
// does not let a caller change; Open asserts on a cache smaller than one, and
// a full cache evicts closed files until it is at 90% of its size, so below
// (100 MiB + a write buffer) / 0.9 nothing it may evict can make room while
// the file being written fills, and its writer thread retries forever (found
// with a 100 MiB cache: tierfs-ycsb hung at close). 120 MiB leaves a margin.
constexpr uint64_t kMinPersistentCacheSize = 120ull << 20;

}  // namespace ycsb
}  // namespace tierfs
