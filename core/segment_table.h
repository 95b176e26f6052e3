// The placement of one file's segments: for each segment, the tier holding it
// (its home), the tier of its extra copy if it has one, the bytes charged to
// the home for it, and its access statistics.
//
// Reads are lock-free (atomic loads), because every RocksDB read looks a tier
// up and counts an access. Placement changes are made holding the owning
// FileEntry's mutex exclusively; they update a slot in place or, when the
// file outgrows the table, publish a copy twice the size. Replaced arrays live
// until the table dies, so a reader holding an old pointer still reads valid
// memory (an access counted in an array being replaced may be lost: the
// statistics are approximate, the placement is exact).
//
// Memory per segment: 1 (home) + 1 (copy) + 8 (charge) + 48 (statistics) =
// 58 bytes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "agents/policy.h"

namespace tierfs {

constexpr uint8_t kNoTier = 0xff;

// Access statistics of one segment, updated without locks by every I/O.
// Concurrent updates of one segment may lose an increment or a decay step.
struct SegmentHeat {
  std::atomic<uint32_t> user_reads{0}, background_reads{0}, writes{0}, migrations{0};
  std::atomic<uint32_t> access_interval{0};  // saturates at 2^32-1 requests
  std::atomic<float> heat{0};                // as of last_access
  std::atomic<uint64_t> last_access{0}, last_migration{0}, placed{0};

  // Plain loads and stores, no locked instructions: every I/O passes here,
  // and a lost update costs one count (Concurrent updates of one segment may
  // lose an increment, as said above).
  void Touch(uint64_t seq, IoType type) {
    auto r = std::memory_order_relaxed;
    if (type == IoType::kBackgroundRead) {
      // Compaction input is about to be deleted: counted, never hot.
      background_reads.store(background_reads.load(r) + 1, r);
      return;
    }
    const uint64_t prev = last_access.load(r);
    last_access.store(seq, r);
    if (prev != 0 && seq > prev) {
      access_interval.store(uint32_t(std::min<uint64_t>(seq - prev, UINT32_MAX)), r);
    }
    float h = heat.load(r);
    if (h != 0 && prev != 0 && seq > prev) h *= Decay(seq - prev);
    if (type == IoType::kWrite) {
      // Writing makes a segment recent, not hot: a compaction writes every
      // segment of its output, read or not.
      writes.store(writes.load(r) + 1, r);
      heat.store(h, r);
      return;
    }
    user_reads.store(user_reads.load(r) + 1, r);
    heat.store(h + 1, r);
  }
  // 2^(-gap / kHeatHalfLife). A hot segment is touched again within a few
  // requests: there the first-order term is exact to 1e-4 and costs no exp2.
  static float Decay(uint64_t gap) {
    constexpr float kPerRequest = 0.69314718f / float(SegmentStats::kHeatHalfLife);
    if (gap < 1024) return 1.0f - float(gap) * kPerRequest;
    return std::exp2f(-float(gap) / float(SegmentStats::kHeatHalfLife));
  }
  void Moved(uint64_t seq) {
    migrations.fetch_add(1, std::memory_order_relaxed);
    last_migration.store(seq, std::memory_order_relaxed);
  }
  void Reset(uint64_t seq) {
    user_reads = background_reads = writes = migrations = access_interval = 0;
    heat = 0;
    last_access = last_migration = 0;
    placed = seq;
  }
  // Statistics saved at a store's close (core/saved_segments.h), taken back
  // at its next open, or by a replay that starts where it did: the counts
  // and heat, and with `times` the last access, placement and last
  // migration (sequence numbers of the saving store's clock).
  void Restore(const SegmentStats& st, bool times) {
    user_reads = st.user_reads;
    background_reads = st.background_reads;
    writes = st.writes;
    migrations = st.migrations;
    heat = float(st.heat);
    if (!times) return;
    last_access = st.last_access;
    placed = st.placed;
    last_migration = st.last_migration;
  }
  void CopyFrom(const SegmentHeat& o) {
    auto r = std::memory_order_relaxed;
    user_reads.store(o.user_reads.load(r), r);
    background_reads.store(o.background_reads.load(r), r);
    writes.store(o.writes.load(r), r);
    migrations.store(o.migrations.load(r), r);
    access_interval.store(o.access_interval.load(r), r);
    heat.store(o.heat.load(r), r);
    last_access.store(o.last_access.load(r), r);
    last_migration.store(o.last_migration.load(r), r);
    placed.store(o.placed.load(r), r);
  }
  SegmentStats Snapshot() const {
    auto r = std::memory_order_relaxed;
    SegmentStats s;
    s.user_reads = user_reads.load(r);
    s.background_reads = background_reads.load(r);
    s.writes = writes.load(r);
    s.migrations = migrations.load(r);
    s.access_interval = access_interval.load(r);
    s.heat = heat.load(r);
    s.last_access = last_access.load(r);
    s.last_migration = last_migration.load(r);
    s.placed = placed.load(r);
    return s;
  }
};

static_assert(sizeof(SegmentHeat) == 48, "per-segment statistics grew: update the budget above");

class SegmentTable {
 public:
  // The copy byte: the tier in the low bits, kVolatileCopy if the copy is a
  // PREFETCH (not journaled, gone after a restart).
  static constexpr uint8_t kVolatileCopy = 0x80;

