#include "agents/lru_eviction.h"

#include <algorithm>

namespace tierfs {

void LruEviction::Evict(int tier, uint64_t bytes, const StorageView& view,
                        std::vector<Move>* moves) {
  if (bytes == 0 || tier < 0 || tier >= view.NumTiers()) return;
  const bool can_demote = tier + 1 < view.NumTiers();
  victims_.clear();
  view.ForEachSegment([&](const SegmentInfo& s) {
    if (s.busy || s.hints.pinned_tier >= 0) return;
    const uint64_t recency = s.stats.last_access ? s.stats.last_access : s.stats.placed;
    if (s.copy_tier == tier) victims_.push_back({true, recency, s.bytes, s.ref});
    if (s.tier == tier && can_demote) victims_.push_back({false, recency, s.bytes, s.ref});
  });

  // A min-heap: building it is linear, and only the victims taken are popped.
  // Copies come before homes, then the least recent; the segment breaks ties
  // so that the choice does not depend on the enumeration order.
  auto later = [](const Victim& a, const Victim& b) {
    if (a.copy != b.copy) return b.copy;
    if (a.recency != b.recency) return a.recency > b.recency;
    if (a.ref.file_id != b.ref.file_id) return a.ref.file_id > b.ref.file_id;
    return a.ref.segment > b.ref.segment;
  };
  std::make_heap(victims_.begin(), victims_.end(), later);
  uint64_t freed = 0;
  auto end = victims_.end();
  while (freed < bytes && end != victims_.begin()) {
    std::pop_heap(victims_.begin(), end, later);
    --end;
    Move m;
    m.op = end->copy ? Move::kDropCopy : Move::kMigrate;
    m.ref = end->ref;
    m.to = end->copy ? tier : tier + 1;
    moves->push_back(m);
    freed += end->bytes;
  }
}

}  // namespace tierfs
