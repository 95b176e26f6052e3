#include "env/tier_fs.h"

#include <unistd.h>

#include <exception>

#include "env/file_name.h"
#include "env/guard.h"
#include "env/logger.h"
#include "env/tier_files.h"

namespace tierfs {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

namespace {

// Store::OpenFile and CreateFile return with a handle held, so the file
// cannot be freed before the file object takes its own; this drops it.
class HeldHandle {
 public:
  HeldHandle(Store* store, std::shared_ptr<FileEntry> entry) : store_(store), entry_(std::move(entry)) {}
  ~HeldHandle() { store_->DropHandle(entry_); }

 private:
  Store* const store_;
  const std::shared_ptr<FileEntry> entry_;
};

IOStatus RefuseMmap(const FileOptions& opts, const std::string& path) {
  if (opts.use_mmap_reads || opts.use_mmap_writes) {
    return IOStatus::NotSupported(
        "mmap reads/writes (allow_mmap_reads, allow_mmap_writes) in TierFS: the segments of " +
        path + " may live on different devices; turn mmap off");
  }
  return IOStatus::OK();
}

class TierDirectory : public rocksdb::FSDirectory {
 public:
  explicit TierDirectory(std::shared_ptr<Store> store) : store_(std::move(store)) {}
  // Every namespace change is in the journal: syncing it makes the directory
  // durable, on every tier at once.
  IOStatus Fsync(const IOOptions&, IODebugContext*) override {
    if (store_->closed()) return store_->ClosedError("fsync directory", "");
    return Guard("fsync directory", "", [&] { return store_->SyncNamespace(); });
  }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }

 private:
  std::shared_ptr<Store> store_;
};

}  // namespace

TierFileSystem::TierFileSystem(std::shared_ptr<Store> store)
    : rocksdb::FileSystemWrapper(store->options().base ? store->options().base
                                                       : rocksdb::FileSystem::Default()),
      store_(std::move(store)) {}

std::string TierFileSystem::Normalize(const std::string& path) {
  std::string full = path;
  if (full.empty() || full[0] != '/') {
    char cwd[4096];
    full = std::string(getcwd(cwd, sizeof(cwd)) ? cwd : "/") + "/" + full;
  }
  return LexicalPath(full);
}

bool TierFileSystem::IsTierDir(const std::string& dir) {
  bool is_dir = false;
  return store_->Exists(dir, &is_dir).ok() && is_dir;
}

IOStatus TierFileSystem::NewSequentialFile(const std::string& fname, const FileOptions& opts,
                                           std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                           IODebugContext*) {
  return Run("open", fname, [&] {
    IOStatus s = RefuseMmap(opts, fname);
    std::shared_ptr<FileEntry> e;
    if (s.ok()) s = store_->OpenFile(Normalize(fname), false, &e);
    if (s.IsPathNotFound() && !IsTierDir(Namespace::Parent(Normalize(fname)))) {
      // A file outside every directory TierFS holds (a tool's configuration,
      // such as db_bench --options_file) is read from the host, read-only.
      return store_->base()->NewSequentialFile(fname, opts, result, nullptr);
    }
    if (!s.ok()) return s;
    HeldHandle pin(store_.get(), e);
    result->reset(new TierSequentialFile(store_, e, opts));
    return s;
  });
}

IOStatus TierFileSystem::NewRandomAccessFile(const std::string& fname, const FileOptions& opts,
                                             std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                             IODebugContext*) {
  return Run("open", fname, [&] {
    IOStatus s = RefuseMmap(opts, fname);
    std::shared_ptr<FileEntry> e;
    if (s.ok()) s = store_->OpenFile(Normalize(fname), false, &e);
    if (!s.ok()) return s;
    HeldHandle pin(store_.get(), e);
    result->reset(new TierRandomAccessFile(store_, e, opts));
    return s;
  });
}

