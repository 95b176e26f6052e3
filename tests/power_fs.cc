// The power-cut file system (power_fs.h): the wrapper's files, the content
// and directory bookkeeping, and the drop of what was not durable.
#include "tests/power_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tierfs {
namespace test {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

constexpr uint64_t kBlock = 4096;
const char kStashName[] = ".power-stash";

IOStatus Errno(const std::string& context, int err) {
  if (err == ENOENT) return IOStatus::PathNotFound(context + ": " + strerror(err));
  return IOStatus::IOError(context + ": " + strerror(err));
}

// "/a//b/" -> "/a/b".
std::string Normalize(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The entries of `dir` (without "." and ".."); empty if it cannot be read.
std::set<std::string> ListNames(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (struct dirent* e = readdir(d)) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) names.insert(e->d_name);
  }
  closedir(d);
  return names;
}

// The entries of `dir` the wrapper keeps an account of: all but the files
// TierFS writes and removes with POSIX calls alone, fsyncing their directory
// itself (the hot-page copies' saved state, env/hot_pages.h). The wrapper sees
// none of their calls, so they reach the device when made (power_fs.h).
std::set<std::string> TrackedNames(const std::string& dir) {
  std::set<std::string> names = ListNames(dir);
  names.erase("PAGES.state");
  names.erase("PAGES.state.tmp");
  return names;
}

bool IsDir(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void RemoveTree(const std::string& path) {
  if (IsDir(path)) {
    for (const std::string& n : ListNames(path)) RemoveTree(path + "/" + n);
    rmdir(path.c_str());
  } else {
    unlink(path.c_str());
  }
}

uint64_t SizeOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? uint64_t(st.st_size) : 0;
}

}  // namespace

// One inode's durability: its synced size and the undo records of the writes
// made since its last sync.
struct PowerFS::FileState {
  struct Undo {
    uint64_t seq = 0;
    std::vector<std::pair<uint64_t, std::string>> data;  // offset, bytes replaced
    std::vector<std::pair<uint64_t, uint64_t>> holes;    // offset, length that were holes
  };
  std::mutex mu;
  int fd = -1;  // the wrapper's own descriptor: restores reach the inode whatever its names
  std::string path;  // the name it was first opened by (for reports)
  uint64_t synced_size = 0;
  uint64_t next_seq = 1;
  uint64_t synced_seq = 0;  // the newest sync applied (by the seq at its start)
  std::vector<Undo> undo;

  // Records what a write of [offset, offset+len) replaces, in whole blocks.
  // REQUIRES: mu held, and held until the write is done.
  void Capture(uint64_t offset, uint64_t len) {
    Undo u;
    u.seq = next_seq++;
    const uint64_t old_size = SizeOf(fd);
    const uint64_t begin = offset / kBlock * kBlock;
    const uint64_t end = std::min((offset + len + kBlock - 1) / kBlock * kBlock, old_size);
    for (uint64_t pos = begin; pos < end;) {
      const off_t data = lseek(fd, off_t(pos), SEEK_DATA);
      if (data < 0 || uint64_t(data) >= end) {
        u.holes.emplace_back(pos, end - pos);
        break;
      }
      if (uint64_t(data) > pos) u.holes.emplace_back(pos, uint64_t(data) - pos);
      const off_t hole = lseek(fd, data, SEEK_HOLE);
      const uint64_t stop = std::min<uint64_t>(hole < 0 ? end : uint64_t(hole), end);
      std::string bytes(stop - uint64_t(data), '\0');
      const ssize_t r = pread(fd, &bytes[0], bytes.size(), data);
      bytes.resize(r < 0 ? 0 : size_t(r));
      u.data.emplace_back(uint64_t(data), std::move(bytes));
      pos = stop;
    }
    undo.push_back(std::move(u));
  }

  // Runs `sync`; if it succeeds, what was written before it began is durable.
  template <typename Sync>
  IOStatus SyncWith(Sync sync) {
    uint64_t seq, size;
    {
      std::lock_guard<std::mutex> lock(mu);
      seq = next_seq++;  // its own number: syncs finishing out of order are told apart
      size = SizeOf(fd);
    }
    IOStatus s = sync();
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> lock(mu);
    if (seq > synced_seq) {
      synced_seq = seq;
      synced_size = size;
      undo.erase(std::remove_if(undo.begin(), undo.end(),
                                [seq](const Undo& u) { return u.seq < seq; }),
                 undo.end());
    }
    return s;
  }
};

