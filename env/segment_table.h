// The placement of one file's segments: for each segment, the tier holding it
// and the bytes charged to that tier for it.
//
// Reads are lock-free (two atomic loads), because every RocksDB read looks a
// tier up. Writers hold the owning FileEntry's mutex exclusively; they update
// a slot in place or, when the file outgrows the table, publish a copy twice
// the size. Replaced arrays live until the table dies, so a reader holding an
// old pointer still reads valid memory.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace tierfs {

constexpr uint8_t kNoTier = 0xff;

class SegmentTable {
 public:
  SegmentTable() { Publish(8); }
  SegmentTable(const SegmentTable&) = delete;
  SegmentTable& operator=(const SegmentTable&) = delete;

  // One more than the highest segment ever set (0 for none).
  uint64_t size() const { return size_.load(std::memory_order_acquire); }
  uint8_t tier(uint64_t seg) const {
    const Slots* s = slots_.load(std::memory_order_acquire);
    return seg < s->capacity ? s->tier[seg].load(std::memory_order_relaxed) : kNoTier;
  }
  uint64_t charged(uint64_t seg) const {
    const Slots* s = slots_.load(std::memory_order_acquire);
    return seg < s->capacity ? s->charged[seg].load(std::memory_order_relaxed) : 0;
  }

  // REQUIRES: the owner's mutex held exclusively.
  void Set(uint64_t seg, uint8_t tier, uint64_t charged) {
    Slots* s = slots_.load(std::memory_order_relaxed);
    if (seg >= s->capacity) s = Publish(std::max(seg + 1, s->capacity * 2));
    s->tier[seg].store(tier, std::memory_order_relaxed);
    s->charged[seg].store(charged, std::memory_order_relaxed);
    if (seg >= size_.load(std::memory_order_relaxed)) size_.store(seg + 1, std::memory_order_release);
  }
  void SetCharged(uint64_t seg, uint64_t charged) { Set(seg, tier(seg), charged); }
  // Forgets every segment. REQUIRES: the owner's mutex held exclusively.
  void Clear() {
    Slots* s = slots_.load(std::memory_order_relaxed);
    for (uint64_t i = 0; i < s->capacity; ++i) {
      s->tier[i].store(kNoTier, std::memory_order_relaxed);
      s->charged[i].store(0, std::memory_order_relaxed);
    }
    size_.store(0, std::memory_order_release);
  }

 private:
  struct Slots {
    explicit Slots(uint64_t n)
        : capacity(n), tier(new std::atomic<uint8_t>[n]), charged(new std::atomic<uint64_t>[n]) {
      for (uint64_t i = 0; i < n; ++i) {
        tier[i].store(kNoTier, std::memory_order_relaxed);
        charged[i].store(0, std::memory_order_relaxed);
      }
    }
    const uint64_t capacity;
    std::unique_ptr<std::atomic<uint8_t>[]> tier;
    std::unique_ptr<std::atomic<uint64_t>[]> charged;
  };

  // Copies the current slots into an array of `capacity` and makes it current.
  Slots* Publish(uint64_t capacity) {
    auto next = std::make_unique<Slots>(capacity);
    if (!all_.empty()) {
      const Slots* cur = all_.back().get();
      for (uint64_t i = 0; i < cur->capacity; ++i) {
        next->tier[i].store(cur->tier[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
        next->charged[i].store(cur->charged[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
      }
    }
    Slots* raw = next.get();
    all_.push_back(std::move(next));
    slots_.store(raw, std::memory_order_release);
    return raw;
  }

  std::atomic<Slots*> slots_{nullptr};
  std::atomic<uint64_t> size_{0};
  std::vector<std::unique_ptr<Slots>> all_;  // guarded by the owner's mutex
};

}  // namespace tierfs
