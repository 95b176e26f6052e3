// Store: closing, and the saves (AGENTS, the journal's sync, STATS) at its
// three save points: Close (or the destructor), the last database closed,
// and process exit with the store still open (env/exit_hook.h).
//
// Whatever can run during static destruction or dlclose — the destructor,
// the exit handler, a Close called from another static's destructor — saves
// with POSIX calls alone and never calls into the base file system's
// objects: RocksDB's file system may reach statics already destroyed
// (SyncPoint in Debian's build, the default Env). The saves at Close before
// exit and at the last database's close go through the base file system, as
// every other write of the store does.
#include "env/admin_channel.h"
#include "env/exit_hook.h"
#include "env/hot_pages.h"
#include "env/migrator.h"
#include "env/posix_util.h"
#include "env/stats_file.h"
#include "env/store.h"

namespace tierfs {

using rocksdb::IOOptions;
using rocksdb::IOStatus;

Store::~Store() {
  // First: an exit handler saving this store finishes before it goes.
  UnregisterLiveStore(this);
  // Close reports each failure itself (NoteFinalSave): its status repeats them.
  Close().PermitUncheckedError();
  // At exit a learning policy's LibTorch networks are not destroyed: their
  // destructors call into LibTorch, whose statics may be gone (its training
  // was stopped by the exit handler). The process is ending; the memory
  // goes with it.
  if (ProcessExiting()) KeepUntilExit(std::shared_ptr<Policy>(std::move(policy_)));
}

IOStatus Store::ClosedError(const char* op, const std::string& path) const {
  return IOStatus::IOError(std::string("TierFS ") + op + (path.empty() ? "" : " " + path) +
                           ": the store at " + options_.tiers[0].path + " is closed");
}

IOStatus Store::Close() {
  MutexLock once(&close_mu_);
  if (closed()) return close_status_;
  const bool exiting = ProcessExiting();
  // The store's own threads first: the admin server may queue moves, and a
  // move in progress gives up at its next chunk.
  admin_.reset();
  if (migrator_) migrator_->Stop();
  // Their last line shows the store as it closes, before the saves.
  IOStatus first;
  StopStatsLogs(SavePoint::kClose, &first);
  {
    // Every journaled change holds state_mu_ shared: wait for those in
    // progress; Log refuses the rest.
    WriterLock state(&state_mu_);
    closed_.store(true, std::memory_order_relaxed);
  }
  if (trace_.load()) {
    const std::string path = trace_.load()->path();  // stdio: safe at exit
    NoteFinalSave(SavePoint::kClose, "writing trace " + path, StopTrace(nullptr), &first);
  }
  // A store that never finished opening (no journal: recovery failed, or
  // another process holds the lock) saves nothing: its counters are empty,
  // and the files may be another process's.
  if (!read_only() && journal_) SaveAt(SavePoint::kClose, exiting, &first);
  if (exiting) {
    AbandonBaseObjects();
  } else if (meta_lock_) {
    // On POSIX the lock goes with the descriptor, which UnlockFile closes
    // whatever it returns; another base file system may keep it: the next
    // open would then find the store held. (Counted after STATS was saved:
    // in the LOG only.)
    ReportError(StoreError::kCleanup, "releasing " + meta_dir_ + "/LOCK at close",
                base_->UnlockFile(meta_lock_, IOOptions(), nullptr));
  }
  meta_lock_ = nullptr;
  close_status_ = first;
  return first;
}

void Store::SaveAtExit() {
  MutexLock once(&close_mu_);
  if (closed() || exit_saved_ || read_only() || !journal_) return;
  exit_saved_ = true;
  // Joined now, while what they call is alive; the store goes on serving
  // the threads still running, without migration and the admin channel.
  admin_.reset();
  if (migrator_) migrator_->Stop();
  // Training uses LibTorch, whose statics go after this handler: stopped
  // now, and the weights saved are its last.
  policy_->StopLearning();
  IOStatus first;
  StopStatsLogs(SavePoint::kExit, &first);
  SaveAt(SavePoint::kExit, /*posix=*/true, &first);
}

void Store::NoteDatabaseUnlocked() {
  if (db_locks_.fetch_sub(1) != 1) return;
  MutexLock once(&close_mu_);
  if (closed() || read_only() || !journal_) return;
  IOStatus first;  // each failure is logged and counted; no caller to tell
  SaveAt(SavePoint::kLastDatabaseClosed, ProcessExiting(), &first);
}

void Store::StopStatsLogs(SavePoint point, IOStatus* first) {
  // POSIX writes (env/stats_log.h): safe at exit.
  if (stats_log_) {
    NoteFinalSave(point, "writing stats log " + stats_log_->path(), stats_log_->Stop(), first);
  }
  if (metrics_file_) {
    NoteFinalSave(point, "writing metrics file " + metrics_file_->path(), metrics_file_->Stop(),
                  first);
  }
}

void Store::NoteFinalSave(SavePoint point, const std::string& what, const IOStatus& s,
                          IOStatus* first) {
  if (s.ok()) return;
  ReportError(StoreError::kFinalSave, what + " at " + SavePointName(point), s);
  if (!first->ok()) return;
  const std::string msg = std::string("TierFS ") + SavePointName(point) + ": " + what + ": " +
                          s.ToString();
  *first = s.IsNoSpace() ? IOStatus::NoSpace(msg) : IOStatus::IOError(msg);
}

void Store::SaveAt(SavePoint point, bool posix, IOStatus* first) {
  NoteFinalSave(point, "saving " + meta_dir_ + "/AGENTS", SavePolicyState(posix), first);
  const IOStatus journal = posix ? journal_->SyncAllForExit() : journal_->SyncAll();
  NoteFinalSave(point, "syncing the journal", journal, first);
  // The hot-page copies (POSIX calls alone), after the journal that names
  // their files, and only if it is durable: a state must not name a file
  // that a crash may take back.
  if (hot_pages_ && !journal.ok()) {
    NoteFinalSave(point, "removing " + hot_pages_->state_path() + " (the journal is not durable)",
                  RemoveFileDurably(hot_pages_->state_path()), first);
  } else if (hot_pages_) {
    std::unordered_map<uint64_t, uint64_t> sealed;
    {
      MutexLock lock(&ns_mu_);
      sealed = ns_.SealedFileSizes();
    }
    NoteFinalSave(point, "saving " + hot_pages_->state_path(), hot_pages_->Save(sealed), first);
  }
  // STATS last, so that it counts the failures above.
  NoteFinalSave(point, "saving " + meta_dir_ + "/STATS", StatsFile::Save(*this, point, posix),
                first);
  LogInfo(std::string(SavePointName(point)) + (posix ? " (saved with POSIX calls)" : "") +
          ": errors over the store's life: " + StoreErrorsLine(errors()));
}

IOStatus Store::WriteMetaFile(const std::string& name, const std::string& bytes, bool posix) {
  const std::string path = meta_dir_ + "/" + name;
  if (posix) return WriteFileDurably(path, bytes);
  IOStatus s = rocksdb::WriteStringToFile(base_.get(), bytes, path + ".tmp", true);
  if (s.ok()) s = base_->RenameFile(path + ".tmp", path, IOOptions(), nullptr);
  return s;
}

void Store::AbandonBaseObjects() {
  if (journal_) journal_->Abandon();
  for (auto& dir : data_dirs_) {  // closed with the process
    KeepUntilExit(std::shared_ptr<rocksdb::FSDirectory>(std::move(dir)));
  }
  // meta_lock_: released with its descriptor when the process ends.
}

}  // namespace tierfs