// ------------------------------------------------------------------ the gate

template <typename Op>
IOStatus PowerFS::Gate(const char* what, const std::string& path, Op op) {
  std::shared_lock<std::shared_mutex> lock(power_mu_);
  if (cut_) return CutError(what, path);
  const uint64_t n = calls_.fetch_add(1) + 1;
  const uint64_t at = cut_at_.load();
  if (at != 0 && n >= at) {
    lock.unlock();
    PowerCut();
    return CutError(what, path);
  }
  return op();
}

IOStatus PowerFS::CutError(const char* what, const std::string& path) const {
  return IOStatus::IOError(std::string("power cut (PowerFS): ") + what + " " + path);
}

void PowerFS::PowerCut() {
  std::unique_lock<std::shared_mutex> lock(power_mu_);
  cut_ = true;
}

void PowerFS::CutAfter(uint64_t n) { cut_at_ = n == 0 ? 0 : calls_.load() + n; }

// ------------------------------------------------------------------ files

namespace {

class PowerWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  PowerWritableFile(std::unique_ptr<rocksdb::FSWritableFile> f, std::string path, PowerFS* fs,
                    std::shared_ptr<PowerFS::FileState> state)
      : FSWritableFileOwnerWrapper(std::move(f)),
        path_(std::move(path)),
        fs_(fs),
        state_(std::move(state)) {}
  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("append", path_, [&] { return target()->Append(data, o, d); });
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& v,
                  IODebugContext* d) override {
    return fs_->Gate("append", path_, [&] { return target()->Append(data, o, v, d); });
  }
  IOStatus PositionedAppend(const Slice&, uint64_t, const IOOptions&, IODebugContext*) override {
    return IOStatus::NotSupported("PositionedAppend in PowerFS: " + path_);
  }
  IOStatus PositionedAppend(const Slice&, uint64_t, const IOOptions&,
                            const rocksdb::DataVerificationInfo&, IODebugContext*) override {
    return IOStatus::NotSupported("PositionedAppend in PowerFS: " + path_);
  }
  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("truncate", path_, [&] { return target()->Truncate(size, o, d); });
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("flush", path_, [&] { return target()->Flush(o, d); });
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("sync", path_,
                     [&] { return state_->SyncWith([&] { return target()->Sync(o, d); }); });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("fsync", path_,
                     [&] { return state_->SyncWith([&] { return target()->Fsync(o, d); }); });
  }
  // sync_file_range: neither the metadata nor the device cache; not durable.
  IOStatus RangeSync(uint64_t off, uint64_t n, const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("range sync", path_, [&] { return target()->RangeSync(off, n, o, d); });
  }
  IOStatus Allocate(uint64_t off, uint64_t len, const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("allocate", path_, [&] { return target()->Allocate(off, len, o, d); });
  }
  // Close is not a sync, and works after a cut (it only lets the file go).

 private:
  const std::string path_;
  PowerFS* const fs_;
  const std::shared_ptr<PowerFS::FileState> state_;
};

class PowerRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  PowerRWFile(std::unique_ptr<rocksdb::FSRandomRWFile> f, std::string path, PowerFS* fs,
              std::shared_ptr<PowerFS::FileState> state)
      : FSRandomRWFileOwnerWrapper(std::move(f)),
        path_(std::move(path)),
        fs_(fs),
        state_(std::move(state)) {}
  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions& o,
                 IODebugContext* d) override {
    return fs_->Gate("write", path_, [&] {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->Capture(offset, data.size());
      return target()->Write(offset, data, o, d);
    });
  }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* d) const override {
    return fs_->Gate("read", path_,
                     [&] { return target()->Read(offset, n, o, result, scratch, d); });
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("flush", path_, [&] { return target()->Flush(o, d); });
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("sync", path_,
                     [&] { return state_->SyncWith([&] { return target()->Sync(o, d); }); });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("fsync", path_,
                     [&] { return state_->SyncWith([&] { return target()->Fsync(o, d); }); });
  }

 private:
  const std::string path_;
  PowerFS* const fs_;
  const std::shared_ptr<PowerFS::FileState> state_;
};

class PowerRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  PowerRandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> f, std::string path,
                        PowerFS* fs)
      : FSRandomAccessFileOwnerWrapper(std::move(f)), path_(std::move(path)), fs_(fs) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* d) const override {
    return fs_->Gate("read", path_,
                     [&] { return target()->Read(offset, n, o, result, scratch, d); });
  }
  IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num, const IOOptions& o,
                     IODebugContext* d) override {
    return fs_->Gate("read", path_, [&] { return target()->MultiRead(reqs, num, o, d); });
  }
  IOStatus Prefetch(uint64_t offset, size_t n, const IOOptions& o, IODebugContext* d) override {
    return fs_->Gate("prefetch", path_, [&] { return target()->Prefetch(offset, n, o, d); });
  }
  IOStatus ReadAsync(rocksdb::FSReadRequest&, const IOOptions&,
                     std::function<void(const rocksdb::FSReadRequest&, void*)>, void*, void**,
                     rocksdb::IOHandleDeleter*, IODebugContext*) override {
    return IOStatus::NotSupported("ReadAsync in PowerFS: " + path_);
  }

 private:
  const std::string path_;
  PowerFS* const fs_;
};

class PowerSequentialFile : public rocksdb::FSSequentialFileOwnerWrapper {
 public:
  PowerSequentialFile(std::unique_ptr<rocksdb::FSSequentialFile> f, std::string path, PowerFS* fs)
      : FSSequentialFileOwnerWrapper(std::move(f)), path_(std::move(path)), fs_(fs) {}
  IOStatus Read(size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* d) override {
    return fs_->Gate("read", path_, [&] { return target()->Read(n, o, result, scratch, d); });
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions& o, Slice* result,
                          char* scratch, IODebugContext* d) override {
    return fs_->Gate("read", path_,
                     [&] { return target()->PositionedRead(offset, n, o, result, scratch, d); });
  }
  IOStatus Skip(uint64_t n) override {
    return fs_->Gate("skip", path_, [&] { return target()->Skip(n); });
  }

 private:
  const std::string path_;
  PowerFS* const fs_;
};

}  // namespace

class PowerDirectory : public rocksdb::FSDirectory {
 public:
  PowerDirectory(std::unique_ptr<rocksdb::FSDirectory> target, std::string path, PowerFS* fs)
      : target_(std::move(target)), path_(std::move(path)), fs_(fs) {}
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    return fs_->SyncDirectory(path_, target_.get(), o, d, nullptr);
  }
  IOStatus FsyncWithDirOptions(const IOOptions& o, IODebugContext* d,
                               const rocksdb::DirFsyncOptions& options) override {
    return fs_->SyncDirectory(path_, target_.get(), o, d, &options);
  }
  IOStatus Close(const IOOptions& o, IODebugContext* d) override { return target_->Close(o, d); }
  size_t GetUniqueId(char* id, size_t max_size) const override {
    return target_->GetUniqueId(id, max_size);
  }

 private:
  const std::unique_ptr<rocksdb::FSDirectory> target_;
  const std::string path_;
  PowerFS* const fs_;
};

// ------------------------------------------------------------------ the wrapper

PowerFS::PowerFS(std::string root)
    : FileSystemWrapper(rocksdb::FileSystem::Default()),
      root_(Normalize(root)),
      stash_dir_(root_ + "/" + kStashName) {
  Baseline();
}

PowerFS::~PowerFS() {
  for (auto& kv : states_) close(kv.second->fd);
  RemoveTree(stash_dir_);
}

