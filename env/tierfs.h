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
//            slow-only, lru, cde, hintstor, mutant, rocksdb-levels)
//            | placement (tierfs, rocksdb: see Options::placement)
//            | POLICY.PARAM (a policy's tunable) | migration (on, off)
//            | migration_queue (moves) | migration_rate (bytes/s, e.g. 64M)
//            | migration_idle_ops (reads per ms)
//            | migration_busy_share (percent of a busy device's time)
//            | migration_plan_ms (ms) | trace (file recording every I/O)
//   or    tierfs://config:/path/to/file.conf  (same keys, one per line:
//          `tier = PATH CAPACITY [DEVICE]`, `segment_size = 1M`, `policy = ...`,
//          '#' starts a comment)
// Example: tierfs:///mnt/nvme:10G:nvme,/mnt/hdd:1T:hdd;segment_size:1M
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/listener.h>
#include <rocksdb/status.h>

#include "tierfs/migration.h"

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
  // Policy name: fast-first, fast-only, slow-only, lru, cde, hintstor,
  // mutant, rocksdb-levels. Default: "fast-first".
  std::string policy = "fast-first";
  // Who decides where a file lives. "tierfs": the policy. "rocksdb": the
  // emulation-only mode, in which TierFS follows RocksDB's own tiering so
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
  // with it is an error). Default: "tierfs".
  std::string placement = "tierfs";
  // The policy's tunables, keyed "POLICY.PARAM" (URI: `mutant.min_age:50000`).
  // A parameter the policy does not have is an error.
  std::map<std::string, std::string> policy_params;
  // Background migration (engine/migration.h holds the keys and their
  // defaults): migration:on|off sets `enabled`, migration_queue `queue`,
  // migration_rate `rate`, migration_idle_ops `idle_ops`,
  // migration_busy_share `busy_share`, migration_plan_ms `plan_ms`.
  MigrationOptions migration;
  // Records every I/O into this file (the trace format of
  // env/trace_format.h) from open to close, for the simulator. Must lie
  // outside the tiers. Default: "" (no trace). See also StartTrace().
  std::string trace;
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
  // Adds the samples of `other` to this one.
  void Add(const LatencyHistogram& other);
};

// ---- Per-tier statistics: one table ----
//
// Every per-tier statistic is a row of kTierTickers (counters) or
// kTierHistograms (latencies), as RocksDB's Tickers and TickersNameMap. The
// rows drive everything that names a statistic: GetTierStats, the STATS file
// that carries counters across a clean close, `tierfs --json stats` and the
// columns of `tierfs stats`. Adding a statistic is one enum value, one row (in
// enum order: a static_assert below checks it) and its increment.

// What a ticker counts in (histograms count microseconds, as LatencyHistogram).
enum class StatUnit : uint8_t { kCount, kBytes };

// A counter adds up over the store's life: saved in STATS at a clean close and
// added back at open. A gauge is the tier's current state, rebuilt by recovery.
enum class TickerKind : uint8_t { kCounter, kGauge };

// Which of `tierfs stats`'s tables shows a ticker: I/O, or placement (reads for
// hit ratios, moves, copies). Latency histograms are shown with I/O.
enum class StatGroup : uint8_t { kIO, kPlacement };

enum class TierTicker : uint32_t {
  kSegments,  // gauge
  kReads,
  kReadBytes,
  kWrites,
  kWriteBytes,
  kSyncs,
  kSpillsIn,
  kUserReads,
  kMovesIn,
  kMovesOut,
  kMovedBytesIn,
  kMovedBytesOut,
  kCopiesIn,
  kCopyBytesIn,
  kCopiesDropped,
  kCopies,  // gauge
  kNumTickers  // not a ticker: the count of them
};
constexpr size_t kNumTierTickers = size_t(TierTicker::kNumTickers);

enum class TierHistogram : uint32_t {
  kReadLatency,
  kWriteLatency,
  kSyncLatency,
  kNumHistograms  // not a histogram: the count of them
};
constexpr size_t kNumTierHistograms = size_t(TierHistogram::kNumHistograms);

struct TierTickerInfo {
  TierTicker id;
  // Key in STATS and in `tierfs --json stats`. Never rename one: benchmark
  // scripts read these keys, and STATS files written before must still load.
  const char* name;
  const char* column;  // header of its column in `tierfs stats`
  TickerKind kind;
  StatUnit unit;
  StatGroup group;
  const char* help;  // one line for people (a report's legend, a metric's HELP)
};

struct TierHistogramInfo {
  TierHistogram id;
  const char* name;    // key of the whole histogram in STATS; the same rule as tickers
  const char* prefix;  // `tierfs --json stats` shows <prefix>_avg_us and <prefix>_p99_us
  const char* column;  // `tierfs stats` shows "<column> avg" and "<column> p99"
  const char* help;
};

