#include "agents/rl/placement_agent.h"

#include <algorithm>
#include <cmath>

namespace tierfs {
namespace rl {

PlacementAgent::PlacementAgent(Agent* agent, int tiers, const PlacementAgentOptions& options)
    : agent_(agent), encoder_(tiers), options_(options), inputs_(Inputs(options.kind, tiers)) {
  if (options_.reward_reads > 0) filter_ = std::make_unique<PendingFilter>();
}

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

float PlacementAgent::ReadsReward(const Decision& d) const {
  // Linear in the latency, as the migration agent's adaptive reward (a mean
  // of ratios of noisy latencies is biased upwards), and centred on 0 so
  // that the returns (gamma 0.9) stay inside the support [-10, 10]. Reads
  // first; a segment its home served none of is judged by its writes.
  const auto relative = [](double sum_ns, uint32_t n, double mean) {
    return float(std::clamp(1.0 - sum_ns / double(n) / mean, -1.0, 1.0));
  };
  const double mean_read = mean_read_.Get(), mean_write = mean_write_.Get();
  if (d.reads > 0 && mean_read > 0) return relative(d.read_ns, d.reads, mean_read);
  if (d.reads == 0 && d.writes > 0 && mean_write > 0) {
    return relative(d.write_ns, d.writes, mean_write);
  }
  return 0.f;
}

void PlacementAgent::Rewarded(Decision* d, float reward) {
  if (have_last_) {
    // Two placements rewarded in a row (concurrent writers, or reads that
    // reward several): the first's next state is the second's.
    last_.next = d->state;
    Emit(std::move(last_));
  }
  last_ = Transition();
  last_.reward = reward;
  last_.state = std::move(d->state);
  last_.action = d->action;
  last_.terminal = false;
  have_last_ = true;
}

void PlacementAgent::Forget(SegmentRef ref) {
  if (pending_.erase(ref) == 0) return;
  pending_count_.fetch_sub(1, std::memory_order_relaxed);
  if (filter_) filter_->Remove(ref);
}

void PlacementAgent::Expire(uint64_t now) {
  while (!order_.empty() &&
         (order_.front().first + options_.reward_wait <= now || order_.size() > kMaxPending)) {
    const auto [placed, ref] = order_.front();
    order_.pop_front();
    auto it = pending_.find(ref);
    if (it == pending_.end() || it->second.placed != placed) continue;  // rewarded already
    Rewarded(&it->second, ReadsReward(it->second));
    Forget(ref);
  }
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
  MutexLock lock(&mu_);
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
  d.action = agent_->Act(d.state.data(), request.allowed);
  const int tier = std::min(d.action, view.NumTiers() - 1);
  MutexLock lock(&mu_);
  if (have_last_) {
    last_.next = d.state;
    Emit(std::move(last_));
    have_last_ = false;
  }
  const SegmentRef ref{request.file_id, request.segment};
  d.placed = request.seq;
  if (filter_) {
    Expire(request.seq);
    if (pending_.count(ref) == 0) {
      order_.emplace_back(request.seq, ref);
      filter_->Add(ref);
    } else {
      return tier;  // placed again before its reads came: the first decision waits for them
    }
  } else if (pending_.size() >= kMaxPending) {
    // Placements whose request never completed (failed writes): forget them.
    pending_.clear();
    pending_count_.store(0, std::memory_order_relaxed);
  }
  if (pending_.emplace(ref, std::move(d)).second) {
    pending_count_.fetch_add(1, std::memory_order_relaxed);
  }
  return tier;
}

void PlacementAgent::OnPlaced(const PlacementRequest& request, int placed) {
  if (placed < 0 || placed >= agent_->shape().actions) return;
  MutexLock lock(&mu_);
  auto it = pending_.find(SegmentRef{request.file_id, request.segment});
  // A segment placed again before its first decision was rewarded: that
  // decision is not this one.
  if (it == pending_.end() || it->second.placed != request.seq) return;
  it->second.action = placed;
}

void PlacementAgent::Collect(const Request& request, uint64_t latency_ns) {
  const bool home_read = request.type == IoType::kUserRead && !request.copy;
  const bool write = request.type == IoType::kWrite;
  if (home_read) mean_read_.Add(request.seq, latency_ns);
  if (write) mean_write_.Add(request.seq, latency_ns);
  if (pending_count_.load(std::memory_order_relaxed) == 0) return;
  const SegmentRef ref{request.file_id, request.segment};
  // Writes of a pending segment (a WAL's are many) are sampled, one in
  // SampledMean::kSampling by the request clock, so that they do not take the
  // lock on every append: their mean is what the write reward needs.
  const bool sampled_write = write && request.seq % SampledMean::kSampling == 0;
  const bool mine = (home_read || sampled_write) && filter_->MayHold(ref);
  // Requests of other segments pass without the lock but for one in
  // SampledMean::kSampling, which expires the placements whose reads did
  // not come.
  if (!mine && request.seq % SampledMean::kSampling != 0) return;
  MutexLock lock(&mu_);
  Expire(request.seq);
  if (!mine) return;
  auto it = pending_.find(ref);
  if (it == pending_.end()) return;
  Decision& d = it->second;
  if (write) {
    if (!sampled_write) return;
    d.writes++;
    d.write_ns += double(latency_ns);
    return;
  }
  // A read served by another tier than the one it was placed on (a copy, or
  // a home moved since) says nothing of the placement.
  if (request.tier != d.action) return;
  d.reads++;
  d.read_ns += double(latency_ns);
  if (d.reads < uint32_t(options_.reward_reads)) return;
  Rewarded(&d, ReadsReward(d));
  Forget(ref);
}

void PlacementAgent::OnRequest(const Request& request, uint64_t latency_ns) {
  agent_->Tick(request.seq);
  if (filter_) {
    Collect(request, latency_ns);
    return;
  }
  if (pending_count_.load(std::memory_order_relaxed) == 0) return;
  MutexLock lock(&mu_);
  const SegmentRef ref{request.file_id, request.segment};
  auto it = pending_.find(ref);
  if (it == pending_.end()) return;
  Rewarded(&it->second, Reward(latency_ns, it->second.evictions));
  Forget(ref);
}

}  // namespace rl
}  // namespace tierfs
