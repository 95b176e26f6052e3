// YCSB's number generators against their definitions: the distribution each
// is meant to draw from, YCSB's constants, and the FNV hash YCSB keys and
// scrambles with. Fixed seeds: every run draws the same numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "tools/ycsb/counters.h"
#include "tools/ycsb/fnv_hash.h"
#include "tools/ycsb/generators.h"
#include "tools/ycsb/random.h"

namespace tierfs {
namespace ycsb {
namespace {

constexpr double kTheta = ZipfianGenerator::kZipfianConstant;

// Frequencies of Next() over `samples` draws.
std::map<int64_t, double> Frequencies(NumberGenerator* gen, int samples, uint64_t seed) {
  Random64 rng(seed);
  std::map<int64_t, double> freq;
  for (int i = 0; i < samples; ++i) freq[gen->Next(&rng)] += 1.0 / samples;
  return freq;
}

// Binomial standard deviation of a frequency p over n samples.
double Sigma(double p, int n) { return std::sqrt(p * (1 - p) / n); }

TEST(FnvHashTest, MatchesYcsbFnvHash64) {
  // fnvhash64(0): every octet is 0, so the hash is the offset basis times the
  // prime eight times, mod 2^64: 0xa8c7f832281a39c5. As a Java long it is
  // negative; Math.abs gives 2^64 - 0xa8c7f832281a39c5 = 0x573807cdd7e5c63b.
  EXPECT_EQ(int64_t(0x573807cdd7e5c63bLL), FnvHash64(0));
  EXPECT_EQ(6284781860667377211LL, FnvHash64(0));
  // The others from the same definition (FNV-1a over the 8 bytes, least
  // significant first, then Math.abs), computed outside this code.
  EXPECT_EQ(8517097267634966620LL, FnvHash64(1));
  EXPECT_EQ(1820151046732198393LL, FnvHash64(2));
  EXPECT_EQ(1000385178204227360LL, FnvHash64(5));
  EXPECT_EQ(5952875239596136740LL, FnvHash64(1000));
  EXPECT_EQ(2350796791908741607LL, FnvHash64(123456789));
  EXPECT_EQ(8289690350564177859LL, FnvHash64(-1));
}

TEST(UniformGeneratorTest, PassesChiSquareAndCoversTheRange) {
  UniformGenerator gen(10, 109);
  constexpr int kSamples = 200000;
  Random64 rng(1);
  std::vector<int> counts(100, 0);
  for (int i = 0; i < kSamples; ++i) {
    const int64_t v = gen.Next(&rng);
    ASSERT_GE(v, 10);
    ASSERT_LE(v, 109);
    ++counts[size_t(v - 10)];
  }
  const double expected = kSamples / 100.0;
  double chi2 = 0;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 148.2);  // 99 degrees of freedom, p = 0.001
  EXPECT_GT(counts.front(), 0);
  EXPECT_GT(counts.back(), 0);
}

TEST(ZipfianGeneratorTest, RanksFollowTheZipfianPmf) {
  constexpr int64_t kItems = 1000;
  constexpr int kSamples = 1000000;
  ZipfianGenerator gen(0, kItems - 1);
  const double zetan = Zipfian::Zeta(0, kItems, kTheta, 0);
  EXPECT_DOUBLE_EQ(zetan, gen.zetan());
  std::map<int64_t, double> freq = Frequencies(&gen, kSamples, 2);
  EXPECT_GE(freq.begin()->first, 0);
  EXPECT_LT(freq.rbegin()->first, kItems);

  // Ranks 0 and 1 are drawn exactly with the pmf 1/rank^theta / zeta(n).
  for (int rank : {0, 1}) {
    const double p = 1 / std::pow(rank + 1, kTheta) / zetan;
    EXPECT_NEAR(p, freq[rank], 5 * Sigma(p, kSamples)) << "rank " << rank;
  }
  // Higher ranks by Gray's approximation: close to the pmf, and decreasing.
  for (int rank : {2, 5, 20, 100}) {
    const double p = 1 / std::pow(rank + 1, kTheta) / zetan;
    EXPECT_NEAR(p, freq[rank], 0.15 * p + 5 * Sigma(p, kSamples)) << "rank " << rank;
  }
  EXPECT_GT(freq[0], freq[1]);
  EXPECT_GT(freq[1], freq[2]);
  EXPECT_GT(freq[10], freq[500]);
}

TEST(ZipfianGeneratorTest, GrowsToMoreItemsWithIncrementalZeta) {
  // As the "latest" distribution does: ask for more items than at construction.
  ZipfianGenerator gen(0, 99);
  Random64 rng(3);
  constexpr int kSamples = 400000;
  int zeros = 0;
  int64_t max_seen = 0;
  for (int i = 0; i < kSamples; ++i) {
    const int64_t v = gen.NextLong(&rng, 10000);
    if (v == 0) ++zeros;
    max_seen = std::max(max_seen, v);
  }
  // P(0) is now 1/zeta(10000), the zeta extended from 100 to 10000 items.
  const double p0 = 1 / Zipfian::Zeta(0, 10000, kTheta, 0);
  EXPECT_NEAR(p0, double(zeros) / kSamples, 5 * Sigma(p0, kSamples));
  EXPECT_GT(max_seen, 99);
  EXPECT_LT(max_seen, 10000);
}

TEST(ScrambledZipfianGeneratorTest, HotKeysAreSpreadAndStillZipfian) {
  constexpr int64_t kItems = 1000;
  constexpr int kSamples = 1000000;
  ScrambledZipfianGenerator gen(0, kItems - 1);
  std::map<int64_t, double> freq = Frequencies(&gen, kSamples, 4);
  std::vector<std::pair<double, int64_t>> by_heat;
  for (const auto& f : freq) by_heat.emplace_back(f.second, f.first);
  std::sort(by_heat.rbegin(), by_heat.rend());

  // The hottest keys are where FNV puts zipfian ranks 0 and 1, as YCSB.
  EXPECT_EQ(FnvHash64(0) % kItems, by_heat[0].second);
  EXPECT_EQ(FnvHash64(1) % kItems, by_heat[1].second);
  // Their frequencies are those of ranks 0 and 1 of YCSB's 10^10-item
  // zipfian with its precomputed zeta, plus what the other ranks add by
  // hashing onto the same key: on average (1 - p0 - p1) / items; allow 3x.
  const double p0 = 1 / ScrambledZipfianGenerator::kZetan;
  const double p1 = std::pow(0.5, kTheta) / ScrambledZipfianGenerator::kZetan;
  const double background = (1 - p0 - p1) / kItems;
  EXPECT_GT(by_heat[0].first, p0 - 5 * Sigma(p0, kSamples));
  EXPECT_LT(by_heat[0].first, p0 + 3 * background + 5 * Sigma(p0, kSamples));
  EXPECT_GT(by_heat[1].first, p1 - 5 * Sigma(p1, kSamples));
  EXPECT_LT(by_heat[1].first, p1 + 3 * background + 5 * Sigma(p1, kSamples));
  // Still zipfian below the top: the 10th hottest key is far colder than the
  // hottest, about as rank 9 is (with collisions, within a factor 2).
  const double p9 = std::pow(10.0, -kTheta) / ScrambledZipfianGenerator::kZetan;
  EXPECT_GT(by_heat[9].first, 0.8 * p9);
  EXPECT_LT(by_heat[9].first, 2.0 * p9);

  // Spread: the ten hottest keys are not clustered at the low end, as plain
  // zipfian's are, but span most of the key space.
  int64_t lo = kItems, hi = -1;
  for (int i = 0; i < 10; ++i) {
    lo = std::min(lo, by_heat[size_t(i)].second);
    hi = std::max(hi, by_heat[size_t(i)].second);
  }
  EXPECT_GT(hi - lo, kItems / 2);
}

TEST(ScrambledZipfianGeneratorTest, StaysInItsRange) {
  ScrambledZipfianGenerator gen(500, 599);
  Random64 rng(5);
  for (int i = 0; i < 100000; ++i) {
    const int64_t v = gen.Next(&rng);
    ASSERT_GE(v, 500);
    ASSERT_LE(v, 599);
  }
}

TEST(SkewedLatestGeneratorTest, TheMostRecentInsertIsTheMostLikely) {
  AcknowledgedCounterGenerator inserts(1000);  // keys 0..999 loaded
  SkewedLatestGenerator gen(&inserts);
  std::map<int64_t, double> freq = Frequencies(&gen, 200000, 6);
  auto hottest = std::max_element(freq.begin(), freq.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ(999, hottest->first);
  EXPECT_GT(freq[999], freq[998]);
  EXPECT_GT(freq[998], freq[900]);
  EXPECT_GE(freq.begin()->first, 1);  // YCSB's latest never picks key 0
  EXPECT_LE(freq.rbegin()->first, 999);

  // After more inserts are acknowledged, the newest of them is the hottest.
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(inserts.Acknowledge(inserts.Next()));
  ASSERT_EQ(1099, inserts.Last());
  freq = Frequencies(&gen, 200000, 7);
  hottest = std::max_element(freq.begin(), freq.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ(1099, hottest->first);
  EXPECT_LE(freq.rbegin()->first, 1099);
}

TEST(AcknowledgedCounterTest, LastMovesOnlyOverContiguousAcknowledgements) {
  AcknowledgedCounterGenerator counter(100);
  EXPECT_EQ(99, counter.Last());
  const int64_t a = counter.Next(), b = counter.Next(), c = counter.Next();
  ASSERT_EQ(100, a);
  ASSERT_EQ(102, c);
  EXPECT_TRUE(counter.Acknowledge(b));
  EXPECT_EQ(99, counter.Last());  // 100 still outstanding
  EXPECT_TRUE(counter.Acknowledge(a));
  EXPECT_EQ(101, counter.Last());
  EXPECT_TRUE(counter.Acknowledge(c));
  EXPECT_EQ(102, counter.Last());
}

TEST(AcknowledgedCounterTest, RefusesMoreOutstandingThanTheWindow) {
  AcknowledgedCounterGenerator counter(0);
  counter.Next();  // 0, never acknowledged: limit stays at -1
  for (int64_t i = 1; i < AcknowledgedCounterGenerator::kWindowSize; ++i) {
    ASSERT_TRUE(counter.Acknowledge(counter.Next()));
  }
  // Value 0 is outstanding, so values 1 .. 2^20 - 1 stay in the window.
  // 2^20 (slot 0) is skipped; 2^20 + 1 needs slot 1, still held by value 1.
  counter.Next();
  EXPECT_FALSE(counter.Acknowledge(counter.Next()));
  EXPECT_EQ(-1, counter.Last());
}

TEST(HotspotGeneratorTest, OperationFractionHitsTheHotFraction) {
  HotspotGenerator gen(0, 999, 0.2, 0.8);
  ASSERT_EQ(200, gen.hot_interval());
  constexpr int kSamples = 200000;
  Random64 rng(8);
  int hot = 0;
  int64_t hot_min = 1000, hot_max = -1, cold_min = 1000, cold_max = -1;
  for (int i = 0; i < kSamples; ++i) {
    const int64_t v = gen.Next(&rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 999);
    if (v < 200) {
      ++hot;
      hot_min = std::min(hot_min, v);
      hot_max = std::max(hot_max, v);
    } else {
      cold_min = std::min(cold_min, v);
      cold_max = std::max(cold_max, v);
    }
  }
  EXPECT_NEAR(0.8, double(hot) / kSamples, 5 * Sigma(0.8, kSamples));
  EXPECT_EQ(0, hot_min);
  EXPECT_EQ(199, hot_max);
  EXPECT_EQ(200, cold_min);
  EXPECT_EQ(999, cold_max);
}

TEST(SequentialGeneratorTest, CyclesThroughTheRange) {
  SequentialGenerator gen(5, 8);
  Random64 rng(9);
  std::vector<int64_t> seen;
  for (int i = 0; i < 9; ++i) seen.push_back(gen.Next(&rng));
  EXPECT_EQ((std::vector<int64_t>{5, 6, 7, 8, 5, 6, 7, 8, 5}), seen);
}

TEST(ExponentialGeneratorTest, PercentileOfValuesFallBelowTheRange) {
  // YCSB's definition: percentile% of the values are below `range`.
  ExponentialGenerator gen(95, 1000);
  constexpr int kSamples = 200000;
  Random64 rng(10);
  int below = 0;
  double sum = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double v = gen.NextDouble(&rng);
    ASSERT_GE(v, 0);
    if (v < 1000) ++below;
    sum += v;
  }
  EXPECT_NEAR(0.95, double(below) / kSamples, 5 * Sigma(0.95, kSamples));
  // The mean of an exponential distribution is 1/gamma = 1000 / ln(20).
  EXPECT_NEAR(1000 / std::log(20.0), sum / kSamples, 0.02 * 1000 / std::log(20.0));
}

TEST(DiscreteGeneratorTest, ChoosesByWeight) {
  DiscreteGenerator gen;
  gen.Add(5, 0);
  gen.Add(3, 1);
  gen.Add(2, 2);  // weights need not sum to 1
  constexpr int kSamples = 100000;
  Random64 rng(11);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < kSamples; ++i) ++counts[gen.Next(&rng)];
  EXPECT_NEAR(0.5, double(counts[0]) / kSamples, 5 * Sigma(0.5, kSamples));
  EXPECT_NEAR(0.3, double(counts[1]) / kSamples, 5 * Sigma(0.3, kSamples));
  EXPECT_NEAR(0.2, double(counts[2]) / kSamples, 5 * Sigma(0.2, kSamples));
}

TEST(CounterGeneratorTest, CountsFromItsStart) {
  CounterGenerator counter(7);
  EXPECT_EQ(6, counter.Last());
  EXPECT_EQ(7, counter.Next());
  EXPECT_EQ(8, counter.Next());
  EXPECT_EQ(8, counter.Last());
}

}  // namespace
}  // namespace ycsb
}  // namespace tierfs