// One row per TierTicker, in enum order; columns of a group in this order too.
inline constexpr TierTickerInfo kTierTickers[kNumTierTickers] = {
    {TierTicker::kSegments, "segments", "segments", TickerKind::kGauge, StatUnit::kCount,
     StatGroup::kIO, "segments whose home is this tier"},
    {TierTicker::kReads, "reads", "reads", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kIO, "reads served here, user and background (one per segment piece)"},
    {TierTicker::kReadBytes, "read_bytes", "read", TickerKind::kCounter, StatUnit::kBytes,
     StatGroup::kIO, "bytes read"},
    {TierTicker::kWrites, "writes", "writes", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kIO, "writes here (one per segment piece)"},
    {TierTicker::kWriteBytes, "write_bytes", "written", TickerKind::kCounter, StatUnit::kBytes,
     StatGroup::kIO, "bytes written by RocksDB (moves and copies not included)"},
    {TierTicker::kSyncs, "syncs", "syncs", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kIO, "syncs of backing files here (per file, tiers written since its last sync)"},
    {TierTicker::kSpillsIn, "spills_in", "spills", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kIO, "segments placed here because the policy's tier was full"},
    {TierTicker::kUserReads, "user_reads", "user rds", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kPlacement, "reads for the application (not compaction input): hit ratios"},
    {TierTicker::kMovesIn, "moves_in", "moves in", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kPlacement, "segments migrated here (MIGRATE)"},
    {TierTicker::kMovesOut, "moves_out", "out", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kPlacement, "segments migrated away"},
    {TierTicker::kMovedBytesIn, "moved_bytes_in", "moved in", TickerKind::kCounter,
     StatUnit::kBytes, StatGroup::kPlacement, "bytes migrated here"},
    {TierTicker::kMovedBytesOut, "moved_bytes_out", "moved out", TickerKind::kCounter,
     StatUnit::kBytes, StatGroup::kPlacement, "bytes migrated away"},
    {TierTicker::kCopiesIn, "copies_in", "copies", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kPlacement, "extra copies made here (REPLICATE, PREFETCH)"},
    {TierTicker::kCopyBytesIn, "copy_bytes_in", "copied in", TickerKind::kCounter,
     StatUnit::kBytes, StatGroup::kPlacement, "bytes copied here"},
    {TierTicker::kCopiesDropped, "copies_dropped", "dropped", TickerKind::kCounter,
     StatUnit::kCount, StatGroup::kPlacement, "extra copies dropped here"},
    {TierTicker::kCopies, "copies", "resident", TickerKind::kGauge, StatUnit::kCount,
     StatGroup::kPlacement, "extra copies resident here"},
};

// One row per TierHistogram, in enum order. Writes are buffered (write-back)
// unless direct: write latency is what the writer waited; sync latency
// includes the device draining them.
inline constexpr TierHistogramInfo kTierHistograms[kNumTierHistograms] = {
    {TierHistogram::kReadLatency, "read_latency", "read", "rd",
     "read latency, device model included"},
    {TierHistogram::kWriteLatency, "write_latency", "write", "wr",
     "what a writer waited for a write"},
    {TierHistogram::kSyncLatency, "sync_latency", "sync", "sync",
     "sync latency, the device draining buffered writes included"},
};

namespace detail {
// True if row i of `rows` describes enum value i and has a name: a row
// forgotten or out of place fails the static_asserts below.
template <typename Row, size_t N>
constexpr bool RowsInEnumOrder(const Row (&rows)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (size_t(rows[i].id) != i || rows[i].name == nullptr) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::RowsInEnumOrder(kTierTickers),
              "kTierTickers needs one row per TierTicker, in enum order");
static_assert(detail::RowsInEnumOrder(kTierHistograms),
              "kTierHistograms needs one row per TierHistogram, in enum order");

// A snapshot of one tier: what it is, its capacity account, and every ticker
// and histogram, read as stats.Get(TierTicker::kMovesIn).
struct TierStats {
  int index = 0;
  std::string path;
  std::string device;
  uint64_t capacity = 0;
  uint64_t used_bytes = 0;  // charged: resident data + reserved headroom
  std::array<uint64_t, kNumTierTickers> tickers{};                // by TierTicker
  std::array<LatencyHistogram, kNumTierHistograms> histograms{};  // by TierHistogram

