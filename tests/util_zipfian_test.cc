// util/zipfian.h, the Zipfian of the YCSB client and of the simulator's
// workloads, against its definition: zeta, the exact probabilities of ranks 0
// and 1, Gray's formula for the rest with YCSB's quirks (the rank that rounds
// up to the item count, eta kept when zeta grows). Its frequencies are checked
// through the YCSB generators (ycsb_generators_test) and the simulator's
// workloads (sim_workloads_test).
#include "util/zipfian.h"

#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

constexpr double kTheta = Zipfian::kYcsbTheta;

TEST(ZipfianTest, ZetaIsTheGeneralizedHarmonicNumber) {
  EXPECT_DOUBLE_EQ(1.0, Zipfian::Zeta(0, 1, kTheta, 0));
  EXPECT_DOUBLE_EQ(1.0 + std::pow(2.0, -kTheta), Zipfian::Zeta(0, 2, kTheta, 0));
  // Incremental equals from scratch.
  const double from_scratch = Zipfian::Zeta(0, 500, kTheta, 0);
  const double incremental = Zipfian::Zeta(200, 500, kTheta, Zipfian::Zeta(0, 200, kTheta, 0));
  EXPECT_NEAR(from_scratch, incremental, 1e-12);
  EXPECT_DOUBLE_EQ(from_scratch, Zipfian(500, kTheta).zetan());
}

TEST(ZipfianTest, RanksZeroAndOneTakeTheFirstTermsOfThePmf) {
  const Zipfian zipf(1000, kTheta);
  // Rank 0 for u < 1/zeta(n), rank 1 for u < (1 + 0.5^theta)/zeta(n); above,
  // Gray's formula (which starts at rank 1 again).
  const double end0 = 1 / zipf.zetan();
  const double end1 = (1 + std::pow(0.5, kTheta)) / zipf.zetan();
  EXPECT_EQ(0, zipf.Rank(0.0));
  EXPECT_EQ(0, zipf.Rank(std::nextafter(end0, 0.0)));
  EXPECT_EQ(1, zipf.Rank(std::nextafter(end0, 1.0)));
  EXPECT_EQ(1, zipf.Rank(std::nextafter(end1, 0.0)));
}

TEST(ZipfianTest, HigherRanksComeInOrderUpToTheItemCount) {
  const Zipfian zipf(1000, kTheta);
  int64_t previous = 0;
  for (double u = 0; u < 1; u += 1.0 / 4096) {
    const int64_t rank = zipf.Rank(u);
    EXPECT_LE(previous, rank) << u;
    EXPECT_LT(rank, 1000) << u;
    previous = rank;
  }
  EXPECT_EQ(999, zipf.Rank(0.9999999));
  // YCSB's quirk, kept: within a few ulps of 1, Gray's formula rounds up to
  // the item count itself (callers that index with a rank clamp it).
  EXPECT_EQ(1000, zipf.Rank(std::nextafter(1.0, 0.0)));
  // One item: always rank 0.
  EXPECT_EQ(0, Zipfian(1, kTheta).Rank(std::nextafter(1.0, 0.0)));
}

TEST(ZipfianTest, RankScalesToAnotherItemCount) {
  // YCSB's nextLong(itemcount): the same zeta and eta, Gray's formula times
  // the count asked for; ranks 0 and 1 do not move.
  const Zipfian zipf(1000, kTheta);
  const double u = 0.9;
  EXPECT_NEAR(2 * zipf.Rank(u), zipf.Rank(u, 2000), 1);
  EXPECT_EQ(0, zipf.Rank(0.0, 2000));
}

TEST(ZipfianTest, GrownExtendsZetaAndKeepsEtaAsYcsb) {
  const Zipfian small(100, kTheta);
  const Zipfian grown = small.Grown(10000);
  const Zipfian fresh(10000, kTheta);
  EXPECT_EQ(10000, grown.items());
  EXPECT_NEAR(fresh.zetan(), grown.zetan(), 1e-9);
  // Same zeta: ranks 0 and 1 as a distribution built for 10000 items.
  EXPECT_EQ(fresh.Rank(0.5 / fresh.zetan()), grown.Rank(0.5 / fresh.zetan()));
  EXPECT_EQ(fresh.Rank(1.2 / fresh.zetan()), grown.Rank(1.2 / fresh.zetan()));
  // Eta from 100 items, not 10000: the tail of Gray's formula differs.
  EXPECT_NE(fresh.Rank(0.9), grown.Rank(0.9));
  EXPECT_EQ(grown.zetan(), grown.Grown(10000).zetan());
}

}  // namespace
}  // namespace tierfs