IOStatus TierFileSystem::OpenWriter(const std::string& fname, const FileOptions& opts,
                                    bool truncate,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result) {
  IOStatus s = RefuseMmap(opts, fname);
  std::shared_ptr<FileEntry> e;
  if (s.ok()) {
    s = truncate ? store_->CreateFile(Normalize(fname), &e)
                 : store_->OpenFile(Normalize(fname), true, &e);
  }
  if (!s.ok()) return s;
  HeldHandle pin(store_.get(), e);
  switch (opts.temperature) {
    case rocksdb::Temperature::kHot: store_->NoteTemperature(e.get(), Temperature::kHot); break;
    case rocksdb::Temperature::kWarm: store_->NoteTemperature(e.get(), Temperature::kWarm); break;
    case rocksdb::Temperature::kCold: store_->NoteTemperature(e.get(), Temperature::kCold); break;
    default: break;
  }
  result->reset(new TierWritableFile(store_, e, opts, e->size.load()));
  return s;
}

IOStatus TierFileSystem::NewWritableFile(const std::string& fname, const FileOptions& opts,
                                         std::unique_ptr<rocksdb::FSWritableFile>* result,
                                         IODebugContext*) {
  return Run("create", fname, [&] { return OpenWriter(fname, opts, true, result); });
}

IOStatus TierFileSystem::ReopenWritableFile(const std::string& fname, const FileOptions& opts,
                                            std::unique_ptr<rocksdb::FSWritableFile>* result,
                                            IODebugContext*) {
  return Run("reopen", fname, [&] { return OpenWriter(fname, opts, false, result); });
}

IOStatus TierFileSystem::ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                           const FileOptions& opts,
                                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                                           IODebugContext*) {
  // WAL recycling: rename, then overwrite from offset 0; old bytes past the
  // new writes remain, as on POSIX.
  return Run("reuse", old_fname, [&] {
    IOStatus s = RefuseMmap(opts, fname);
    if (s.ok()) s = store_->RenameFile(Normalize(old_fname), Normalize(fname));
    std::shared_ptr<FileEntry> e;
    if (s.ok()) s = store_->OpenFile(Normalize(fname), false, &e);
    if (!s.ok()) return s;
    HeldHandle pin(store_.get(), e);
    result->reset(new TierWritableFile(store_, e, opts, 0));
    return s;
  });
}

IOStatus TierFileSystem::NewRandomRWFile(const std::string& fname, const FileOptions& opts,
                                         std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                         IODebugContext*) {
  return Run("open", fname, [&] {
    IOStatus s = RefuseMmap(opts, fname);
    std::shared_ptr<FileEntry> e;
    if (s.ok()) s = store_->OpenFile(Normalize(fname), true, &e);
    if (!s.ok()) return s;
    HeldHandle pin(store_.get(), e);
    result->reset(new TierRandomRWFile(store_, e, opts));
    return s;
  });
}

IOStatus TierFileSystem::NewMemoryMappedFileBuffer(
    const std::string& fname, std::unique_ptr<rocksdb::MemoryMappedFileBuffer>*) {
  return IOStatus::NotSupported("NewMemoryMappedFileBuffer in TierFS (" + fname + ")");
}

IOStatus TierFileSystem::NewDirectory(const std::string& name, const IOOptions&,
                                      std::unique_ptr<rocksdb::FSDirectory>* result,
                                      IODebugContext*) {
  return Run("open directory", name, [&] {
    bool is_dir = false;
    IOStatus s = store_->Exists(Normalize(name), &is_dir);
    if (s.ok() && !is_dir) s = IOStatus::IOError(name + ": not a directory");
    if (s.ok()) result->reset(new TierDirectory(store_));
    return s;
  });
}

IOStatus TierFileSystem::FileExists(const std::string& fname, const IOOptions&, IODebugContext*) {
  return Run("stat", fname, [&] {
    bool is_dir;
    return store_->Exists(Normalize(fname), &is_dir);
  });
}

IOStatus TierFileSystem::GetChildren(const std::string& dir, const IOOptions&,
                                     std::vector<std::string>* result, IODebugContext*) {
  return Run("list", dir, [&] { return store_->GetChildren(Normalize(dir), result); });
}

