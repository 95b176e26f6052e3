// Key sequences: YCSB's CounterGenerator (the load phase's keys) and
// AcknowledgedCounterGenerator (the keys inserted during the run phase, which
// reads may choose only once their insert has finished).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace tierfs {
namespace ycsb {

// start, start + 1, ... Thread safe.
class CounterGenerator {
 public:
  explicit CounterGenerator(int64_t start) : counter_(start) {}
  virtual ~CounterGenerator() = default;

  int64_t Next() { return counter_.fetch_add(1, std::memory_order_relaxed); }

  // The highest value handed out so far (start - 1 before the first Next).
  virtual int64_t Last() const { return counter_.load(std::memory_order_relaxed) - 1; }

 private:
  std::atomic<int64_t> counter_;
};

// A counter whose Last() is the highest value below which every value has
// been acknowledged: a run-phase insert takes its key number from Next() and
// acknowledges it when the insert is done, so "latest" and every other request
// distribution never pick a key whose insert has not finished. As in YCSB, a
// window of 2^20 values may be outstanding. Thread safe.
class AcknowledgedCounterGenerator : public CounterGenerator {
 public:
  static constexpr int64_t kWindowSize = int64_t(1) << 20;

  explicit AcknowledgedCounterGenerator(int64_t start);

  int64_t Last() const override { return limit_.load(std::memory_order_acquire); }

  // Marks `value` (from Next) done. False if its slot in the window is still
  // taken: more than kWindowSize inserts are outstanding (YCSB throws "Too many
  // unacknowledged insertion keys").
  bool Acknowledge(int64_t value);

 private:
  static constexpr int64_t kWindowMask = kWindowSize - 1;

  std::unique_ptr<std::atomic<bool>[]> window_;  // acknowledged, not yet below limit_
  std::mutex advance_mu_;                        // one thread at a time moves limit_
  std::atomic<int64_t> limit_;
};

}  // namespace ycsb
}  // namespace tierfs
