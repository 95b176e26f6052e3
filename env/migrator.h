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
// Before every chunk a move copies (Store::Governor), the thread waits until
// both devices are idle — an emulated device's queue is empty, a real
// device serves fewer than `idle_ops` reads per millisecond — and until the
// rate cap allows it. A closed loop keeps a slow device busy without a gap,
// and migration must not starve exactly when it matters: when the devices
// stay busy, chunks go anyway, spaced so that they take at most `busy_share`
// percent of the time (and at least 10 ms apart).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "env/store.h"

namespace tierfs {

struct MigratorOptions {
  uint64_t queue = 10;
  uint64_t rate = 64 << 20;  // bytes per second
  uint64_t idle_ops = 8;     // reads per millisecond
  uint64_t busy_share = 10;  // percent of a busy device's time moves may take
  uint64_t plan_ms = 1000;   // plan at least this often while requests come
};

class Migrator : public Store::Governor {
 public:
  Migrator(Store* store, const MigratorOptions& options);
  ~Migrator() override;  // stops and joins the thread

  // Queues moves to run before the policy's. Never refused.
  void SubmitManual(const std::vector<Move>& moves);
  // Blocks until no manual move is queued or running, or `timeout_ms` passes;
  // false on timeout.
  bool WaitManual(int timeout_ms);

  struct Info {
    std::vector<Move> manual, planned;  // waiting, in order
    bool running = false;
    Move current;
    uint64_t done = 0, bytes = 0;  // moves completed and bytes they carried
    uint64_t skipped = 0;          // nothing to do, busy file, or no room
    uint64_t given_up = 0;         // devices never idle, or failed
    uint64_t waits = 0;            // chunks that waited for foreground I/O to pass
  };
  Info GetInfo();

  bool BeforeChunk(int from, int to, uint64_t bytes) override;
  void AfterChunk(int64_t nanos) override;

 private:
  void Run();
  void MaybePlan();
  bool Stopping();

  Store* const store_;
  const MigratorOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<Move> manual_, planned_;
  bool running_ = false;
  bool running_manual_ = false;
  Move current_;
  uint64_t done_ = 0, bytes_ = 0, skipped_ = 0, given_up_ = 0, waits_ = 0;
  uint64_t last_plan_ = 0;          // request sequence of the last Plan()
  int64_t last_plan_wall_ = 0;      // and when it ran
  int64_t next_chunk_ns_ = 0;       // the rate cap: earliest start of the next chunk
  // Busy devices: how long the next chunk waits for idleness before it goes
  // anyway, and whether the current chunk went that way.
  int64_t next_forced_gap_ns_ = 10 * 1000 * 1000;
  bool forced_ = false;
  std::thread thread_;
};

}  // namespace tierfs