  SegmentTable() { Publish(8); }
  SegmentTable(const SegmentTable&) = delete;
  SegmentTable& operator=(const SegmentTable&) = delete;

  // One more than the highest segment ever set (0 for none).
  uint64_t size() const { return size_.load(std::memory_order_acquire); }
  uint8_t tier(uint64_t seg) const {
    const Slots* s = slots_.load(std::memory_order_acquire);
    return seg < s->capacity ? s->tier[seg].load(std::memory_order_relaxed) : kNoTier;
  }
  // The tier of the extra copy, kNoTier if none.
  uint8_t copy(uint64_t seg) const {
    uint8_t c = raw_copy(seg);
    return c == kNoTier ? kNoTier : uint8_t(c & ~kVolatileCopy);
  }
  bool copy_is_volatile(uint64_t seg) const {
    uint8_t c = raw_copy(seg);
    return c != kNoTier && (c & kVolatileCopy);
  }
  // Where a read of `seg` goes: the copy if there is one (it is on a faster
  // tier), else the home. One array load.
  uint8_t read_tier(uint64_t seg) const {
    const Slots* s = slots_.load(std::memory_order_acquire);
    if (seg >= s->capacity) return kNoTier;
    uint8_t c = s->copy[seg].load(std::memory_order_relaxed);
    return c != kNoTier ? uint8_t(c & ~kVolatileCopy) : s->tier[seg].load(std::memory_order_relaxed);
  }
  uint64_t charged(uint64_t seg) const {
    const Slots* s = slots_.load(std::memory_order_acquire);
    return seg < s->capacity ? s->charged[seg].load(std::memory_order_relaxed) : 0;
  }
  // The statistics of `seg`, nullptr if it was never set.
  SegmentHeat* heat(uint64_t seg) const {
    Slots* s = slots_.load(std::memory_order_acquire);
    return seg < s->capacity ? &s->heat[seg] : nullptr;
  }

  // REQUIRES: the owner's mutex held exclusively.
  void Set(uint64_t seg, uint8_t tier, uint64_t charged) {
    Slots* s = Slot(seg);
    s->tier[seg].store(tier, std::memory_order_relaxed);
    s->charged[seg].store(charged, std::memory_order_relaxed);
  }
  void SetCharged(uint64_t seg, uint64_t charged) { Set(seg, tier(seg), charged); }
  void SetCopy(uint64_t seg, uint8_t tier, bool is_volatile) {
    Slots* s = Slot(seg);
    uint8_t v = tier == kNoTier ? kNoTier : uint8_t(tier | (is_volatile ? kVolatileCopy : 0));
    s->copy[seg].store(v, std::memory_order_relaxed);
  }
  // Forgets every segment. REQUIRES: the owner's mutex held exclusively.
  void Clear() {
    Slots* s = slots_.load(std::memory_order_relaxed);
    for (uint64_t i = 0; i < s->capacity; ++i) {
      s->tier[i].store(kNoTier, std::memory_order_relaxed);
      s->copy[i].store(kNoTier, std::memory_order_relaxed);
      s->charged[i].store(0, std::memory_order_relaxed);
      s->heat[i].Reset(0);
    }
    size_.store(0, std::memory_order_release);
  }

 private:
  struct Slots {
    explicit Slots(uint64_t n)
        : capacity(n),
          tier(new std::atomic<uint8_t>[n]),
          copy(new std::atomic<uint8_t>[n]),
          charged(new std::atomic<uint64_t>[n]),
          heat(new SegmentHeat[n]) {
      for (uint64_t i = 0; i < n; ++i) {
        tier[i].store(kNoTier, std::memory_order_relaxed);
        copy[i].store(kNoTier, std::memory_order_relaxed);
        charged[i].store(0, std::memory_order_relaxed);
      }
    }
    const uint64_t capacity;
    std::unique_ptr<std::atomic<uint8_t>[]> tier;
    std::unique_ptr<std::atomic<uint8_t>[]> copy;
    std::unique_ptr<std::atomic<uint64_t>[]> charged;
    std::unique_ptr<SegmentHeat[]> heat;
  };

  uint8_t raw_copy(uint64_t seg) const {
    const Slots* s = slots_.load(std::memory_order_acquire);
    return seg < s->capacity ? s->copy[seg].load(std::memory_order_relaxed) : kNoTier;
  }

  // The slots holding `seg`, grown if needed; extends size().
  Slots* Slot(uint64_t seg) {
    Slots* s = slots_.load(std::memory_order_relaxed);
    if (seg >= s->capacity) s = Publish(std::max(seg + 1, s->capacity * 2));
    if (seg >= size_.load(std::memory_order_relaxed)) size_.store(seg + 1, std::memory_order_release);
    return s;
  }

  // Copies the current slots into an array of `capacity` and makes it current.
  Slots* Publish(uint64_t capacity) {
    auto next = std::make_unique<Slots>(capacity);
    if (!all_.empty()) {
      const Slots* cur = all_.back().get();
      auto r = std::memory_order_relaxed;
      for (uint64_t i = 0; i < cur->capacity; ++i) {
        next->tier[i].store(cur->tier[i].load(r), r);
        next->copy[i].store(cur->copy[i].load(r), r);
        next->charged[i].store(cur->charged[i].load(r), r);
        next->heat[i].CopyFrom(cur->heat[i]);
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
