// The capacity account of one tier: bytes it may hold and bytes charged to it.
// The live store (env/tier.h) and the simulator (tools/sim/) charge through
// this class, so a tier fills, and placement spills, at the same point in both.
//
// Thread-safe: TryCharge is a compare-and-swap loop, never past the capacity.
#pragma once

#include <atomic>
#include <cstdint>

namespace tierfs {

class CapacityAccount {
 public:
  explicit CapacityAccount(uint64_t capacity) : capacity_(capacity) {}

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t free() const {
    const uint64_t u = used();
    return u < capacity_ ? capacity_ - u : 0;
  }

  // Charges `bytes`; false (and nothing charged) if they do not fit, or if the
  // device said it is full since space was last freed.
  bool TryCharge(uint64_t bytes) {
    if (device_full_.load(std::memory_order_relaxed)) return false;
    uint64_t cur = used_.load(std::memory_order_relaxed);
    do {
      if (cur + bytes > capacity_) return false;
    } while (!used_.compare_exchange_weak(cur, cur + bytes));
    return true;
  }
  // Charges what recovery finds on the device, room or not.
  void ForceCharge(uint64_t bytes) { used_.fetch_add(bytes, std::memory_order_relaxed); }
  void Release(uint64_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  // The device returned ENOSPC before the account was full (tiers sharing a
  // disk, a device smaller than configured): charge nothing new here until
  // space is freed.
  void MarkDeviceFull() { device_full_.store(true); }
  bool device_full() const { return device_full_.load(); }
  // Blocks were freed on the device: it may take data again.
  void NoteSpaceFreed() { device_full_.store(false); }

 private:
  const uint64_t capacity_;
  std::atomic<uint64_t> used_{0};
  std::atomic<bool> device_full_{false};
};

}  // namespace tierfs
