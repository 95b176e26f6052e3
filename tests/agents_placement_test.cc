// Harmonia's placement agent (agents/rl/placement_agent.h): the latency a
// placement is rewarded by. Equation 2 rewards the request that placed the
// segment; with reward_reads the reward waits for the segment's first reads
// its home served, or falls back to its writes. And the action learned is
// the tier the engine placed the segment on.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "agents/policy.h"
#include "agents/rl/agent.h"
#include "agents/rl/placement_agent.h"
#include "engine/capacity.h"
#include "engine/placement.h"
#include "tests/always_wants.h"

namespace tierfs {
namespace rl {
namespace {

constexpr uint64_t kSeg = 1 << 16;

class EmptyTiers : public StorageView {
 public:
  int NumTiers() const override { return 2; }
  uint64_t Capacity(int) const override { return 1ull << 30; }
  uint64_t Used(int) const override { return 0; }
  uint64_t Now() const override { return 0; }
  uint64_t SegmentSize() const override { return kSeg; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>&) const override {}
};

std::unique_ptr<Agent> NewAgent() {
  AgentOptions o;
  o.learner.shape.inputs = PlacementAgent::Inputs(PlacementAgentOptions::Kind::kHarmonia, 2);
  o.learner.shape.actions = 2;
  o.learner.mode = LearnerOptions::Mode::kInline;
  o.learner.batch = 32;
  o.epsilon_start = 1;
  o.epsilon = 0.02;
  o.epsilon_decay = 1000;
  o.swap_every = 100;
  return std::make_unique<Agent>(o);
}

// Drives one placement agent through the life of each segment: its
// placement, the write that placed it and `reads` user reads.
class Driver {
 public:
  explicit Driver(const PlacementAgentOptions& options)
      : agent_(NewAgent()), placement_(agent_.get(), 2, options) {}

  int Place(uint64_t file) {
    PlacementRequest req;
    req.seq = ++seq_;
    req.file_id = file;
    req.kind = FileKind::kSst;
    req.bytes = kSeg;
    req.write_size = kSeg;
    return tier_[file] = placement_.Place(req, view_);
  }
  // A request on `file`'s segment, served by its home (`served` -1) or by
  // tier `served`; `copy`: by a copy.
  void Complete(uint64_t file, IoType type, uint64_t latency_ns, bool copy = false,
                int served = -1) {
    Request r;
    r.seq = ++seq_;
    r.file_id = file;
    r.kind = FileKind::kSst;
    r.type = type;
    r.tier = served >= 0 ? served : tier_[file];
    r.copy = copy;
    placement_.OnRequest(r, latency_ns);
  }
  uint64_t transitions() { return agent_->learner().GetStats().transitions; }
  // The reward of the n-th transition learned (0 the first).
  float Reward(size_t n) {
    Transition t;
    EXPECT_TRUE(agent_->learner().Stored(n, &t));
    return t.reward;
  }
  // Reads and writes of other segments (never placed), which set the running
  // means to `latency_ns`.
  void Background(IoType type, uint64_t latency_ns, int n) {
    for (int i = 0; i < n; ++i) Complete(1000000, type, latency_ns, false, 0);
  }

