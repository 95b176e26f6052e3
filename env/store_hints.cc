// Store: hints about files (level, column family, temperature, access
// pattern) and pins (REDIRECT), which placement and migration read from each
// file's entry: the entry points that find files in the namespace or queue
// moves. What waits for a file, and what applies per column family, is the
// hint table's (env/hint_table.h), which also says why hints live in memory.
#include "env/store.h"

namespace tierfs {

using rocksdb::IOStatus;

void Store::NoteTableFile(const std::string& path, int level, const std::string& column_family) {
  std::shared_ptr<FileEntry> entry = Find(path);
  hints_.NoteTableFile(path, level, column_family, entry.get());
}

void Store::NoteTemperature(FileEntry* entry, Temperature temperature) {
  if (temperature == Temperature::kUnknown) return;
  WriterLock lock(&entry->mu);
  entry->hints.temperature = temperature;
}

IOStatus Store::SetAccessHint(const std::string& path, const std::string& column_family,
                              AccessHint hint) {
  if (!path.empty()) {
    std::shared_ptr<FileEntry> entry = Find(path);
    if (!entry) return IOStatus::PathNotFound(path + ": no such file in TierFS");
    WriterLock lock(&entry->mu);
    entry->hints.access = hint;
    return IOStatus::OK();
  }
  const uint32_t cf = hints_.SetFamilyAccess(column_family, hint);
  // Files of the family already known take it too.
  MutexLock lock(&ns_mu_);
  for (const auto& kv : ns_.files()) {
    WriterLock elock(&kv.second->mu);
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
  ReaderLock lock(&entry->mu);
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
    WriterLock lock(&entry->mu);
    entry->hints.pinned_tier = t;
    paths.push_back(path);
  } else {
    const uint32_t cf = hints_.SetFamilyPin(column_family, t);
    MutexLock lock(&ns_mu_);
    for (const auto& [name, entry] : ns_.FilesUnder("/")) {
      WriterLock elock(&entry->mu);
      if (entry->hints.column_family != cf) continue;
      entry->hints.pinned_tier = t;
      paths.push_back(name);
    }
  }  // SegmentsToMove takes the namespace lock again
  if (t < 0) return IOStatus::OK();
  for (const std::string& p : paths) {
    // `t` is checked above, so only PathNotFound can come back: a file
    // deleted since has nothing to move.
    SegmentsToMove(p, Move::kMigrate, t, 0, ~0ull, moves).PermitUncheckedError();
  }
  return IOStatus::OK();
}

}  // namespace tierfs
