// A lock-free latency histogram: one atomic counter per power-of-two bucket of
// microseconds. Recording is three relaxed atomic adds.
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
  LatencyHistogram Snapshot() const;
  // Adds a saved histogram (from the stats file) into this one.
  void Merge(const LatencyHistogram& h);

  static int BucketFor(uint64_t micros);

 private:
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_us_{0};
  std::atomic<uint64_t> buckets_[LatencyHistogram::kBuckets] = {};
};

}  // namespace tierfs
