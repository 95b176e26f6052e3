// The segment map's journal on tier 0: <tier0>/meta/SNAPSHOT-<gen> holds the
// whole state, <tier0>/meta/JOURNAL-<gen> the records since. Every Append is
// written through to the operating system at once (so a killed process loses
// nothing); SyncTo() makes records durable against power loss, grouping
// concurrent callers into one sync.
//
// Rotate() starts generation g+1 from a full snapshot:
//   write SNAPSHOT-(g+1).tmp, sync; create JOURNAL-(g+1) (header only), sync;
//   rename SNAPSHOT-(g+1).tmp to SNAPSHOT-(g+1) (the commit); sync the meta
//   directory; remove generation g.
// A rotation that fails before the rename leaves generation g in charge, and
// a header-only JOURNAL-(g+1) without its snapshot is recognized as
// uncommitted. A crash anywhere leaves generation g or g+1 complete; Load()
// takes the newest complete snapshot and its journal. (Renaming the snapshot
// first, as the first version did, left a snapshot that recovery preferred
// over the journal still in use when creating the journal then failed.)
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/file_system.h>

#include "env/journal_format.h"
#include "util/mutex.h"

namespace tierfs {

class Journal {
 public:
  // Loads the newest generation in `meta_dir`: the snapshot's records followed
  // by the journal's. *generation is 0 and *records empty for a new store.
  // *torn_tail reports that an incomplete last journal record was dropped.
  static rocksdb::IOStatus Load(rocksdb::FileSystem* fs, const std::string& meta_dir,
                                uint64_t* generation,
                                std::vector<JournalRecord>* records,
                                bool* torn_tail);

  // Told of each file the journal could not remove: a failed rotation's
  // SNAPSHOT-n.tmp, an older generation, a leftover *.tmp (`what` names it).
  // Nothing is lost: Load() ignores them and the next rotation tries again;
  // the store logs and counts them (StoreError::kCleanup). Called with the
  // journal's locks held: it must not call into the journal.
  using CleanupErrorFn = std::function<void(const std::string& what, const rocksdb::IOStatus& s)>;

  // Starts generation `generation` in `meta_dir` from `snapshot` and returns a
  // journal that appends to it. Older generations are removed; a removal
  // that fails goes to `on_cleanup_error` (if set) at this and every later
  // rotation.
  static rocksdb::IOStatus Create(rocksdb::FileSystem* fs, const std::string& meta_dir,
                                  uint64_t generation,
                                  const std::vector<JournalRecord>& snapshot,
                                  std::unique_ptr<Journal>* result,
                                  CleanupErrorFn on_cleanup_error = nullptr);

  ~Journal();

  // Appends one record, written through. *lsn identifies it for SyncTo().
  // Thread-safe.
  rocksdb::IOStatus Append(const JournalRecord& record, uint64_t* lsn) EXCLUDES(append_mu_);

  // Returns once every record up to `lsn` is durable. Thread-safe.
  rocksdb::IOStatus SyncTo(uint64_t lsn) EXCLUDES(sync_mu_, append_mu_);
  rocksdb::IOStatus SyncAll() { return SyncTo(appended_lsn_.load()); }

  // SyncAll with POSIX calls alone (fdatasync of the journal file through a
  // descriptor of its own), for the saves at process exit
  // (env/exit_hook.h). Thread-safe.
  rocksdb::IOStatus SyncAllForExit() EXCLUDES(sync_mu_, append_mu_);

  // Lets go of the journal file without calling into it: at process exit the
  // base file system's Close may use RocksDB statics already destroyed. The
  // descriptor closes with the process. Appends fail from then on.
  // REQUIRES: no concurrent Append or sync (the store is closed).
  void Abandon() EXCLUDES(append_mu_);

  // Replaces the journal by generation()+1 built from `snapshot`.
  // REQUIRES: no concurrent Append (the caller holds the store's state lock).
  rocksdb::IOStatus Rotate(const std::vector<JournalRecord>& snapshot)
      EXCLUDES(sync_mu_, append_mu_);

  uint64_t generation() const { return generation_; }
  uint64_t records_since_snapshot() const { return records_.load(); }

  static std::string SnapshotName(const std::string& dir, uint64_t gen);
  static std::string JournalName(const std::string& dir, uint64_t gen);

 private:
  Journal(rocksdb::FileSystem* fs, std::string dir, CleanupErrorFn on_cleanup_error)
      : fs_(fs), dir_(std::move(dir)), on_cleanup_error_(std::move(on_cleanup_error)) {}
  rocksdb::IOStatus StartGeneration(uint64_t generation,
                                    const std::vector<JournalRecord>& snapshot)
      REQUIRES(sync_mu_, append_mu_);
  // Removes `path`, best effort: a failure goes to on_cleanup_error_.
  void RemoveLeftover(const std::string& path, const char* why);

  rocksdb::FileSystem* const fs_;
  const std::string dir_;
  const CleanupErrorFn on_cleanup_error_;
  // Built once, at open: a FileOptions built anew runs EnvOptions(), which
  // reaches RocksDB statics, and a rotation may come at process exit.
  const rocksdb::FileOptions file_options_;

  // Lock order: sync_mu_ -> append_mu_ (env/store.h lists the whole order).
  Mutex sync_mu_ ACQUIRED_BEFORE(append_mu_);  // one sync at a time
  Mutex append_mu_;  // serializes Append and Rotate
  std::unique_ptr<rocksdb::FSWritableFile> file_;
  uint64_t generation_ = 0;
  std::atomic<uint64_t> appended_lsn_{0};
  std::atomic<uint64_t> records_{0};
  // Sticky: once a write failed the journal refuses more.
  rocksdb::IOStatus error_ GUARDED_BY(append_mu_);

  std::atomic<uint64_t> synced_lsn_{0};
};

}  // namespace tierfs