std::string PowerFS::DirOf(const std::string& path) const {
  const std::string p = Normalize(path);
  const size_t slash = p.rfind('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

void PowerFS::ListTree(const std::string& dir) {
  std::set<std::string> names = TrackedNames(dir);
  if (dir == root_) names.erase(kStashName);
  for (const std::string& n : names) {
    if (IsDir(dir + "/" + n)) ListTree(dir + "/" + n);
  }
  durable_[dir] = std::move(names);
}

void PowerFS::Baseline() {
  std::unique_lock<std::shared_mutex> power(power_mu_);
  {
    std::lock_guard<std::mutex> lock(states_mu_);
    for (auto& kv : states_) close(kv.second->fd);
    states_.clear();
  }
  std::lock_guard<std::mutex> lock(ns_mu_);
  RemoveTree(stash_dir_);
  mkdir(stash_dir_.c_str(), 0755);
  stashed_.clear();
  durable_.clear();
  ListTree(root_);
  cut_ = false;
  calls_ = 0;
  cut_at_ = 0;
}

std::shared_ptr<PowerFS::FileState> PowerFS::StateFor(const std::string& path, bool truncated) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return nullptr;
  std::lock_guard<std::mutex> lock(states_mu_);
  std::shared_ptr<FileState>& state = states_[{st.st_dev, st.st_ino}];
  if (!state) {
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return nullptr;
    state = std::make_shared<FileState>();
    state->fd = fd;
    state->path = path;
    state->synced_size = truncated ? 0 : uint64_t(st.st_size);
  } else if (truncated) {
    std::lock_guard<std::mutex> l(state->mu);
    state->undo.clear();
    state->synced_size = 0;
  }
  return state;
}

bool PowerFS::DurableLocked(const std::string& path) const {
  auto it = durable_.find(DirOf(path));
  return it != durable_.end() && it->second.count(BaseName(Normalize(path))) > 0;
}

IOStatus PowerFS::StashLocked(const std::string& path) {
  const std::string p = Normalize(path);
  if (stashed_.count(p)) return IOStatus::OK();  // its durable inode is kept already
  const std::string stash = stash_dir_ + "/" + std::to_string(next_stash_++);
  if (link(p.c_str(), stash.c_str()) != 0) return Errno("PowerFS: keeping " + p + " aside", errno);
  stashed_[p] = stash;
  return IOStatus::OK();
}

IOStatus PowerFS::SyncDirectory(const std::string& dir, rocksdb::FSDirectory* target,
                                const IOOptions& o, IODebugContext* d,
                                const rocksdb::DirFsyncOptions* dir_options) {
  return Gate("fsync directory", dir, [&] {
    // Under ns_mu_: no entry of the directory changes between the listing and
    // the sync that makes it durable.
    std::lock_guard<std::mutex> lock(ns_mu_);
    std::set<std::string> names = TrackedNames(dir);
    if (dir == root_) names.erase(kStashName);
    IOStatus s = dir_options ? target->FsyncWithDirOptions(o, d, *dir_options) : target->Fsync(o, d);
    if (!s.ok()) return s;
    durable_[dir] = std::move(names);
    for (auto it = stashed_.begin(); it != stashed_.end();) {
      if (DirOf(it->first) == dir) {
        if (!it->second.empty()) unlink(it->second.c_str());
        it = stashed_.erase(it);
      } else {
        ++it;
      }
    }
    return s;
  });
}

IOStatus PowerFS::NewSequentialFile(const std::string& f, const FileOptions& o,
                                    std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                    IODebugContext* d) {
  return Gate("open", f, [&] {
    std::unique_ptr<rocksdb::FSSequentialFile> file;
    IOStatus s = target()->NewSequentialFile(f, o, &file, d);
    if (s.ok()) r->reset(new PowerSequentialFile(std::move(file), f, this));
    return s;
  });
}

IOStatus PowerFS::NewRandomAccessFile(const std::string& f, const FileOptions& o,
                                      std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                      IODebugContext* d) {
  return Gate("open", f, [&] {
    std::unique_ptr<rocksdb::FSRandomAccessFile> file;
    IOStatus s = target()->NewRandomAccessFile(f, o, &file, d);
    if (s.ok()) r->reset(new PowerRandomAccessFile(std::move(file), f, this));
    return s;
  });
}

IOStatus PowerFS::NewWritableFile(const std::string& f, const FileOptions& o,
                                  std::unique_ptr<rocksdb::FSWritableFile>* r, IODebugContext* d) {
  return Gate("create", f, [&] {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = target()->NewWritableFile(f, o, &file, d);
    if (!s.ok()) return s;
    // O_TRUNC: whatever the file held is not durable any more.
    std::shared_ptr<FileState> state = StateFor(f, /*truncated=*/true);
    if (!state) return Errno("PowerFS: tracking " + f, errno);
    r->reset(new PowerWritableFile(std::move(file), f, this, std::move(state)));
    return s;
  });
}

IOStatus PowerFS::ReopenWritableFile(const std::string& f, const FileOptions& o,
                                     std::unique_ptr<rocksdb::FSWritableFile>* r,
                                     IODebugContext* d) {
  return Gate("reopen", f, [&] {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = target()->ReopenWritableFile(f, o, &file, d);
    if (!s.ok()) return s;
    std::shared_ptr<FileState> state = StateFor(f, /*truncated=*/false);
    if (!state) return Errno("PowerFS: tracking " + f, errno);
    r->reset(new PowerWritableFile(std::move(file), f, this, std::move(state)));
    return s;
  });
}

IOStatus PowerFS::ReuseWritableFile(const std::string& f, const std::string&, const FileOptions&,
                                    std::unique_ptr<rocksdb::FSWritableFile>*, IODebugContext*) {
  return IOStatus::NotSupported("ReuseWritableFile in PowerFS: " + f);
}

IOStatus PowerFS::NewRandomRWFile(const std::string& f, const FileOptions& o,
                                  std::unique_ptr<rocksdb::FSRandomRWFile>* r, IODebugContext* d) {
  return Gate("open for write", f, [&] {
    std::unique_ptr<rocksdb::FSRandomRWFile> file;
    IOStatus s = target()->NewRandomRWFile(f, o, &file, d);
    if (!s.ok()) return s;
    std::shared_ptr<FileState> state = StateFor(f, /*truncated=*/false);
    if (!state) return Errno("PowerFS: tracking " + f, errno);
    r->reset(new PowerRWFile(std::move(file), f, this, std::move(state)));
    return s;
  });
}

IOStatus PowerFS::NewDirectory(const std::string& name, const IOOptions& o,
                               std::unique_ptr<rocksdb::FSDirectory>* r, IODebugContext* d) {
  return Gate("open directory", name, [&] {
    std::unique_ptr<rocksdb::FSDirectory> dir;
    IOStatus s = target()->NewDirectory(name, o, &dir, d);
    if (s.ok()) r->reset(new PowerDirectory(std::move(dir), Normalize(name), this));
    return s;
  });
}

IOStatus PowerFS::DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* d) {
  return Gate("delete", f, [&] {
    std::lock_guard<std::mutex> lock(ns_mu_);
    const std::string p = Normalize(f);
    if (!DurableLocked(p) || stashed_.count(p)) return target()->DeleteFile(f, o, d);
    // A durable entry: its inode goes aside, to come back if the power is cut
    // before the directory is synced.
    const std::string stash = stash_dir_ + "/" + std::to_string(next_stash_++);
    if (rename(p.c_str(), stash.c_str()) != 0) return Errno("PowerFS: deleting " + p, errno);
    stashed_[p] = stash;
    return IOStatus::OK();
  });
}

