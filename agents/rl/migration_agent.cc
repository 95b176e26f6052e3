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
  view.ForEachSegment([&](const SegmentInfo& s) {
    if (s.busy || s.hints.pinned_tier >= 0) return;
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

  Observation o;
  PlacementAgent::FreeShares(view, &o.free_share);
  std::vector<Decision> decisions;
  for (size_t i = 0; i < n && moves->size() < max; ++i) {
    const SegmentInfo& s = candidates_[i].info;
    o.write = s.stats.writes > s.stats.user_reads;
    o.bytes = s.bytes;
    o.access_interval = s.stats.access_interval;
    o.access_count = uint64_t(s.stats.user_reads) + s.stats.writes;
    o.migration_interval = now - std::min(now, std::max(s.stats.placed, s.stats.last_migration));
    o.tier = s.tier;
    Decision d;
    d.state.resize(size_t(encoder_.size()));
    encoder_.Encode(o, d.state.data());
    d.action = std::min(agent_->Act(d.state.data()), view.NumTiers() - 1);
    d.intervals = (double(o.access_interval) + double(o.migration_interval)) / 2;
    if (d.action != s.tier) {
      Move m;
      m.op = Move::kMigrate;
      m.ref = s.ref;
      m.to = d.action;
      moves->push_back(m);
      d.moved = true;
    }
    decisions.push_back(std::move(d));
  }

  std::lock_guard<std::mutex> lock(mu_);
  // The decisions rewarded last time learn the state that followed them.
  if (!decisions.empty()) {
    for (Transition& t : rewarded_) {
      t.next = decisions.front().state;
      agent_->Learn(std::move(t));
    }
    rewarded_.clear();
  }
  for (Decision& d : decisions) {
    moves_ += d.moved;
    window_.push_back(std::move(d));
  }
  // A window closes after x moves, or after as many decisions as four scans
  // make when the agent keeps choosing to stay (those decisions learn too).
  const bool full = moves_ >= options_.reward_moves || window_.size() >= 4 * options_.candidates;
  if (full && !measuring_.load(std::memory_order_relaxed)) {
    measured_ = 0;
    latency_sum_ns_ = 0;
    measuring_.store(true, std::memory_order_relaxed);
  }
}

void MigrationAgent::OnRequest(const Request& request, uint64_t latency_ns) {
  if (request.type == IoType::kBackgroundRead) return;
  if (!measuring_.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!measuring_.load(std::memory_order_relaxed)) return;
  latency_sum_ns_ += double(latency_ns);
  if (++measured_ < options_.reward_requests) return;
  measuring_.store(false, std::memory_order_relaxed);
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
    // Equation 3: n / sum(L), in latency units, minus the penalty.
    const double mean_latency = std::max(1.0, latency_sum_ns_ / double(measured_));
    reward = std::min(1.0, options_.latency_unit_us * 1000.0 / mean_latency) - penalty;
  } else {
    reward = -double(moved) / double(std::max<size_t>(1, window_.size())) - penalty;
  }
  Reward(reward);
}

void MigrationAgent::Reward(double reward) {
  for (Decision& d : window_) {
    Transition t;
    t.state = std::move(d.state);
    t.action = d.action;
    t.reward = float(reward);
    rewarded_.push_back(std::move(t));
  }
  window_.clear();
  moves_ = 0;
}

}  // namespace rl
}  // namespace tierfs
