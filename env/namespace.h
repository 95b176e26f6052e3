// The segment map: the logical namespace RocksDB sees (directories, names ->
// files) and, per file, the tier of each segment. Rebuilt at open by applying
// journal records; kept current by the store, which journals each change
// before making it.
//
// Locking: Namespace itself is not synchronized; the store guards it with its
// namespace mutex. A FileEntry's placement is guarded by the entry's own
// mutex, so reads look up tiers without touching the namespace lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <rocksdb/status.h>

#include "agents/file_kind.h"
#include "agents/policy.h"
#include "core/segment_table.h"
#include "env/journal_format.h"
#include "util/mutex.h"

namespace tierfs {

struct FileEntry {
  FileEntry(uint64_t i, FileKind k) : id(i), kind(k) {}

  const uint64_t id;
  const FileKind kind;
  // Logical size: the largest end offset written. Written by the one writer,
  // read by everyone.
  std::atomic<uint64_t> size{0};

  // Changes to the placement below are made holding mu exclusively.
  mutable SharedMutex mu;
  SegmentTable segments;                 // read without locks
  std::atomic<uint8_t> data_file_mask{0};  // tiers where the backing file exists
  uint8_t allowance_mask GUARDED_BY(mu) = 0;  // tiers charged the per-file block allowance

  // Newest journal record about this file; Sync makes the journal durable up
  // to here before syncing data.
  std::atomic<uint64_t> lsn{0};
  // Time of creation (or of recovery), seconds since the epoch: the
  // modification time of a file that holds no data yet.
  std::atomic<uint64_t> ctime{0};

  // What is known of the file beyond its kind (level, column family, access
  // hint, pin), for placement and migration.
  Hints hints GUARDED_BY(mu);
  // hints.level, readable without mu (trace capture, on every I/O).
  std::atomic<int8_t> level{-1};

  // Moves of this file's segments (migration, copies, relocation) run one at
  // a time, so two movers never write the same destination range.
  Mutex move_mu ACQUIRED_BEFORE(mu);
  // Segments with an extra copy. A writer drops them before writing: a copy
  // must never be staler than its home.
  std::atomic<uint32_t> copies{0};

  // Hot-page copies (env/hot_pages.h) are made only of a sealed file: an SST
  // or blob file no writer has open. A writer unseals it and bumps seal_gen
  // before its first write, so a copy begun before cannot be published.
  std::atomic<bool> sealed{false};
  std::atomic<uint64_t> seal_gen{0};

  // Names bound to this file; guarded by the namespace lock.
  int links = 0;

  // Lifetime: open handles, and whether the last name is gone. The data is
  // freed when both say so, so an open handle never loses it.
  int open_handles GUARDED_BY(mu) = 0;
  int writers GUARDED_BY(mu) = 0;
  // Writers ever opened: a move commits only if unchanged.
  uint64_t writer_opens GUARDED_BY(mu) = 0;
  bool unlinked GUARDED_BY(mu) = false;
  bool freed GUARDED_BY(mu) = false;

  uint8_t TierOf(uint64_t segment) const { return segments.tier(segment); }
};

class Namespace {
 public:
  // `max_segments_per_file`: records placing a segment at or beyond it are
  // refused (env/file_limits.h: MaxSegmentsPerFile of the store's segment
  // size). The default sets no limit.
  explicit Namespace(uint64_t max_segments_per_file = ~uint64_t(0));

  // Replays one journal record. Records that do not apply (a rename of a name
  // that does not exist) are errors: the journal only holds applied changes.
  rocksdb::Status Apply(const JournalRecord& record);

  // Binds `name` to the file `id`, creating the file if the id is new. Returns
  // the file that lost its last name because `name` was bound to it before
  // (nullptr if none), so the caller can free its data.
  std::shared_ptr<FileEntry> Bind(const std::string& name, uint64_t id, FileKind kind);
  // Removes `name`. Returns the file if that was its last name.
  std::shared_ptr<FileEntry> Unbind(const std::string& name);
  // Moves `src`'s binding to `dst`. Returns the file dst named, if it lost its
  // last name. REQUIRES: src exists.
  std::shared_ptr<FileEntry> Rename(const std::string& src, const std::string& dst);
  void Mkdir(const std::string& path);  // and its parents
  void Rmdir(const std::string& path);

  std::shared_ptr<FileEntry> Find(const std::string& name) const;
  std::shared_ptr<FileEntry> FindId(uint64_t id) const;
  bool IsDir(const std::string& path) const;
  bool HasChildren(const std::string& dir) const;
  // Names (not paths) directly under `dir`, files and directories.
  std::vector<std::string> Children(const std::string& dir) const;
  // Every name bound to a file under `dir` (recursively), with its entry.
  std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> FilesUnder(
      const std::string& dir) const;

  const std::unordered_map<uint64_t, std::shared_ptr<FileEntry>>& files() const { return by_id_; }
  uint64_t NewId() { return next_id_++; }
  // The sealed files (hot-page copies may be made of them) and their sizes,
  // by id: the files whose saved copies may come back (env/hot_pages.h).
  std::unordered_map<uint64_t, uint64_t> SealedFileSizes() const;

  // The records that rebuild this state (for a snapshot). REQUIRES: no
  // concurrent change to any entry's placement.
  std::vector<JournalRecord> SnapshotRecords() const;

  static std::string Parent(const std::string& path);

 private:
  std::map<std::string, std::shared_ptr<FileEntry>> names_;
  std::unordered_map<uint64_t, std::shared_ptr<FileEntry>> by_id_;
  std::set<std::string> dirs_;
  uint64_t next_id_ = 1;
  const uint64_t max_segments_;
};

}  // namespace tierfs
