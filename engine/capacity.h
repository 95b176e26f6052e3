// The capacity account of one tier: bytes it may hold and bytes charged to it.
// The live store (env/tier.h) and the simulator (tools/sim/) charge through
// this class, so a tier fills, and placement spills, at the same point in both.
//
// Thread-safe: TryCharge is a compare-and-swap loop, never past the capacity.
//
// Tier 0 also holds hot-page copies (engine/page_copies.h), charged here too.
// Their share is a reserve that bounds them; homes may still take free space
// in it (new writes first), and the fill leaves the part copies do not use
// yet alone (engine/placement.h), which hands space back when copies ask.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace tierfs {

class CapacityAccount {
 public:
  explicit CapacityAccount(uint64_t capacity) : capacity_(capacity) {}

  uint64_t capacity() const { return capacity_; }
  // Everything charged: homes, per-file blocks and copies.
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t free() const {
    const uint64_t u = used();
    return u < capacity_ ? capacity_ - u : 0;
  }
  // Of used(), the bytes charged for copies; the most they may hold; and the
  // part of that they do not hold yet.
  uint64_t copy_used() const { return copy_used_.load(std::memory_order_relaxed); }
  uint64_t copy_reserve() const { return copy_reserve_.load(std::memory_order_relaxed); }
  uint64_t copy_reserve_left() const {
    const uint64_t r = copy_reserve(), c = copy_used();
    return r > c ? r - c : 0;
  }
  void SetCopyReserve(uint64_t bytes) {
    copy_reserve_.store(std::min(bytes, capacity_), std::memory_order_relaxed);
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
  // Charges `bytes` for copies: within the reserve, and leaving `headroom`
  // bytes of the capacity free. Copies are charged by one thread at a time
  // (under PageCopies' lock), so the reserve check needs no loop of its own.
  bool TryChargeCopy(uint64_t bytes, uint64_t headroom) {
    if (device_full_.load(std::memory_order_relaxed)) return false;
    if (copy_used() + bytes > copy_reserve()) return false;
    uint64_t cur = used_.load(std::memory_order_relaxed);
    do {
      if (cur + bytes + headroom > capacity_) return false;
    } while (!used_.compare_exchange_weak(cur, cur + bytes));
    copy_used_.fetch_add(bytes, std::memory_order_relaxed);
    return true;
  }
  void ReleaseCopy(uint64_t bytes) {
    copy_used_.fetch_sub(bytes, std::memory_order_relaxed);
    used_.fetch_sub(bytes, std::memory_order_relaxed);
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
  std::atomic<uint64_t> copy_used_{0};
  std::atomic<uint64_t> copy_reserve_{0};
  std::atomic<bool> device_full_{false};
};

}  // namespace tierfs
