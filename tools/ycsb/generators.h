// YCSB's number generators (site.ycsb.generator), each with the algorithm,
// constants and quirks of YCSB 0.17, so a request distribution here picks the
// keys a Java YCSB client would pick (up to the random numbers themselves).
//
// Randomness comes from the caller's Random64 (one per client thread, as
// YCSB's ThreadLocalRandom). A generator is safe to share between threads
// unless its comment says otherwise.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "tools/ycsb/counters.h"
#include "tools/ycsb/random.h"
#include "util/zipfian.h"

namespace tierfs {
namespace ycsb {

class NumberGenerator {
 public:
  virtual ~NumberGenerator() = default;
  virtual int64_t Next(Random64* rng) = 0;
};

// Always `value` (fieldlengthdistribution=constant).
class ConstantGenerator : public NumberGenerator {
 public:
  explicit ConstantGenerator(int64_t value) : value_(value) {}
  int64_t Next(Random64*) override { return value_; }

 private:
  const int64_t value_;
};

// Uniform over [lb, ub] inclusive (UniformLongGenerator). REQUIRES: lb <= ub.
class UniformGenerator : public NumberGenerator {
 public:
  UniformGenerator(int64_t lb, int64_t ub) : lb_(lb), interval_(ub - lb + 1) {}
  int64_t Next(Random64* rng) override { return lb_ + rng->NextNonNegative() % interval_; }

 private:
  const int64_t lb_, interval_;
};

// Zipfian over [min, max], min the most popular (ZipfianGenerator): YCSB's
// algorithm, which util/zipfian.h holds, shifted to start at min.
// NextLong may be asked for more items than the generator was built for (the
// "latest" distribution grows as inserts come); zeta is then extended
// incrementally, and, as in YCSB, eta keeps the construction-time item count.
// REQUIRES: min <= max.
class ZipfianGenerator : public NumberGenerator {
 public:
  static constexpr double kZipfianConstant = Zipfian::kYcsbTheta;

  ZipfianGenerator(int64_t min, int64_t max, double theta = kZipfianConstant)
      : items_(max - min + 1), base_(min), zipfian_(items_, theta), grown_zipfian_(zipfian_) {}
  // With zeta(max - min + 1, theta) precomputed (zeta over 10^10 items takes minutes).
  ZipfianGenerator(int64_t min, int64_t max, double theta, double zetan)
      : items_(max - min + 1),
        base_(min),
        zipfian_(items_, theta, zetan),
        grown_zipfian_(zipfian_) {}

  int64_t Next(Random64* rng) override { return NextLong(rng, items_); }
  // A value among `itemcount` items starting at min.
  int64_t NextLong(Random64* rng, int64_t itemcount);

  double zetan() const { return zipfian_.zetan(); }

 private:
  const int64_t items_, base_;
  // The distribution over items_, never changed: the lock-free path.
  const Zipfian zipfian_;

  // After NextLong asked for more than items_: the extended distribution.
  std::atomic<bool> grown_{false};
  std::mutex grow_mu_;
  Zipfian grown_zipfian_;  // guarded by grow_mu_
};

// Zipfian with the popular items scattered over [min, max]
// (ScrambledZipfianGenerator): a zipfian rank among YCSB's fixed 10^10 items
// (with its precomputed zeta), FNV-hashed, modulo the item count. The hottest
// key is as hot as zipfian rank 0, but where it sits depends only on the hash.
class ScrambledZipfianGenerator : public NumberGenerator {
 public:
  static constexpr int64_t kItemCount = 10000000000LL;
  static constexpr double kZetan = 26.46902820178302;  // zeta(kItemCount, 0.99)

  ScrambledZipfianGenerator(int64_t min, int64_t max);
  int64_t Next(Random64* rng) override;

 private:
  ZipfianGenerator gen_;
  const int64_t min_, itemcount_;
};

// Recent items far more popular than old ones (SkewedLatestGenerator):
// basis.Last() minus a zipfian rank over basis.Last() items, so the latest
// acknowledged insert is the most likely. Never picks 0, as YCSB.
// REQUIRES: basis->Last() >= 1 at construction; basis outlives this.
class SkewedLatestGenerator : public NumberGenerator {
 public:
  explicit SkewedLatestGenerator(const CounterGenerator* basis);
  int64_t Next(Random64* rng) override;

 private:
  const CounterGenerator* basis_;
  ZipfianGenerator zipfian_;
};

// A fraction `hot_opn_fraction` of the values fall uniformly in the lowest
// `hot_set_fraction` of [lb, ub], the rest uniformly in the remainder
// (HotspotIntegerGenerator). REQUIRES: lb <= ub, both fractions in [0, 1], and
// a non-empty hot (cold) set if any value may fall in it.
class HotspotGenerator : public NumberGenerator {
 public:
  HotspotGenerator(int64_t lb, int64_t ub, double hot_set_fraction, double hot_opn_fraction);
  int64_t Next(Random64* rng) override;

  int64_t hot_interval() const { return hot_interval_; }
  int64_t cold_interval() const { return cold_interval_; }

 private:
  const int64_t lb_, hot_interval_, cold_interval_;
  const double hot_opn_fraction_;
};

// start, start + 1, ..., end, start, ... (SequentialGenerator).
class SequentialGenerator : public NumberGenerator {
 public:
  SequentialGenerator(int64_t start, int64_t end) : start_(start), interval_(end - start + 1) {}
  int64_t Next(Random64*) override {
    return start_ + counter_.fetch_add(1, std::memory_order_relaxed) % interval_;
  }

 private:
  const int64_t start_, interval_;
  std::atomic<int64_t> counter_{0};
};

// Exponentially distributed, skewed to 0 (ExponentialGenerator), with the
// rate chosen so that `percentile` percent of the values fall below `range`:
// gamma = -ln(1 - percentile/100) / range.
class ExponentialGenerator : public NumberGenerator {
 public:
  ExponentialGenerator(double percentile, double range);
  double NextDouble(Random64* rng);
  // NextDouble truncated toward zero, INT64_MAX if it does not fit.
  int64_t Next(Random64* rng) override;

 private:
  const double gamma_;
};

// Picks one of several values with the given weights (DiscreteGenerator);
// weights need not sum to 1. Not thread safe to Add() while others Next().
class DiscreteGenerator {
 public:
  void Add(double weight, int value) { choices_.emplace_back(weight, value); }
  bool empty() const { return choices_.empty(); }
  // REQUIRES: !empty().
  int Next(Random64* rng) const;

 private:
  std::vector<std::pair<double, int>> choices_;
};

}  // namespace ycsb
}  // namespace tierfs
