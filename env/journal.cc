#include "env/journal.h"

#include "env/exit_hook.h"

#include <cinttypes>
#include <cstdio>
#include <vector>

#include "env/posix_util.h"

namespace tierfs {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

namespace {

// Parses "<prefix><digits>" into *gen.
bool ParseGeneration(const std::string& name, const std::string& prefix, uint64_t* gen) {
  if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size()) return false;
  uint64_t v = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + uint64_t(name[i] - '0');
  }
  *gen = v;
  return true;
}

IOStatus ReadAll(rocksdb::FileSystem* fs, const std::string& fname, std::string* data) {
  return rocksdb::ReadFileToString(fs, fname, data);
}

}  // namespace

std::string Journal::SnapshotName(const std::string& dir, uint64_t gen) {
  char buf[32];
  snprintf(buf, sizeof(buf), "/SNAPSHOT-%06" PRIu64, gen);
  return dir + buf;
}

std::string Journal::JournalName(const std::string& dir, uint64_t gen) {
  char buf[32];
  snprintf(buf, sizeof(buf), "/JOURNAL-%06" PRIu64, gen);
  return dir + buf;
}

IOStatus Journal::Load(rocksdb::FileSystem* fs, const std::string& meta_dir,
                       uint64_t* generation, std::vector<JournalRecord>* records,
                       bool* torn_tail) {
  *generation = 0;
  *torn_tail = false;
  records->clear();
  std::vector<std::string> children;
  IOStatus s = fs->GetChildren(meta_dir, IOOptions(), &children, nullptr);
  if (s.IsNotFound() || s.IsPathNotFound()) return IOStatus::OK();
  if (!s.ok()) return s;
  uint64_t newest = 0;
  std::vector<uint64_t> journals;
  for (const std::string& c : children) {
    uint64_t g;
    if (ParseGeneration(c, "SNAPSHOT-", &g) && g > newest) newest = g;
    if (ParseGeneration(c, "JOURNAL-", &g)) journals.push_back(g);
  }
  // A journal newer than every snapshot belongs to a generation whose start
  // never committed: nothing can have been appended to it. Anything more in
  // it means the snapshot it needs is gone.
  for (uint64_t g : journals) {
    if (g <= newest) continue;
    std::string bytes;
    IOStatus rs = ReadAll(fs, JournalName(meta_dir, g), &bytes);
    if (!rs.ok()) return rs;
    if (g != newest + 1 || bytes.size() > kJournalHeaderSize) {
      return IOStatus::Corruption("TierFS journal " + JournalName(meta_dir, g) +
                                  " has no snapshot beside it (SNAPSHOT-" + std::to_string(g) +
                                  " is missing)");
    }
  }
  if (newest == 0) return IOStatus::OK();
  std::string bytes;
  DecodedFile snap;
  std::string snap_name = SnapshotName(meta_dir, newest);
  s = ReadAll(fs, snap_name, &bytes);
  if (!s.ok()) return s;
  rocksdb::Status ds = DecodeFile(bytes, snap_name, &snap);
  if (ds.ok() && (snap.kind != kSnapshotKind || snap.generation != newest)) {
    ds = rocksdb::Status::Corruption("TierFS snapshot " + snap_name +
                                     ": header names another kind or generation");
  }
  if (!ds.ok()) return IOStatus::Corruption(ds.getState());
  *records = std::move(snap.records);

  std::string journal_name = JournalName(meta_dir, newest);
  s = fs->FileExists(journal_name, IOOptions(), nullptr);
  if (s.IsNotFound()) {
    *generation = newest;  // crashed between the snapshot rename and the new journal
    return IOStatus::OK();
  }
  s = ReadAll(fs, journal_name, &bytes);
  if (!s.ok()) return s;
  if (bytes.size() < kJournalHeaderSize) {
    // Killed between creating the journal and writing its header: nothing
    // was ever appended to it.
    *torn_tail = !bytes.empty();
    *generation = newest;
    return IOStatus::OK();
  }
  DecodedFile journal;
  ds = DecodeFile(bytes, journal_name, &journal);
  if (ds.ok() && (journal.kind != kJournalKind || journal.generation != newest)) {
    ds = rocksdb::Status::Corruption("TierFS journal " + journal_name +
                                     ": header names another kind or generation");
  }
  if (!ds.ok()) return IOStatus::Corruption(ds.getState());
  records->insert(records->end(), journal.records.begin(), journal.records.end());
  *torn_tail = journal.torn_tail;
  *generation = newest;
  return IOStatus::OK();
}

