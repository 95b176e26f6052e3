#include "agents/rl/placement_agent.h"

#include <algorithm>
#include <cmath>

namespace tierfs {
namespace rl {

PlacementAgent::PlacementAgent(Agent* agent, int tiers, const PlacementAgentOptions& options)
    : agent_(agent), encoder_(tiers), options_(options), inputs_(Inputs(options.kind, tiers)) {}

int PlacementAgent::Inputs(PlacementAgentOptions::Kind kind, int tiers) {
  return kind == PlacementAgentOptions::Kind::kSibyl ? 8 : ObservationEncoder(tiers).size();
}

void PlacementAgent::Encode(const PlacementRequest& request, const StorageView& view,
                            float* out) const {
  const bool write = request.write_size > 0;
  const uint64_t bytes = write ? request.write_size : request.bytes;
  if (options_.kind == PlacementAgentOptions::Kind::kHarmonia) {
    Observation o;
    o.write = write;
    o.bytes = bytes;
    o.tier = -1;  // new: no history
    FreeShares(view, &o.free_share);
    encoder_.Encode(o, out);
    return;
  }
  // Sibyl's eight, each scaled to [0, 1]: a new segment has no accesses, no
  // interval and no placement yet (the slowest tier's value, as Harmonia's).
  const auto bin = [](int b, int bins) { return float(b) / float(bins - 1); };
  auto fill = [&](int t) {
    return view.Capacity(t) ? float(1.0 - double(view.Free(t)) / double(view.Capacity(t))) : 1.f;
  };
  out[0] = bin(ObservationEncoder::LogBin(bytes), ObservationEncoder::kLogBins);
  out[1] = write ? 1.f : 0.f;
  out[2] = 0;  // access count
  out[3] = 0;  // access interval
  out[4] = bin(ObservationEncoder::SizeBin(bytes), ObservationEncoder::kSizeBins);
  out[5] = 1;  // current placement: none
  out[6] = fill(0);
  out[7] = fill(view.NumTiers() - 1);
}

float PlacementAgent::Reward(uint64_t latency_ns, size_t evictions) const {
  const double l = std::max<double>(double(latency_ns), 1.0);
  if (options_.kind == PlacementAgentOptions::Kind::kSibyl) {
    return float(0.1 / (l / 1e6) - std::pow(double(evictions), 0.09));
  }
  // Equation 2: R = 1 / L, in units of the fastest device's latency.
  return float(std::min(1.0, options_.latency_unit_us * 1000.0 / l));
}

void PlacementAgent::Emit(Transition t) {
  if (options_.n_step <= 1) {
    agent_->Learn(std::move(t));
    return;
  }
  // n-step returns: a transition learns once n steps have followed it, with
  // the discounted rewards of those steps and gamma^n on what comes after.
  steps_.push_back(std::move(t));
  if (steps_.size() < size_t(options_.n_step)) return;
  Transition first = steps_.front();
  double reward = 0, discount = 1;
  for (const Transition& s : steps_) {
    reward += discount * s.reward;
    discount *= options_.gamma;
  }
  first.reward = float(reward);
  first.discount = float(discount);
  first.next = steps_.back().next;
  agent_->Learn(std::move(first));
  steps_.erase(steps_.begin());
}

void PlacementAgent::NoteEvictions(uint64_t file, uint64_t segment, size_t moves) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(SegmentRef{file, segment});
  if (it != pending_.end()) it->second.evictions += moves;
}

void PlacementAgent::FreeShares(const StorageView& view, std::vector<double>* out) {
  out->resize(size_t(view.NumTiers()));
  for (int t = 0; t < view.NumTiers(); ++t) {
    const uint64_t cap = view.Capacity(t);
    (*out)[size_t(t)] = cap ? double(view.Free(t)) / double(cap) : 0.0;
  }
}

int PlacementAgent::Place(const PlacementRequest& request, const StorageView& view) {
  Decision d;
  d.state.resize(size_t(inputs_));
  Encode(request, view, d.state.data());
  d.action = agent_->Act(d.state.data());
  const int tier = std::min(d.action, view.NumTiers() - 1);
  std::lock_guard<std::mutex> lock(mu_);
  if (have_last_) {
    last_.next = d.state;
    Emit(std::move(last_));
    have_last_ = false;
  }
  if (pending_.size() >= kMaxPending) {
    // Placements whose request never completed (failed writes): forget them.
    pending_.clear();
    pending_count_.store(0, std::memory_order_relaxed);
  }
  if (pending_.emplace(SegmentRef{request.file_id, request.segment}, std::move(d)).second) {
    pending_count_.fetch_add(1, std::memory_order_relaxed);
  }
  return tier;
}

void PlacementAgent::OnRequest(const Request& request, uint64_t latency_ns) {
  agent_->Tick(request.seq);
  if (pending_count_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(SegmentRef{request.file_id, request.segment});
  if (it == pending_.end()) return;
  if (have_last_) {
    // Two placements rewarded in a row (concurrent writers): the first's
    // next state is the second's.
    last_.next = it->second.state;
    Emit(std::move(last_));
  }
  last_ = Transition();
  last_.reward = Reward(latency_ns, it->second.evictions);
  last_.state = std::move(it->second.state);
  last_.action = it->second.action;
  last_.terminal = false;
  have_last_ = true;
  pending_.erase(it);
  pending_count_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace rl
}  // namespace tierfs
