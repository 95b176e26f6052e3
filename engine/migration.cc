#include "engine/migration.h"

#include <algorithm>

namespace tierfs {

size_t MoveScheduler::PlanRoom(uint64_t interval, uint64_t seq, int64_t now,
                               bool* policy_due) const {
  if (policy_due) *policy_due = false;
  if (interval == 0 || planned_.size() >= options_.queue) return 0;
  const bool cadence = seq - last_plan_seq_ >= interval ||
                       (seq > last_plan_seq_ && now - last_plan_time_ >= int64_t(options_.plan_ms) * 1000000);
  if (policy_due) *policy_due = cadence;
  return cadence || more_ ? size_t(options_.queue - planned_.size()) : 0;
}

void MoveScheduler::Enqueue(const std::vector<Move>& moves) {
  for (const Move& m : moves) {
    if (planned_.size() >= options_.queue) break;
    const bool queued = std::any_of(planned_.begin(), planned_.end(),
                                    [&](const Move& q) { return q.ref == m.ref; });
    if (!queued) planned_.push_back(m);
  }
}

bool MoveScheduler::Next(Move* move, bool* manual) {
  std::deque<Move>& q = !manual_.empty() ? manual_ : planned_;
  if (q.empty()) return false;
  *manual = &q == &manual_;
  *move = q.front();
  q.pop_front();
  return true;
}

void MoveScheduler::ChunkDone(int64_t start, int64_t end, uint64_t bytes, bool forced) {
  next_chunk_ = start + int64_t(double(bytes) * 1e9 / double(std::max<uint64_t>(options_.rate, 1)));
  if (forced) {
    // A chunk forced through a busy device cost the foreground its time: the
    // next forced one waits long enough to keep the share.
    const double share = double(std::clamp<uint64_t>(options_.busy_share, 1, 100)) / 100.0;
    forced_gap_ = std::max(kMinForcedGapNanos, int64_t(double(end - start) * (1 - share) / share));
  } else {
    forced_gap_ = kMinForcedGapNanos;
  }
}

}  // namespace tierfs
