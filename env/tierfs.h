// TierFS public API: a RocksDB FileSystem that spreads one database over several
// storage tiers (fast to slow), split into segments.
//
// Three ways in:
//   1. A URI, for stock tools:  db_bench --fs_uri=tierfs://...  (LD_PRELOAD the
//      library so the `tierfs://` factory is registered), or
//      rocksdb::FileSystem::CreateFromString(cfg, "tierfs://...", &fs).
//   2. NewTierFileSystem(uri or Options) from C++, then NewTierEnv() for
//      rocksdb::Options::env.
//   3. GetTierStats() on a file system made by either of the above.
//
// URI grammar (no '=' anywhere: RocksDB would parse it as key=value options):
//   tierfs://TIER[,TIER...][;KEY:VALUE...]
//   TIER  := PATH:CAPACITY[:DEVICE]        PATH absolute, no ':' or ','
//   CAPACITY := number with optional K, M, G, T suffix (powers of 1024)
//   DEVICE := none | optane | nvme | sata-ssd | hdd
//           | custom-READUS-WRITEUS-MBPS   (e.g. custom-100-50-500)
//   KEY   := segment_size (size, or "whole") | policy (fast-first, fast-only,
//            slow-only)
//   or    tierfs://config:/path/to/file.conf  (same keys, one per line:
//          `tier = PATH CAPACITY [DEVICE]`, `segment_size = 1M`, `policy = ...`,
//          '#' starts a comment)
// Example: tierfs:///mnt/nvme:10G:nvme,/mnt/hdd:1T:hdd;segment_size:1M
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/status.h>

namespace tierfs {

struct TierOptions {
  // Root directory of the tier. Must exist and be writable; TierFS keeps its
  // files under <path>/data (segments), <path>/meta (journal, tier 0 only) and
  // a marker file <path>/TIERFS-TIER.
  std::string path;
  // Bytes TierFS may store on this tier. Enforced by TierFS's own accounting,
  // so several tiers may share one physical disk. Must be > 0.
  uint64_t capacity = 0;
  // Device model emulated on this tier's I/O; "none" for a real device.
  // Default: "none".
  std::string device = "none";
};

struct Options {
  // Tiers, fastest first. 1 to 8 of them.
  std::vector<TierOptions> tiers;
  // Size of a segment, the unit of placement, in bytes: a multiple of 4096.
  // 0 means "whole file": every file is one segment. Default: 1 MiB.
  uint64_t segment_size = 1 << 20;
  // Placement policy name. Default: "fast-first".
  std::string policy = "fast-first";
  // Open for inspection only: recover nothing, write nothing, take no lock.
  // Used by the admin tool on a store another process may have open.
  // Default: false.
  bool read_only = false;
  // The file system that holds the tiers' files. nullptr means
  // rocksdb::FileSystem::Default(). Tests put a fault-injecting wrapper here.
  std::shared_ptr<rocksdb::FileSystem> base;
};

// Parses a tierfs:// URI (inline or config:FILE) into *options and validates
// it (see ValidateOptions). Errors name the offending part of the URI.
rocksdb::Status ParseUri(const std::string& uri, Options* options);

// Parses a configuration file (the format in the header comment).
rocksdb::Status ParseConfigFile(const std::string& path, Options* options);

// Checks what can be checked without opening: tier count, capacities, device
// names, segment size, policy, absolute and non-overlapping tier paths, and
// that each tier directory exists and is writable.
rocksdb::Status ValidateOptions(const Options& options);

// Opens (creating or recovering) the TierFS store described by `options`.
// Within one process, opening the same tier-0 root twice shares one store.
rocksdb::Status NewTierFileSystem(const Options& options,
                                  std::shared_ptr<rocksdb::FileSystem>* result);
rocksdb::Status NewTierFileSystem(const std::string& uri,
                                  std::shared_ptr<rocksdb::FileSystem>* result);

// An Env for rocksdb::Options::env that routes file I/O through `fs` and
// everything else (threads, clock) to the default Env.
std::unique_ptr<rocksdb::Env> NewTierEnv(
    const std::shared_ptr<rocksdb::FileSystem>& fs);

// A latency histogram: counts per power-of-two bucket of microseconds.
struct LatencyHistogram {
  static constexpr int kBuckets = 32;  // bucket i: [2^(i-1), 2^i) us; 0: < 1 us
  uint64_t count = 0;
  uint64_t sum_us = 0;
  uint64_t buckets[kBuckets] = {};
  double Average() const { return count ? double(sum_us) / count : 0.0; }
  // Upper bound of the bucket holding the p-th percentile (p in (0, 100]).
  double Percentile(double p) const;
};

struct TierStats {
  int index = 0;
  std::string path;
  std::string device;
  uint64_t capacity = 0;
  uint64_t used_bytes = 0;       // charged: resident data + reserved headroom
  uint64_t segments = 0;         // segments resident
  uint64_t reads = 0, read_bytes = 0;
  uint64_t writes = 0, write_bytes = 0;
  uint64_t syncs = 0;
  uint64_t spills_in = 0;        // segments placed here because the policy's tier was full
  // Writes are buffered (write-back) unless direct: write latency is what the
  // writer waited; sync latency includes the device draining them.
  LatencyHistogram read_latency, write_latency, sync_latency;
};

// Statistics of every tier of `fs`, which must have been made by
// NewTierFileSystem. Counters run since the store was opened in this process
// (the admin tool adds those saved at the last clean close).
rocksdb::Status GetTierStats(const rocksdb::FileSystem* fs,
                             std::vector<TierStats>* stats);

// One line per file for `tierfs ls`.
struct FileInfo {
  std::string name;              // logical path
  std::string kind;              // "sst", "wal", ...
  uint64_t size = 0;
  std::vector<uint64_t> segments_per_tier;
};
rocksdb::Status ListFiles(const rocksdb::FileSystem* fs, const std::string& dir,
                          std::vector<FileInfo>* files);

}  // namespace tierfs
