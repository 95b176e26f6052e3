// Store: what it shows of itself — the policies' view of the segments
// (StorageView: Lookup, ForEachSegment), read without stopping anything: the
// namespace lock only to collect the files, each file's mutex shared while
// its segments are described.
#include "env/config.h"
#include "env/store.h"

namespace tierfs {

// What ForEachSegment says of segment `s` of `e`. REQUIRES: e->mu held.
void Store::DescribeSegment(const FileEntry& e, uint64_t s, SegmentInfo* info) const {
  info->ref.file_id = e.id;
  info->ref.segment = s;
  info->kind = e.kind;
  info->hints = e.hints;
  info->file_bytes = e.size.load();
  info->busy = e.writers > 0;
  info->tier = e.segments.tier(s);
  const uint8_t c = e.segments.copy(s);
  info->copy_tier = c == kNoTier ? -1 : c;
  info->bytes = RoundUp(ContentEnd(e, s) - SegmentStart(s));
  info->stats = e.segments.heat(s)->Snapshot();
}

bool Store::Lookup(const SegmentRef& ref, SegmentInfo* info) const {
  std::shared_ptr<FileEntry> e;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    auto it = ns_.files().find(ref.file_id);
    if (it == ns_.files().end() || !IsBulkKind(it->second->kind)) return false;
    e = it->second;
  }
  std::shared_lock<std::shared_mutex> lock(e->mu);
  if (e->freed || e->unlinked || e->segments.tier(ref.segment) == kNoTier) return false;
  DescribeSegment(*e, ref.segment, info);
  return true;
}

void Store::ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const {
  std::vector<std::shared_ptr<FileEntry>> files;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    files.reserve(ns_.files().size());
    for (const auto& kv : ns_.files()) {
      if (IsBulkKind(kv.second->kind)) files.push_back(kv.second);
    }
  }
  SegmentInfo info;
  for (const auto& e : files) {
    std::shared_lock<std::shared_mutex> lock(e->mu);
    if (e->freed || e->unlinked) continue;
    const SegmentTable& segs = e->segments;
    for (uint64_t s = 0; s < segs.size(); ++s) {
      if (segs.tier(s) == kNoTier) continue;
      DescribeSegment(*e, s, &info);
      fn(info);
    }
  }
}

}  // namespace tierfs
