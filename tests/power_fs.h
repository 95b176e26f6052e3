// A FileSystem wrapper that simulates a power cut under TierFS, for the
// power-loss test (tests/power_loss_test.cc). It keeps apart what a real
// device would lose, the way RocksDB's FaultInjectionTestFS does:
//
// - File content, per inode (so renames and deletes do not lose track): the
//   size at the last Sync/Fsync of any handle of the file, and for writes
//   since then an undo record (the bytes and holes the write replaced,
//   rounded out to whole 4 KiB blocks so a restored hole deallocates again).
//   Close does not sync; RangeSync (sync_file_range) is not durable either.
// - Directory entries, per directory: the listing at its last Fsync through
//   NewDirectory (or at Baseline()). An entry not in it vanishes at the cut; a
//   durable entry deleted or renamed over since is kept aside (a hard link in
//   <root>/.power-stash) and put back.
//
// PowerCut() freezes the file system: every later call through the wrapper
// fails with an IOError (closing handles and UnlockFile still work, so the
// store and the database can be torn down). CutAfter(n) cuts at the n-th call
// through the wrapper, whichever thread makes it, so cuts land inside
// RocksDB's and TierFS's background work. After the store and the database
// are gone, DropUnsynced() turns the files under the root into what the
// device would hold: undo records applied newest first, each file truncated
// to its synced size, entries that were not durable removed, stashed entries
// restored. Then Baseline() takes what is on disk as durable for the next run.
//
// What the wrapper cannot see: TierFS's POSIX calls (env/posix_util.h) —
// creating empty backing files, punching holes, truncating by path, the page
// copy file and its saved state (whose entries it keeps no account of), the
// info log, the exit-time saves. Their effects are taken as
// having reached the device when made (a legal outcome: the kernel may write
// back at any time), and an entry they create counts as durable only once its
// directory is fsynced through the wrapper, which TierFS does for backing
// files (Store::SyncDataDirs). They keep running after a cut until the store
// is torn down; each of them either touches data recovery does not rely on
// (the punch of an uncommitted copy, a new empty backing file, LOG, PAGES)
// or happens only after a journal sync that fails once the power is cut.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include <rocksdb/file_system.h>

namespace tierfs {
namespace test {

// What one DropUnsynced() undid.
struct DropReport {
  uint64_t files_truncated = 0;   // files cut back to their synced size
  uint64_t bytes_truncated = 0;   // bytes those cuts removed
  uint64_t writes_undone = 0;     // undo records applied
  uint64_t entries_removed = 0;   // directory entries whose creation was not durable
  uint64_t entries_restored = 0;  // durable entries deleted or renamed over, put back
  uint64_t entries_lost = 0;      // durable entries gone by a call the wrapper did not see
  std::string details;            // one line per file or entry changed
};

class PowerFS : public rocksdb::FileSystemWrapper {
 public:
  // Models the files under `root` (a directory that exists); the base is the
  // default file system.
  explicit PowerFS(std::string root);
  ~PowerFS() override;
  const char* Name() const override { return "PowerFS"; }

  // Takes everything under the root as durable and the power as on; forgets
  // the counts of calls. REQUIRES: nothing is open through the wrapper.
  void Baseline();
  // Cuts the power at the `n`-th call through the wrapper from now (0: never).
  void CutAfter(uint64_t n);
  // Cuts the power now (waits for calls in flight through the wrapper).
  void PowerCut();
  bool cut() const { return cut_.load(); }
  // Calls through the wrapper since Baseline().
  uint64_t calls() const { return calls_.load(); }
  // Returns the files under the root to their durable state, then
  // Baseline(). REQUIRES: the store and database on top are destroyed.
  rocksdb::IOStatus DropUnsynced(DropReport* report);

  // ---- FileSystem
  rocksdb::IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                      rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                                      const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* r,
                                    rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r,
                                 rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus DeleteFile(const std::string& f, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& dst,
                               const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& dst,
                             const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus DeleteDir(const std::string& dir, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus Truncate(const std::string& f, size_t size, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus CreateDir(const std::string& dir, const rocksdb::IOOptions& o,
                              rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& dir, const rocksdb::IOOptions& o,
                                       rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus FileExists(const std::string& f, const rocksdb::IOOptions& o,
                               rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus GetChildren(const std::string& dir, const rocksdb::IOOptions& o,
                                std::vector<std::string>* r, rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus GetChildrenFileAttributes(const std::string& dir, const rocksdb::IOOptions& o,
                                              std::vector<rocksdb::FileAttributes>* r,
                                              rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus GetFileSize(const std::string& f, const rocksdb::IOOptions& o, uint64_t* size,
                                rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus GetFileModificationTime(const std::string& f, const rocksdb::IOOptions& o,
                                            uint64_t* t, rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus IsDirectory(const std::string& path, const rocksdb::IOOptions& o, bool* is_dir,
                                rocksdb::IODebugContext* d) override;
  rocksdb::IOStatus LockFile(const std::string& f, const rocksdb::IOOptions& o,
                             rocksdb::FileLock** l, rocksdb::IODebugContext* d) override;
  // UnlockFile works after a cut (the process's lock table must let go).

  // ---- for the wrapper's files (power_fs.cc)
  struct FileState;
  // Runs `op` unless the power is (or, at this call, goes) off.
  template <typename Op>
  rocksdb::IOStatus Gate(const char* what, const std::string& path, Op op);
  rocksdb::IOStatus CutError(const char* what, const std::string& path) const;

 private:
  std::shared_ptr<FileState> StateFor(const std::string& path, bool truncated);
  std::string DirOf(const std::string& path) const;
  bool DurableLocked(const std::string& path) const;
  rocksdb::IOStatus StashLocked(const std::string& path);
  rocksdb::IOStatus SyncDirectory(const std::string& dir, rocksdb::FSDirectory* target,
                                  const rocksdb::IOOptions& o, rocksdb::IODebugContext* d,
                                  const rocksdb::DirFsyncOptions* dir_options);
  void ListTree(const std::string& dir);
  friend class PowerDirectory;

  const std::string root_;
  const std::string stash_dir_;

  // The power switch: calls hold it shared, PowerCut exclusively.
  std::shared_mutex power_mu_;
  std::atomic<bool> cut_{false};
  std::atomic<uint64_t> calls_{0};
  std::atomic<uint64_t> cut_at_{0};

  std::mutex states_mu_;  // protects states_
  std::map<std::pair<dev_t, ino_t>, std::shared_ptr<FileState>> states_;

  std::mutex ns_mu_;  // protects durable_, stashed_, next_stash_
  std::map<std::string, std::set<std::string>> durable_;  // dir -> durable entries
  std::map<std::string, std::string> stashed_;            // durable path -> its stash
  uint64_t next_stash_ = 0;
};

}  // namespace test
}  // namespace tierfs
