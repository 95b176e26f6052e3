// Store: hints about files (level, column family, temperature, access
// pattern) and pins (REDIRECT), which placement and migration read from each
// file's entry.
//
// Hints live in memory: the event listener restates levels for every new
// table file, and an application restates its column-family hints and pins
// when it opens the database, as it does its RocksDB options.
#include "env/store.h"

namespace tierfs {

using rocksdb::IOStatus;

uint32_t Store::CfId(const std::string& name) {
  auto it = cf_ids_.find(name);
  if (it != cf_ids_.end()) return it->second;
  uint32_t id = uint32_t(cf_ids_.size() + 1);
  cf_ids_.emplace(name, id);
  return id;
}

void Store::NoteTableFile(const std::string& path, int level, const std::string& column_family) {
  std::shared_ptr<FileEntry> entry = Find(path);
  std::lock_guard<std::mutex> lock(hints_mu_);
  PendingHint hint;
  hint.level = level;
  hint.column_family = column_family.empty() ? 0 : CfId(column_family);
  if (!entry) {
    // Told before the file is created (OnTableFileCreationStarted): kept for
    // CreateFile. Bounded: a listener whose files never appear cannot grow it.
    if (pending_hints_.size() >= 4096) pending_hints_.erase(pending_hints_.begin());
    pending_hints_[path] = hint;
    return;
  }
  std::unique_lock<std::shared_mutex> elock(entry->mu);
  entry->hints.level = level;
  entry->level.store(int8_t(level), std::memory_order_relaxed);
  entry->hints.column_family = hint.column_family;
  auto a = cf_access_.find(hint.column_family);
  if (entry->hints.access == AccessHint::kNone && a != cf_access_.end()) entry->hints.access = a->second;
  auto p = cf_pins_.find(hint.column_family);
  if (entry->hints.pinned_tier < 0 && p != cf_pins_.end()) entry->hints.pinned_tier = p->second;
}

void Store::ApplyHints(const std::string& path, FileEntry* entry) {
  std::lock_guard<std::mutex> lock(hints_mu_);
  auto it = pending_hints_.find(path);
  if (it == pending_hints_.end()) return;
  std::unique_lock<std::shared_mutex> elock(entry->mu);
  entry->hints.level = it->second.level;
  entry->level.store(int8_t(it->second.level), std::memory_order_relaxed);
  entry->hints.column_family = it->second.column_family;
  auto a = cf_access_.find(it->second.column_family);
  if (a != cf_access_.end()) entry->hints.access = a->second;
  auto p = cf_pins_.find(it->second.column_family);
  if (p != cf_pins_.end()) entry->hints.pinned_tier = p->second;
  pending_hints_.erase(it);
}

void Store::NoteTemperature(FileEntry* entry, Temperature temperature) {
  if (temperature == Temperature::kUnknown) return;
  std::unique_lock<std::shared_mutex> lock(entry->mu);
  entry->hints.temperature = temperature;
}

IOStatus Store::SetAccessHint(const std::string& path, const std::string& column_family,
                              AccessHint hint) {
  if (!path.empty()) {
    std::shared_ptr<FileEntry> entry = Find(path);
    if (!entry) return IOStatus::PathNotFound(path + ": no such file in TierFS");
    std::unique_lock<std::shared_mutex> lock(entry->mu);
    entry->hints.access = hint;
    return IOStatus::OK();
  }
  uint32_t cf;
  {
    std::lock_guard<std::mutex> lock(hints_mu_);
    cf = CfId(column_family);
    cf_access_[cf] = hint;
  }
  // Files of the family already known take it too.
  std::lock_guard<std::mutex> lock(ns_mu_);
  for (const auto& kv : ns_.files()) {
    std::unique_lock<std::shared_mutex> elock(kv.second->mu);
    if (kv.second->hints.column_family == cf) kv.second->hints.access = hint;
  }
  return IOStatus::OK();
}

IOStatus Store::SegmentsToMove(const std::string& path, Move::Op op, int t, uint64_t first,
                               uint64_t last, std::vector<Move>* moves) {
  if (op != Move::kDropCopy && (t < 0 || t >= NumTiers())) {
    return IOStatus::InvalidArgument("tier " + std::to_string(t) + " does not exist (the store has " +
                                     std::to_string(NumTiers()) + " tiers)");
  }
  std::shared_ptr<FileEntry> entry = Find(path);
  if (!entry) return IOStatus::PathNotFound(path + ": no such file in TierFS");
  std::shared_lock<std::shared_mutex> lock(entry->mu);
  for (uint64_t s = first; s <= last && s < entry->segments.size(); ++s) {
    const uint8_t home = entry->segments.tier(s);
    const uint8_t copy = entry->segments.copy(s);
    bool wanted = home != kNoTier && (op == Move::kDropCopy ? copy != kNoTier
                                      : op == Move::kMigrate ? home != t
                                                             : home != t && copy != t);
    if (!wanted) continue;
    Move m;
    m.op = op;
    m.ref = {entry->id, s};
    m.to = op == Move::kDropCopy ? 0 : t;
    moves->push_back(m);
  }
  return IOStatus::OK();
}

IOStatus Store::Pin(const std::string& path, const std::string& column_family, int t,
                    std::vector<Move>* moves) {
  if (t >= NumTiers()) {
    return IOStatus::InvalidArgument("tier " + std::to_string(t) + " does not exist (the store has " +
                                     std::to_string(NumTiers()) + " tiers)");
  }
  std::vector<std::string> paths;
  if (!path.empty()) {
    std::shared_ptr<FileEntry> entry = Find(path);
    if (!entry) return IOStatus::PathNotFound(path + ": no such file in TierFS");
    std::unique_lock<std::shared_mutex> lock(entry->mu);
    entry->hints.pinned_tier = t;
    paths.push_back(path);
  } else {
    uint32_t cf;
    {
      std::lock_guard<std::mutex> lock(hints_mu_);
      cf = CfId(column_family);
      if (t < 0) {
        cf_pins_.erase(cf);
      } else {
        cf_pins_[cf] = t;
      }
    }
    std::lock_guard<std::mutex> lock(ns_mu_);
    for (const auto& [name, entry] : ns_.FilesUnder("/")) {
      std::unique_lock<std::shared_mutex> elock(entry->mu);
      if (entry->hints.column_family != cf) continue;
      entry->hints.pinned_tier = t;
      paths.push_back(name);
    }
  }  // SegmentsToMove takes the namespace lock again
  if (t < 0) return IOStatus::OK();
  for (const std::string& p : paths) {
    SegmentsToMove(p, Move::kMigrate, t, 0, ~0ull, moves).PermitUncheckedError();  // gone since: skipped
  }
  return IOStatus::OK();
}

}  // namespace tierfs
