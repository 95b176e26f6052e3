// The supervised migration baselines from the field (agents/ksvm.cc,
// agents/rnn_hss.cc) and what they share (agents/interval_history.h): the
// accesses per interval, the plan toward the wanted tiers, and each model
// bringing the segments that stay hot up and sending the cold ones down.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/interval_history.h"
#include "agents/policy.h"

namespace tierfs {
namespace {

constexpr uint64_t kSeg = 1 << 16;

// Tiers of `capacity` segments each; moves are applied as the engine would
// (a move into a full tier is refused, which the test counts).
class View : public StorageView {
 public:
  explicit View(std::vector<uint64_t> capacity) : capacity_(std::move(capacity)) {}
  int NumTiers() const override { return int(capacity_.size()); }
  uint64_t Capacity(int tier) const override { return capacity_[size_t(tier)] * kSeg; }
  uint64_t Used(int tier) const override {
    uint64_t n = 0;
    for (const auto& [id, s] : segments) n += s.tier == tier;
    return n * kSeg;
  }
  uint64_t Now() const override { return now; }
  uint64_t SegmentSize() const override { return kSeg; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    for (const auto& [id, s] : segments) fn(s);
  }
  void Add(uint64_t id, int tier) {
    SegmentInfo& s = segments[id];
    s.ref = SegmentRef{id, 0};
    s.kind = FileKind::kVolume;
    s.bytes = kSeg;
    s.tier = tier;
  }
  void Apply(const std::vector<Move>& moves) {
    for (const Move& m : moves) {
      ASSERT_EQ(Move::kMigrate, m.op);
      SegmentInfo& s = segments.at(m.ref.file_id);
      ASSERT_NE(m.to, s.tier) << "a move to where the segment is";
      if (Used(m.to) + s.bytes > Capacity(m.to)) {
        ++refused;
        continue;
      }
      s.tier = m.to;
    }
  }
  int TierOf(uint64_t id) const { return segments.at(id).tier; }

  std::map<uint64_t, SegmentInfo> segments;
  uint64_t now = 0;
  int refused = 0;

