#include "env/histogram.h"

namespace tierfs {

void RecordLatency(LatencyHistogram* h, uint64_t micros) {
  h->count++;
  h->sum_us += micros;
  h->buckets[AtomicHistogram::BucketFor(micros)]++;
}

void AtomicHistogram::Record(uint64_t micros) {
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(micros, std::memory_order_relaxed);
  buckets_[BucketFor(micros)].fetch_add(1, std::memory_order_relaxed);
}

LatencyHistogram AtomicHistogram::Snapshot() const {
  LatencyHistogram h;
  h.count = count_.load(std::memory_order_relaxed);
  h.sum_us = sum_us_.load(std::memory_order_relaxed);
  for (int i = 0; i < LatencyHistogram::kBuckets; ++i) {
    h.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
  }
  return h;
}

void AtomicHistogram::Merge(const LatencyHistogram& h) {
  count_.fetch_add(h.count, std::memory_order_relaxed);
  sum_us_.fetch_add(h.sum_us, std::memory_order_relaxed);
  for (int i = 0; i < LatencyHistogram::kBuckets; ++i) {
    buckets_[i].fetch_add(h.buckets[i], std::memory_order_relaxed);
  }
}

void LatencyHistogram::Add(const LatencyHistogram& other) {
  count += other.count;
  sum_us += other.sum_us;
  for (int i = 0; i < kBuckets; ++i) buckets[i] += other.buckets[i];
}

double LatencyHistogram::Percentile(double p) const {
  uint64_t total = 0;
  for (uint64_t b : buckets) total += b;
  if (total == 0) return 0;
  double want = p / 100.0 * double(total);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets[i];
    if (double(seen) >= want) return i == 0 ? 1.0 : double(1ull << i);
  }
  return double(1ull << (kBuckets - 1));
}

}  // namespace tierfs
