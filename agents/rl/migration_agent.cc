#include "agents/rl/migration_agent.h"

#include <algorithm>

#include "agents/rl/placement_agent.h"

namespace tierfs {
namespace rl {

MigrationAgent::MigrationAgent(Agent* agent, int tiers, const MigrationAgentOptions& options)
    : agent_(agent), encoder_(tiers), options_(options) {}

void MigrationAgent::Plan(const StorageView& view, size_t max, std::vector<Move>* moves) {
  if (max == 0) return;
  const uint64_t now = view.Now();
  // Candidates, among segments not placed or moved within min_age requests:
  // the cold_share with the highest access and migration intervals (the
  // paper's priority: room to make on fast tiers), the rest the hottest not
  // on tier 0 (promotions; the paper's agent places every written page and
  // sees hot data at once, ours places a segment once and would never be
  // shown a hot segment on a slow tier).
  candidates_.clear();
  hot_.clear();
  std::vector<SegmentRef> queued;  // planned earlier, not made yet: not judged again
  size_t budget = max;             // moves this plan may make (the warm-up's bound)
  {
    MutexLock lock(&mu_);
    queued = in_flight_;
    if (learned_ < options_.warmup) budget = std::min(max, options_.warmup_moves);
  }
  view.ForEachSegment([&](const SegmentInfo& s) {
    if (s.busy || s.hints.pinned_tier >= 0) return;
    if (!queued.empty() && std::find(queued.begin(), queued.end(), s.ref) != queued.end()) return;
    const uint64_t since = now - std::min(now, std::max(s.stats.placed, s.stats.last_migration));
    if (since < options_.min_age) return;
    const uint64_t idle = s.stats.last_access ? now - std::min(now, s.stats.last_access) : since;
    candidates_.push_back({double(std::max(s.stats.access_interval, idle)) + double(since), s});
    if (s.tier > 0 && s.stats.user_reads + s.stats.writes > 0) {
      hot_.push_back({s.stats.HeatAt(now), s});
    }
  });
  auto first = [](const Candidate& a, const Candidate& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.info.ref.file_id != b.info.ref.file_id) return a.info.ref.file_id < b.info.ref.file_id;
    return a.info.ref.segment < b.info.ref.segment;
  };
  const size_t cold = std::min(candidates_.size(),
                               size_t(double(options_.candidates) * options_.cold_share + 0.5));
  std::partial_sort(candidates_.begin(), candidates_.begin() + long(cold), candidates_.end(), first);
  candidates_.resize(cold);
  const size_t hot = std::min(hot_.size(), options_.candidates - cold);
  std::partial_sort(hot_.begin(), hot_.begin() + long(hot), hot_.end(), first);
  for (size_t i = 0; i < hot; ++i) {
    const bool listed = std::any_of(candidates_.begin(), candidates_.end(), [&](const Candidate& c) {
      return c.info.ref == hot_[i].info.ref;
    });
    if (!listed) candidates_.push_back(hot_[i]);
  }
  const size_t n = candidates_.size();

  // The moves run one at a time in the order given, each needing room on
  // its destination when it starts. So demotions go first; a promotion into
  // a tier without room takes with it the demotion of the coldest candidate
  // there that is colder than the promoted segment (the candidates come
  // coldest first), else it is not made. What is recorded for learning is
  // what was done: a promotion that could not be made is a decision to stay,
  // and a demotion made for room is the demoted segment's decision.
  const int tiers = view.NumTiers();
  const uint64_t seg = view.SegmentSize();
  std::vector<int64_t> room(static_cast<size_t>(tiers));
  for (int t = 0; t < tiers; ++t) room[size_t(t)] = int64_t(view.Free(t));
  std::vector<Move> demotions, promotions;
  auto move_to = [](const SegmentInfo& s, int to) {
    Move m;
    m.op = Move::kMigrate;
    m.ref = s.ref;
    m.to = to;
    return m;
  };