 private:
  EmptyTiers view_;
  uint64_t seq_ = 0;
  std::map<uint64_t, int> tier_;  // where each file's segment was placed
  std::unique_ptr<Agent> agent_;
  PlacementAgent placement_;
};

// Tier 0 is slow to write (its write-back is busy) and fast to read, as an
// LSM's fast tier under compaction is: the share of the last 500 of 2000
// placements the agent puts on tier 0.
double FastShareAfterTraining(int reward_reads) {
  PlacementAgentOptions options;
  options.reward_reads = reward_reads;
  Driver d(options);
  constexpr int kPlacements = 2000, kJudged = 500;
  int fast = 0;
  for (uint64_t i = 1; i <= kPlacements; ++i) {
    const int tier = d.Place(i);
    if (i > kPlacements - kJudged) fast += tier == 0;
    d.Complete(i, IoType::kWrite, tier == 0 ? 400000 : 40000);
    for (int k = 0; k < 4; ++k) d.Complete(i, IoType::kUserRead, tier == 0 ? 20000 : 200000);
  }
  return double(fast) / kJudged;
}

TEST(PlacementAgentTest, RewardedByItsReadsItLearnsTheTierThatServesThemFast) {
  EXPECT_GT(FastShareAfterTraining(4), 0.9);
  // Rewarded by the placing write (Equation 2), the same agent learns the
  // tier that is fast to write.
  EXPECT_LT(FastShareAfterTraining(0), 0.1);
}

TEST(PlacementAgentTest, APlacementWaitsForItsReadsAtMostRewardWaitRequests) {
  PlacementAgentOptions options;
  options.reward_reads = 4;
  options.reward_wait = 100;
  Driver d(options);
  // A decision reaches the learner once it is rewarded and the next one is
  // made (its next state).
  d.Place(1);
  d.Complete(1, IoType::kWrite, 50000);
  for (int k = 0; k < 3; ++k) d.Complete(1, IoType::kUserRead, 50000);
  d.Complete(1, IoType::kBackgroundRead, 50000);  // compaction input: not the placement's reward
  d.Place(2);
  EXPECT_EQ(0u, d.transitions()) << "rewarded before its fourth user read";
  d.Complete(1, IoType::kUserRead, 50000);
  d.Place(3);
  EXPECT_EQ(1u, d.transitions());
  // Segments 2 and 3 are never read: after reward_wait requests of other
  // segments each is rewarded with what it has.
  for (int k = 0; k < 120; ++k) d.Complete(100, IoType::kUserRead, 50000);
  EXPECT_EQ(2u, d.transitions());
  d.Place(4);
  EXPECT_EQ(3u, d.transitions());
}

TEST(PlacementAgentTest, AReadServedByACopyNeitherRewardsNorPunishes) {
  PlacementAgentOptions options;
  options.reward_reads = 1;
  Driver d(options);
  d.Background(IoType::kUserRead, 40000, 32);  // the mean read: 40 us
  d.Place(1);
  // A slow read from a hot-page copy, then one from another tier (a home
  // moved since): neither is the placement's.
  d.Complete(1, IoType::kUserRead, 4000000, /*copy=*/true, /*served=*/0);
  d.Complete(1, IoType::kUserRead, 4000000, /*copy=*/false, /*served=*/2);
  d.Place(2);
  EXPECT_EQ(0u, d.transitions()) << "rewarded by a read its home did not serve";
  d.Complete(1, IoType::kUserRead, 10000);  // its home: 1 - 10 / 40
  d.Place(3);
  ASSERT_EQ(1u, d.transitions());
  EXPECT_NEAR(0.75, d.Reward(0), 0.01);
}

TEST(PlacementAgentTest, ASegmentNotReadIsRewardedByItsWrites) {
  PlacementAgentOptions options;
  options.reward_reads = 4;
  options.reward_wait = 100;
  Driver d(options);
  d.Background(IoType::kWrite, 40000, 32);  // the mean write: 40 us
  // Writes are sampled, one in SampledMean::kSampling by the request clock:
  // as many in a row as that hold exactly one sample.
  const int n = int(SampledMean::kSampling);
  d.Place(1);
  for (int i = 0; i < n; ++i) d.Complete(1, IoType::kWrite, 20000);  // 1 - 20 / 40
  d.Place(2);
  for (int i = 0; i < n; ++i) d.Complete(2, IoType::kWrite, 400000);  // ten times: the floor
  d.Place(3);
  d.Complete(3, IoType::kUserRead, 4000000, /*copy=*/true, /*served=*/0);
  // Read only through a copy: its writes judge it.
  for (int i = 0; i < n; ++i) d.Complete(3, IoType::kWrite, 40000);
  d.Background(IoType::kUserRead, 40000, 120);  // a write-only phase for these three
  d.Place(4);
  ASSERT_EQ(3u, d.transitions());
  // (The running mean write moves a little with these writes.)
  EXPECT_NEAR(0.5, d.Reward(0), 0.05);
  EXPECT_NEAR(-1.0, d.Reward(1), 0.01);
  EXPECT_NEAR(0.0, d.Reward(2), 0.05);
}

// A fill: nothing is read, and tier `fast_tier` writes ten times faster.
// The share of the last 500 of 2000 placements the agent puts there.
double FastShareOfAFill(int fast_tier) {
  PlacementAgentOptions options;
  options.reward_reads = 4;
  options.reward_wait = 20;
  Driver d(options);
  constexpr int kPlacements = 2000, kJudged = 500;
  int fast = 0;
  for (uint64_t i = 1; i <= kPlacements; ++i) {
    const int tier = d.Place(i);
    if (i > kPlacements - kJudged) fast += tier == fast_tier;
    for (int k = 0; k < 8; ++k) d.Complete(i, IoType::kWrite, tier == fast_tier ? 20000 : 200000);
  }
  return double(fast) / kJudged;
}

// Rewarded by its writes when no read comes, the agent learns to write where
// writes are fast, whichever tier that is.
TEST(PlacementAgentTest, AWriteOnlyPhaseTeachesTheTierFastToWrite) {
  EXPECT_GT(FastShareOfAFill(0), 0.9);
  EXPECT_GT(FastShareOfAFill(1), 0.9);
}

// The placement agent as a policy (as harmonia and sibyl wrap it).
class AgentPolicy : public Policy {
 public:
  AgentPolicy(Agent* agent, const PlacementAgentOptions& options) : placement_(agent, 2, options) {}
  const char* Name() const override { return "agent"; }
  int Place(const PlacementRequest& request, const StorageView& view) override {
    return placement_.Place(request, view);
  }
  void OnPlaced(const PlacementRequest& request, int, int placed) override {
    placement_.OnPlaced(request, placed);
  }
  void OnRequest(const Request& request, uint64_t latency_ns) override {
    placement_.OnRequest(request, latency_ns);
  }

