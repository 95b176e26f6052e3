// A lock-free latency histogram: one atomic counter per power-of-two bucket of
// microseconds. Recording is three relaxed atomic adds, or three plain
// stores where one thread owns the histogram.
#pragma once

#include <atomic>
#include <cstdint>

#include "tierfs/statistics.h"

namespace tierfs {

// Adds one sample to a plain (single-threaded) histogram.
void RecordLatency(LatencyHistogram* h, uint64_t micros);

class AtomicHistogram {
 public:
  void Record(uint64_t micros);
  // Record for a histogram only one thread writes (a per-thread shard):
  // plain stores, no locked instruction; readers still load atomically.
  void RecordOwned(uint64_t micros) {
    Bump(count_, 1);
    Bump(sum_us_, micros);
    Bump(buckets_[BucketFor(micros)], 1);
  }
  LatencyHistogram Snapshot() const;
  // Adds a saved histogram (from the stats file) into this one.
  void Merge(const LatencyHistogram& h);

  static int BucketFor(uint64_t micros) {
    int b = micros == 0 ? 0 : 64 - __builtin_clzll(micros);  // bit length
    return b < LatencyHistogram::kBuckets ? b : LatencyHistogram::kBuckets - 1;
  }
  // Adds n where this thread is the only writer.
  static void Bump(std::atomic<uint64_t>& v, uint64_t n) {
    v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_us_{0};
  std::atomic<uint64_t> buckets_[LatencyHistogram::kBuckets] = {};
};

}  // namespace tierfs