  uint64_t Get(TierTicker t) const { return tickers[size_t(t)]; }
  const LatencyHistogram& Get(TierHistogram h) const { return histograms[size_t(h)]; }
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
  int level = -1;                // LSM level from the event listener, -1 unknown
  std::string hint;              // access hint ("none", "hot", ...)
  int pinned_tier = -1;
  uint64_t size = 0;
  std::vector<uint64_t> segments_per_tier;
};
rocksdb::Status ListFiles(const rocksdb::FileSystem* fs, const std::string& dir,
                          std::vector<FileInfo>* files);

// One line per placed segment of a bulk file (SST, WAL, blob) for
// `tierfs segments`: where it is and how it was used. Counters run since the
// segment was placed (saved at a clean close).
struct SegmentReport {
  std::string file;       // logical path
  uint64_t segment = 0;
  int tier = 0;           // home
  int copy_tier = -1;     // extra copy, -1 none
  uint64_t bytes = 0;
  uint64_t user_reads = 0, background_reads = 0, writes = 0, migrations = 0;
  double heat = 0;        // decayed user reads, as of now
};
rocksdb::Status ListSegments(const rocksdb::FileSystem* fs, const std::string& dir,
                             std::vector<SegmentReport>* segments);

// ---- Hints: what the application knows and a file system cannot see ----
//
// Access hints (HintStor's stream hints): "hot", "cold", "write-intensive",
// "read-intensive", "archival", or "none" to clear. For a file, give its path
// and an empty column family; for a column family (every table file the event
// listener attributes to it, now and later), an empty path. Policies read
// them; hints live until the store closes.
rocksdb::Status SetAccessHint(const rocksdb::FileSystem* fs, const std::string& path,
                              const std::string& column_family, const std::string& hint);

// What TierFS's event listener (db/listener.h) reports of a table file: its
// level and column family. Called before the file is created or after.
rocksdb::Status NoteTableFile(const rocksdb::FileSystem* fs, const std::string& path, int level,
                              const std::string& column_family);
// TierFSListener: an EventListener that tells TierFS, for every table file
// RocksDB is about to write, its level and column family. Loadable by name,
// so stock tools can use it: with the plugin preloaded, an OPTIONS file given
// to `db_bench --options_file` containing
//     [DBOptions]
//       listeners={TierFSListener}
// creates it. From C++: options.listeners.push_back(NewTierFSListener()).
// It finds TierFS through the process's open stores; a database not on
// TierFS is left alone.
std::shared_ptr<rocksdb::EventListener> NewTierFSListener();

// What the listener calls: NoteTableFile told to every TierFS store open in this process (the listener
// has no handle on the file system). A store that never sees the file
// forgets the hint.
void NoteTableFileInOpenStores(const std::string& path, int level,
                               const std::string& column_family);

// REDIRECT: pins a file (path, empty column family) or a column family
// (empty path) to `tier`: new segments are written there and existing ones
// are queued to move there. tier -1 unpins. Pins live until the store closes.
rocksdb::Status Pin(const rocksdb::FileSystem* fs, const std::string& path,
                    const std::string& column_family, int tier);

// HintStor's data operations on segments [first, last] of a file:
//   migrate    move them to `tier`
//   replicate  add a durable extra copy on `tier` that serves reads
//   prefetch   the same copy, not durable (gone after a restart)
//   drop-copy  drop the extra copies (tier ignored)
// With wait, the operation runs now in the caller's thread and the status
// says how it went; without, it is queued for the migration thread (which
// runs it while the devices are idle) and OK means queued.
rocksdb::Status ApplyDataOp(const rocksdb::FileSystem* fs, const std::string& op,
                            const std::string& path, int tier, uint64_t first_segment,
                            uint64_t last_segment, bool wait);

// Trace capture: records every I/O the store serves into `path` (outside
// the tiers) until StopTrace or the store closes; replay it with
// `tierfs-sim run --workload=PATH`, convert it with `tierfs-trace`. Busy if
// a capture runs already.
rocksdb::Status StartTrace(const rocksdb::FileSystem* fs, const std::string& path);
// Stops the capture; *records (if not null) is how many I/Os it recorded.
rocksdb::Status StopTrace(const rocksdb::FileSystem* fs, uint64_t* records);

// The migration engine's queue and counters.
struct MigrationInfo {
  bool enabled = false;              // the store has a migration thread
  std::vector<std::string> queue;    // "manual|planned OP FILE_ID:SEGMENT -> TIER", in order
  std::string running;               // the move in progress, "" if none
  uint64_t done = 0, bytes = 0;      // moves completed, bytes they carried
  uint64_t skipped = 0;              // nothing to do, file busy, or no room
  uint64_t given_up = 0;             // devices never idle, or an error
  uint64_t waits = 0;                // chunks that waited for foreground I/O
  // The policy's learned state saved at the last clean close: "loaded from
  // PATH", "none saved", or "refused PATH: why" (another policy's, another
  // tier count, damage; the policy then starts untrained).
  std::string policy_state;
};
rocksdb::Status GetMigrationInfo(const rocksdb::FileSystem* fs, MigrationInfo* info);

// Blocks until the manual operations queued so far have run, at most
// timeout_ms; TimedOut if they have not.
rocksdb::Status WaitForManualMoves(const rocksdb::FileSystem* fs, int timeout_ms);
// Asks the policy to plan now, whatever its cadence (an operator's
// "rebalance now", or a test that wants plans at known points), and waits
// until the moves it queued have run. NotSupported if migration is off,
// TimedOut if moves are still queued after `timeout_ms`.
rocksdb::Status MigrateNow(const rocksdb::FileSystem* fs, int timeout_ms);

}  // namespace tierfs
