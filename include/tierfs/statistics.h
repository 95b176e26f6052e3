// TierFS's statistics and reports: per-tier counters and latency histograms
// (one table, kTierTickers and kTierHistograms), the files and segments of a
// directory with their placement, and the migration engine's queue. Part of
// the public API, installed as <tierfs/statistics.h>. Every function takes a
// file system made by NewTierFileSystem (<tierfs/file_system.h>), or a
// FileSystemWrapper around one; any other is InvalidArgument, a closed store
// an IOError saying so.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rocksdb/file_system.h>
#include <rocksdb/status.h>

#include "tierfs/hint_types.h"

namespace tierfs {

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
enum class StatUnit : uint8_t { kCount, kBytes, kNanos };

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
  kPageHits,
  kPagesCopied,
  kPageCopyBytes,  // gauge
  kPageCopiedBytes,
  kUserReadDeviceNanos,
  kUserReadBytes,
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
    {TierTicker::kPageHits, "page_hits", "pg hits", TickerKind::kCounter, StatUnit::kCount,
     StatGroup::kPlacement, "user reads served by hot-page copies here (also in user_reads)"},
    {TierTicker::kPagesCopied, "pages_copied", "pg copied", TickerKind::kCounter,
     StatUnit::kCount, StatGroup::kPlacement, "hot pages copied here (admitted on reuse)"},
    {TierTicker::kPageCopyBytes, "page_copy_bytes", "pg bytes", TickerKind::kGauge,
     StatUnit::kBytes, StatGroup::kPlacement, "bytes of hot-page copies resident here"},
    {TierTicker::kPageCopiedBytes, "page_copied_bytes", "pg copied B", TickerKind::kCounter,
     StatUnit::kBytes, StatGroup::kPlacement, "bytes written here by hot-page (block) copies"},
    // The benchmarks' cost figure: what the device model charged the
    // application's reads, queueing behind other I/O included, without the
    // CPU time and the sleeps' overshoot that make wall-clock latency noisy
    // on a busy machine. 0 on a tier without a device model.
    {TierTicker::kUserReadDeviceNanos, "user_read_device_ns", "user rd dev ns",
     TickerKind::kCounter, StatUnit::kNanos, StatGroup::kIO,
     "modelled device time of user reads here: queue + service, nanoseconds"},
    // Tier 0's byte share of user reads, the unit of the ceiling it is judged
    // against (tierfs-sim's belady-warm).
    {TierTicker::kUserReadBytes, "user_read_bytes", "user rd", TickerKind::kCounter,
     StatUnit::kBytes, StatGroup::kPlacement, "bytes of reads for the application served here"},
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

// Statistics of every tier of `fs`. Counters (TickerKind::kCounter) cover the
// store's life: those saved in STATS at its last clean close, added back at
// open, plus this open's; gauges are its state now.
rocksdb::Status GetTierStats(const rocksdb::FileSystem* fs,
                             std::vector<TierStats>* stats);

// One line per file for `tierfs ls`.
struct FileInfo {
  std::string name;              // logical path
  FileKind kind = FileKind::kOther;  // by its name (FileKindName() names it)
  int level = -1;                // LSM level from the event listener, -1 unknown
  AccessHint hint = AccessHint::kNone;  // its access hint (AccessHintName() names it)
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

// A move of the migration engine, queued or running.
struct MoveInfo {
  bool manual = false;  // asked for through the API or the admin tool; else the policy's plan
  DataOp op = DataOp::kMigrate;
  uint64_t file_id = 0;  // the file's id, as `tierfs segments` and traces name it
  uint64_t segment = 0;
  int to = 0;  // the destination tier (none for kDropCopy: -1)

