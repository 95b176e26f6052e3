// A FileSystem wrapper for fault injection under TierFS: switches that make
// chosen operations of the base file system fail (ENOSPC after a byte budget,
// EIO on reads, writes, syncs or closes, a file that cannot be created,
// renamed or deleted),
// and small devices: a byte budget that every write under a path spends
// (backing files, the journal, snapshots, STATS), that GetFreeSpace reports,
// and that, once a write did not fit, refuses every later write there, as a
// full device refuses the next block.
// A fault applies to paths that start with (prefix) or contain (substring)
// the string given; switches flip while the store runs.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <rocksdb/file_system.h>

namespace tierfs {
namespace test {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// Switches shared by the wrapper and its files. The strings are set before
// the faults they name are switched on, then only read.
struct Faults {
  std::string enospc_prefix;
  std::atomic<int64_t> enospc_after{-1};  // bytes that still fit; -1: off
  std::string eio_prefix;                 // backing files (random access, read-write)
  std::atomic<bool> read_eio{false};
  std::atomic<bool> sync_eio{false};
  std::atomic<bool> close_eio{false};     // backing files under eio_prefix: Close fails (but closes)
  std::atomic<int> injected{0};
  std::string create_fails;  // NewWritableFile of paths containing this fails
  std::string rename_fails;  // RenameFile of sources containing this fails
  std::string delete_fails;  // DeleteFile of paths containing this fails
  std::string writable_sync_fails;  // Sync/Fsync of writable files whose path contains this...
  std::atomic<bool> writable_sync_eio{false};  // ...fail while this is on

  // Small devices: writes under `prefix` spend `left` (bytes; -1: off).
  // Deletes give nothing back. Set the prefixes before switching them on.
  struct Device {
    std::string prefix;
    std::atomic<int64_t> left{-1};
  };
  static constexpr int kDevices = 3;
  Device devices[kDevices];

  // The device holding `path` (a path under its prefix, or its prefix
  // without the last slash); null if none is on.
  Device* DeviceOf(const std::string& path) {
    for (Device& d : devices) {
      if (d.left.load() < 0 || d.prefix.empty()) continue;
      if (Matches(d.prefix, path) || Matches(d.prefix, path + "/")) return &d;
    }
    return nullptr;
  }
  // Spends `n` bytes of the device holding `path`; false (and the device
  // full from now on) if they do not fit.
  bool DeviceRefuses(const std::string& path, size_t n) {
    Device* d = DeviceOf(path);
    if (!d) return false;
    int64_t left = d->left.load();
    do {
      if (int64_t(n) > left) {
        d->left = 0;
        injected++;
        return true;
      }
    } while (!d->left.compare_exchange_weak(left, left - int64_t(n)));
    return false;
  }

  bool Matches(const std::string& prefix, const std::string& path) const {
    return !prefix.empty() && path.compare(0, prefix.size(), prefix) == 0;
  }
  bool WriteFails(const std::string& path, size_t n) {
    if (!Matches(enospc_prefix, path)) return false;
    int64_t left = enospc_after.load();
    if (left < 0) return false;
    if (int64_t(n) > left) {
      injected++;
      return true;
    }
    enospc_after -= int64_t(n);
    return false;
  }
};

class FaultRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  FaultRWFile(std::unique_ptr<rocksdb::FSRandomRWFile> f, std::string path, Faults* faults)
      : FSRandomRWFileOwnerWrapper(std::move(f)), path_(std::move(path)), faults_(faults) {}
  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions& o, IODebugContext* d) override {
    if (faults_->WriteFails(path_, data.size()) || faults_->DeviceRefuses(path_, data.size())) {
      return IOStatus::NoSpace("injected ENOSPC: " + path_);
    }
    return FSRandomRWFileOwnerWrapper::Write(offset, data, o, d);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    if (faults_->sync_eio && faults_->Matches(faults_->eio_prefix, path_)) {
      faults_->injected++;
      return IOStatus::IOError("injected EIO on sync: " + path_);
    }
    return FSRandomRWFileOwnerWrapper::Sync(o, d);
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override { return Sync(o, d); }
  IOStatus Close(const IOOptions& o, IODebugContext* d) override {
    IOStatus s = FSRandomRWFileOwnerWrapper::Close(o, d);
    if (faults_->close_eio && faults_->Matches(faults_->eio_prefix, path_)) {
      faults_->injected++;
      return IOStatus::IOError("injected EIO on close: " + path_);
    }
    return s;
  }

 private:
  const std::string path_;
  Faults* const faults_;
};

// Writable files (the journal, snapshots, STATS): syncs fail on demand.
class FaultWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultWritableFile(std::unique_ptr<rocksdb::FSWritableFile> f, std::string path, Faults* faults)
      : FSWritableFileOwnerWrapper(std::move(f)), path_(std::move(path)), faults_(faults) {}
  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* d) override {
    if (faults_->DeviceRefuses(path_, data.size())) return IOStatus::NoSpace("injected ENOSPC: " + path_);
    return FSWritableFileOwnerWrapper::Append(data, o, d);
  }
  IOStatus Append(const Slice& data, const IOOptions& o,
                  const rocksdb::DataVerificationInfo& info, IODebugContext* d) override {
    if (faults_->DeviceRefuses(path_, data.size())) return IOStatus::NoSpace("injected ENOSPC: " + path_);
    return FSWritableFileOwnerWrapper::Append(data, o, info, d);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    if (Fails()) return IOStatus::IOError("injected EIO on sync: " + path_);
    return FSWritableFileOwnerWrapper::Sync(o, d);
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    if (Fails()) return IOStatus::IOError("injected EIO on fsync: " + path_);
    return FSWritableFileOwnerWrapper::Fsync(o, d);
  }

 private:
  bool Fails() const {
    if (!faults_->writable_sync_eio || faults_->writable_sync_fails.empty() ||
        path_.find(faults_->writable_sync_fails) == std::string::npos) {
      return false;
    }
    faults_->injected++;
    return true;
  }
  const std::string path_;
  Faults* const faults_;
};

class FaultRandomAccessFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  FaultRandomAccessFile(std::unique_ptr<rocksdb::FSRandomAccessFile> f, std::string path,
                        Faults* faults)
      : FSRandomAccessFileOwnerWrapper(std::move(f)), path_(std::move(path)), faults_(faults) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                IODebugContext* d) const override {
    if (faults_->read_eio && faults_->Matches(faults_->eio_prefix, path_)) {
      faults_->injected++;
      return IOStatus::IOError("injected EIO on read: " + path_);
    }
    return FSRandomAccessFileOwnerWrapper::Read(offset, n, o, result, scratch, d);
  }

 private:
  const std::string path_;
  Faults* const faults_;
};

class FaultFS : public rocksdb::FileSystemWrapper {
 public:
  FaultFS() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "FaultFS"; }
  IOStatus NewRandomRWFile(const std::string& f, const rocksdb::FileOptions& o,
                           std::unique_ptr<rocksdb::FSRandomRWFile>* r, IODebugContext* d) override {
    std::unique_ptr<rocksdb::FSRandomRWFile> file;
    IOStatus s = target()->NewRandomRWFile(f, o, &file, d);
    if (s.ok()) r->reset(new FaultRWFile(std::move(file), f, &faults));
    return s;
  }
  IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                               IODebugContext* d) override {
    std::unique_ptr<rocksdb::FSRandomAccessFile> file;
    IOStatus s = target()->NewRandomAccessFile(f, o, &file, d);
    if (s.ok()) r->reset(new FaultRandomAccessFile(std::move(file), f, &faults));
    return s;
  }
  IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                           std::unique_ptr<rocksdb::FSWritableFile>* r, IODebugContext* d) override {
    if (!faults.create_fails.empty() && f.find(faults.create_fails) != std::string::npos) {
      faults.injected++;
      return IOStatus::IOError("injected: cannot create " + f);
    }
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = target()->NewWritableFile(f, o, &file, d);
    if (s.ok()) r->reset(new FaultWritableFile(std::move(file), f, &faults));
    return s;
  }
  IOStatus GetFreeSpace(const std::string& path, const IOOptions& o, uint64_t* free,
                        IODebugContext* d) override {
    if (Faults::Device* dev = faults.DeviceOf(path)) {
      *free = uint64_t(dev->left.load());
      return IOStatus::OK();
    }
    return target()->GetFreeSpace(path, o, free, d);
  }
  IOStatus RenameFile(const std::string& src, const std::string& dst, const IOOptions& o,
                      IODebugContext* d) override {
    if (!faults.rename_fails.empty() && src.find(faults.rename_fails) != std::string::npos) {
      faults.injected++;
      return IOStatus::IOError("injected: cannot rename " + src);
    }
    return target()->RenameFile(src, dst, o, d);
  }
  IOStatus DeleteFile(const std::string& f, const IOOptions& o, IODebugContext* d) override {
    if (!faults.delete_fails.empty() && f.find(faults.delete_fails) != std::string::npos) {
      faults.injected++;
      return IOStatus::IOError("injected: cannot delete " + f);
    }
    return target()->DeleteFile(f, o, d);
  }
  Faults faults;
};

}  // namespace test
}  // namespace tierfs