// No thread-safety analysis: StartGeneration's locks are not needed on a
// journal no other thread can see yet.
IOStatus Journal::Create(rocksdb::FileSystem* fs, const std::string& meta_dir,
                         uint64_t generation, const std::vector<JournalRecord>& snapshot,
                         std::unique_ptr<Journal>* result, CleanupErrorFn on_cleanup_error)
    NO_THREAD_SAFETY_ANALYSIS {
  std::unique_ptr<Journal> j(new Journal(fs, meta_dir, std::move(on_cleanup_error)));
  IOStatus s = j->StartGeneration(generation, snapshot);
  if (s.ok()) *result = std::move(j);
  return s;
}

Journal::~Journal() {
  // Nothing to lose: every record was written through at its Append, and
  // durability is SyncTo's (the store syncs at close and reports a failure):
  // closing only releases the descriptor.
  if (file_) file_->Close(IOOptions(), nullptr).PermitUncheckedError();
}

void Journal::RemoveLeftover(const std::string& path, const char* why) {
  IOStatus s = fs_->DeleteFile(path, IOOptions(), nullptr);
  if (!s.ok() && on_cleanup_error_) {
    on_cleanup_error_("removing " + path + " (" + why + "; removed at the next rotation)", s);
  }
}

IOStatus Journal::StartGeneration(uint64_t gen, const std::vector<JournalRecord>& snapshot) {
  IOOptions io;
  const FileOptions& fo = file_options_;
  std::string data;
  EncodeHeader(kSnapshotKind, gen, &data);
  for (const JournalRecord& r : snapshot) EncodeRecord(r, &data);
  EncodeRecord(JournalRecord::End(snapshot.size()), &data);

  // Everything is prepared first; renaming the snapshot into place is the
  // commit point. Before it, Load() still takes generation gen-1 (and ignores
  // the new journal, which holds only a header); after it, generation gen.
  const std::string snap = SnapshotName(dir_, gen);
  const std::string tmp = snap + ".tmp";
  std::unique_ptr<rocksdb::FSWritableFile> f;
  IOStatus s = fs_->NewWritableFile(tmp, fo, &f, nullptr);
  if (s.ok()) s = f->Append(data, io, nullptr);
  if (s.ok()) s = f->Fsync(io, nullptr);
  if (s.ok()) s = f->Close(io, nullptr);
  std::unique_ptr<rocksdb::FSWritableFile> journal;
  if (s.ok()) s = fs_->NewWritableFile(JournalName(dir_, gen), fo, &journal, nullptr);
  if (s.ok()) {
    data.clear();
    EncodeHeader(kJournalKind, gen, &data);
    s = journal->Append(data, io, nullptr);
  }
  if (s.ok()) s = journal->Fsync(io, nullptr);
  if (s.ok()) s = fs_->RenameFile(tmp, snap, io, nullptr);
  if (!s.ok()) {
    // Not committed: generation gen-1 stays the current one. A .tmp that
    // stays is ignored by Load() and removed by the next rotation.
    RemoveLeftover(tmp, "a snapshot not committed");
    return IOStatus::IOError("TierFS cannot start journal generation " +
                             std::to_string(gen) + " in " + dir_ + ": " + s.ToString());
  }
  // Committed: from here on the new journal is the one Load() reads, so the
  // switch happens whatever the directory sync says.
  std::unique_ptr<rocksdb::FSDirectory> dir;
  s = fs_->NewDirectory(dir_, io, &dir, nullptr);
  if (s.ok()) s = dir->Fsync(io, nullptr);
  if (!s.ok()) {
    error_ = IOStatus::IOError("TierFS journal directory " + dir_ + " sync failed: " + s.ToString());
  }
  // The old journal's records are all in the snapshot just committed, and
  // the file is removed below: a close that fails loses nothing, but is
  // reported (a descriptor may have leaked).
  if (file_) {
    IOStatus cs = file_->Close(io, nullptr);
    if (!cs.ok() && on_cleanup_error_) {
      on_cleanup_error_("closing journal generation " + std::to_string(generation_) +
                            " after the rotation to " + std::to_string(gen),
                        cs);
    }
  }
  file_ = std::move(journal);
  generation_ = gen;
  records_ = 0;
  // Everything before is in the durable snapshot now.
  synced_lsn_ = appended_lsn_.load();

  // Remove every older generation and leftover temporary file (best effort:
  // Load() ignores them anyway).
  std::vector<std::string> children;
  IOStatus ls = fs_->GetChildren(dir_, io, &children, nullptr);
  if (!ls.ok() && on_cleanup_error_) {
    on_cleanup_error_("listing " + dir_ + " for older generations (removed at the next rotation)",
                      ls);
  }
  if (ls.ok()) {
    for (const std::string& c : children) {
      uint64_t g;
      bool old_gen = (ParseGeneration(c, "SNAPSHOT-", &g) || ParseGeneration(c, "JOURNAL-", &g)) && g < gen;
      bool tmp_file = c.size() > 4 && c.compare(c.size() - 4, 4, ".tmp") == 0;
      if (old_gen || tmp_file) {
        RemoveLeftover(dir_ + "/" + c, old_gen ? "an older generation" : "a leftover");
      }
    }
  }
  return error_;
}

