// A placement agent: for each new segment, a tier chosen by a C51 agent.
//   Harmonia's (harmonia.txt, sections 4.2-4.5): Harmonia's seven features;
//     reward 1/latency of the request that placed it, in units of
//     `latency_unit_us` (so the fastest device earns about 1); or, with
//     `reward_reads` = n > 0, the latency of the segment's first n user
//     reads against the running mean user read (below).
//   Sibyl's (Singh et al., ISCA 2022, as its public code has it): request
//     size, read/write, access count, access interval, size in pages,
//     current placement, fast-tier fill, slow-tier fill; reward
//     0.1 / latency_ms - evictions^0.09 (the evictions the placement caused);
//     2-step returns.
//
// TierFS places a segment once, on its first write, so the segment's own
// history (access interval and frequency, migration interval) is empty at
// that moment; the request's type and size and the tiers' free space carry
// the decision. Transitions chain placement decisions: the state after
// placement t is the state of placement t + 1.
//
// What is learned is what was done: the engine may place a segment
// elsewhere than the agent chose (a full tier spills; the room kept for the
// WAL, the upper levels and the copies), and tells where (OnPlaced); the
// transition's action is that tier, so the agent never learns the reward of
// a tier it did not get. A decision the engine never reports keeps the
// agent's own choice.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <unordered_map>

#include "agents/pending_filter.h"
#include "agents/policy.h"
#include "agents/rl/agent.h"
#include "agents/rl/features.h"
#include "agents/rl/sampled_mean.h"
#include "util/mutex.h"

namespace tierfs {
namespace rl {

struct PlacementAgentOptions {
  enum class Kind { kHarmonia, kSibyl } kind = Kind::kHarmonia;
  double latency_unit_us = 10;  // Harmonia's reward unit
  // Harmonia: 0 rewards a placement by the latency of the request that
  // placed it (Equation 2). n > 0 waits for the segment's first n user reads
  // served by its home (at most `reward_wait` requests) and rewards
  // 1 - L / M, clamped to [-1, 1], with L their mean latency and M the
  // running mean latency of user reads: above 0 where the placement made its
  // reads faster than the store's. A table file's segment is placed by a
  // buffered write whose latency says little of the tier; its reads do.
  //   Only reads its home served count, from the tier it was placed on: a
  //   read served by a copy (Request::copy, or a tier other than the
  //   placement's: a hot-page copy on tier 0, or a home moved since) says
  //   nothing of the placement, and neither rewards nor punishes it.
  //   A segment with no such read within reward_wait (a write-only phase: a
  //   fill, or data read only through copies) is rewarded by its writes
  //   instead: Equation 2's latency, of all the writes it got while it
  //   waited, in the read reward's form, 1 - W / Mw clamped to [-1, 1], with
  //   W their mean latency and Mw the running mean latency of writes. So
  //   both rewards are 0 for a placement as fast as the store's mean, and
  //   comparable: a placement whose writes waited twice the mean earns what
  //   one whose reads did. (Equation 2's own unit / W, in [0, 1], would pay
  //   every unread segment more than an average read, and a mean of ratios
  //   is biased upwards.) Only a segment with neither earns 0.
  int reward_reads = 0;
  uint64_t reward_wait = 16384;
  int n_step = 1;               // Sibyl: 2
  double gamma = 0.9;           // for n-step returns
};

class PlacementAgent {
 public:
  // `agent` is shared with the caller (SAPM uses one agent for both roles).
  PlacementAgent(Agent* agent, int tiers, const PlacementAgentOptions& options);

  // Inputs of the agent's network for `tiers` tiers.
  static int Inputs(PlacementAgentOptions::Kind kind, int tiers);

  int Place(const PlacementRequest& request, const StorageView& view) EXCLUDES(mu_);
  // The engine placed the segment of `request` (Place's request) on tier
  // `placed` (Policy::OnPlaced): its decision's action becomes that tier.
  // Thread-safe.
  void OnPlaced(const PlacementRequest& request, int placed) EXCLUDES(mu_);
  // Every completed request: the reward of a pending placement, and a tick
  // of the agent's clock.
  void OnRequest(const Request& request, uint64_t latency_ns) EXCLUDES(mu_);
  // The placement of `segment` of `file` made room by evicting `moves`
  // segments (Sibyl's reward counts them).
  void NoteEvictions(uint64_t file, uint64_t segment, size_t moves) EXCLUDES(mu_);

  // Features of a request on a segment, as both of Harmonia's agents see
  // them (migration scans use a segment's statistics).
  static void FreeShares(const StorageView& view, std::vector<double>* out);

 private:
  struct Decision {
    std::vector<float> state;
    int action = 0;
    size_t evictions = 0;
    uint64_t placed = 0;  // the placement's seq
    uint32_t reads = 0;   // reward_reads: the user reads its home served, and their latency
    double read_ns = 0;
    uint32_t writes = 0;  // reward_reads: the writes seen, and their latency
    double write_ns = 0;
  };
  void Encode(const PlacementRequest& request, const StorageView& view, float* out) const;
  float Reward(uint64_t latency_ns, size_t evictions) const;
  // reward_reads: the reward of a decision by its home's reads, else by its
  // writes (PlacementAgentOptions::reward_reads).
  float ReadsReward(const Decision& d) const;
  // The decision learns `reward`; its next state is the next decision's.
  void Rewarded(Decision* d, float reward) REQUIRES(mu_);
  void Emit(Transition t) REQUIRES(mu_);  // n-step accumulation, then Learn
  void Forget(SegmentRef ref) REQUIRES(mu_);  // drops a pending decision
  // reward_reads: rewards the placements older than reward_wait requests (or
  // the oldest beyond kMaxPending) with the reads they have, else their
  // writes.
  void Expire(uint64_t now) REQUIRES(mu_);
  // reward_reads: a request's part in the rewards: the running means, and
  // the reads and writes of a pending segment.
  void Collect(const Request& request, uint64_t latency_ns) EXCLUDES(mu_);

  static constexpr size_t kMaxPending = 4096;

  Agent* const agent_;
  const ObservationEncoder encoder_;
  const PlacementAgentOptions options_;
  const int inputs_;
  std::atomic<int> pending_count_{0};  // lets OnRequest skip the lock
  Mutex mu_;
  // Placed, reward not seen yet.
  std::unordered_map<SegmentRef, Decision, SegmentRefHash> pending_ GUARDED_BY(mu_);
  // reward_reads: pending, by placement seq.
  std::deque<std::pair<uint64_t, SegmentRef>> order_ GUARDED_BY(mu_);
  // reward_reads: the pending segments, so that a read of one not pending
  // (most) takes no lock.
  std::unique_ptr<PendingFilter> filter_;
  SampledMean mean_read_;   // reward_reads: of user reads
  SampledMean mean_write_;  // reward_reads: of writes
  bool have_last_ GUARDED_BY(mu_) = false;  // a rewarded decision waiting for the next state
  Transition last_ GUARDED_BY(mu_);
  std::vector<Transition> steps_ GUARDED_BY(mu_);  // one-step transitions not yet n steps old
};

}  // namespace rl
}  // namespace tierfs
