// YCSB's Utils.fnvhash64, used to scatter keys (insertorder=hashed) and to
// scramble the zipfian distribution (ScrambledZipfianGenerator).
#pragma once

#include <cstdint>

namespace tierfs {
namespace ycsb {

// FNV-1a 64 over the 8 bytes of `value`, least significant byte first, then
// Java's Math.abs of the result read as a signed long (so the hash is
// non-negative, except INT64_MIN, which Math.abs leaves as it is). Byte for
// byte the value YCSB computes: keys and hot sets match a Java YCSB client's.
inline int64_t FnvHash64(int64_t value) {
  constexpr uint64_t kOffsetBasis = 0xCBF29CE484222325ULL;
  constexpr uint64_t kPrime = 1099511628211ULL;
  uint64_t hash = kOffsetBasis;
  uint64_t bits = uint64_t(value);
  for (int i = 0; i < 8; ++i) {
    hash ^= bits & 0xff;
    hash *= kPrime;
    bits >>= 8;
  }
  const int64_t signed_hash = int64_t(hash);
  if (signed_hash >= 0 || signed_hash == INT64_MIN) return signed_hash;
  return -signed_hash;
}

}  // namespace ycsb
}  // namespace tierfs
