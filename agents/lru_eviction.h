// Least-recently-used eviction on the critical path, shared by the lru and cde
// policies. Harmonia (harmonia.txt, section 3.3) describes it for CDE and
// Sibyl: "When the fast device becomes full, both techniques evict the
// least-recently-used (LRU) data before placing new I/O request data in the
// fast device."
#pragma once

#include <cstdint>
#include <vector>

#include "agents/policy.h"

namespace tierfs {

// Chooses victims on one tier, least recently used first. A segment's recency
// is stats.last_access, or stats.placed if it was never accessed.
//
// One scan of all segments builds a heap of candidates, kept between calls:
// a fast tier fills once and then evicts on nearly every placement, and a
// scan per eviction made an eviction cost the whole table (the simulator ran
// 12 thousand requests per second under lru). Each candidate popped is
// checked again (StorageView::Lookup): one accessed, moved or made busy since
// the scan is skipped, so the victims stay exactly the least recent of the
// candidates. A segment that arrived on the tier since the scan is not a
// candidate until the next scan, which happens when the heap runs out, the
// tier asked for changes, or kRescanRequests requests have passed.
// REQUIRES: External synchronization (Policy::Evict runs one at a time).
class LruEviction {
 public:
  // Appends to *moves the moves that free at least `bytes` on `tier`: first
  // the extra copies held there (kDropCopy, which writes no data), least
  // recently used first; then the segments whose home is there, least
  // recently used first, each migrated to the next slower tier (kMigrate to
  // tier + 1). Busy segments, and segments of pinned files, are never
  // chosen. Frees less when there is not
  // that much to evict; on the slowest tier it can only drop copies.
  void Evict(int tier, uint64_t bytes, const StorageView& view, std::vector<Move>* moves);

  static constexpr uint64_t kRescanRequests = 1 << 16;

 private:
  void Scan(int tier, const StorageView& view);

  struct Victim {
    bool copy;         // the extra copy on the tier, not the home
    uint64_t recency;  // last access, else placement
    uint64_t bytes;
    SegmentRef ref;
  };

  // A min-heap over victims_ (least recent at the front), for tier_, built at
  // request scanned_at_.
  std::vector<Victim> victims_;
  int tier_ = -1;
  uint64_t scanned_at_ = 0;
};

}  // namespace tierfs
