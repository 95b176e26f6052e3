// The learned copy admission (agents/reuse_predictor.h): TinyLFU's rule
// until it has labels, then the order it learned; labels from the keys'
// next accesses; bounded memory.
#include "agents/reuse_predictor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "agents/policy.h"
#include "util/log2p.h"

namespace tierfs {
namespace {

Policy::CopyCandidate Page(uint64_t file, uint64_t page, int level, uint32_t frequency) {
  Policy::CopyCandidate c;
  c.file_id = file;
  c.kind = FileKind::kSst;
  c.level = level;
  c.page = page;
  c.frequency = frequency;
  return c;
}

// Accesses as the copies make them: a miss is noted, then asked about.
void Access(ReusePredictor* p, const Policy::CopyCandidate& c) {
  p->NoteAccess(c);
  p->Value(c);
}

TEST(ReusePredictorTest, FollowsTinyLfuUntilItHasLabels) {
  ReusePredictor::Options o;
  o.warmup = 1000;
  ReusePredictor p(o);
  p.SetCapacity(100);
  EXPECT_FALSE(p.warm());
  const auto once = Page(1, 1, 0, 1), twice = Page(1, 2, 0, 2), thrice = Page(1, 3, 0, 3);
  EXPECT_FALSE(p.Admit(once, nullptr));
  EXPECT_TRUE(p.Admit(twice, nullptr));
  EXPECT_FALSE(p.Admit(twice, &thrice));
  EXPECT_TRUE(p.Admit(thrice, &twice));
  EXPECT_DOUBLE_EQ(2.0 / 16, p.Value(twice));
}

// Pages of file 1 (L0) come back every 50 accesses; pages of file 2 (L3) are
// read once each. Both at the same sketch frequency: only what it learned
// (level, gaps, the file) tells them apart.
TEST(ReusePredictorTest, LearnsWhichPagesComeBack) {
  ReusePredictor::Options o;
  o.sample = 1;
  o.warmup = 500;
  o.floor = 0.25;
  ReusePredictor p(o);
  p.SetCapacity(100);  // horizon 200 accesses
  uint64_t cold = 0;
  for (int round = 0; round < 400; ++round) {
    for (uint64_t k = 0; k < 10; ++k) Access(&p, Page(1, k, 0, 3));
    for (int k = 0; k < 40; ++k) Access(&p, Page(2, cold++, 3, 3));
  }
  ASSERT_TRUE(p.warm());
  const ReusePredictor::Stats s = p.stats();
  EXPECT_GT(s.labels, 10000u);
  // A fifth of the samples are of hot pages, each reused within the horizon.
  EXPECT_NEAR(0.2, double(s.positives) / double(s.labels), 0.02);
  EXPECT_LT(s.loss, 0.2);  // far below the prior's 0.5 (entropy of 0.2)
  const auto hot = Page(1, 4, 0, 3), new_cold = Page(2, cold, 3, 3);
  p.NoteAccess(hot);
  p.NoteAccess(new_cold);
  EXPECT_GT(p.Value(hot), 0.8);
  EXPECT_LT(p.Value(new_cold), 0.2);
  EXPECT_TRUE(p.Admit(hot, &new_cold));
  EXPECT_FALSE(p.Admit(new_cold, &hot));
  EXPECT_TRUE(p.Admit(hot, nullptr));
  EXPECT_FALSE(p.Admit(new_cold, nullptr));  // under the floor
}

// Over a victim, a miss is copied only if it beats the victim by the
// margin (a copy costs a write); into free room the floor alone decides.
// Predictors that learn the same accesses (neither the margin nor the floor
// plays a part in learning): one tells a hot and a cold page's values, the
// others have a margin just under and just over their gap, and a floor
// under the hot page's value by less than the margin.
TEST(ReusePredictorTest, ReplacesAVictimOnlyForMoreThanTheMargin) {
  auto learned = [](double margin, double floor) {
    ReusePredictor::Options o;
    o.sample = 1;
    o.warmup = 500;
    o.floor = floor;
    o.margin = margin;
    auto p = std::make_unique<ReusePredictor>(o);
    p->SetCapacity(100);
    uint64_t cold = 0;
    for (int round = 0; round < 100; ++round) {
      for (uint64_t k = 0; k < 10; ++k) Access(p.get(), Page(1, k, 0, 3));
      for (int k = 0; k < 40; ++k) Access(p.get(), Page(2, cold++, 3, 3));
    }
    EXPECT_TRUE(p->warm());
    return p;
  };
  const auto hot = Page(1, 4, 0, 3), cold = Page(2, 1u << 20, 3, 3);
  auto probe = learned(0, 0);
  const double p_hot = probe->Value(hot), gap = p_hot - probe->Value(cold);
  ASSERT_GT(gap, 0.2);
  const double floor = p_hot - 0.05;
  auto under = learned(gap - 0.01, floor), over = learned(gap + 0.01, floor);
  EXPECT_TRUE(under->Admit(hot, &cold));
  EXPECT_FALSE(over->Admit(hot, &cold));
  EXPECT_TRUE(over->Admit(hot, nullptr));  // room: the floor alone decides
  EXPECT_FALSE(over->Admit(cold, nullptr));
}

// A working set that drifts: each access reads one of the 20 keys from
// `start` on, and `start` moves on by one every 10 accesses; a key behind
// it is never read again. The copies also ask about older keys (their
// victim scans). Once learned, a key read a moment ago is worth more than
// one of the same frequency read long ago.
TEST(ReusePredictorTest, LearnsRecency) {
  ReusePredictor::Options o;
  o.sample = 1;
  o.warmup = 500;
  ReusePredictor p(o);
  p.SetCapacity(50);  // horizon 100
  uint64_t start = 100, rng = 1;
  auto next = [&rng] {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng >> 33;
  };
  for (int i = 0; i < 40000; ++i) {
    Access(&p, Page(1, start + next() % 20, 1, 2));
    p.Value(Page(1, start - 60 + next() % 80, 1, 2));  // a victim scan
    if (i % 10 == 9) ++start;
  }
  ASSERT_TRUE(p.warm());
  Policy::CopyCandidate recent = Page(1, start + 5, 1, 2), stale = Page(1, start - 50, 1, 2);
  p.NoteAccess(recent);
  EXPECT_GT(p.Value(recent), p.Value(stale) + 0.3);
}

TEST(ReusePredictorTest, MemoryStaysBounded) {
  ReusePredictor::Options o;
  o.sample = 1;
  ReusePredictor p(o);
  p.SetCapacity(1000);  // horizon 2000; history 4096 entries
  for (uint64_t i = 0; i < 200000; ++i) Access(&p, Page(i % 5000, i, 2, 1));
  // The history (12 B a key), the ring of 4096 samples (40 B each) and
  // their index (40 B a node), the files seen within 64 horizons.
  EXPECT_LE(p.MemoryBytes(), uint64_t(4096 * 12 + 4096 * 40 + 4096 * 40 + 5000 * 40 + 160));
  EXPECT_EQ(200000u, p.stats().accesses);
}

// The predictor's features take log2(1 + x) from util/log2p.h: within
// 2e-4 of std::log2 from 0 to 2^40, exact at powers of two less one.
TEST(Log2pTest, FollowsStdLog2) {
  double worst = 0;
  for (double x = 0; x < double(1ull << 40); x = x * 1.01 + 0.37) {
    worst = std::max(worst, std::fabs(Log2p(x) - std::log2(1 + x)));
  }
  EXPECT_LT(worst, 2e-4);
  for (int k = 0; k < 40; ++k) EXPECT_NEAR(double(k), Log2p(double((1ull << k) - 1)), 1e-12) << k;
}

}  // namespace
}  // namespace tierfs
