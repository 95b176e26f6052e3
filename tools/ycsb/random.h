// The random numbers a YCSB client thread draws from. YCSB takes them from
// java.util.concurrent.ThreadLocalRandom; here each client thread owns one
// Random64 and hands it to the generators, so a generator shared by threads
// needs no lock for its randomness and a test can fix the seed.
#pragma once

#include <cstdint>

#include "util/splitmix64.h"

namespace tierfs {
namespace ycsb {

// xoshiro256** (Blackman and Vigna), seeded through splitmix64. Not thread
// safe: one per thread.
class Random64 {
 public:
  explicit Random64(uint64_t seed) {
    for (uint64_t& word : s_) word = SplitMix64(&seed);
  }

  // 64 uniformly random bits.
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits, as Java's Random.nextDouble().
  double NextDouble() { return double(Next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, 2^63): YCSB's Math.abs(nextLong()) without its one negative value.
  int64_t NextNonNegative() { return int64_t(Next() >> 1); }

  // A uniformly random 32-bit int, as Java's Random.nextInt().
  int32_t NextInt32() { return int32_t(uint32_t(Next() >> 32)); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
};

}  // namespace ycsb
}  // namespace tierfs
