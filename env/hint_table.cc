// The hint and pin table (hint_table.h).
#include "env/hint_table.h"

#include "env/file_name.h"

namespace tierfs {

namespace {

// Paths told of before their file exists. Bounded: a listener whose files
// never appear cannot grow the table.
constexpr size_t kMaxPending = 4096;

std::vector<std::string> PathRoots(const Options& options) {
  std::vector<std::string> roots;
  if (options.placement == Placement::kRocksDB) {
    for (const TierOptions& t : options.tiers) roots.push_back(LexicalPath(t.path));
  }
  return roots;
}

}  // namespace

HintTable::HintTable(const Options& options) : path_roots_(PathRoots(options)) {}

uint32_t HintTable::FamilyIdLocked(const std::string& name) {
  auto it = cf_ids_.find(name);
  if (it != cf_ids_.end()) return it->second;
  uint32_t id = uint32_t(cf_ids_.size() + 1);
  cf_ids_.emplace(name, id);
  return id;
}

uint32_t HintTable::FamilyId(const std::string& name) {
  MutexLock lock(&mu_);
  return FamilyIdLocked(name);
}

std::map<uint32_t, std::string> HintTable::FamilyNames() const {
  std::map<uint32_t, std::string> names;
  MutexLock lock(&mu_);
  for (const auto& [name, cf] : cf_ids_) names[cf] = name;
  return names;
}

void HintTable::GiveLocked(const PendingHint& hint, FileEntry* entry) {
  WriterLock elock(&entry->mu);
  entry->hints.level = hint.level;
  entry->level.store(int8_t(hint.level), std::memory_order_relaxed);
  entry->hints.column_family = hint.column_family;
  // The file's own hint and pin win over its family's. (A file ApplyPending
  // gives them to is new: it has neither.)
  auto a = cf_access_.find(hint.column_family);
  if (entry->hints.access == AccessHint::kNone && a != cf_access_.end()) {
    entry->hints.access = a->second;
  }
  auto p = cf_pins_.find(hint.column_family);
  if (entry->hints.pinned_tier < 0 && p != cf_pins_.end()) entry->hints.pinned_tier = p->second;
}

void HintTable::NoteTableFile(const std::string& path, int level,
                              const std::string& column_family, FileEntry* entry) {
  MutexLock lock(&mu_);
  PendingHint hint;
  hint.level = level;
  hint.column_family = column_family.empty() ? 0 : FamilyIdLocked(column_family);
  if (entry) {
    GiveLocked(hint, entry);
    return;
  }
  if (pending_.size() >= kMaxPending) pending_.erase(pending_.begin());
  pending_[path] = hint;
}

void HintTable::ApplyPending(const std::string& path, FileEntry* entry) {
  MutexLock lock(&mu_);
  auto it = pending_.find(path);
  if (it == pending_.end()) return;
  GiveLocked(it->second, entry);
  pending_.erase(it);
}

uint32_t HintTable::SetFamilyAccess(const std::string& column_family, AccessHint hint) {
  MutexLock lock(&mu_);
  const uint32_t cf = FamilyIdLocked(column_family);
  cf_access_[cf] = hint;
  return cf;
}

uint32_t HintTable::SetFamilyPin(const std::string& column_family, int tier) {
  MutexLock lock(&mu_);
  const uint32_t cf = FamilyIdLocked(column_family);
  if (tier < 0) {
    cf_pins_.erase(cf);
  } else {
    cf_pins_[cf] = tier;
  }
  return cf;
}

void HintTable::PinByPath(const std::string& path, FileEntry* entry) const {
  for (size_t t = 0; t < path_roots_.size(); ++t) {
    const std::string& root = path_roots_[t];
    const bool under = root == "/" || (path.size() > root.size() && path[root.size()] == '/' &&
                                       path.compare(0, root.size(), root) == 0);
    if (!under) continue;
    WriterLock lock(&entry->mu);
    if (entry->hints.pinned_tier < 0) entry->hints.pinned_tier = int(t);
    return;
  }
}

}  // namespace tierfs
