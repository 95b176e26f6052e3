// Errors the store cannot hand to any caller — they happen at open, at close,
// on a background thread, or in best-effort work after the caller's operation
// succeeded (a punch or a delete that returns space, a leftover's removal) —
// counted by kind, store-wide. Each is also one line in the info log
// (env/info_log.h) naming what failed and the status; Store::ReportError does
// both. A status the library gives up on is reported here, or its site says
// why nothing is lost.
//
// As the per-tier tickers: one enum, one row per value naming it (StoreError and
// kStoreErrors, public in <tierfs/statistics.h>), and everything that shows a counter — the STATS file, the
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

#include "tierfs/statistics.h"  // StoreError, kStoreErrors, StoreErrorCounts

namespace tierfs {

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
