// TierFS's options, and the grammar of the tierfs:// URIs and configuration
// files that set them (parsed by ParseUri and ParseConfigFile,
// <tierfs/file_system.h>). Part of the public API, installed as
// <tierfs/options.h>; free of RocksDB's headers.
//
// URI grammar (no '=' anywhere: RocksDB would parse it as key=value options):
//   tierfs://TIER[,TIER...][;KEY:VALUE...]
//   TIER  := PATH:CAPACITY[:DEVICE]        PATH absolute, no ':' or ','
//   CAPACITY := number with optional K, M, G, T suffix (powers of 1024)
//   DEVICE := none | optane | nvme | sata-ssd | hdd
//           | custom-READUS-WRITEUS-MBPS   (e.g. custom-100-50-500)
//   KEY   := segment_size (size, or "whole") | policy (fast-first, fast-only,
//            slow-only, lru, cde, hintstor, mutant, rocksdb-levels, harmonia,
//            harmonia-nocoord, sibyl, sapm, cde+rl-migr, k-svm, rnn-hss,
//            rocksdb-temperature)
//            | placement (tierfs, rocksdb: see Options::placement)
//            | POLICY.PARAM (a policy's tunable) | migration (on, off)
//            | migration_queue (moves) | migration_rate (bytes/s, e.g. 64M)
//            | migration_idle_ops (reads per ms)
//            | migration_busy_share (percent of a busy device's time)
//            | migration_plan_ms (ms) | fast_headroom (auto, 5%, 64M)
//            | level_room (on, off) | wal_room (on, off)
//            | copies (on, off) | copy_page (4K to 64K) | copy_share (50%)
//            | copy_unit (block, page) | copy_inherit (on, off)
//            | copy_policy (tinylfu, w-tinylfu, s3-fifo)
//            | trace (file recording every I/O)
//            | stats_log (file of statistics over time) | stats_log_ms (ms)
//            | metrics_file (Prometheus text, rewritten) | metrics_ms (ms)
//   or    tierfs://config:/path/to/file.conf  (same keys, one per line:
//          `tier = PATH CAPACITY [DEVICE]`, `segment_size = 1M`, `policy = ...`,
//          '#' starts a comment)
// Example: tierfs:///mnt/nvme:10G:nvme,/mnt/hdd:1T:hdd;segment_size:1M
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tierfs/migration.h"
#include "tierfs/page_copies.h"

namespace rocksdb {
class FileSystem;
}  // namespace rocksdb

namespace tierfs {

// Who places files (Options::placement); the URI key `placement` names it.
enum class Placement : uint8_t { kTierFS = 0, kRocksDB };

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
  // Whatever the segment size, a file holds at most 1 TiB: writes past it fail.
  uint64_t segment_size = 1 << 20;
  // Policy name: fast-first, fast-only, slow-only, lru, cde, hintstor,
  // mutant, rocksdb-levels, harmonia, harmonia-nocoord, sibyl, sapm,
  // cde+rl-migr, k-svm, rnn-hss (the learning ones and rnn-hss need
  // libtierfs_learner), or rocksdb-temperature (placement:rocksdb).
  // Default: "fast-first".
  std::string policy = "fast-first";
  // Who decides where a file lives. kTierFS ("tierfs"): the policy.
  // kRocksDB ("rocksdb"): the emulation-only mode, in which TierFS follows RocksDB's own tiering so
  // that it runs on the same tiers and device models as TierFS's policies:
  //   - a file created under a tier's root directory (its logical path lies
  //     under TierOptions::path, as written) is pinned to that tier, metadata
  //     included: give RocksDB db_paths such as <tier 0 path>/db:SIZE,
  //     <tier 1 path>/db:SIZE, and each table file lands on the tier of the
  //     db_path RocksDB chose for it, and the WAL, MANIFEST etc. on the tier
  //     of the main database directory;
  //   - any other file is placed by the policy rocksdb-temperature: written
  //     kWarm or kCold (last_level_temperature) to the slowest tier, else to
  //     tier 0 (metadata always to tier 0);
  //   - nothing migrates: `migration` is off.
  // A full tier spills, as always; a rename or link keeps the data where it
  // is. Requires policy "rocksdb-temperature" and migration off, which the
  // URI key `placement:rocksdb` sets (a different policy or migration:on
  // with it is an error). Default: kTierFS.
  Placement placement = Placement::kTierFS;
  // The policy's tunables, keyed "POLICY.PARAM" (URI: `mutant.min_age:50000`).
  // A parameter the policy does not have is an error.
  std::map<std::string, std::string> policy_params;
  // Background migration (<tierfs/migration.h> holds the fields and their
  // defaults): migration:on|off sets `enabled`, migration_queue `queue`,
  // migration_rate `rate`, migration_idle_ops `idle_ops`,
  // migration_busy_share `busy_share`, migration_plan_ms `plan_ms`,
  // fast_headroom `fast_headroom_*`, level_room `level_room`, wal_room `wal_room`.
  MigrationOptions migration;
  // Hot-page copies on tier 0 (tierfs/page_copies.h holds the keys and their
  // defaults): copies:on|off sets `enabled`, copy_page `page`, copy_share
  // `share_pct`, copy_inherit `inherit`.
  PageCopyOptions copies;
  // Records every I/O into this file (TierFS's trace format, which tierfs-trace
  // reads and tierfs-sim replays) from open to close. Must lie
  // outside the tiers. Default: "" (no trace). See also StartTrace().
  std::string trace;
  // Writes the per-tier statistics (as `tierfs --json stats`) into this file
  // as one JSON line every `stats_log_ms` while the store is open, and a last
  // one at close: the live counters, which `tierfs stats` from another
  // process cannot see (docs/admin-tool.md has the format). Must lie outside
  // the tiers. Default: "" (none).
  std::string stats_log;
  // Milliseconds between the lines of the statistics log, > 0. Default: 1000.
  uint64_t stats_log_ms = 1000;
  // Writes the per-tier statistics in Prometheus's text format (as `tierfs
  // metrics`) into this file every `metrics_ms` while the store is open, and
  // at close, replacing it atomically (PATH.tmp renamed over it), for
  // node_exporter's textfile collector (`tierfs metrics --help` and
  // docs/admin-tool.md name the metrics). Must lie outside the tiers.
  // Default: "" (none).
  std::string metrics_file;
  // Milliseconds between rewrites of the metrics file, > 0. Default: 10000.
  uint64_t metrics_ms = 10000;
  // Open for inspection only: recover nothing, write nothing, take no lock.
  // Used by the admin tool on a store another process may have open.
  // Default: false.
  bool read_only = false;
  // The file system that holds the tiers' files. nullptr means
  // rocksdb::FileSystem::Default(). Tests put a fault-injecting wrapper here.
  std::shared_ptr<rocksdb::FileSystem> base;
};

}  // namespace tierfs
