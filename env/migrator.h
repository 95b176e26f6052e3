// The migration engine: a short queue of moves and one thread that executes
// them while the devices are idle, throttled, giving way to foreground I/O.
//
// Moves come from three places: the policy's Plan() (every
// PlanIntervalRequests() requests, and at least every `plan_ms` while
// requests come: a slow device may serve too few requests for the policy's
// interval to pass; at most `queue` moves waiting), pins
// (REDIRECT of existing data) and manual operations (admin tool, API). Manual
// moves wait in their own queue, unbounded, and run first.
//
// The rules — queues, planning cadence, rate cap, idle-first and the busy
// share — are the engine's (engine/migration.h), which the simulator runs
// too; this class gives them a thread, the clock and real copies. Before
// every chunk a move copies (Store::Governor), the thread waits until both
// devices are idle: an emulated device's queue is empty, a real device serves
// fewer than `idle_ops` reads per millisecond.
#pragma once

#include <cstdint>
#include <deque>
#include <thread>

#include "engine/migration.h"
#include "env/store.h"
#include "util/mutex.h"

namespace tierfs {

class Migrator : public Store::Governor {
 public:
  Migrator(Store* store, const MigrationOptions& options);
  ~Migrator() override;  // Stop()

  // Stops the thread and joins it: a move in progress gives up at its next
  // chunk, queued moves stay queued and never run. Idempotent; one caller
  // at a time (Store::Close, then the destructor).
  void Stop() EXCLUDES(mu_);

  // Queues moves to run before the policy's. Never refused.
  void SubmitManual(const std::vector<Move>& moves) EXCLUDES(mu_);
  // Blocks until no manual move is queued or running, or `timeout_ms` passes;
  // false on timeout.
  bool WaitManual(int timeout_ms) EXCLUDES(mu_);
  // Plans now, whatever the cadence, and blocks until the planned queue is
  // empty and no move runs, or `timeout_ms` passes; false on timeout.
  bool PlanNow(int timeout_ms) EXCLUDES(mu_);

  struct Info {
    std::vector<Move> manual, planned;  // waiting, in order
    bool running = false;
    bool running_manual = false;
    Move current;
    uint64_t done = 0, bytes = 0;  // moves completed and bytes they carried
    uint64_t skipped = 0;          // nothing to do, busy file, or no room
    uint64_t given_up = 0;         // devices never idle, or failed
    uint64_t waits = 0;            // chunks that waited for foreground I/O to pass
  };
  Info GetInfo() EXCLUDES(mu_);

  bool BeforeChunk(int from, int to, uint64_t bytes) override EXCLUDES(mu_);
  void AfterChunk(int64_t nanos) override EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);
  void MaybePlan() EXCLUDES(mu_);
  // Logs and counts a move that failed (Store::ReportError); one abandoned
  // because the store closes is only logged.
  void ReportGivenUp(const Move& move, bool manual, const rocksdb::IOStatus& s);
  bool Stopping() EXCLUDES(mu_);

  Store* const store_;
  const MigrationOptions options_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  MoveScheduler schedule_ GUARDED_BY(mu_);
  bool running_ GUARDED_BY(mu_) = false;
  bool running_manual_ GUARDED_BY(mu_) = false;
  bool plan_now_ GUARDED_BY(mu_) = false;  // PlanNow() asked for a plan
  Move current_ GUARDED_BY(mu_);
  uint64_t done_ GUARDED_BY(mu_) = 0;
  uint64_t bytes_ GUARDED_BY(mu_) = 0;
  uint64_t skipped_ GUARDED_BY(mu_) = 0;
  uint64_t given_up_ GUARDED_BY(mu_) = 0;
  uint64_t waits_ GUARDED_BY(mu_) = 0;
  // The chunk in progress: when it started and whether it was forced through
  // busy devices. Migration thread only.
  int64_t chunk_start_ = 0;
  uint64_t chunk_bytes_ = 0;
  bool forced_ = false;
  std::thread thread_;
};

}  // namespace tierfs