  Observation o;
  PlacementAgent::FreeShares(view, &o.free_share);
  std::vector<Decision> decisions(n);
  std::vector<bool> moving(n, false);
  for (size_t i = 0; i < n && demotions.size() + promotions.size() < max; ++i) {
    if (moving[i]) continue;  // already demoted to make room
    const SegmentInfo& s = candidates_[i].info;
    Decision& d = decisions[i];
    Judge(s, now, &o, &d);
    d.action = std::min(agent_->Act(d.state.data()), tiers - 1);
    if (d.action == s.tier) continue;
    if (demotions.size() + promotions.size() >= budget) {
      d.action = s.tier;  // warming up: no more moves this plan
      continue;
    }
    const int to = d.action;
    if (to > s.tier) {
      if (room[size_t(to)] < int64_t(seg)) {
        d.action = s.tier;
        continue;
      }
      room[size_t(to)] -= int64_t(seg);
      room[size_t(s.tier)] += int64_t(seg);
      demotions.push_back(move_to(s, to));
      moving[i] = d.moved = true;
      continue;
    }
    // A promotion.
    if (room[size_t(to)] < int64_t(seg)) {
      const double heat = s.stats.HeatAt(now);
      size_t victim = n;
      for (size_t j = 0; j < n && victim == n; ++j) {
        const SegmentInfo& v = candidates_[j].info;
        if (j != i && !moving[j] && v.tier == to && v.stats.HeatAt(now) < heat &&
            room[size_t(to + 1)] >= int64_t(seg)) {
          victim = j;
        }
      }
      if (victim == n || demotions.size() + promotions.size() + 2 > budget) {
        d.action = s.tier;
        continue;
      }
      const SegmentInfo& v = candidates_[victim].info;
      room[size_t(to + 1)] -= int64_t(seg);
      room[size_t(to)] += int64_t(seg);
      promotions.push_back(move_to(v, to + 1));
      moving[victim] = true;
      if (victim > i) {
        Observation vo = o;
        Judge(v, now, &vo, &decisions[victim]);  // not judged yet: the state it is demoted in
      }
      decisions[victim].action = to + 1;
      decisions[victim].moved = true;
    }
    room[size_t(to)] -= int64_t(seg);
    room[size_t(s.tier)] += int64_t(seg);
    promotions.push_back(move_to(s, to));
    moving[i] = d.moved = true;
  }
  moves->insert(moves->end(), demotions.begin(), demotions.end());
  moves->insert(moves->end(), promotions.begin(), promotions.end());
  // Decisions never judged (the budget ran out) are dropped.
  decisions.erase(std::remove_if(decisions.begin(), decisions.end(),
                                 [](const Decision& d) { return d.state.empty(); }),
                  decisions.end());

