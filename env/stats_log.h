// The statistics log: a store's live per-tier statistics written to a file
// every interval while it is open, and once more at close, in one of two
// formats:
//   - JSON lines, appended (URI key `stats_log:PATH`, interval `stats_log_ms`,
//     1000 by default): the history of a run, for benchmarks;
//   - Prometheus text (env/prometheus_text.h: the per-tier statistics, the
//     error counters and the migration engine's), the whole file replaced
//     atomically each time (written beside it as PATH.tmp, then renamed), as
//     node_exporter's textfile collector wants it (URI key `metrics_file:PATH`,
//     interval `metrics_ms`, 10000 by default): the state now, for monitoring.
//
// Why: `tierfs stats` opens the store read-only from another process and sees
// counters only up to the last clean close; a benchmark that wants the tier-0
// share of user reads, the fast tier's use or the hot-page copies (which are
// volatile) over time, while db_bench or an application runs, reads this log.
//
// Each JSON line (one object, '\n'-terminated):
//   {"unix_ns": wall clock of the snapshot, "elapsed_ms": since the log started,
//    "process_cpu_ns": user + system CPU time of the process so far (every
//    thread, the application's included; -1 if the clock failed),
//    "final": true on the line written at close (absent otherwise),
//    "tiers": [ one object per tier as `tierfs --json stats` prints it ]}
// Counters are the store's life (as GetTierStats): the STATS file's plus this
// open's. A line goes out in one write(2) as soon as it is made; a reader
// that reads while the store runs (or after a crash) may find the last line
// incomplete: a line counts once its '\n' is there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/io_status.h>

#include "tierfs/statistics.h"
#include "util/mutex.h"

namespace tierfs {

class StatsLog {
 public:
  enum class Format { kJsonLines, kPrometheus };
  // Returns the store's state now in the log's format: for kJsonLines the
  // line's "tiers" array (TierStatsToJson of GetTierStats), for kPrometheus
  // the whole exposition (StoreMetricsToPrometheus).
  using Snapshot = std::function<std::string()>;

  // Creates (truncates) `path`, writes the first snapshot and starts the
  // thread that writes one every `interval_ms` (> 0). `snapshot` is called
  // from that thread and from Stop(); it must stay valid until Stop() returns.
  static rocksdb::IOStatus Start(const std::string& path, uint64_t interval_ms, Format format,
                                 Snapshot snapshot, std::unique_ptr<StatsLog>* result);
  ~StatsLog();  // Stop()

  // Stops the thread promptly (it waits on a condition variable, never a
  // sleep), writes the final snapshot and closes the file. The first write error,
  // if any. Later calls return the same status.
  rocksdb::IOStatus Stop() EXCLUDES(mu_, file_mu_);

  const std::string& path() const { return path_; }

 private:
  StatsLog(std::string path, uint64_t interval_ms, Format format, Snapshot snapshot, int fd);
  void Run() EXCLUDES(mu_, file_mu_);
  // Writes one snapshot: appends a line, or replaces the metrics file.
  void WriteLocked(bool final) REQUIRES(file_mu_);
  void AppendLine(bool final) REQUIRES(file_mu_);
  void ReplaceText() REQUIRES(file_mu_);

  // Constant after construction.
  const std::string path_;
  const uint64_t interval_ms_;
  const Format format_;
  const Snapshot snapshot_;
  const int64_t start_ns_;  // steady clock at start: elapsed_ms counts from it

  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;

  Mutex file_mu_;  // serializes lines (the thread's, Stop's)
  int fd_ GUARDED_BY(file_mu_);  // the JSON lines' file, -1 for metrics
  bool closed_ GUARDED_BY(file_mu_) = false;
  std::string error_ GUARDED_BY(file_mu_);  // the first write error
  rocksdb::IOStatus stopped_ GUARDED_BY(file_mu_);  // what Stop returned

  std::thread thread_;  // last: starts once everything above is set
};

}  // namespace tierfs
