// Store: what it shows of itself — the policies' view of the segments
// (StorageView: Lookup, ForEachSegment) and the inspection behind the public
// statistics calls and `tierfs stats|ls|segments` (GetStats, ListFiles,
// ListSegments). All read without stopping anything: the namespace lock only
// to collect the files, then each file's mutex shared for what a lock-free
// read of its segment table does not give.
#include "core/config.h"
#include "env/file_name.h"
#include "env/store.h"

namespace tierfs {

// What ForEachSegment says of segment `s` of `e`.
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
    MutexLock lock(&ns_mu_);
    auto it = ns_.files().find(ref.file_id);
    if (it == ns_.files().end() || !IsBulkKind(it->second->kind)) return false;
    e = it->second;
  }
  ReaderLock lock(&e->mu);
  if (e->freed || e->unlinked || e->segments.tier(ref.segment) == kNoTier) return false;
  DescribeSegment(*e, ref.segment, info);
  return true;
}

void Store::ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const {
  ForEachPlacedSegment(/*bulk_only=*/true, fn);
}

void Store::ForEachPlacedSegment(bool bulk_only,
                                 const std::function<void(const SegmentInfo&)>& fn) const {
  std::vector<std::shared_ptr<FileEntry>> files;
  {
    MutexLock lock(&ns_mu_);
    files.reserve(ns_.files().size());
    for (const auto& kv : ns_.files()) {
      if (!bulk_only || IsBulkKind(kv.second->kind)) files.push_back(kv.second);
    }
  }
  SegmentInfo info;
  for (const auto& e : files) {
    ReaderLock lock(&e->mu);
    if (e->freed || e->unlinked) continue;
    const SegmentTable& segs = e->segments;
    for (uint64_t s = 0; s < segs.size(); ++s) {
      if (segs.tier(s) == kNoTier) continue;
      DescribeSegment(*e, s, &info);
      fn(info);
    }
  }
}

void Store::GetStats(std::vector<TierStats>* out) {
  out->clear();
  for (const auto& t : tiers_) {
    TierStats s;
    s.index = t->index;
    s.path = t->root;
    s.device = t->device.params().name;
    s.capacity = t->capacity();
    s.used_bytes = t->used();
    t->Snapshot(&s);
    out->push_back(s);
  }
}

void Store::ListFiles(const std::string& dir, std::vector<FileInfo>* files) {
  std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> entries;
  {
    MutexLock lock(&ns_mu_);
    entries = ns_.FilesUnder(dir);
  }
  files->clear();
  for (const auto& [name, e] : entries) {
    FileInfo info;
    info.name = name;
    info.kind = ClassifyFileName(name);  // by its current name: CURRENT was born a .dbtmp
    info.size = e->size.load();
    {
      ReaderLock elock(&e->mu);
      info.level = e->hints.level;
      info.hint = e->hints.access;
      info.pinned_tier = e->hints.pinned_tier;
    }
    info.segments_per_tier.assign(tiers_.size(), 0);
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      uint8_t t = e->segments.tier(s);
      if (t != kNoTier) info.segments_per_tier[t]++;
    }
    files->push_back(info);
  }
}

void Store::ListSegments(const std::string& dir, std::vector<SegmentReport>* out) {
  std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> entries;
  {
    MutexLock lock(&ns_mu_);
    entries = ns_.FilesUnder(dir);
  }
  out->clear();
  const uint64_t now = Now();
  for (const auto& [name, e] : entries) {
    if (!IsBulkKind(e->kind)) continue;
    ReaderLock lock(&e->mu);
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      uint8_t t = e->segments.tier(s);
      if (t == kNoTier) continue;
      SegmentStats st = e->segments.heat(s)->Snapshot();
      SegmentReport r;
      r.file = name;
      r.segment = s;
      r.tier = t;
      uint8_t c = e->segments.copy(s);
      r.copy_tier = c == kNoTier ? -1 : c;
      r.bytes = ContentEnd(*e, s) - SegmentStart(s);
      r.user_reads = st.user_reads;
      r.background_reads = st.background_reads;
      r.writes = st.writes;
      r.migrations = st.migrations;
      r.heat = st.HeatAt(now);
      out->push_back(r);
    }
  }
}

}  // namespace tierfs