 private:
  std::vector<uint64_t> capacity_;
};

std::unique_ptr<Policy> Make(const std::string& name, const PolicyParams& params = {}) {
  std::string error;
  std::unique_ptr<Policy> p = NewPolicy(name, params, &error);
  EXPECT_NE(nullptr, p) << error;
  return p;
}

TEST(IntervalHistoryTest, CountsTheAccessesOfEachIntervalAndForgetsTheGone) {
  View view({4, 4});
  view.Add(1, 0);
  view.Add(2, 1);
  IntervalHistory history(3);
  view.segments[1].stats.user_reads = 5;
  view.segments[2].stats.writes = 2;
  history.Sample(view);
  view.segments[1].stats.user_reads = 12;  // 7 more
  history.Sample(view);
  view.segments.erase(2);
  view.Add(2, 1);  // placed again: its counters start over
  view.segments[2].stats.user_reads = 1;
  view.Add(3, 1);
  history.Sample(view);

  ASSERT_EQ(3u, history.intervals());
  const auto& s = history.segments();
  ASSERT_EQ(3u, s.size());
  EXPECT_EQ((std::vector<uint32_t>{5, 7, 0}), s[0].counts);
  // Segment 2's old counters (2, then still 2) are not its new life's: the
  // smaller total counts whole.
  EXPECT_EQ((std::vector<uint32_t>{2, 0, 1}), s[1].counts);
  EXPECT_EQ((std::vector<uint32_t>{0, 0, 0}), s[2].counts);
  view.segments.erase(1);
  history.Sample(view);
  ASSERT_EQ(2u, history.segments().size());
  EXPECT_EQ(2u, history.segments()[0].ref.file_id);
}

// Tier 0 full of cold segments 1 and 2; 3 (hot) and 4 (warm) below.
IntervalHistory FullFastTier(View* view) {
  for (uint64_t id = 1; id <= 4; ++id) view->Add(id, id <= 2 ? 0 : 1);
  IntervalHistory history(2);
  history.Sample(*view);
  return history;
}

std::vector<Wanted> HotUpColdDown() {
  return {{0, 1, 0.1}, {1, 1, 0.2}, {2, 0, 9}, {3, 0, 5}};
}

TEST(PlanTowardWantedTest, APromotionIntoAFullTierTakesTheColdestDownFirst) {
  View view({2, 8});
  IntervalHistory history = FullFastTier(&view);
  std::vector<Move> moves;
  PlanTowardWanted(view, history, HotUpColdDown(), 2, &moves);
  ASSERT_EQ(2u, moves.size());
  EXPECT_EQ(1u, moves[0].ref.file_id);  // the coldest down
  EXPECT_EQ(1, moves[0].to);
  EXPECT_EQ(3u, moves[1].ref.file_id);  // the hottest up
  EXPECT_EQ(0, moves[1].to);
  view.Apply(moves);
  EXPECT_EQ(0, view.refused);
}

TEST(PlanTowardWantedTest, OneSlotOnAFullTierDemotes) {
  View view({2, 8});
  IntervalHistory history = FullFastTier(&view);
  std::vector<Move> moves;
  PlanTowardWanted(view, history, HotUpColdDown(), 1, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(1u, moves[0].ref.file_id);
  EXPECT_EQ(1, moves[0].to);
}

TEST(PlanTowardWantedTest, EnoughSlotsMoveEverySegmentWhereItIsWanted) {
  View view({2, 8});
  IntervalHistory history = FullFastTier(&view);
  std::vector<Move> moves;
  PlanTowardWanted(view, history, HotUpColdDown(), 10, &moves);
  EXPECT_EQ(4u, moves.size());
  view.Apply(moves);
  EXPECT_EQ(0, view.refused);
  EXPECT_EQ(1, view.TierOf(1));
  EXPECT_EQ(1, view.TierOf(2));
  EXPECT_EQ(0, view.TierOf(3));
  EXPECT_EQ(0, view.TierOf(4));
}

TEST(PlanTowardWantedTest, FixedSegmentsAndFullSlowTiersStay) {
  View view({2, 2});
  IntervalHistory history = FullFastTier(&view);
  view.segments[1].busy = true;
  view.segments[2].hints.pinned_tier = 0;
  history.Sample(view);
  std::vector<Move> moves;
  PlanTowardWanted(view, history, HotUpColdDown(), 10, &moves);
  EXPECT_TRUE(moves.empty());  // 1 and 2 cannot leave, and tier 0 has no room
}

// Runs `policy` over `intervals` intervals in which segments `hot` are read
// `reads` times each and the others not at all; returns the moves planned.
size_t RunIntervals(Policy* policy, View* view, const std::vector<uint64_t>& hot, uint32_t reads,
           int intervals) {
  size_t moves_made = 0;
  for (int i = 0; i < intervals; ++i) {
    for (uint64_t id : hot) view->segments[id].stats.user_reads += reads;
    view->now += policy->PlanIntervalRequests();
    std::vector<Move> moves;
    policy->Plan(*view, 10, &moves);
    moves_made += moves.size();
    view->Apply(moves);
  }
  return moves_made;
}

// Tier 0 holds 4 of 12 segments, all placed there first and never read
// again; segments 9 to 12, on tier 1, are the ones read.
void ColdFastTier(View* view) {
  for (uint64_t id = 1; id <= 12; ++id) view->Add(id, id <= 4 ? 0 : 1);
}

class FieldBaselineTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FieldBaselineTest, BringsTheReadSegmentsUpAndTheIdleOnesDown) {
  std::unique_ptr<Policy> policy = Make(GetParam());
  ASSERT_NE(nullptr, policy);
  EXPECT_EQ(1000u, policy->PlanIntervalRequests());
  View view({4, 16});
  ColdFastTier(&view);
  // Some reads spread thinly, so the classes are not just "read or not".
  for (uint64_t id = 5; id <= 8; ++id) view.segments[id].stats.user_reads = 1;
  const std::vector<uint64_t> hot = {9, 10, 11, 12};
  RunIntervals(policy.get(), &view, hot, 40, 30);
  for (uint64_t id : hot) EXPECT_EQ(0, view.TierOf(id)) << GetParam() << " segment " << id;
  EXPECT_EQ(0, view.refused);
}

TEST_P(FieldBaselineTest, MovesNothingWhenNothingTellsTheSegmentsApart) {
  std::unique_ptr<Policy> policy = Make(GetParam());
  ASSERT_NE(nullptr, policy);
  View view({4, 16});
  ColdFastTier(&view);
  EXPECT_EQ(0u, RunIntervals(policy.get(), &view, {}, 0, 10)) << GetParam();
}

TEST_P(FieldBaselineTest, PlacesFastFirst) {
  std::unique_ptr<Policy> policy = Make(GetParam());
  ASSERT_NE(nullptr, policy);
  View view({1, 4});
  PlacementRequest r;
  r.bytes = kSeg;
  EXPECT_EQ(0, policy->Place(r, view));
  view.Add(1, 0);
  EXPECT_EQ(1, policy->Place(r, view));
}

TEST_P(FieldBaselineTest, UnknownParameterIsRefusedByName) {
  std::string error;
  EXPECT_EQ(nullptr, NewPolicy(GetParam(), {{"intervall", "5"}}, &error));
  EXPECT_NE(std::string::npos, error.find("intervall")) << error;
}

INSTANTIATE_TEST_SUITE_P(Policies, FieldBaselineTest, ::testing::Values("k-svm", "rnn-hss"));

TEST(FieldBaselineTest, KSvmSpreadsItsClassesOverThreeTiers) {
  std::unique_ptr<Policy> policy = Make("k-svm");
  View view({2, 2, 16});
  for (uint64_t id = 1; id <= 6; ++id) view.Add(id, id <= 2 ? 0 : id <= 4 ? 1 : 2);
  // 5 and 6 hottest, 3 and 4 warm, 1 and 2 idle: the order to become.
  for (int i = 0; i < 30; ++i) {
    for (uint64_t id : {5, 6}) view.segments[id].stats.user_reads += 50;
    for (uint64_t id : {3, 4}) view.segments[id].stats.user_reads += 5;
    view.now += 1000;
    std::vector<Move> moves;
    policy->Plan(view, 10, &moves);
    view.Apply(moves);
  }
  EXPECT_EQ(0, view.TierOf(5));
  EXPECT_EQ(0, view.TierOf(6));
  EXPECT_EQ(1, view.TierOf(3));
  EXPECT_EQ(1, view.TierOf(4));
  EXPECT_EQ(2, view.TierOf(1));
  EXPECT_EQ(2, view.TierOf(2));
}

TEST(FieldBaselineTest, RnnHssReportsItsTrainingLoss) {
  std::unique_ptr<Policy> policy = Make("rnn-hss");
  View view({4, 16});
  ColdFastTier(&view);
  RunIntervals(policy.get(), &view, {9, 10, 11, 12}, 40, 20);
  std::vector<Policy::LossCurve> curves = policy->LossCurves();
  ASSERT_EQ(1u, curves.size());
  // One point a plan after the first (which has no interval to learn yet).
  ASSERT_EQ(19u, curves[0].points.size());
  // The hot segments read alike in every interval: the loss falls.
  EXPECT_LT(curves[0].points.back().second, curves[0].points.front().second);
}

}  // namespace
}  // namespace tierfs
