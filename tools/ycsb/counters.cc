#include "tools/ycsb/counters.h"

namespace tierfs {
namespace ycsb {

AcknowledgedCounterGenerator::AcknowledgedCounterGenerator(int64_t start)
    : CounterGenerator(start), window_(new std::atomic<bool>[kWindowSize]), limit_(start - 1) {
  for (int64_t i = 0; i < kWindowSize; ++i) window_[i].store(false, std::memory_order_relaxed);
}

bool AcknowledgedCounterGenerator::Acknowledge(int64_t value) {
  std::atomic<bool>& slot = window_[value & kWindowMask];
  if (slot.load(std::memory_order_acquire)) return false;
  slot.store(true, std::memory_order_release);

  // As YCSB: whoever gets the lock moves the contiguous acknowledged run into
  // limit_; a thread that finds it taken leaves its value for the next one.
  std::unique_lock<std::mutex> lock(advance_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return true;
  const int64_t limit = limit_.load(std::memory_order_relaxed);
  int64_t index = limit + 1;
  // At most one pass over the window.
  for (int64_t scanned = 0; scanned < kWindowSize; ++scanned, ++index) {
    std::atomic<bool>& s = window_[index & kWindowMask];
    if (!s.load(std::memory_order_acquire)) break;
    s.store(false, std::memory_order_relaxed);
  }
  limit_.store(index - 1, std::memory_order_release);
  return true;
}

}  // namespace ycsb
}  // namespace tierfs
