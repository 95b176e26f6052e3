#include "tools/ycsb/generators.h"

#include <cmath>

#include "tools/ycsb/fnv_hash.h"

namespace tierfs {
namespace ycsb {

// ---- Zipfian ----

int64_t ZipfianGenerator::NextLong(Random64* rng, int64_t itemcount) {
  if (itemcount == items_ && !grown_.load(std::memory_order_acquire)) {
    return base_ + zipfian_.Rank(rng->NextDouble(), itemcount);
  }
  const Zipfian zipfian = [&] {
    std::lock_guard<std::mutex> lock(grow_mu_);
    if (itemcount > grown_zipfian_.items()) {
      // More items than before: extend zeta from where it stopped. Fewer (a
      // thread that read an older count) keep the larger distribution, as YCSB.
      grown_zipfian_ = grown_zipfian_.Grown(itemcount);
      grown_.store(true, std::memory_order_release);
    }
    return grown_zipfian_;
  }();
  return base_ + zipfian.Rank(rng->NextDouble(), itemcount);
}

// ---- Scrambled zipfian ----

ScrambledZipfianGenerator::ScrambledZipfianGenerator(int64_t min, int64_t max)
    : gen_(0, kItemCount, ZipfianGenerator::kZipfianConstant, kZetan),
      min_(min),
      itemcount_(max - min + 1) {}

int64_t ScrambledZipfianGenerator::Next(Random64* rng) {
  return min_ + FnvHash64(gen_.Next(rng)) % itemcount_;
}

// ---- Skewed latest ----

SkewedLatestGenerator::SkewedLatestGenerator(const CounterGenerator* basis)
    : basis_(basis), zipfian_(0, basis->Last() - 1) {}

int64_t SkewedLatestGenerator::Next(Random64* rng) {
  const int64_t max = basis_->Last();
  return max - zipfian_.NextLong(rng, max);
}

// ---- Hotspot ----

HotspotGenerator::HotspotGenerator(int64_t lb, int64_t ub, double hot_set_fraction,
                                   double hot_opn_fraction)
    : lb_(lb),
      hot_interval_(int64_t(double(ub - lb + 1) * hot_set_fraction)),
      cold_interval_(ub - lb + 1 - hot_interval_),
      hot_opn_fraction_(hot_opn_fraction) {}

int64_t HotspotGenerator::Next(Random64* rng) {
  if (rng->NextDouble() < hot_opn_fraction_) {
    return lb_ + rng->NextNonNegative() % hot_interval_;
  }
  return lb_ + hot_interval_ + rng->NextNonNegative() % cold_interval_;
}

// ---- Exponential ----

ExponentialGenerator::ExponentialGenerator(double percentile, double range)
    : gamma_(-std::log(1.0 - percentile / 100.0) / range) {}

double ExponentialGenerator::NextDouble(Random64* rng) {
  return -std::log(rng->NextDouble()) / gamma_;
}

int64_t ExponentialGenerator::Next(Random64* rng) {
  const double value = NextDouble(rng);
  // Java's Double.intValue() saturates; a C++ cast of an out-of-range double is undefined.
  if (!(value < 9.2e18)) return INT64_MAX;
  return int64_t(value);
}

// ---- Discrete ----

int DiscreteGenerator::Next(Random64* rng) const {
  double sum = 0;
  for (const auto& choice : choices_) sum += choice.first;
  double val = rng->NextDouble();
  for (const auto& choice : choices_) {
    const double pw = choice.first / sum;
    if (val < pw) return choice.second;
    val -= pw;
  }
  // Rounding left val a hair above the last weight: YCSB asserts; take the last.
  return choices_.back().second;
}

}  // namespace ycsb
}  // namespace tierfs