  bool operator==(const MoveInfo& o) const {
    return manual == o.manual && op == o.op && file_id == o.file_id && segment == o.segment &&
           to == o.to;
  }
};

// "migrate 7:0 -> tier 0", "drop-copy 7:3": how the admin tool and the log
// name a move (manual or planned is not said).
std::string DescribeMove(const MoveInfo& move);

// The migration engine's queue and counters.
struct MigrationInfo {
  bool enabled = false;              // the store has a migration thread
  std::vector<MoveInfo> queue;       // the manual moves in order, then the planned ones
  std::optional<MoveInfo> running;   // the move in progress, if any
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

// Errors the store could hand to no caller: at open and close, on its own
// threads, or in best-effort work after an operation succeeded (a punch that
// returns space, a leftover's removal). Counted by kind over the store's life
// (saved in STATS at a clean close); each is also a line in its info log,
// <tier0>/meta/LOG, naming what failed. `tierfs errors` prints them.
enum class StoreError : uint32_t {
  kJournalRotation,
  kStatsLoad,
  kTornJournalTail,
  kFinalSave,
  kEvictionMove,
  kMigrationGivenUp,
  kAdminChannel,
  kInfoLog,
  kSpaceNotFreed,
  kCleanup,
  kDroppedFileClose,
  kCopyState,
  kNumErrors  // not an error: the count of them
};
constexpr size_t kNumStoreErrors = size_t(StoreError::kNumErrors);

struct StoreErrorInfo {
  StoreError id;
  // Key in STATS, in the admin channel's responses and in `tierfs --json
  // errors`; the word `tierfs stats` prints. Never rename one (as tickers).
  const char* name;
  const char* help;  // one line for people
};

inline constexpr StoreErrorInfo kStoreErrors[kNumStoreErrors] = {
    {StoreError::kJournalRotation, "journal_rotation",
     "journal rotations that failed: the old generation stays in charge, retried later"},
    {StoreError::kStatsLoad, "stats_load",
     "opens whose STATS file was unreadable or damaged: counters start from what was read"},
    {StoreError::kTornJournalTail, "torn_journal_tail",
     "incomplete last journal records dropped at recovery (never acknowledged as durable)"},
    {StoreError::kFinalSave, "final_save",
     "saves at close that failed: STATS, AGENTS, the journal's last sync, a trace's last write"},
    {StoreError::kEvictionMove, "eviction_move",
     "eviction moves that failed other than Busy or NoSpace: the placement went on without"},
    {StoreError::kMigrationGivenUp, "migration_given_up",
     "migration moves (planned or manual) that failed: the segment stays where it was"},
    {StoreError::kAdminChannel, "admin_channel",
     "admin requests refused (another user's, open to others, a path outside the store), "
     "whose answer could not be written or which could not be removed; a channel not served"},
    {StoreError::kInfoLog, "info_log", "lines the info log could not write"},
    {StoreError::kSpaceNotFreed, "space_not_freed",
     "hole punches and deletes of data no longer needed that failed: "
     "the space stays allocated until the next open frees it"},
    {StoreError::kCleanup, "cleanup",
     "temporary or old files in meta/ not removed (the next journal rotation tries again); "
     "the store's lock not released at close"},
    {StoreError::kDroppedFileClose, "dropped_file_close",
     "files dropped without Close whose backing files failed to close: "
     "writes never synced may be lost"},
    {StoreError::kCopyState, "copy_state",
     "hot-page copies' saved state not written, or not removed before a copy changed: "
     "the copies are forgotten at the next open (or, after a crash, may be taken back)"},
};
static_assert(detail::RowsInEnumOrder(kStoreErrors),
              "kStoreErrors needs one row per StoreError, in enum order");

// A snapshot of the counters, by StoreError.
using StoreErrorCounts = std::array<uint64_t, kNumStoreErrors>;

// The error counters of the store behind `fs` (made by NewTierFileSystem), and
// if `info_log` is given the path of its info log, which says what each was.
rocksdb::Status GetStoreErrors(const rocksdb::FileSystem* fs, StoreErrorCounts* counts,
                               std::string* info_log = nullptr);

// The manual moves among `info.queue` (those the API or the admin tool asked for).
inline size_t QueuedManualMoves(const MigrationInfo& info) {
  size_t n = 0;
  for (const MoveInfo& m : info.queue) n += m.manual;
  return n;
}

}  // namespace tierfs
