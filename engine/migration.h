// The migration engine's rules, free of threads, RocksDB and wall time: the
// live migration thread (env/migrator.*) runs them with the clock and real
// copies, the simulator (tools/sim/) with virtual time. Every time here is an
// argument, in nanoseconds on the caller's clock.
//
//   - Moves wait in two queues: manual ones (pins, the admin tool, the API),
//     unbounded and first, and the policy's, at most `queue` (a move already
//     queued for the same segment is not queued twice).
//   - The policy plans every PlanIntervalRequests() requests by the request
//     clock, and at least every `plan_ms` while requests come (a slow device
//     may serve too few requests for the interval to pass), when its queue has
//     room: PlanRoom() says how many moves to ask for, 0 if not now. The
//     migration thread asks after a look that found nothing to run only
//     kIdleLookNanos later, not at the next request. (After a move the
//     store's thread asks at once only while moves wait in the queue; the
//     simulator's asks at once always: a known difference.)
//   - A move is copied in chunks of kMoveChunk. A chunk starts when both
//     devices are idle, no sooner than `rate` allows after the previous one
//     (EarliestStart). A closed loop keeps a slow device busy without a gap,
//     and migration must not starve exactly when it matters: a chunk that has
//     waited ForcedStart() goes anyway, and the next forced one waits long
//     enough that forced chunks take at most `busy_share` percent of the time
//     (and at least kMinForcedGapNanos apart).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "agents/policy.h"
#include "tierfs/migration.h"

namespace tierfs {

// Bytes copied per chunk: the most foreground I/O waits behind a move.
constexpr uint64_t kMoveChunk = 256 << 10;
// How long the migration thread naps when it found no move to run.
constexpr int64_t kIdleLookNanos = 20 * 1000 * 1000;
// The least time between two chunks forced through busy devices.
constexpr int64_t kMinForcedGapNanos = 10 * 1000 * 1000;

// Not thread-safe: the live migrator guards it with its own mutex.
class MoveScheduler {
 public:
  // `start`: the time the engine starts (the first plan by time is due
  // plan_ms after it).
  MoveScheduler(const MigrationOptions& options, int64_t start)
      : options_(options), last_plan_time_(start) {}
  const MigrationOptions& options() const { return options_; }

  // ---- queues ----
  void SubmitManual(const std::vector<Move>& moves) {
    manual_.insert(manual_.end(), moves.begin(), moves.end());
  }
  // How many moves to ask the policy for now: 0 if it plans never
  // (`interval` 0), is not due at request `seq` and time `now` (nor had more
  // to give last time), or its queue is full.
  // *policy_due (if given) says whether the policy's own cadence is due; if
  // not, only the fill that had more to give is (PlacementEngine::Plan).
  size_t PlanRoom(uint64_t interval, uint64_t seq, int64_t now, bool* policy_due = nullptr) const;
  // Free places in the policy's queue.
  size_t Room() const {
    return planned_.size() < options_.queue ? size_t(options_.queue - planned_.size()) : 0;
  }
  // A plan ran at (seq, now): the policy's (`policy_ran`; its cadence starts
  // again) or the fill's alone. `more`: the fill had more than room, so the
  // next plan is due as soon as the queue has room again.
  void Planned(uint64_t seq, int64_t now, bool policy_ran = true, bool more = false) {
    if (policy_ran) {
      last_plan_seq_ = seq;
      last_plan_time_ = now;
    }
    more_ = more;
    plans_++;
  }
  // Queues the policy's moves, most wanted first, up to the queue's size,
  // leaving out segments already queued.
  void Enqueue(const std::vector<Move>& moves);
  // The next move to run, manual ones first; false if none.
  bool Next(Move* move, bool* manual);
  bool HasWork() const { return !manual_.empty() || !planned_.empty(); }
  bool ManualEmpty() const { return manual_.empty(); }
  const std::deque<Move>& manual() const { return manual_; }
  const std::deque<Move>& planned() const { return planned_; }
  uint64_t plans() const { return plans_; }

  // ---- chunk pacing ----
  // The earliest a chunk may start when the mover is free at `free_at`.
  int64_t EarliestStart(int64_t free_at) const { return free_at > next_chunk_ ? free_at : next_chunk_; }
  // When a chunk wanted at `want` goes even though the devices are busy.
  int64_t ForcedStart(int64_t want) const { return want + forced_gap_; }
  // A chunk of `bytes` ran from `start` to `end`; `forced` if it went
  // through busy devices.
  void ChunkDone(int64_t start, int64_t end, uint64_t bytes, bool forced);

 private:
  const MigrationOptions options_;
  std::deque<Move> manual_, planned_;
  uint64_t last_plan_seq_ = 0;
  int64_t last_plan_time_;
  uint64_t plans_ = 0;
  bool more_ = false;
  int64_t next_chunk_ = 0;  // the rate cap
  int64_t forced_gap_ = kMinForcedGapNanos;
};

}  // namespace tierfs