IOStatus PowerFS::RenameFile(const std::string& src, const std::string& dst, const IOOptions& o,
                             IODebugContext* d) {
  return Gate("rename", src, [&] {
    std::lock_guard<std::mutex> lock(ns_mu_);
    IOStatus s;
    struct stat st;
    if (DurableLocked(dst) && lstat(dst.c_str(), &st) == 0) s = StashLocked(dst);
    if (s.ok() && DurableLocked(src)) s = StashLocked(src);
    if (s.ok()) s = target()->RenameFile(src, dst, o, d);
    return s;
  });
}

IOStatus PowerFS::LinkFile(const std::string& src, const std::string&, const IOOptions&,
                           IODebugContext*) {
  return IOStatus::NotSupported("LinkFile in PowerFS: " + src);
}

IOStatus PowerFS::DeleteDir(const std::string& dir, const IOOptions& o, IODebugContext* d) {
  return Gate("delete directory", dir, [&] {
    std::lock_guard<std::mutex> lock(ns_mu_);
    const std::string p = Normalize(dir);
    IOStatus s = target()->DeleteDir(dir, o, d);
    if (s.ok() && DurableLocked(p) && !stashed_.count(p)) stashed_[p] = "";  // "": re-create
    return s;
  });
}

IOStatus PowerFS::Truncate(const std::string& f, size_t size, const IOOptions& o,
                           IODebugContext* d) {
  return Gate("truncate", f, [&] { return target()->Truncate(f, size, o, d); });
}

IOStatus PowerFS::CreateDir(const std::string& dir, const IOOptions& o, IODebugContext* d) {
  return Gate("create directory", dir, [&] { return target()->CreateDir(dir, o, d); });
}

IOStatus PowerFS::CreateDirIfMissing(const std::string& dir, const IOOptions& o,
                                     IODebugContext* d) {
  return Gate("create directory", dir, [&] { return target()->CreateDirIfMissing(dir, o, d); });
}

IOStatus PowerFS::FileExists(const std::string& f, const IOOptions& o, IODebugContext* d) {
  return Gate("stat", f, [&] { return target()->FileExists(f, o, d); });
}

IOStatus PowerFS::GetChildren(const std::string& dir, const IOOptions& o,
                              std::vector<std::string>* r, IODebugContext* d) {
  return Gate("list", dir, [&] { return target()->GetChildren(dir, o, r, d); });
}

IOStatus PowerFS::GetChildrenFileAttributes(const std::string& dir, const IOOptions& o,
                                            std::vector<rocksdb::FileAttributes>* r,
                                            IODebugContext* d) {
  return Gate("list", dir, [&] { return target()->GetChildrenFileAttributes(dir, o, r, d); });
}

