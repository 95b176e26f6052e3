#include "env/migrator.h"

#include <algorithm>
#include <chrono>

#include "util/thread_name.h"

namespace tierfs {

namespace {
// How often the thread looks for work when idle (the simulator's thread
// naps as long), and the bounds of its naps while it waits for a busy device.
constexpr auto kIdleWait = std::chrono::nanoseconds(kIdleLookNanos);
constexpr int64_t kMinNapNanos = 50 * 1000;
constexpr int64_t kMaxNapNanos = 1000 * 1000;
}  // namespace

Migrator::Migrator(Store* store, const MigrationOptions& options)
    : store_(store),
      options_(options),
      schedule_(options, DeviceModel::NowNanos()),
      thread_([this] { Run(); }) {
  NameThread(thread_, "tierfs-migrate");
}

Migrator::~Migrator() { Stop(); }

void Migrator::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

bool Migrator::Stopping() {
  MutexLock lock(&mu_);
  return stop_;
}

void Migrator::SubmitManual(const std::vector<Move>& moves) {
  {
    MutexLock lock(&mu_);
    schedule_.SubmitManual(moves);
  }
  cv_.NotifyAll();
}

bool Migrator::WaitManual(int timeout_ms) {
  MutexLock lock(&mu_);
  return cv_.WaitFor(&mu_, std::chrono::milliseconds(timeout_ms), [&] {
    mu_.AssertHeld();
    return schedule_.ManualEmpty() && !running_manual_;
  });
}

Migrator::Info Migrator::GetInfo() {
  MutexLock lock(&mu_);
  Info info;
  info.manual.assign(schedule_.manual().begin(), schedule_.manual().end());
  info.planned.assign(schedule_.planned().begin(), schedule_.planned().end());
  info.running = running_;
  info.running_manual = running_ && running_manual_;
  info.current = current_;
  info.done = done_;
  info.bytes = bytes_;
  info.skipped = skipped_;
  info.given_up = given_up_;
  info.waits = waits_;
  return info;
}

bool Migrator::BeforeChunk(int from, int to, uint64_t bytes) {
  // The rate cap first, then idle devices: foreground I/O goes first. An
  // emulated device says when its queue drains; look again then.
  int64_t want, starved;
  {
    MutexLock lock(&mu_);
    want = schedule_.EarliestStart(DeviceModel::NowNanos());
    starved = schedule_.ForcedStart(want);
  }
  const int64_t now = DeviceModel::NowNanos();
  if (want > now) std::this_thread::sleep_for(std::chrono::nanoseconds(want - now));
  forced_ = false;
  bool waited = false;
  while (!(store_->tier(from).Idle(options_.idle_ops) && store_->tier(to).Idle(options_.idle_ops))) {
    if (!waited) {
      waited = true;
      MutexLock lock(&mu_);
      waits_++;
    }
    if (Stopping()) return false;
    const int64_t now = DeviceModel::NowNanos();
    if (now >= starved) {
      forced_ = true;
      break;
    }
    int64_t until = std::max(store_->tier(from).device.BusyUntil(), store_->tier(to).device.BusyUntil());
    std::this_thread::sleep_for(
        std::chrono::nanoseconds(std::clamp<int64_t>(until - now, kMinNapNanos, kMaxNapNanos)));
  }
  chunk_start_ = DeviceModel::NowNanos();
  chunk_bytes_ = bytes;
  return !Stopping();
}

void Migrator::AfterChunk(int64_t nanos) {
  MutexLock lock(&mu_);
  schedule_.ChunkDone(chunk_start_, chunk_start_ + nanos, chunk_bytes_, forced_);
}

bool Migrator::PlanNow(int timeout_ms) {
  MutexLock lock(&mu_);
  plan_now_ = true;
  cv_.NotifyAll();
  return cv_.WaitFor(&mu_, std::chrono::milliseconds(timeout_ms), [&] {
    mu_.AssertHeld();
    return !plan_now_ && schedule_.planned().empty() && !running_;
  });
}

void Migrator::MaybePlan() {
  const uint64_t now = store_->Now();
  const int64_t wall = DeviceModel::NowNanos();
  size_t room;
  bool asked;  // by PlanNow(), which waits until the moves are queued and run
  bool policy_due = false;  // else the fill alone is due
  {
    MutexLock lock(&mu_);
    asked = plan_now_;
    room = asked ? schedule_.Room()
                 : schedule_.PlanRoom(store_->placement().PlanIntervalRequests(), now, wall,
                                      &policy_due);
    if (asked) policy_due = true;
  }
  std::vector<Move> moves;
  bool more = false;
  if (room > 0) {
    more = store_->placement().Plan(*store_, room, &moves, policy_due);
    store_->NoteEvent(TraceEvent::kPlan, 0, FileKind::kOther, room, moves.size(),
                      policy_due ? -1 : kFillOnlyPlan);
    for (const Move& m : moves) {
      store_->NoteEvent(TraceEvent::kQueued, m.ref.file_id, FileKind::kOther, m.ref.segment,
                        uint64_t(m.op), m.to);
    }
  }
  {
    MutexLock lock(&mu_);
    if (room > 0) schedule_.Planned(now, wall, policy_due, more);
    schedule_.Enqueue(moves);
    if (asked) plan_now_ = false;
  }
  if (asked) cv_.NotifyAll();
}

void Migrator::ReportGivenUp(const Move& move, bool manual, const rocksdb::IOStatus& s) {
  const std::string what = std::string(manual ? "manual " : "planned ") + Store::DescribeMove(move);
  if (s.IsAborted() && Stopping()) {
    // The store is closing: the move is dropped, not failed; the segment
    // stays where it was.
    store_->LogInfo(what + " abandoned: the store is closing");
    return;
  }
  store_->ReportError(StoreError::kMigrationGivenUp, what + " given up", s);
}

void Migrator::Run() {
  for (;;) {
    {
      MutexLock lock(&mu_);
      cv_.WaitFor(&mu_, kIdleWait, [&] {
        mu_.AssertHeld();
        return stop_ || plan_now_ || schedule_.HasWork();
      });
      if (stop_) return;
    }
    MaybePlan();
    Move move;
    bool manual = false;
    {
      MutexLock lock(&mu_);
      if (stop_) return;
      if (!schedule_.Next(&move, &manual)) continue;
      running_manual_ = manual;
      running_ = true;
      current_ = move;
    }
    uint64_t bytes = 0;
    rocksdb::IOStatus s =
        store_->ExecuteMove(move, manual ? MoveCause::kManual : MoveCause::kPlanned, this, &bytes);
    const bool given_up = !s.ok() && !s.IsBusy() && !s.IsNoSpace();
    {
      MutexLock lock(&mu_);
      running_ = running_manual_ = false;
      if (s.ok() && bytes > 0) {
        done_++;
        bytes_ += bytes;
      } else if (!given_up) {
        skipped_++;
      } else {
        given_up_++;
      }
    }
    if (given_up) ReportGivenUp(move, manual, s);
    cv_.NotifyAll();
  }
}

}  // namespace tierfs
