// Errors the store cannot hand to any caller — they happen at open, at close,
// on a background thread, or in best-effort work after the caller's operation
// succeeded (a punch or a delete that returns space, a leftover's removal) —
// counted by kind, store-wide. Each is also one line in the info log
// (env/info_log.h) naming what failed and the status; Store::ReportError does
// both. A status the library gives up on is reported here, or its site says
// why nothing is lost.
//
// As the per-tier tickers (kTierTickers in tierfs/statistics.h): one enum, one row per
// value naming it, and everything that shows a counter — the STATS file, the
// admin channel's responses, `tierfs stats` and `tierfs errors` — goes by the
// rows. Adding a kind is one enum value, one row (in enum order: the
// static_assert below checks it) and its ReportError call. Counters cover the
// store's life: saved in STATS at a clean close and added back at open.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "tierfs/statistics.h"  // detail::RowsInEnumOrder

namespace tierfs {

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

// The live counters. Lock-free: any thread may Add.
class StoreErrorCounters {
 public:
  void Add(StoreError e, uint64_t n = 1) {
    counts_[size_t(e)].fetch_add(n, std::memory_order_relaxed);
  }
  void AddAll(const StoreErrorCounts& counts) {
    for (size_t i = 0; i < kNumStoreErrors; ++i) Add(StoreError(i), counts[i]);
  }
  StoreErrorCounts Snapshot() const {
    StoreErrorCounts out{};
    for (size_t i = 0; i < kNumStoreErrors; ++i) out[i] = counts_[i].load(std::memory_order_relaxed);
    return out;
  }

 private:
  std::array<std::atomic<uint64_t>, kNumStoreErrors> counts_{};
};

// {name: count} for every kind.
nlohmann::json StoreErrorsToJson(const StoreErrorCounts& counts);
// The inverse; a kind missing (or not a count) is zero, unknown keys are
// ignored, anything but an object is all zeros.
StoreErrorCounts StoreErrorsFromJson(const nlohmann::json& j);
// "none", or the kinds that occurred: "stats_load 1, eviction_move 2".
std::string StoreErrorsLine(const StoreErrorCounts& counts);

}  // namespace tierfs
