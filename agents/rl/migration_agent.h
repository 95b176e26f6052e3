// Harmonia's data-migration agent (harmonia.txt, sections 4.2-4.5). Every
// plan it scans the placed segments, takes as candidates those with the
// highest access and migration intervals and (our addition, see Plan) the
// hottest not on tier 0 — ignoring segments placed or moved within the last
// `min_age` requests — and asks its C51 agent for each candidate's tier; a
// tier other than the segment's own is a move. Moves need room: demotions are
// queued first, and a promotion into a full tier is paired with the demotion
// of the coldest candidate there (colder than the promoted segment) or not
// made; the agent learns from what was done (see Plan). After
// every `reward_moves` (x = 10) moves it measures the latency of the next
// `reward_requests` (n = 50) user requests that follow once those moves are
// made (or reward_wait requests have passed), and gives every decision since
// the last reward Equation 3's delayed reward, n / sum(L) (in units of
// `latency_unit_us`) minus a penalty inversely proportional to the moved
// segments' mean access and migration intervals (against ping-pong).
//
// Warm-up: until the agent has learned from `warmup` transitions of its own,
// a plan makes at most `warmup_moves` of the moves it wants (the first, in
// candidate order: demotions of the coldest, then promotions of the
// hottest); the rest are recorded as decisions to stay, which is what was
// done. A cold network's choices are noise, and with no bound a cold agent
// made most of its moves before it had learned anything.
//
// Uncoordinated (Harmonia's ablation, harmonia-nocoord): the reward counts
// only the moves' own cost — minus the share of decisions that moved, minus
// the same penalty — blind to what the moves do to the requests that follow.
#pragma once

#include <atomic>
#include <vector>

#include "agents/policy.h"
#include "agents/rl/agent.h"
#include "agents/rl/features.h"
#include "agents/rl/sampled_mean.h"
#include "util/mutex.h"

namespace tierfs {
namespace rl {

struct MigrationAgentOptions {
  uint64_t reward_moves = 10;      // x
  uint64_t reward_requests = 50;   // n
  uint64_t reward_wait = 4096;     // requests to wait at most for the moves to be made
  double latency_unit_us = 10;     // <= 0: the running mean latency (adaptive)
  double penalty = 0.1;            // P at intervals of 0
  double penalty_interval = 1024;  // requests at which P has halved
  uint64_t min_age = 1024;         // requests since placement or a move
  size_t candidates = 64;          // segments judged per plan
  double cold_share = 0.5;         // of them, chosen by long intervals; the rest by heat
  bool coordinated = true;
  // With the adaptive unit: decisions to stay earn 1, the unit itself (what
  // the requests cost without the window's moves), and only the moves earn
  // the measured reward, so a move is preferred only where it beats that.
  bool stay_baseline = false;
  // Transitions learned before the plans' moves are unbounded: 1024, about
  // one replay buffer (Table 3's 1000), some 20 plans of 64 candidates with
  // the waits for rewards (20K requests at plan_interval 1024). 0: no
  // warm-up.
  uint64_t warmup = 1024;
  // Moves a plan may make meanwhile: 1, so that moves are still tried and
  // their rewards learned (with 0 the agent would learn only what staying
  // is worth, and its first moves after the warm-up would be as blind).
  size_t warmup_moves = 1;
};

class MigrationAgent {
 public:
  MigrationAgent(Agent* agent, int tiers, const MigrationAgentOptions& options);

  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) EXCLUDES(mu_);
  void OnRequest(const Request& request, uint64_t latency_ns) EXCLUDES(mu_);
  void OnMoveDone(const Move& move, bool made) EXCLUDES(mu_);

 private:
  struct Decision {
    std::vector<float> state;
    int action = 0;
    bool moved = false;
    double intervals = 0;  // mean of its access and migration intervals
  };
  struct Candidate {
    double priority;
    SegmentInfo info;
  };
  // A candidate's observation and state, in *d.
  void Judge(const SegmentInfo& s, uint64_t now, Observation* o, Decision* d) const;
  void StartMeasuring() REQUIRES(mu_);  // from kAwaiting
  // Rewards the window: `moved` to the decisions that moved, `stayed` to the others.
  void Reward(double moved, double stayed) REQUIRES(mu_);

  Agent* const agent_;
  const ObservationEncoder encoder_;
  const MigrationAgentOptions options_;
  std::vector<Candidate> candidates_, hot_;  // Plan's scratch (Plan runs one at a time)

  SampledMean mean_latency_;  // the adaptive unit
  // Collecting decisions; the window is full and its moves are in the
  // queue; measuring the requests that follow them. Atomic so that OnRequest
  // skips the lock while collecting.
  enum { kCollecting, kAwaiting, kMeasuring };
  std::atomic<int> phase_{kCollecting};
  Mutex mu_;
  std::vector<SegmentRef> in_flight_ GUARDED_BY(mu_);  // moves planned and not reported done
  uint64_t waited_ GUARDED_BY(mu_) = 0;  // requests since the window filled (kAwaiting)
  std::vector<Decision> window_ GUARDED_BY(mu_);  // decisions since the last reward
  uint64_t moves_ GUARDED_BY(mu_) = 0;            // moves in the window
  uint64_t measured_ GUARDED_BY(mu_) = 0;         // requests measured so far
  double latency_sum_ns_ GUARDED_BY(mu_) = 0;
  std::vector<Transition> rewarded_ GUARDED_BY(mu_);  // rewarded, waiting for the next state
  uint64_t learned_ GUARDED_BY(mu_) = 0;              // transitions handed to the learner
};

}  // namespace rl
}  // namespace tierfs
