#include "env/migrator.h"

#include <algorithm>
#include <chrono>

#include "env/admin_channel.h"

namespace tierfs {

namespace {
// A device that is never idle (a closed-loop benchmark keeps a slow device
// busy all the time) would starve migration forever, at exactly the moment it
// matters. Under saturation a chunk goes anyway once the migration thread has
// waited long enough for its chunks to take no more than `busy_share` of the
// time, and at least this long.
constexpr int64_t kMinForcedGapNanos = 10 * 1000 * 1000;
}  // namespace

Migrator::Migrator(Store* store, const MigratorOptions& options)
    : store_(store), options_(options), thread_([this] { Run(); }) {}

Migrator::~Migrator() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool Migrator::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void Migrator::SubmitManual(const std::vector<Move>& moves) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    manual_.insert(manual_.end(), moves.begin(), moves.end());
  }
  cv_.notify_all();
}

bool Migrator::WaitManual(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [&] { return manual_.empty() && !running_manual_; });
}

Migrator::Info Migrator::GetInfo() {
  std::lock_guard<std::mutex> lock(mu_);
  Info info;
  info.manual.assign(manual_.begin(), manual_.end());
  info.planned.assign(planned_.begin(), planned_.end());
  info.running = running_;
  info.current = current_;
  info.done = done_;
  info.bytes = bytes_;
  info.skipped = skipped_;
  info.given_up = given_up_;
  info.waits = waits_;
  return info;
}

bool Migrator::BeforeChunk(int from, int to, uint64_t bytes) {
  // The rate cap: chunks start no closer than bytes/rate apart.
  int64_t now = DeviceModel::NowNanos();
  int64_t start = std::max(now, next_chunk_ns_);
  next_chunk_ns_ = start + int64_t(double(bytes) * 1e9 / double(options_.rate));
  if (start > now) std::this_thread::sleep_for(std::chrono::nanoseconds(start - now));
  // Idle devices: foreground I/O goes first. An emulated device says when its
  // queue drains; look again then (plus a little, for a request that follows
  // at once).
  const int64_t starved = DeviceModel::NowNanos() + next_forced_gap_ns_;
  forced_ = false;
  bool waited = false;
  while (!(store_->tier(from).Idle(options_.idle_ops) && store_->tier(to).Idle(options_.idle_ops))) {
    if (!waited) {
      waited = true;
      std::lock_guard<std::mutex> lock(mu_);
      waits_++;
    }
    if (Stopping()) return false;
    const int64_t now = DeviceModel::NowNanos();
    if (now >= starved) {
      forced_ = true;
      break;
    }
    int64_t until = std::max(store_->tier(from).device.BusyUntil(), store_->tier(to).device.BusyUntil());
    int64_t nap = std::clamp<int64_t>(until - now, 50 * 1000, 1000 * 1000);
    std::this_thread::sleep_for(std::chrono::nanoseconds(nap));
  }
  return !Stopping();
}

void Migrator::AfterChunk(int64_t nanos) {
  // A chunk forced through a busy device costs the foreground its time: the
  // next forced one waits long enough to keep the share.
  if (forced_) {
    const double share = double(options_.busy_share) / 100.0;
    next_forced_gap_ns_ =
        std::max(kMinForcedGapNanos, int64_t(double(nanos) * (1 - share) / share));
  } else {
    next_forced_gap_ns_ = kMinForcedGapNanos;
  }
}

void Migrator::MaybePlan() {
  Policy& policy = store_->policy();
  const uint64_t interval = policy.PlanIntervalRequests();
  const uint64_t now = store_->Now();
  // Every `interval` requests, the policy's clock; and, for a slow device
  // that serves few requests, at least every plan_ms while requests come.
  const int64_t wall = DeviceModel::NowNanos();
  const bool due = now - last_plan_ >= interval ||
                   (now > last_plan_ && wall - last_plan_wall_ >= int64_t(options_.plan_ms) * 1000000);
  if (interval == 0 || !due) return;
  size_t room;
  {
    std::lock_guard<std::mutex> lock(mu_);
    room = planned_.size() < options_.queue ? size_t(options_.queue - planned_.size()) : 0;
  }
  if (room == 0) return;
  last_plan_ = now;
  last_plan_wall_ = wall;
  std::vector<Move> moves;
  policy.Plan(*store_, room, &moves);
  std::lock_guard<std::mutex> lock(mu_);
  for (const Move& m : moves) {
    if (planned_.size() >= options_.queue) break;
    bool queued = std::any_of(planned_.begin(), planned_.end(),
                              [&](const Move& q) { return q.ref == m.ref; });
    if (!queued) planned_.push_back(m);
  }
}

void Migrator::Run() {
  int64_t next_admin_poll = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(20),
                   [&] { return stop_ || !manual_.empty() || !planned_.empty(); });
      if (stop_) return;
    }
    if (DeviceModel::NowNanos() >= next_admin_poll) {
      ServeAdminRequests(store_);  // requests from the admin tool in another process
      next_admin_poll = DeviceModel::NowNanos() + 100 * 1000 * 1000;
    }
    MaybePlan();
    Move move;
    bool manual = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      if (!manual_.empty()) {
        move = manual_.front();
        manual_.pop_front();
        running_manual_ = manual = true;
      } else if (!planned_.empty()) {
        move = planned_.front();
        planned_.pop_front();
      } else {
        continue;
      }
      running_ = true;
      current_ = move;
    }
    uint64_t bytes = 0;
    rocksdb::IOStatus s = store_->ExecuteMove(move, this, &bytes);
    if (!manual) store_->policy().OnMoveDone(move, s.ok() && bytes > 0);
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_ = running_manual_ = false;
      if (s.ok() && bytes > 0) {
        done_++;
        bytes_ += bytes;
      } else if (s.ok() || s.IsBusy() || s.IsNoSpace()) {
        skipped_++;
      } else {
        given_up_++;
      }
    }
    cv_.notify_all();
  }
}

}  // namespace tierfs
