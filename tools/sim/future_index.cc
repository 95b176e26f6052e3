#include "tools/sim/future_index.h"

#include <algorithm>

namespace tierfs {
namespace sim {

FutureIndex::FutureIndex(const std::vector<TraceRecord>& trace, uint64_t segment_size) {
  // Where each file's last read and last write ended: reads and writes
  // usually go to different tiers (new data to one, old data read from
  // another), so a read run is not broken by writes between its reads.
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> file_end;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceRecord& r = trace[i];
    if (!r.is_io()) continue;  // events are nobody's access
    const uint64_t end = r.offset + std::max<uint64_t>(r.size, 1);
    auto [last, added] = file_end.emplace(r.file_id, std::make_pair(~0ull, ~0ull));
    uint64_t& last_end = r.is_write() ? last->second.second : last->second.first;
    // The first piece continues the file's previous read (write) or not;
    // the following pieces of one request always continue it.
    bool sequential = last_end == r.offset;
    last_end = end;
    for (uint64_t seg = r.offset / segment_size; seg * segment_size < end; ++seg) {
      const uint64_t piece = std::min(end, (seg + 1) * segment_size) -
                             std::max(r.offset, seg * segment_size);
      std::vector<Use>& uses = uses_[SegmentRef{r.file_id, seg}];
      if (uses.empty() || uses.back().index != i) {
        const bool continued = (seg + 1) * segment_size < end;
        uses.push_back(Use{i, uint32_t(piece), sequential, r.is_write(), continued});
      }
      sequential = true;
    }
  }
}

const std::vector<FutureIndex::Use>* FutureIndex::Find(const SegmentRef& ref) const {
  auto it = uses_.find(ref);
  return it == uses_.end() ? nullptr : &it->second;
}

namespace {
// The first use after trace index `now`.
std::vector<FutureIndex::Use>::const_iterator After(const std::vector<FutureIndex::Use>& uses,
                                                   uint64_t now) {
  return std::upper_bound(uses.begin(), uses.end(), now,
                          [](uint64_t n, const FutureIndex::Use& u) { return n < u.index; });
}
}  // namespace

uint64_t FutureIndex::NthAccess(const SegmentRef& ref, uint64_t now, size_t n) const {
  const std::vector<Use>* uses = Find(ref);
  if (!uses || n == 0) return UINT64_MAX;
  const size_t next = size_t(After(*uses, now) - uses->begin());
  return next + n - 1 < uses->size() ? (*uses)[next + n - 1].index : UINT64_MAX;
}

bool FutureIndex::UseAt(const SegmentRef& ref, uint64_t now, Use* use) const {
  const std::vector<Use>* uses = Find(ref);
  if (!uses) return false;
  auto it = After(*uses, now);
  if (it == uses->begin() || (--it)->index != now) return false;
  *use = *it;
  return true;
}

void FutureIndex::Uses(const SegmentRef& ref, uint64_t now, uint64_t until, size_t max,
                       std::vector<Use>* out) const {
  out->clear();
  const std::vector<Use>* uses = Find(ref);
  if (!uses) return;
  for (auto it = After(*uses, now); it != uses->end() && it->index < until && out->size() < max;
       ++it) {
    out->push_back(*it);
  }
}

}  // namespace sim
}  // namespace tierfs
