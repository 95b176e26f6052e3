// splitmix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
// Generators", OOPSLA 2014, as in Vigna's public-domain splitmix64.c): a
// 64-bit state advanced by a fixed odd increment, each number that state
// through a bijective mix. Fast, and good enough to seed other generators,
// derive seeds, draw initial network weights and fill test patterns; not for
// cryptography. The one copy in the tree: header only and dependency-free, so
// agents/ (which must not see RocksDB), tools/ and tests/ all include it.
#pragma once

#include <cstdint>

namespace tierfs {

// What the state advances by per number: 2^64 over the golden ratio, odd.
constexpr uint64_t kSplitMix64Gamma = 0x9E3779B97F4A7C15ull;

// The output function: each bit of z mixed into every bit of the result; a
// bijection of 64-bit words (distinct inputs, distinct outputs).
constexpr uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The next number of the stream whose state is *state, which it advances.
// Seeded with 0, the stream starts 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4.
inline uint64_t SplitMix64(uint64_t* state) {
  *state += kSplitMix64Gamma;
  return SplitMix64Mix(*state);
}

// The first number of the stream seeded with `seed`: a stateless hash of it.
constexpr uint64_t SplitMix64Hash(uint64_t seed) { return SplitMix64Mix(seed + kSplitMix64Gamma); }

}  // namespace tierfs
