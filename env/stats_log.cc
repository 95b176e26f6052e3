// The statistics log (env/stats_log.h): a thread that writes the store's
// statistics every interval (a JSON line appended, or the Prometheus text
// replaced), and a last time at Stop.
#include "env/stats_log.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "env/posix_util.h"
#include "util/thread_name.h"

namespace tierfs {

using rocksdb::IOStatus;

namespace {

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t UnixNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// User and system CPU time of the whole process (every thread, the host's
// included): what a run costs the machine beside its wall time.
int64_t ProcessCpuNanos() {
  timespec t;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return -1;
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace

IOStatus StatsLog::Start(const std::string& path, uint64_t interval_ms, Format format,
                         Snapshot snapshot, std::unique_ptr<StatsLog>* result) {
  if (interval_ms == 0) return IOStatus::InvalidArgument("stats log '" + path + "': interval 0");
  int fd = -1;
  if (format == Format::kJsonLines) {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("TierFS: creating stats log " + path, errno);
  }
  std::unique_ptr<StatsLog> log(new StatsLog(path, interval_ms, format, std::move(snapshot), fd));
  {
    MutexLock lock(&log->file_mu_);
    log->WriteLocked(false);
    if (!log->error_.empty()) {
      IOStatus s = IOStatus::IOError(log->error_);
      log->stopped_ = s;
      return s;  // the destructor stops the thread and closes the file
    }
  }
  *result = std::move(log);
  return IOStatus::OK();
}

StatsLog::StatsLog(std::string path, uint64_t interval_ms, Format format, Snapshot snapshot, int fd)
    : path_(std::move(path)),
      interval_ms_(interval_ms),
      format_(format),
      snapshot_(std::move(snapshot)),
      start_ns_(SteadyNanos()),
      fd_(fd),
      thread_([this] { Run(); }) {
  NameThread(thread_, "tierfs-stats");
}

// The owner's own Stop (Store::StopStatsLogs) reported the status, or Start
// returned it; a second Stop returns it again.
StatsLog::~StatsLog() { Stop().PermitUncheckedError(); }

void StatsLog::Run() {
  MutexLock lock(&mu_);
  while (!cv_.WaitFor(&mu_, std::chrono::milliseconds(interval_ms_), [&] {
    mu_.AssertHeld();
    return stop_;
  })) {
    lock.Unlock();
    {
      MutexLock file_lock(&file_mu_);
      WriteLocked(false);
    }
    lock.Lock();
  }
}

IOStatus StatsLog::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  if (thread_.joinable()) thread_.join();
  MutexLock file_lock(&file_mu_);
  if (closed_) return stopped_;
  WriteLocked(true);
  closed_ = true;
  if (fd_ >= 0 && close(fd_) != 0 && error_.empty()) {
    error_ = "TierFS: closing stats log " + path_ + ": " + strerror(errno);
  }
  fd_ = -1;
  stopped_ = error_.empty() ? IOStatus::OK() : IOStatus::IOError(error_);
  return stopped_;
}

void StatsLog::WriteLocked(bool final) {
  if (closed_ || !error_.empty()) return;  // after a failure, no torn lines follow
  if (format_ == Format::kJsonLines) {
    AppendLine(final);
  } else {
    ReplaceText();
  }
}

void StatsLog::AppendLine(bool final) {
  const std::string line = "{\"unix_ns\": " + std::to_string(UnixNanos()) +
                           ", \"elapsed_ms\": " + std::to_string((SteadyNanos() - start_ns_) / 1000000) +
                           ", \"process_cpu_ns\": " + std::to_string(ProcessCpuNanos()) +
                           (final ? ", \"final\": true" : "") +
                           ", \"tiers\": " + snapshot_() + "}\n";
  if (!WriteAll(fd_, line)) error_ = "TierFS: writing stats log " + path_ + ": " + strerror(errno);
}

void StatsLog::ReplaceText() {
  // A scraper reads the old file or the new one, never half of one.
  IOStatus s = WriteFileDurably(path_, snapshot_());
  if (!s.ok()) error_ = "TierFS: writing metrics file " + path_ + ": " + s.ToString();
}

}  // namespace tierfs