  MutexLock lock(&mu_);
  // The decisions rewarded last time learn the state that followed them.
  if (!decisions.empty()) {
    for (Transition& t : rewarded_) {
      t.next = decisions.front().state;
      agent_->Learn(std::move(t));
    }
    learned_ += rewarded_.size();
    rewarded_.clear();
  }
  for (Decision& d : decisions) {
    moves_ += d.moved;
    window_.push_back(std::move(d));
  }
  // A window closes after x moves, or after as many decisions as four scans
  // make when the agent keeps choosing to stay (those decisions learn too).
  for (const Move& m : *moves) in_flight_.push_back(m.ref);
  const bool full = moves_ >= options_.reward_moves || window_.size() >= 4 * options_.candidates;
  if (full && phase_.load(std::memory_order_relaxed) == kCollecting) {
    // The reward measures the requests after the moves are made, not after
    // they are planned: they wait in the queue for idle devices.
    waited_ = 0;
    phase_.store(kAwaiting, std::memory_order_relaxed);
  }
  if (in_flight_.empty()) StartMeasuring();
}

void MigrationAgent::StartMeasuring() {
  if (phase_.load(std::memory_order_relaxed) != kAwaiting) return;
  in_flight_.clear();  // moves the queue never took are not waited for
  measured_ = 0;
  latency_sum_ns_ = 0;
  phase_.store(kMeasuring, std::memory_order_relaxed);
}

void MigrationAgent::OnMoveDone(const Move& move, bool made) {
  (void)made;  // a skipped move is waited for all the same: the agent learns its decision
  MutexLock lock(&mu_);
  auto it = std::find(in_flight_.begin(), in_flight_.end(), move.ref);
  if (it == in_flight_.end()) return;
  in_flight_.erase(it);
  if (in_flight_.empty()) StartMeasuring();
}

void MigrationAgent::Judge(const SegmentInfo& s, uint64_t now, Observation* o, Decision* d) const {
  o->write = s.stats.writes > s.stats.user_reads;
  o->bytes = s.bytes;
  o->access_interval = s.stats.access_interval;
  o->access_count = uint64_t(s.stats.user_reads) + s.stats.writes;
  o->migration_interval = now - std::min(now, std::max(s.stats.placed, s.stats.last_migration));
  o->tier = s.tier;
  d->state.resize(size_t(encoder_.size()));
  encoder_.Encode(*o, d->state.data());
  d->intervals = (double(o->access_interval) + double(o->migration_interval)) / 2;
}

void MigrationAgent::OnRequest(const Request& request, uint64_t latency_ns) {
  if (request.type == IoType::kBackgroundRead) return;
  if (options_.latency_unit_us <= 0) mean_latency_.Add(request.seq, latency_ns);
  if (phase_.load(std::memory_order_relaxed) == kCollecting) return;
  MutexLock lock(&mu_);
  const int phase = phase_.load(std::memory_order_relaxed);
  if (phase == kAwaiting) {
    if (++waited_ >= options_.reward_wait) StartMeasuring();
    return;
  }
  if (phase != kMeasuring) return;
  latency_sum_ns_ += double(latency_ns);
  if (++measured_ < options_.reward_requests) return;
  phase_.store(kCollecting, std::memory_order_relaxed);
  double moved_intervals = 0;
  uint64_t moved = 0;
  for (const Decision& d : window_) {
    if (d.moved) {
      moved_intervals += d.intervals;
      moved++;
    }
  }
  const double mean = moved ? moved_intervals / double(moved) : 0;
  const double penalty = options_.penalty / (1.0 + mean / options_.penalty_interval);
  double reward;
  if (options_.coordinated) {
    // Equation 3: n / sum(L), in latency units, minus the penalty. The
    // adaptive unit is the running mean latency, so the reward is near 1
    // for moves that change nothing on any device, above it for moves that
    // speed the next requests up (capped at 2), below for those that slow
    // them down.
    const double mean_latency = std::max(1.0, latency_sum_ns_ / double(measured_));
    if (options_.latency_unit_us > 0) {
      reward = std::min(1.0, options_.latency_unit_us * 1000.0 / mean_latency) - penalty;
    } else {
      const double unit = mean_latency_.Get();
      // Linear in the measured latency (1 - its relative change), not
      // unit / latency: the mean of a ratio of noisy latencies is biased
      // upwards (Jensen), which paid moves that changed nothing.
      reward = std::clamp(2.0 - mean_latency / std::max(1.0, unit), 0.0, 2.0) - penalty;
    }
    if (options_.stay_baseline) {
      Reward(reward, 1.0);
      return;
    }
  } else {
    reward = -double(moved) / double(std::max<size_t>(1, window_.size())) - penalty;
  }
  Reward(reward, reward);
}

void MigrationAgent::Reward(double moved, double stayed) {
  for (Decision& d : window_) {
    Transition t;
    t.state = std::move(d.state);
    t.action = d.action;
    t.reward = float(d.moved ? moved : stayed);
    rewarded_.push_back(std::move(t));
  }
  window_.clear();
  moves_ = 0;
}

}  // namespace rl
}  // namespace tierfs
