// The store's info log, <tier0>/meta/LOG: one line for every error the store
// cannot hand to a caller (a failed journal rotation, a STATS file only partly
// loaded, a torn journal tail dropped at recovery, a save at close that
// failed, an eviction or migration move that failed, space a punch or a delete
// did not return, a leftover file not removed) — each also counted
// (env/store_errors.h) for the admin tool — and a few lines of context (open,
// close, a refused policy state).
//
// Why a logger of our own on POSIX calls, and not rocksdb::Logger or glog:
// - A Store can be destroyed during static destruction (a FileSystem kept in
//   a static by the host program or by RocksDB's object registry), when
//   RocksDB's own statics may already be gone: nothing that can run then may
//   call into RocksDB, and a rocksdb::Logger writes through RocksDB's Env and
//   files. This class calls only open(2), write(2), fstat(2), rename(2),
//   close(2).
// - glog is process-global: its flags, its sinks and its copy of every line on
//   stderr belong to the host program (db_bench, ldb, an application), which
//   may configure it differently or not link it at all; and the library never
//   prints to stderr.
//
// Format: "YYYY/MM/DD-HH:MM:SS.uuuuuu <thread, hex> <message>\n", local time,
// as RocksDB's LOG, so the two read side by side. A message is cut at 4 KiB;
// a newline inside it becomes a space, so one event is one line.
//
// Size: when a line would take LOG past `max_bytes` (default 1 MiB), LOG is
// renamed to LOG.old (replacing the older one) and a new LOG begins: at most
// about twice `max_bytes` on tier 0.
//
// The name: meta/ holds SNAPSHOT-n, JOURNAL-n, STATS, AGENTS, LOCK and admin/
// (DESIGN.md, "Storage layout"). Journal::Load reads only SNAPSHOT- and
// JOURNAL- names, and a journal rotation deletes only older generations and
// *.tmp files, so LOG and LOG.old are left alone. (A database's own info LOG
// is a logical file inside TierFS, never in meta/.)
//
// Processes: only the read-write store (the one holding meta/LOCK) rotates. A
// read-only store (the admin tool beside a running database) appends its lines
// to the same file and never rotates; O_APPEND keeps each line whole. After a
// rotation by the writer, a reader's lines land in LOG.old until it reopens.
//
// Thread-safe: one mutex around the size check, a rotation and the write. It
// is a leaf: a line may be logged with any of the store's locks held.
// The file is opened at the first line, so a store that has nothing to say
// (a read-only one) creates nothing.
#pragma once

#include <cstdint>
#include <string>

#include "util/mutex.h"

namespace tierfs {

class InfoLog {
 public:
  static constexpr uint64_t kDefaultMaxBytes = 1 << 20;

  // A log at `path`; with `may_rotate`, the rotation to `path`.old above.
  explicit InfoLog(std::string path, bool may_rotate = true,
                   uint64_t max_bytes = kDefaultMaxBytes);
  ~InfoLog();

  InfoLog(const InfoLog&) = delete;
  InfoLog& operator=(const InfoLog&) = delete;

  // Appends one line. False if it could not be written (the file would not
  // open, or write(2) failed): the caller counts that, there being nowhere
  // else to say it.
  bool Log(const char* format, ...) __attribute__((format(printf, 2, 3))) EXCLUDES(mu_);

  const std::string& path() const { return path_; }

 private:
  bool OpenLocked() REQUIRES(mu_);
  void RotateLocked() REQUIRES(mu_);

  const std::string path_;
  const bool may_rotate_;
  const uint64_t max_bytes_;
  Mutex mu_;
  int fd_ GUARDED_BY(mu_) = -1;
  uint64_t size_ GUARDED_BY(mu_) = 0;  // bytes in the file fd_ writes to
};

}  // namespace tierfs
