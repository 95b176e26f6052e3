// A lock-free "might this segment be waiting?" for the I/O path: a count per
// slot of the pending segments that hash to it, so that a request for a
// segment nothing waits on (most) takes no lock. Used by the placement
// agent's read rewards (agents/rl/placement_agent.h) and the eviction gate's
// labels (agents/eviction_gate.h); each keeps its pending set under its own
// mutex and adds and removes here beside it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "agents/policy.h"

namespace tierfs {

class PendingFilter {
 public:
  static constexpr size_t kSlots = 16384;

  PendingFilter() : counts_(std::make_unique<std::atomic<uint16_t>[]>(kSlots)) {
    for (size_t i = 0; i < kSlots; ++i) counts_[i].store(0, std::memory_order_relaxed);
  }

  void Add(SegmentRef ref) { counts_[Slot(ref)].fetch_add(1, std::memory_order_relaxed); }
  void Remove(SegmentRef ref) { counts_[Slot(ref)].fetch_sub(1, std::memory_order_relaxed); }
  // False only if `ref` is not pending (as of the last Add and Remove seen).
  bool MayHold(SegmentRef ref) const {
    return counts_[Slot(ref)].load(std::memory_order_relaxed) != 0;
  }

 private:
  static size_t Slot(SegmentRef ref) {
    uint64_t h = SegmentRefHash()(ref);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return size_t((h ^ (h >> 32)) % kSlots);
  }

  std::unique_ptr<std::atomic<uint16_t>[]> counts_;
};

}  // namespace tierfs
