// A latency histogram with HdrHistogram's bucket layout at 3 significant
// digits (what YCSB's default measurementtype=hdrhistogram records into):
// values below 2048 us are exact, larger ones fall in buckets 1/1024 to 1/2048
// of their value wide, so a percentile is within 0.1% of the true value and
// equal to the one YCSB would print for the same samples. Recording is a few
// relaxed atomic adds: many threads may record while another snapshots.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace tierfs {
namespace ycsb {

class LatencyHistogram {
 public:
  // Values at and above this (2^41 us, 25 days) are recorded as kMaxValue.
  static constexpr int64_t kMaxValue = (int64_t(2048) << 30) - 1;

  // What a histogram held at one moment, or between two moments (Minus).
  struct Snapshot {
    std::vector<uint64_t> counts;  // per bucket
    uint64_t count = 0;
    uint64_t sum = 0;              // of the recorded values, for the exact mean
    int64_t min = 0, max = 0;      // 0 when empty

    double Mean() const { return count ? double(sum) / double(count) : 0.0; }
    // HdrHistogram's getValueAtPercentile: the highest value equivalent to the
    // one at which the cumulative count reaches percentile% (rounded to the
    // nearest sample, at least the first); 0 when empty.
    int64_t ValueAtPercentile(double percentile) const;
    // The samples recorded after `earlier` was taken. Its min and max are
    // those of the buckets (exact below 2048 us).
    Snapshot Minus(const Snapshot& earlier) const;
  };

  LatencyHistogram();

  // Records one value in microseconds (negative as 0).
  void Record(int64_t micros);
  Snapshot Take() const;
  uint64_t Count() const { return count_.load(std::memory_order_acquire); }

  // Bucket arithmetic, public for tests.
  static size_t IndexFor(int64_t value);
  static int64_t LowestEquivalent(int64_t value);
  static int64_t HighestEquivalent(int64_t value);
  static int64_t ValueAtIndex(size_t index);

 private:
  static constexpr int kSubBucketHalfCountMagnitude = 10;
  static constexpr int64_t kSubBucketHalfCount = 1 << kSubBucketHalfCountMagnitude;
  static constexpr int64_t kSubBucketMask = 2 * kSubBucketHalfCount - 1;
  static constexpr int kBucketCount = 31;
  static constexpr size_t kCountsLength = (kBucketCount + 1) * kSubBucketHalfCount;

  static int BucketIndex(int64_t value);

  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_{0};
  std::atomic<int64_t> min_{INT64_MAX};
  std::atomic<int64_t> max_{0};
};

}  // namespace ycsb
}  // namespace tierfs