IOStatus Journal::Append(const JournalRecord& record, uint64_t* lsn) {
  std::string data;
  EncodeRecord(record, &data);
  MutexLock lock(&append_mu_);
  if (!error_.ok()) return error_;
  IOStatus s = file_->Append(data, IOOptions(), nullptr);
  if (s.ok()) s = file_->Flush(IOOptions(), nullptr);
  if (!s.ok()) {
    error_ = IOStatus::IOError("TierFS journal write failed: " + s.ToString());
    return error_;
  }
  records_.fetch_add(1);
  *lsn = appended_lsn_.fetch_add(1) + 1;
  return IOStatus::OK();
}

IOStatus Journal::SyncTo(uint64_t lsn) {
  if (synced_lsn_.load() >= lsn) return IOStatus::OK();
  MutexLock lock(&sync_mu_);
  if (synced_lsn_.load() >= lsn) return IOStatus::OK();  // another caller synced it
  uint64_t target = appended_lsn_.load();
  {
    MutexLock alock(&append_mu_);
    if (!error_.ok()) return error_;
  }
  IOStatus s;
  if (file_->IsSyncThreadSafe()) {
    // POSIX: fdatasync beside concurrent write(2)s; appends go on meanwhile.
    // file_ is only replaced by Rotate, which holds sync_mu_ too.
    s = file_->Sync(IOOptions(), nullptr);
  } else {
    MutexLock alock(&append_mu_);
    if (!error_.ok()) return error_;
    s = file_->Sync(IOOptions(), nullptr);
  }
  if (!s.ok()) {
    // Sticky: after a failed fsync the kernel may have dropped the dirty
    // pages, so a later successful sync would not cover these records.
    MutexLock alock(&append_mu_);
    error_ = IOStatus::IOError("TierFS journal sync failed: " + s.ToString());
    return error_;
  }
  synced_lsn_ = target;
  return IOStatus::OK();
}

IOStatus Journal::SyncAllForExit() {
  MutexLock lock(&sync_mu_);  // Rotate holds it: generation_ stays
  const uint64_t target = appended_lsn_.load();
  if (synced_lsn_.load() >= target) return IOStatus::OK();
  {
    MutexLock alock(&append_mu_);
    if (!error_.ok()) return error_;
  }
  IOStatus s = SyncPath(JournalName(dir_, generation_));
  if (!s.ok()) {
    MutexLock alock(&append_mu_);  // sticky, as in SyncTo
    error_ = IOStatus::IOError("TierFS journal sync failed: " + s.ToString());
    return error_;
  }
  synced_lsn_ = target;
  return IOStatus::OK();
}

void Journal::Abandon() {
  MutexLock alock(&append_mu_);
  KeepUntilExit(std::shared_ptr<rocksdb::FSWritableFile>(std::move(file_)));  // never destroyed
  error_ = IOStatus::IOError("TierFS journal in " + dir_ + " was let go at process exit");
}

IOStatus Journal::Rotate(const std::vector<JournalRecord>& snapshot) {
  MutexLock slock(&sync_mu_);
  MutexLock alock(&append_mu_);
  if (!error_.ok()) return error_;
  return StartGeneration(generation_ + 1, snapshot);
}

}  // namespace tierfs