 private:
  PlacementAgent placement_;
};

// Tiers whose room is what their accounts say.
class AccountedTiers : public StorageView {
 public:
  AccountedTiers(CapacityAccount* fast, CapacityAccount* slow) : tiers_{fast, slow} {}
  int NumTiers() const override { return 2; }
  uint64_t Capacity(int t) const override { return tiers_[t]->capacity(); }
  uint64_t Used(int t) const override { return tiers_[t]->used(); }
  uint64_t Now() const override { return 0; }
  uint64_t SegmentSize() const override { return kSeg; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>&) const override {}

 private:
  CapacityAccount* tiers_[2];
};

// The placement of a table file's first segment, and a request of the file.
PlacementRequest TablePlacement(uint64_t seq, uint64_t file) {
  PlacementRequest req;
  req.seq = seq;
  req.file_id = file;
  req.kind = FileKind::kSst;
  req.bytes = req.write_size = kSeg;
  return req;
}
Request TableRequest(uint64_t seq, uint64_t file, int tier, IoType type) {
  Request r;
  r.seq = seq;
  r.file_id = file;
  r.kind = FileKind::kSst;
  r.tier = tier;
  r.type = type;
  return r;
}

// Tier 0 is full: an agent that wants it sees it masked and chooses tier 1
// (PlacementRequest::allowed); the transition learned says tier 1 (for both
// rewards: Equation 2's, and the reads'). Unmasked, it would have chosen
// tier 0 and spilled (OnPlaced then tells it tier 1: the next test).
TEST(PlacementAgentTest, TheActionLearnedIsTheTierTheEngineUsed) {
  for (int reward_reads : {0, 1}) {
    SCOPED_TRACE(reward_reads);
    auto agent = AlwaysWants(0);
    PlacementAgentOptions options;
    options.reward_reads = reward_reads;
    AgentPolicy policy(agent.get(), options);
    CapacityAccount fast(kSeg), slow(1ull << 30);
    fast.ForceCharge(kSeg);
    AccountedTiers view(&fast, &slow);
    PlacementEngine engine(&policy, MigrationOptions());
    uint64_t seq = 0;
    for (uint64_t file = 1; file <= 2; ++file) {
      const PlacementRequest req = TablePlacement(++seq, file);
      const int want = engine.Choose(req, /*bulk=*/true, kSeg + kFileBlock, view, [](const Move&) {});
      EXPECT_EQ(1, want);
      const int t = SpillOrder(want, 2, -1, [&](int i) { return (i ? slow : fast).TryCharge(kSeg); });
      ASSERT_EQ(1, t);
      policy.OnRequest(TableRequest(++seq, file, t, IoType::kWrite), 50000);
      policy.OnRequest(TableRequest(++seq, file, t, IoType::kUserRead), 50000);
    }
    // The first placement learned once the second was made (its next state).
    Transition learned;
    ASSERT_TRUE(agent->learner().Stored(0, &learned));
    EXPECT_EQ(1, learned.action);
  }
}

// The room went between the decision and the charge (another writer took
// it): the agent chose tier 0, unmasked, and the segment went to tier 1. The
// transition learned says tier 1 (Policy::OnPlaced).
TEST(PlacementAgentTest, ASpillAfterTheDecisionIsLearnedAsTheTierUsed) {
  auto agent = AlwaysWants(0);
  PlacementAgentOptions options;
  options.reward_reads = 1;
  AgentPolicy policy(agent.get(), options);
  CapacityAccount fast(1ull << 30), slow(1ull << 30);
  AccountedTiers view(&fast, &slow);
  uint64_t seq = 0;
  for (uint64_t file = 1; file <= 2; ++file) {
    const PlacementRequest req = TablePlacement(++seq, file);
    ASSERT_EQ(0, policy.Place(req, view));
    policy.OnPlaced(req, 0, 1);
    policy.OnRequest(TableRequest(++seq, file, 1, IoType::kUserRead), 50000);
  }
  Transition learned;
  ASSERT_TRUE(agent->learner().Stored(0, &learned));
  EXPECT_EQ(1, learned.action);
}

}  // namespace
}  // namespace rl
}  // namespace tierfs
