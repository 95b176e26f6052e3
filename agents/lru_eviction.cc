#include "agents/lru_eviction.h"

#include <algorithm>

namespace tierfs {

namespace {

uint64_t Recency(const SegmentInfo& s) {
  return s.stats.last_access ? s.stats.last_access : s.stats.placed;
}

// Heap order: copies come before homes, then the least recent; the segment
// breaks ties so that the choice does not depend on the enumeration order.
struct Later {
  template <class V>
  bool operator()(const V& a, const V& b) const {
    if (a.copy != b.copy) return b.copy;
    if (a.recency != b.recency) return a.recency > b.recency;
    if (a.ref.file_id != b.ref.file_id) return a.ref.file_id > b.ref.file_id;
    return a.ref.segment > b.ref.segment;
  }
};

}  // namespace

void LruEviction::Scan(int tier, const StorageView& view) {
  const bool can_demote = tier + 1 < view.NumTiers();
  victims_.clear();
  view.ForEachSegment([&](const SegmentInfo& s) {
    if (s.busy || s.hints.pinned_tier >= 0) return;
    if (s.copy_tier == tier) victims_.push_back({true, Recency(s), s.bytes, s.ref});
    if (s.tier == tier && can_demote) victims_.push_back({false, Recency(s), s.bytes, s.ref});
  });
  // Building the heap is linear; only the victims taken are popped.
  std::make_heap(victims_.begin(), victims_.end(), Later());
  tier_ = tier;
  scanned_at_ = view.Now();
}

void LruEviction::Evict(int tier, uint64_t bytes, const StorageView& view,
                        std::vector<Move>* moves) {
  if (bytes == 0 || tier < 0 || tier >= view.NumTiers()) return;
  if (tier != tier_ || view.Now() - scanned_at_ >= kRescanRequests) Scan(tier, view);
  uint64_t freed = 0;
  bool rescanned = false;
  const size_t first = moves->size();
  SegmentInfo now;
  while (freed < bytes) {
    if (victims_.empty()) {
      if (rescanned) return;  // nothing more to evict
      Scan(tier, view);
      rescanned = true;
      // The moves chosen in this call have not run yet: not again.
      victims_.erase(std::remove_if(victims_.begin(), victims_.end(),
                                    [&](const Victim& v) {
                                      return std::any_of(
                                          moves->begin() + long(first), moves->end(),
                                          [&](const Move& m) { return m.ref == v.ref; });
                                    }),
                     victims_.end());
      std::make_heap(victims_.begin(), victims_.end(), Later());
      continue;
    }
    std::pop_heap(victims_.begin(), victims_.end(), Later());
    const Victim v = victims_.back();
    victims_.pop_back();
    // Still there, unchanged since the scan?
    if (!view.Lookup(v.ref, &now) || now.busy || now.hints.pinned_tier >= 0 ||
        Recency(now) != v.recency || (v.copy ? now.copy_tier != tier : now.tier != tier)) {
      continue;
    }
    Move m;
    m.op = v.copy ? Move::kDropCopy : Move::kMigrate;
    m.ref = v.ref;
    m.to = v.copy ? tier : tier + 1;
    moves->push_back(m);
    freed += v.bytes;
  }
}

}  // namespace tierfs
