// The statistics log: a store's live per-tier statistics written as one JSON
// line every interval while it is open, and once more at close. Started by the
// URI key `stats_log:PATH` (interval `stats_log_ms`, 1000 by default).
//
// Why: `tierfs stats` opens the store read-only from another process and sees
// counters only up to the last clean close; a benchmark that wants the tier-0
// share of user reads, the fast tier's use or the hot-page copies (which are
// volatile) over time, while db_bench or an application runs, reads this log.
//
// Each line (JSON, one object, '\n'-terminated):
//   {"unix_ns": wall clock of the snapshot, "elapsed_ms": since the log started,
//    "final": true on the line written at close (absent otherwise),
//    "tiers": [ one object per tier as `tierfs --json stats` prints it ]}
// Counters are the store's life (as GetTierStats): the STATS file's plus this
// open's. A line goes out in one write(2) as soon as it is made; a reader
// that reads while the store runs (or after a crash) may find the last line
// incomplete: a line counts once its '\n' is there.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <rocksdb/io_status.h>

namespace tierfs {

class StatsLog {
 public:
  // Returns the store's statistics as the JSON array of `tierfs --json stats`
  // (a string, so that this header needs no JSON library).
  using Snapshot = std::function<std::string()>;

  // Creates (truncates) `path`, writes the first line and starts the thread
  // that writes one every `interval_ms` (> 0). `snapshot` is called from that
  // thread and from Stop(); it must stay valid until Stop() returns.
  static rocksdb::IOStatus Start(const std::string& path, uint64_t interval_ms, Snapshot snapshot,
                                 std::unique_ptr<StatsLog>* result);
  ~StatsLog();  // Stop()

  // Stops the thread promptly (it waits on a condition variable, never a
  // sleep), writes the final line and closes the file. The first write error,
  // if any. Later calls return the same status.
  rocksdb::IOStatus Stop();

  const std::string& path() const { return path_; }

 private:
  StatsLog(std::string path, uint64_t interval_ms, Snapshot snapshot, int fd);
  void Run();
  // Appends one line. REQUIRES: file_mu_ held.
  void WriteLineLocked(bool final);

  // Constant after construction.
  const std::string path_;
  const uint64_t interval_ms_;
  const Snapshot snapshot_;
  const int64_t start_ns_;  // steady clock at start: elapsed_ms counts from it

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_

  std::mutex file_mu_;    // serializes lines (the thread's, Stop's)
  int fd_;                // guarded by file_mu_; -1 once closed
  std::string error_;     // guarded by file_mu_: the first write error
  rocksdb::IOStatus stopped_;  // guarded by file_mu_: what Stop returned

  std::thread thread_;  // last: starts once everything above is set
};

}  // namespace tierfs
