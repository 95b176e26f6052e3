// util/splitmix64.h against the reference implementation's numbers (Vigna's
// splitmix64.c), which the agents' weights, the simulator's seeds, the YCSB
// client's generators and the crash tests' patterns all depend on.
#include "util/splitmix64.h"

#include <cstdint>
#include <set>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(SplitMix64Test, StreamIsTheReferenceImplementations) {
  uint64_t state = 0;
  EXPECT_EQ(0xE220A8397B1DCDAFull, SplitMix64(&state));
  EXPECT_EQ(0x6E789E6AA1B965F4ull, SplitMix64(&state));
  EXPECT_EQ(0x06C45D188009454Full, SplitMix64(&state));
  EXPECT_EQ(0xF88BB8A8724C81ECull, SplitMix64(&state));
  EXPECT_EQ(4 * kSplitMix64Gamma, state);

  state = 1234567;
  EXPECT_EQ(0x599ED017FB08FC85ull, SplitMix64(&state));
  EXPECT_EQ(0x2C73F08458540FA5ull, SplitMix64(&state));
}

TEST(SplitMix64Test, HashIsTheFirstNumberOfTheSeededStream) {
  static_assert(SplitMix64Hash(0) == 0xE220A8397B1DCDAFull, "usable in constant expressions");
  for (uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(42), ~uint64_t(0)}) {
    uint64_t state = seed;
    EXPECT_EQ(SplitMix64(&state), SplitMix64Hash(seed)) << seed;
    EXPECT_EQ(SplitMix64Mix(seed + kSplitMix64Gamma), SplitMix64Hash(seed)) << seed;
  }
}

TEST(SplitMix64Test, MixSpreadsNeighbouringInputs) {
  // A bijection: consecutive inputs (the seeds tools derive) never collide,
  // and one flipped input bit flips about half the output bits.
  std::set<uint64_t> seen;
  int flipped = 0;
  for (uint64_t x = 0; x < 4096; ++x) {
    EXPECT_TRUE(seen.insert(SplitMix64Mix(x)).second) << x;
    flipped += __builtin_popcountll(SplitMix64Mix(x) ^ SplitMix64Mix(x ^ 1));
  }
  EXPECT_NEAR(double(flipped) / 4096, 32, 1);
}

}  // namespace
}  // namespace tierfs
