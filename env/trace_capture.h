// Trace capture: every I/O a store serves, recorded in the trace format
// (core/trace_format.h) for the simulator and for analysis. Started by the
// URI key `trace:PATH` or StartTrace(), stopped by StopTrace() or the store's
// close.
//
// Record() runs on the I/O path of every thread: it encodes into one buffer
// under a mutex (no system call) and writes the buffer out when it passes
// 1 MiB. A record's time is its I/O's start (completion less latency),
// clamped so times never decrease in the file: concurrent I/Os recorded a
// few microseconds out of order keep their order of recording. A crash loses
// the unwritten buffer; the reader stops at the last whole record.
#pragma once

#include <cstdio>
#include <string>

#include <rocksdb/io_status.h>

#include "core/trace_format.h"
#include "util/mutex.h"

namespace tierfs {

class TraceCapture {
 public:
  // Creates `path` (which must lie outside the store's tiers) and writes the
  // header.
  static rocksdb::IOStatus Start(const std::string& path, const TraceHeader& header,
                                 std::unique_ptr<TraceCapture>* result);
  ~TraceCapture();  // stops

  void Record(uint64_t file_id, FileKind kind, int level, uint64_t offset, uint64_t size,
              IoType type, TracePriority priority, int tier, uint64_t latency_ns) EXCLUDES(mu_);

  // An event (core/trace_format.h): what the store did besides I/O, or a
  // decision it made. Recorded with the current time.
  void RecordEvent(TraceEvent event, uint64_t file_id, FileKind kind, uint64_t offset,
                   uint64_t size, int tier, int level = -1) EXCLUDES(mu_);

  // Writes out what is buffered and closes the file; later records are
  // dropped. The first write error, if any.
  rocksdb::IOStatus Stop() EXCLUDES(mu_);

  const std::string& path() const { return path_; }
  uint64_t records() const EXCLUDES(mu_);

 private:
  TraceCapture(std::string path, FILE* file);
  void FlushLocked() REQUIRES(mu_);
  // Stamps *r with its time (from `start`, on DeviceModel's clock) and the
  // calling thread's stream, and encodes it.
  void Append(TraceRecord* r, int64_t start) EXCLUDES(mu_);

  const std::string path_;
  const int64_t start_ns_;  // DeviceModel::NowNanos() at start: times are relative to it
  mutable Mutex mu_;
  FILE* file_ GUARDED_BY(mu_);  // nullptr once stopped
  TraceEncoder encoder_ GUARDED_BY(mu_);
  std::string buf_ GUARDED_BY(mu_);
  uint64_t records_ GUARDED_BY(mu_) = 0;
  uint32_t threads_ GUARDED_BY(mu_) = 0;  // stream numbers handed out
  std::string error_ GUARDED_BY(mu_);     // the first write error
};

}  // namespace tierfs
