#include "tools/ycsb/histogram.h"

#include <algorithm>

namespace tierfs {
namespace ycsb {

LatencyHistogram::LatencyHistogram() : counts_(new std::atomic<uint64_t>[kCountsLength]) {
  for (size_t i = 0; i < kCountsLength; ++i) counts_[i].store(0, std::memory_order_relaxed);
}

int LatencyHistogram::BucketIndex(int64_t value) {
  // HdrHistogram: leading-zero count base 64 - unit magnitude (0) - 10 - 1.
  return 53 - __builtin_clzll(uint64_t(value) | uint64_t(kSubBucketMask));
}

size_t LatencyHistogram::IndexFor(int64_t value) {
  const int bucket = BucketIndex(value);
  const int64_t sub_bucket = value >> bucket;
  return size_t(((int64_t(bucket) + 1) << kSubBucketHalfCountMagnitude) +
                (sub_bucket - kSubBucketHalfCount));
}

int64_t LatencyHistogram::ValueAtIndex(size_t index) {
  int bucket = int(index >> kSubBucketHalfCountMagnitude) - 1;
  int64_t sub_bucket = int64_t(index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
  if (bucket < 0) {
    sub_bucket -= kSubBucketHalfCount;
    bucket = 0;
  }
  return sub_bucket << bucket;
}

int64_t LatencyHistogram::LowestEquivalent(int64_t value) {
  const int bucket = BucketIndex(value);
  return (value >> bucket) << bucket;
}

int64_t LatencyHistogram::HighestEquivalent(int64_t value) {
  return LowestEquivalent(value) + (int64_t(1) << BucketIndex(value)) - 1;
}

void LatencyHistogram::Record(int64_t micros) {
  const int64_t value = std::min(std::max<int64_t>(micros, 0), kMaxValue);
  counts_[IndexFor(value)].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(uint64_t(value), std::memory_order_relaxed);
  int64_t seen = min_.load(std::memory_order_relaxed);
  while (value < seen && !min_.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
  seen = max_.load(std::memory_order_relaxed);
  while (value > seen && !max_.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
  // Last, so a snapshot never counts a sample whose bucket it missed.
  count_.fetch_add(1, std::memory_order_release);
}

LatencyHistogram::Snapshot LatencyHistogram::Take() const {
  Snapshot s;
  s.count = count_.load(std::memory_order_acquire);
  s.sum = sum_.load(std::memory_order_relaxed);
  s.min = s.count ? min_.load(std::memory_order_relaxed) : 0;
  s.max = max_.load(std::memory_order_relaxed);
  s.counts.resize(kCountsLength);
  for (size_t i = 0; i < kCountsLength; ++i) s.counts[i] = counts_[i].load(std::memory_order_relaxed);
  return s;
}

int64_t LatencyHistogram::Snapshot::ValueAtPercentile(double percentile) const {
  // Samples recorded while the snapshot was taken may be in the buckets and
  // not yet in `count`; walk the buckets' own total.
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  if (total == 0) return 0;
  const double requested = std::min(std::max(percentile, 0.0), 100.0);
  const uint64_t at = std::max<uint64_t>(uint64_t(requested / 100.0 * double(total) + 0.5), 1);
  uint64_t running = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    running += counts[i];
    if (running >= at) {
      const int64_t value = ValueAtIndex(i);
      return percentile == 0.0 ? LowestEquivalent(value) : HighestEquivalent(value);
    }
  }
  return 0;
}

LatencyHistogram::Snapshot LatencyHistogram::Snapshot::Minus(const Snapshot& earlier) const {
  Snapshot d;
  d.count = count - earlier.count;
  d.sum = sum - earlier.sum;
  d.counts.resize(counts.size());
  bool any = false;
  for (size_t i = 0; i < counts.size(); ++i) {
    d.counts[i] = counts[i] - (i < earlier.counts.size() ? earlier.counts[i] : 0);
    if (d.counts[i] == 0) continue;
    const int64_t value = ValueAtIndex(i);
    if (!any) d.min = LowestEquivalent(value);
    d.max = HighestEquivalent(value);
    any = true;
  }
  return d;
}

}  // namespace ycsb
}  // namespace tierfs