IOStatus PowerFS::GetFileSize(const std::string& f, const IOOptions& o, uint64_t* size,
                              IODebugContext* d) {
  return Gate("stat", f, [&] { return target()->GetFileSize(f, o, size, d); });
}

IOStatus PowerFS::GetFileModificationTime(const std::string& f, const IOOptions& o, uint64_t* t,
                                          IODebugContext* d) {
  return Gate("stat", f, [&] { return target()->GetFileModificationTime(f, o, t, d); });
}

IOStatus PowerFS::IsDirectory(const std::string& path, const IOOptions& o, bool* is_dir,
                              IODebugContext* d) {
  return Gate("stat", path, [&] { return target()->IsDirectory(path, o, is_dir, d); });
}

IOStatus PowerFS::LockFile(const std::string& f, const IOOptions& o, rocksdb::FileLock** l,
                           IODebugContext* d) {
  return Gate("lock", f, [&] { return target()->LockFile(f, o, l, d); });
}

// ------------------------------------------------------------------ the drop

IOStatus PowerFS::DropUnsynced(DropReport* report) {
  *report = DropReport();
  IOStatus first;
  auto fail = [&first](const std::string& what) {
    if (first.ok()) first = Errno("PowerFS drop: " + what, errno);
  };
  {
    std::unique_lock<std::shared_mutex> power(power_mu_);
    cut_ = true;
    // 1. Content: the writes since each inode's last sync undone, newest
    // first; the file cut back to its synced size (a file a call the wrapper
    // did not see made shorter stays so: that truncation may have reached the
    // device).
    std::lock_guard<std::mutex> slock(states_mu_);
    for (auto& kv : states_) {
      FileState& st = *kv.second;
      const uint64_t size = SizeOf(st.fd);
      for (auto u = st.undo.rbegin(); u != st.undo.rend(); ++u) {
        for (const auto& [off, bytes] : u->data) {
          if (pwrite(st.fd, bytes.data(), bytes.size(), off_t(off)) != ssize_t(bytes.size())) {
            fail("restoring " + std::to_string(bytes.size()) + " bytes at " + std::to_string(off));
          }
        }
        for (const auto& [off, len] : u->holes) {
          if (fallocate(st.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(off),
                        off_t(len)) != 0) {
            fail("punching " + std::to_string(len) + " bytes at " + std::to_string(off));
          }
        }
        report->writes_undone++;
      }
      const uint64_t keep = std::min(size, st.synced_size);
      if (SizeOf(st.fd) > keep) {
        if (ftruncate(st.fd, off_t(keep)) != 0) fail("truncating to " + std::to_string(keep));
        if (size > keep) {
          report->details += "truncated " + st.path + " from " + std::to_string(size) + " to " +
                             std::to_string(keep) + " (" + std::to_string(st.undo.size()) +
                             " writes undone)\n";
          report->files_truncated++;
          report->bytes_truncated += size - keep;
        }
      }
    }
    // 2. Durable entries deleted or renamed over: back in place.
    std::lock_guard<std::mutex> nlock(ns_mu_);
    for (const auto& [path, stash] : stashed_) {
      const int r = stash.empty() ? mkdir(path.c_str(), 0755) : rename(stash.c_str(), path.c_str());
      if (r != 0 && errno != EEXIST) {
        fail("restoring " + path);
      } else {
        report->details += "restored " + path + "\n";
        report->entries_restored++;
      }
    }
    // 3. Entries whose creation (or rename into place) was not made durable
    // by a sync of their directory: gone.
    std::vector<std::string> dirs{root_};
    while (!dirs.empty()) {
      const std::string dir = dirs.back();
      dirs.pop_back();
      auto it = durable_.find(dir);
      const std::set<std::string> none;
      const std::set<std::string>& durable = it == durable_.end() ? none : it->second;
      std::set<std::string> names = TrackedNames(dir);
      if (dir == root_) names.erase(kStashName);
      for (const std::string& n : names) {
        const std::string path = dir + "/" + n;
        if (!durable.count(n)) {
          report->details += "removed " + path + "\n";
          RemoveTree(path);
          report->entries_removed++;
        } else if (IsDir(path)) {
          dirs.push_back(path);
        }
      }
      for (const std::string& n : durable) report->entries_lost += names.count(n) == 0;
    }
  }
  Baseline();
  return first;
}

}  // namespace test
}  // namespace tierfs
