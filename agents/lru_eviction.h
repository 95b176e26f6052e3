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
// Keeps its candidate list between calls so that an eviction does not
// reallocate it.
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

 private:
  struct Victim {
    bool copy;         // the extra copy on the tier, not the home
    uint64_t recency;  // last access, else placement
    uint64_t bytes;
    SegmentRef ref;
  };

  std::vector<Victim> victims_;
};

}  // namespace tierfs
