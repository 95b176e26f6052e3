// Zipfian ranks by the method of Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases" (SIGMOD 1994), with the arithmetic and
// quirks of YCSB 0.17's ZipfianGenerator: a uniform u below 1/zeta(n) is rank
// 0, below (1 + 0.5^theta)/zeta(n) rank 1 (the first two terms of the pmf
// 1/(rank+1)^theta/zeta(n)); above, Gray's closed-form approximation of the
// rest gives the rank. O(n) to set up (zeta), constant time a rank. The one
// Zipfian in the tree: the YCSB client's generators (tools/ycsb/generators.h)
// and the simulator's synthetic workloads (tools/sim/workloads.cc) both draw
// from it.
//
// It holds no randomness: a rank is a function of a uniform number in [0, 1)
// from the caller's generator. All its methods are const, so one Zipfian may
// serve many threads.
#pragma once

#include <cstdint>

namespace tierfs {

class Zipfian {
 public:
  // YCSB's ZIPFIAN_CONSTANT.
  static constexpr double kYcsbTheta = 0.99;

  // Ranks of `items` items, skew theta in (0, 1). REQUIRES: items >= 1.
  Zipfian(int64_t items, double theta);
  // With zeta(items, theta) already known (over 10^10 items it takes minutes).
  Zipfian(int64_t items, double theta, double zetan);

  // The rank of u, uniform in [0, 1): in [0, items), rank 0 the most likely.
  // Gray's formula can round up to `items` itself for u within a few ulps of
  // 1 (YCSB's too): a caller that indexes with the rank clamps it.
  int64_t Rank(double u) const { return Rank(u, items_); }
  // YCSB's nextLong(itemcount): Gray's formula scaled to `itemcount` items,
  // with this distribution's zeta and eta (YCSB's "latest" asks for counts
  // that grew, or shrank, since zeta was computed).
  int64_t Rank(double u, int64_t itemcount) const;

  // This distribution over `items` items, zeta extended from where it
  // stopped rather than recomputed; eta, as in YCSB, keeps the item count
  // given at construction. REQUIRES: items >= this->items().
  Zipfian Grown(int64_t items) const;

  // zeta(n) = sum over i in [1, n] of 1 / i^theta, given as `initial_sum`
  // the sum over [1, start].
  static double Zeta(int64_t start, int64_t n, double theta, double initial_sum);

  // The item count zeta covers.
  int64_t items() const { return items_; }
  double zetan() const { return zetan_; }

 private:
  Zipfian(int64_t eta_items, int64_t items, double theta, double zetan);

  int64_t eta_items_;  // the count eta uses: the one given at construction
  int64_t items_;      // the count zeta covers
  double theta_;
  double alpha_;       // 1 / (1 - theta)
  double zeta2theta_;  // zeta(2)
  double zetan_;
  double eta_;
};

}  // namespace tierfs