IOStatus TierFileSystem::GetChildrenFileAttributes(const std::string& dir, const IOOptions&,
                                                   std::vector<rocksdb::FileAttributes>* result,
                                                   IODebugContext*) {
  return Run("list", dir, [&] {
    std::string d = Normalize(dir);
    std::vector<std::string> names;
    IOStatus s = store_->GetChildren(d, &names);
    if (!s.ok()) return s;
    result->clear();
    for (const std::string& n : names) {
      std::shared_ptr<FileEntry> e = store_->Find(d == "/" ? "/" + n : d + "/" + n);
      if (!e) continue;  // a directory, or deleted meanwhile
      result->push_back(rocksdb::FileAttributes{n, e->size.load()});
    }
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::DeleteFile(const std::string& fname, const IOOptions&, IODebugContext*) {
  return Run("delete", fname, [&] { return store_->DeleteFile(Normalize(fname)); });
}

IOStatus TierFileSystem::Truncate(const std::string& fname, size_t size, const IOOptions&,
                                  IODebugContext*) {
  return Run("truncate", fname, [&] {
    std::shared_ptr<FileEntry> e;
    IOStatus s = store_->OpenFile(Normalize(fname), false, &e);
    if (!s.ok()) return s;
    HeldHandle pin(store_.get(), e);
    SegmentWriter writer(store_, e, store_->backing_options());
    s = writer.Truncate(size);
    IOStatus c = writer.Close();
    return s.ok() ? c : s;
  });
}

IOStatus TierFileSystem::CreateDir(const std::string& dirname, const IOOptions&, IODebugContext*) {
  return Run("mkdir", dirname, [&] { return store_->CreateDir(Normalize(dirname), true); });
}

IOStatus TierFileSystem::CreateDirIfMissing(const std::string& dirname, const IOOptions&,
                                            IODebugContext*) {
  return Run("mkdir", dirname, [&] { return store_->CreateDir(Normalize(dirname), false); });
}

IOStatus TierFileSystem::DeleteDir(const std::string& dirname, const IOOptions&, IODebugContext*) {
  return Run("rmdir", dirname, [&] { return store_->DeleteDir(Normalize(dirname)); });
}

IOStatus TierFileSystem::GetFileSize(const std::string& fname, const IOOptions&, uint64_t* size,
                                     IODebugContext*) {
  return Run("stat", fname, [&] {
    std::shared_ptr<FileEntry> e = store_->Find(Normalize(fname));
    if (!e) return IOStatus::PathNotFound(fname + ": no such file in TierFS");
    *size = e->size.load();
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::GetFileModificationTime(const std::string& fname, const IOOptions& io,
                                                 uint64_t* mtime, IODebugContext*) {
  return Run("stat", fname, [&] {
    std::shared_ptr<FileEntry> e = store_->Find(Normalize(fname));
    if (!e) return IOStatus::PathNotFound(fname + ": no such file in TierFS");
    const uint8_t mask = e->data_file_mask.load();
    *mtime = e->ctime.load();
    // A backing file that cannot be stat'ed (removed by a move meanwhile)
    // just does not count: the newest of the others, or the creation time.
    for (int t = 0; t < store_->NumTiers(); ++t) {
      uint64_t m = 0;
      if ((mask & (1u << t)) &&
          store_->base()->GetFileModificationTime(store_->tier(t).DataPath(e->id), io, &m, nullptr).ok()) {
        *mtime = std::max(*mtime, m);
      }
    }
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::RenameFile(const std::string& src, const std::string& target,
                                    const IOOptions&, IODebugContext*) {
  return Run("rename", src, [&] { return store_->RenameFile(Normalize(src), Normalize(target)); });
}

IOStatus TierFileSystem::LinkFile(const std::string& src, const std::string& target,
                                  const IOOptions&, IODebugContext*) {
  return Run("link", src, [&] { return store_->LinkFile(Normalize(src), Normalize(target)); });
}

IOStatus TierFileSystem::NumFileLinks(const std::string& fname, const IOOptions&, uint64_t* count,
                                      IODebugContext*) {
  return Run("stat", fname, [&] {
    std::shared_ptr<FileEntry> e = store_->Find(Normalize(fname));
    if (!e) return IOStatus::PathNotFound(fname + ": no such file in TierFS");
    *count = uint64_t(store_->NumLinks(e));
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::AreFilesSame(const std::string& first, const std::string& second,
                                      const IOOptions&, bool* res, IODebugContext*) {
  return Run("stat", first, [&] {
    std::shared_ptr<FileEntry> a = store_->Find(Normalize(first));
    std::shared_ptr<FileEntry> b = store_->Find(Normalize(second));
    if (!a || !b) return IOStatus::PathNotFound((a ? second : first) + ": no such file in TierFS");
    *res = a == b;
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::LockFile(const std::string& fname, const IOOptions& io,
                                  rocksdb::FileLock** lock, IODebugContext*) {
  // The lock is an fcntl lock on the file's backing file on tier 0, so two
  // processes sharing the tiers exclude each other as on a local disk.
  return Run("lock", fname, [&] {
    std::shared_ptr<FileEntry> e;
    IOStatus s = store_->OpenFile(Normalize(fname), true, &e);
    if (!s.ok()) return IOStatus::IOError("lock " + fname + ": " + s.ToString());
    HeldHandle pin(store_.get(), e);
    s = store_->EnsureDataFile(e.get(), 0);
    if (s.ok()) s = store_->base()->LockFile(store_->tier(0).DataPath(e->id), io, lock, nullptr);
    if (!s.ok()) return IOStatus::IOError("lock " + fname + ": " + s.ToString());
    store_->NoteDatabaseLocked();
    return s;
  });
}

IOStatus TierFileSystem::UnlockFile(rocksdb::FileLock* lock, const IOOptions& io, IODebugContext*) {
  // Not refused after Close: it touches no store state, and a database closed
  // after its store must still give its lock back. The last lock given back
  // is the last database closing: the store saves (Store::NoteDatabaseUnlocked).
  return Guard("unlock", "", [&] {
    IOStatus s = store_->base()->UnlockFile(lock, io, nullptr);
    store_->NoteDatabaseUnlocked();
    return s;
  });
}

IOStatus TierFileSystem::NewLogger(const std::string& fname, const IOOptions&,
                                   std::shared_ptr<rocksdb::Logger>* result, IODebugContext*) {
  return Run("create", fname, [&] {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = OpenWriter(fname, FileOptions(), true, &file);
    if (s.ok()) *result = NewFileLogger(std::move(file));
    return s;
  });
}

IOStatus TierFileSystem::GetAbsolutePath(const std::string& db_path, const IOOptions&,
                                         std::string* output_path, IODebugContext*) {
  return Run("resolve", db_path, [&] {
    *output_path = Normalize(db_path);
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::GetFreeSpace(const std::string& path, const IOOptions&,
                                      uint64_t* diskfree, IODebugContext*) {
  return Run("free space", path, [&] {
    // TierFS's own account: what all tiers together can still take.
    uint64_t free = 0;
    for (int t = 0; t < store_->NumTiers(); ++t) {
      uint64_t cap = store_->Capacity(t), used = store_->Used(t);
      if (used < cap && !store_->tier(t).device_full()) free += cap - used;
    }
    *diskfree = free;
    return IOStatus::OK();
  });
}

IOStatus TierFileSystem::IsDirectory(const std::string& path, const IOOptions&, bool* is_dir,
                                     IODebugContext*) {
  return Run("stat", path, [&] { return store_->Exists(Normalize(path), is_dir); });
}

}  // namespace tierfs

namespace tierfs {

Store* StoreOf(const rocksdb::FileSystem* fs) {
  for (int depth = 0; fs && depth < 16; ++depth) {
    if (auto* tfs = dynamic_cast<const TierFileSystem*>(fs)) return tfs->store().get();
    auto* wrapper = dynamic_cast<const rocksdb::FileSystemWrapper*>(fs);
    fs = wrapper ? wrapper->target() : nullptr;
  }
  return nullptr;
}

rocksdb::Status OpenStoreOf(const rocksdb::FileSystem* fs, const char* op, Store** store) {
  *store = StoreOf(fs);
  if (!*store) return rocksdb::Status::InvalidArgument(std::string(op) + ": not a TierFS file system");
  if ((*store)->closed()) return (*store)->ClosedError(op, "");
  return rocksdb::Status::OK();
}

}  // namespace tierfs
