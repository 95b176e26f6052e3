// The tuner's random numbers: SplitMix64 (util/splitmix64.h) with the few
// draws the optimizers need, written out here so that a seed gives the same
// search on every standard library (std's distributions are
// implementation-defined).
#pragma once

#include <cmath>
#include <cstdint>

#include "util/splitmix64.h"

namespace tierfs {
namespace tune {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(SplitMix64Hash(seed)) {}

  uint64_t Next() { return SplitMix64(&state_); }
  // Uniform in [0, 1), 53 bits.
  double Uniform() { return double(Next() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform in [0, n); n > 0. The modulo bias is below 2^-40 for the n used here.
  uint64_t Below(uint64_t n) { return Next() % n; }
  // Standard normal (Box-Muller, one value per call).
  double Normal() {
    const double u = 1.0 - Uniform();  // (0, 1]
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * Uniform());
  }

 private:
  uint64_t state_;
};

}  // namespace tune
}  // namespace tierfs
