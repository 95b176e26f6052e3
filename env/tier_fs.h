// TierFileSystem: the rocksdb::FileSystem RocksDB talks to. It normalizes
// paths, converts exceptions into statuses at the boundary, and hands every
// call to the store. Calls that touch no file (GetTestDirectory, ...) go to
// the wrapped base file system.
#pragma once

#include <memory>
#include <string>

#include <rocksdb/file_system.h>

#include "env/guard.h"
#include "env/store.h"

namespace tierfs {

class TierFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit TierFileSystem(std::shared_ptr<Store> store);

  static const char* kClassName() { return "TierFS"; }
  const char* Name() const override { return kClassName(); }

  const std::shared_ptr<Store>& store() const { return store_; }

  // "/a//b/./c/" -> "/a/b/c"; relative paths are made absolute against the
  // process's working directory.
  static std::string Normalize(const std::string& path);

  rocksdb::IOStatus NewSequentialFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                        rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& opts,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewMemoryMappedFileBuffer(
      const std::string& fname, std::unique_ptr<rocksdb::MemoryMappedFileBuffer>* result) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& io_opts,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus FileExists(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetChildren(const std::string& dir, const rocksdb::IOOptions& options,
                                std::vector<std::string>* result,
                                rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetChildrenFileAttributes(const std::string& dir,
                                              const rocksdb::IOOptions& options,
                                              std::vector<rocksdb::FileAttributes>* result,
                                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Truncate(const std::string& fname, size_t size,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& dirname,
                                       const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFileSize(const std::string& fname, const rocksdb::IOOptions& options,
                                uint64_t* file_size, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFileModificationTime(const std::string& fname,
                                            const rocksdb::IOOptions& options,
                                            uint64_t* file_mtime,
                                            rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& target,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NumFileLinks(const std::string& fname, const rocksdb::IOOptions& options,
                                 uint64_t* count, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus AreFilesSame(const std::string& first, const std::string& second,
                                 const rocksdb::IOOptions& options, bool* res,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LockFile(const std::string& fname, const rocksdb::IOOptions& options,
                             rocksdb::FileLock** lock, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus UnlockFile(rocksdb::FileLock* lock, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewLogger(const std::string& fname, const rocksdb::IOOptions& io_opts,
                              std::shared_ptr<rocksdb::Logger>* result,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetAbsolutePath(const std::string& db_path, const rocksdb::IOOptions& options,
                                    std::string* output_path,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetFreeSpace(const std::string& path, const rocksdb::IOOptions& options,
                                 uint64_t* diskfree, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus IsDirectory(const std::string& path, const rocksdb::IOOptions& options,
                                bool* is_dir, rocksdb::IODebugContext* dbg) override;

 private:
  rocksdb::IOStatus OpenWriter(const std::string& fname, const rocksdb::FileOptions& opts,
                               bool truncate, std::unique_ptr<rocksdb::FSWritableFile>* result);
  // True if `dir` is a directory of the TierFS namespace.
  bool IsTierDir(const std::string& dir);
  // Every call RocksDB makes runs through here: refused once the store is
  // closed, then the body under Guard.
  template <typename P, typename F>
  rocksdb::IOStatus Run(const char* op, const P& path, F&& body) {
    if (store_->closed()) return store_->ClosedError(op, path);
    return Guard(op, path, std::forward<F>(body));
  }

  const std::shared_ptr<Store> store_;
};

// The store behind `fs`, looking through FileSystemWrappers (RocksDB and
// tools wrap file systems); nullptr if `fs` is not a TierFS.
Store* StoreOf(const rocksdb::FileSystem* fs);
// The same for a call of the public API named `op`: InvalidArgument if `fs`
// is not a TierFS, Store::ClosedError if its store is closed.
rocksdb::Status OpenStoreOf(const rocksdb::FileSystem* fs, const char* op, Store** store);

}  // namespace tierfs
