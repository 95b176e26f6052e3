// Store: the state its STATS file keeps (env/stats_file.h, which gives the
// format) — collected for a save, restored at open.
#include <map>

#include "env/store.h"

namespace tierfs {

void Store::CollectSaved(std::vector<SavedFile>* files, std::vector<SavedSegment>* segments) {
  const std::map<uint32_t, std::string> names = hints_.FamilyNames();  // before ns_mu_
  MutexLock lock(&ns_mu_);
  for (const auto& [id, e] : ns_.files()) {
    ReaderLock elock(&e->mu);
    if (e->hints.level >= 0 || e->hints.column_family != 0) {
      auto name = names.find(e->hints.column_family);
      files->push_back({id, int8_t(e->hints.level), name == names.end() ? "" : name->second});
    }
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      if (e->segments.tier(s) == kNoTier) continue;
      segments->push_back({id, s, e->segments.heat(s)->Snapshot()});
    }
  }
}

void Store::RestoreSaved(const SavedFile& file) {
  MutexLock lock(&ns_mu_);
  std::shared_ptr<FileEntry> e = ns_.FindId(file.id);
  if (!e) return;  // deleted since: nothing to restore
  // The hint table's lock comes before a file's mu.
  const uint32_t family = file.column_family.empty() ? 0 : hints_.FamilyId(file.column_family);
  WriterLock elock(&e->mu);
  e->hints.level = file.level;
  e->level.store(file.level, std::memory_order_relaxed);
  if (family != 0) e->hints.column_family = family;
}

void Store::RestoreSaved(const SavedSegment& segment) {
  MutexLock lock(&ns_mu_);
  std::shared_ptr<FileEntry> e = ns_.FindId(segment.id);
  if (!e || e->segments.tier(segment.segment) == kNoTier) return;  // deleted or moved since
  e->segments.heat(segment.segment)->Restore(segment.stats, segment.times);
}

}  // namespace tierfs
