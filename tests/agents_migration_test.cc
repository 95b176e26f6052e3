// Harmonia's migration agent (agents/rl/migration_agent.h) with a network
// whose choices are set by hand: how its decisions become moves that fit the
// tiers, and when its reward is measured. Also the optimistic cold start
// (Weights::Optimistic) the placement agent begins with.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "agents/policy.h"
#include "agents/rl/agent.h"
#include "agents/rl/features.h"
#include "agents/rl/migration_agent.h"
#include "agents/rl/network.h"
#include "tests/always_wants.h"

namespace tierfs {
namespace rl {
namespace {

constexpr uint64_t kSeg = 1 << 16;
constexpr uint64_t kNow = 1000000;

// Two tiers; tier 0 holds `fast_segments` segments.
class View : public StorageView {
 public:
  int NumTiers() const override { return 2; }
  uint64_t Capacity(int tier) const override { return tier == 0 ? fast_segments * kSeg : 1ull << 40; }
  uint64_t Used(int tier) const override {
    uint64_t n = 0;
    for (const SegmentInfo& s : segments) n += s.tier == tier;
    return n * kSeg;
  }
  uint64_t Now() const override { return kNow; }
  uint64_t SegmentSize() const override { return kSeg; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    for (const SegmentInfo& s : segments) fn(s);
  }
  // A segment placed long ago, last read `idle` requests ago, `reads` reads
  // (heat grows with them).
  void Add(uint64_t id, int tier, uint32_t reads, uint64_t idle) {
    SegmentInfo s;
    s.ref = SegmentRef{id, 0};
    s.kind = FileKind::kSst;
    s.bytes = kSeg;
    s.tier = tier;
    s.stats.placed = 1;
    s.stats.user_reads = reads;
    s.stats.last_access = kNow - idle;
    s.stats.access_interval = idle;
    s.stats.heat = reads;
    segments.push_back(s);
  }
  uint64_t fast_segments = 2;
  std::vector<SegmentInfo> segments;
};

MigrationAgentOptions Options() {
  MigrationAgentOptions o;
  o.reward_moves = 2;  // a window closes after two moves
  o.reward_requests = 50;
  o.latency_unit_us = 0;
  o.stay_baseline = true;
  o.warmup = 0;  // the tests below judge plans of a trained agent
  return o;
}

Request UserRead() {
  Request r;
  r.type = IoType::kUserRead;
  r.kind = FileKind::kSst;
  return r;
}

TEST(MigrationAgentTest, APromotionIntoAFullTierTakesAColderSegmentDownFirst) {
  auto agent = AlwaysWants(0);
  MigrationAgent migration(agent.get(), 2, Options());
  View view;
  view.Add(1, 0, 1, 500000);  // cold, on the full fast tier
  view.Add(2, 0, 50, 100);    // hot, on the fast tier
  view.Add(3, 1, 30, 100);    // hot, on the slow tier: the agent wants it up
  std::vector<Move> moves;
  migration.Plan(view, 10, &moves);
  ASSERT_EQ(2u, moves.size());
  EXPECT_EQ(1u, moves[0].ref.file_id);  // the colder of the two goes down first
  EXPECT_EQ(1, moves[0].to);
  EXPECT_EQ(3u, moves[1].ref.file_id);
  EXPECT_EQ(0, moves[1].to);
}

TEST(MigrationAgentTest, APromotionWithNothingColderToMakeRoomIsNotMade) {
  auto agent = AlwaysWants(0);
  MigrationAgent migration(agent.get(), 2, Options());
  View view;
  view.Add(1, 0, 40, 100);
  view.Add(2, 0, 50, 100);
  view.Add(3, 1, 1, 100);  // wanted up, but colder than both
  std::vector<Move> moves;
  migration.Plan(view, 10, &moves);
  EXPECT_TRUE(moves.empty());
  // And with room on tier 0 it is made, alone.
  view.fast_segments = 3;
  migration.Plan(view, 10, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(3u, moves[0].ref.file_id);
}

TEST(MigrationAgentTest, DemotionsComeBeforePromotionsAndTheBudgetHolds) {
  auto agent = AlwaysWants(1);
  MigrationAgent migration(agent.get(), 2, Options());
  View view;
  view.fast_segments = 10;
  for (uint64_t id = 1; id <= 5; ++id) view.Add(id, 0, 1, 1000 * id);
  std::vector<Move> moves;
  migration.Plan(view, 3, &moves);
  ASSERT_EQ(3u, moves.size());
  for (const Move& m : moves) EXPECT_EQ(1, m.to);
}

// Two hot segments on the slow tier, room above: an agent that wants tier 0
// promotes both, which fills its window (two moves).
void PlanTwoPromotions(MigrationAgent* migration, View* view, std::vector<Move>* moves) {
  view->fast_segments = 10;
  view->Add(1, 1, 30, 100);
  view->Add(2, 1, 20, 100);
  migration->Plan(*view, 10, moves);
  ASSERT_EQ(2u, moves->size());
}

// The reward of a window is measured on the requests that follow its moves
// once they are made; the learner sees the window's transitions at the
// next plan after that.
TEST(MigrationAgentTest, TheRewardWaitsForTheMovesToBeMade) {
  auto agent = AlwaysWants(0);
  MigrationAgent migration(agent.get(), 2, Options());
  View view;
  std::vector<Move> moves;
  PlanTwoPromotions(&migration, &view, &moves);
  for (int i = 0; i < 200; ++i) migration.OnRequest(UserRead(), 20000);
  std::vector<Move> more;
  migration.Plan(view, 0, &more);  // a plan with no room in the queue only hands over rewards
  migration.Plan(view, 10, &more);
  EXPECT_EQ(0u, agent->learner().GetStats().transitions) << "rewarded before its moves were made";

  for (const Move& m : moves) migration.OnMoveDone(m, true);
  for (int i = 0; i < 50; ++i) migration.OnRequest(UserRead(), 20000);
  migration.Plan(view, 10, &more);
  EXPECT_GT(agent->learner().GetStats().transitions, 0u);
}

TEST(MigrationAgentTest, MovesTheQueueNeverMadeAreWaitedForOnlyUpToRewardWait) {
  auto agent = AlwaysWants(0);
  MigrationAgentOptions o = Options();
  o.reward_wait = 100;
  MigrationAgent migration(agent.get(), 2, o);
  View view;
  std::vector<Move> moves;
  PlanTwoPromotions(&migration, &view, &moves);
  for (int i = 0; i < 100 + 50; ++i) migration.OnRequest(UserRead(), 20000);
  migration.Plan(view, 10, &moves);
  EXPECT_GT(agent->learner().GetStats().transitions, 0u);
}

// Until the agent has learned from `warmup` transitions, a plan makes at
// most `warmup_moves` of the moves it wants; what it did not make it learns
// as decisions to stay.
TEST(MigrationAgentTest, AColdAgentMovesWithinItsWarmupBudget) {
  for (size_t budget : {0, 1}) {
    SCOPED_TRACE(budget);
    auto agent = AlwaysWants(1);
    MigrationAgentOptions o = Options();
    o.candidates = 4;  // a window: four plans' decisions (16) when nothing moves
    o.cold_share = 1;  // all four by their intervals: every segment is on tier 0
    o.reward_moves = 100;
    o.warmup = 16;
    o.warmup_moves = budget;
    MigrationAgent migration(agent.get(), 2, o);
    View view;
    view.fast_segments = 10;
    for (uint64_t id = 1; id <= 8; ++id) view.Add(id, 0, 1, 1000 * id);
    std::vector<Move> moves;
    for (int plan = 0; plan < 4; ++plan) {
      moves.clear();
      migration.Plan(view, 10, &moves);
      EXPECT_EQ(budget, moves.size()) << "plan " << plan;
      for (const Move& m : moves) migration.OnMoveDone(m, true);
    }
    for (int i = 0; i < 50; ++i) migration.OnRequest(UserRead(), 20000);
    moves.clear();
    migration.Plan(view, 10, &moves);  // hands the window's 16 transitions to the learner
    ASSERT_EQ(16u, agent->learner().GetStats().transitions);
    Transition t;
    size_t stays = 0;
    for (size_t slot = 0; slot < 16; ++slot) {
      ASSERT_TRUE(agent->learner().Stored(slot, &t));
      stays += t.action == 0;
    }
    EXPECT_EQ(16 - 4 * budget, stays) << "moves not made are learned as stays";
    moves.clear();
    migration.Plan(view, 10, &moves);
    EXPECT_EQ(4u, moves.size()) << "warmed up: every candidate it wants down";
  }
}

TEST(OptimisticStartTest, EveryActionExpectsAHighReturnUntilTrained) {
  NetworkShape shape;
  shape.inputs = ObservationEncoder(2).size();
  shape.actions = 2;
  const Weights random = Weights::Random(shape, 3);
  const Weights optimistic = Weights::Optimistic(shape, 3, 3);
  Network net(shape);
  std::vector<float> in(size_t(shape.inputs));
  float q_random[2], q_optimistic[2];
  for (int k = 0; k < 64; ++k) {
    for (size_t i = 0; i < in.size(); ++i) in[i] = float((k * 7 + int(i) * 13) % 17) / 16;
    net.QValues(random, in.data(), q_random);
    net.QValues(optimistic, in.data(), q_optimistic);
    for (int a = 0; a < 2; ++a) {
      // e^3 / (e^3 + 50) of the mass on v_max = 10: about 2.9, less the rest's small mean.
      EXPECT_GT(q_optimistic[a], 2.0f);
      EXPECT_GT(q_optimistic[a], q_random[a] + 2.0f);
    }
  }
}

}  // namespace
}  // namespace rl
}  // namespace tierfs
