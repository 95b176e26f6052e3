// The hint and pin table: what the store is told about files that it keeps
// apart from the files themselves — a table file's level and column family
// told before RocksDB creates it, and each column family's access hint and
// pin (REDIRECT) — and how a file is given them. A file's own hints live in
// its entry (FileEntry::hints), where placement and migration read them; this
// table holds only what must wait for a file, or applies to files not yet
// created.
//
// Everything here lives in memory: the event listener restates levels for
// every new table file, and an application restates its column-family hints
// and pins when it opens the database, as it does its RocksDB options.
// Levels and column families of existing files survive a clean close in
// STATS (env/stats_file.h), which names families by name: ids are this
// table's, given in order of first mention.
//
// Thread-safe. mu_ comes after Store::ns_mu_ and before FileEntry::mu in the
// lock order (env/store.h). The table never calls out while holding mu_.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "env/namespace.h"
#include "tierfs/file_system.h"
#include "util/mutex.h"

namespace tierfs {

class HintTable {
 public:
  // With Options::placement "rocksdb" (the emulation-only mode) PinByPath
  // pins files by the tier roots of `options`; otherwise it does nothing.
  explicit HintTable(const Options& options);

  // The event listener's word on the table file `path`: its level and column
  // family. A file that exists (`entry`) takes them now, with its family's
  // access hint and pin unless it has its own. For a file not yet created
  // (entry nullptr, as at OnTableFileCreationStarted) they wait, at most 4,096
  // paths, until ApplyPending. Takes mu_, then entry->mu exclusive.
  void NoteTableFile(const std::string& path, int level, const std::string& column_family,
                     FileEntry* entry) EXCLUDES(mu_);
  // Gives the new file `entry`, just bound to `path`, what NoteTableFile kept
  // for that path, if anything. Takes mu_, then entry->mu exclusive; the
  // caller may hold ns_mu_ (CreateFile does, so no table file is created
  // between the two).
  void ApplyPending(const std::string& path, FileEntry* entry) EXCLUDES(mu_);

  // Sets the access hint of files of `column_family` created from now on;
  // returns the family's id, so the caller can give the hint to the files
  // that exist (under ns_mu_, after this returns). Takes mu_.
  uint32_t SetFamilyAccess(const std::string& column_family, AccessHint hint) EXCLUDES(mu_);
  // Pins new files of `column_family` to `tier`; tier -1 unpins. Returns the
  // family's id, as SetFamilyAccess. Takes mu_.
  uint32_t SetFamilyPin(const std::string& column_family, int tier) EXCLUDES(mu_);

  // The id of the column family `name`, given at its first mention (1, 2,
  // ...; 0 is "unknown"). Takes mu_.
  uint32_t FamilyId(const std::string& name) EXCLUDES(mu_);
  // Every family named so far, by id. Takes mu_.
  std::map<uint32_t, std::string> FamilyNames() const EXCLUDES(mu_);

  // The emulation-only mode's path hook: pins `entry` to the tier whose root
  // directory holds `path` (RocksDB chose the directory through db_paths, so
  // the directory chooses the tier), unless the file is pinned already.
  // Called at create and at open (pins live in memory). Tier roots never nest
  // (ValidateOptions), so at most one matches. Takes entry->mu exclusive;
  // the caller may hold ns_mu_.
  void PinByPath(const std::string& path, FileEntry* entry) const EXCLUDES(entry->mu);

 private:
  struct PendingHint {
    int level = -1;
    uint32_t column_family = 0;
  };
  // FamilyId's body.
  uint32_t FamilyIdLocked(const std::string& name) REQUIRES(mu_);
  // Gives `entry` the level and family of `hint`, and the family's access hint
  // and pin where the file has none of its own. Takes entry->mu exclusive.
  void GiveLocked(const PendingHint& hint, FileEntry* entry) REQUIRES(mu_) EXCLUDES(entry->mu);

  // Tier roots, normalized, by tier index; empty unless placement is
  // "rocksdb". Constant after construction: read without a lock.
  const std::vector<std::string> path_roots_;

  mutable Mutex mu_ ACQUIRED_BEFORE(FileEntry::mu);
  std::map<std::string, PendingHint> pending_ GUARDED_BY(mu_);  // by normalized path
  std::map<std::string, uint32_t> cf_ids_ GUARDED_BY(mu_);      // family name -> id
  std::map<uint32_t, AccessHint> cf_access_ GUARDED_BY(mu_);    // family id -> access hint
  std::map<uint32_t, int> cf_pins_ GUARDED_BY(mu_);             // family id -> pinned tier
};

}  // namespace tierfs
