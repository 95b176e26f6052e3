// The running mean latency the agents' adaptive rewards are measured
// against: one request in kSampling (by the store's request clock) moves an
// exponential mean over kSamples samples (4096 requests), so that the I/O
// path writes this shared word once per kSampling requests, not on each.
// Racing threads may lose an update, which only nudges an average.
#pragma once

#include <atomic>
#include <cstdint>

namespace tierfs {
namespace rl {

class SampledMean {
 public:
  static constexpr uint64_t kSampling = 16;
  static constexpr double kSamples = 256;

  // Thread-safe, lock-free.
  void Add(uint64_t seq, uint64_t latency_ns) {
    if (seq % kSampling != 0) return;
    const double mean = mean_ns_.load(std::memory_order_relaxed);
    mean_ns_.store(mean == 0 ? double(latency_ns) : mean + (double(latency_ns) - mean) / kSamples,
                   std::memory_order_relaxed);
  }
  double Get() const { return mean_ns_.load(std::memory_order_relaxed); }  // 0: no sample yet

 private:
  std::atomic<double> mean_ns_{0};
};

}  // namespace rl
}  // namespace tierfs
