// Harmonia's placement agent (agents/rl/placement_agent.h): the latency a
// placement is rewarded by. Equation 2 rewards the request that placed the
// segment; with reward_reads the reward waits for the segment's first reads.
#include <gtest/gtest.h>

#include <memory>

#include "agents/policy.h"
#include "agents/rl/agent.h"
#include "agents/rl/placement_agent.h"

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
    return placement_.Place(req, view_);
  }
  void Complete(uint64_t file, IoType type, uint64_t latency_ns) {
    Request r;
    r.seq = ++seq_;
    r.file_id = file;
    r.kind = FileKind::kSst;
    r.type = type;
    placement_.OnRequest(r, latency_ns);
  }
  uint64_t transitions() { return agent_->learner().GetStats().transitions; }

 private:
  EmptyTiers view_;
  uint64_t seq_ = 0;
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

}  // namespace
}  // namespace rl
}  // namespace tierfs
