#include "env/logger.h"
#include "util/mutex.h"

#include <sys/time.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <thread>

namespace tierfs {
namespace {

class FileLogger : public rocksdb::Logger {
 public:
  explicit FileLogger(std::unique_ptr<rocksdb::FSWritableFile> file)
      : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL), file_(std::move(file)) {}
  // A database's info LOG (not TierFS's own, env/info_log.h). As RocksDB's own
  // loggers, a line or a close that fails is dropped: there is nowhere left
  // to report a failure of the place failures are reported to.
  ~FileLogger() override { CloseFile().PermitUncheckedError(); }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    struct timeval now;
    gettimeofday(&now, nullptr);
    struct tm t;
    localtime_r(&now.tv_sec, &t);
    char line[8192];
    int n = snprintf(line, sizeof(line), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %zx ",
                     t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                     long(now.tv_usec), std::hash<std::thread::id>()(std::this_thread::get_id()));
    va_list copy;
    va_copy(copy, ap);
    int m = vsnprintf(line + n, sizeof(line) - size_t(n) - 1, format, copy);
    va_end(copy);
    size_t len = std::min(sizeof(line) - 2, size_t(n) + size_t(m < 0 ? 0 : m));
    if (len == 0 || line[len - 1] != '\n') line[len++] = '\n';
    MutexLock lock(&mu_);
    // As RocksDB's PosixLogger: a line that cannot be written is dropped (above).
    if (file_) file_->Append(rocksdb::Slice(line, len), rocksdb::IOOptions(), nullptr).PermitUncheckedError();
  }

  void Flush() override {}

 protected:
  rocksdb::Status CloseImpl() override { return CloseFile(); }

 private:
  rocksdb::Status CloseFile() {
    MutexLock lock(&mu_);
    if (!file_) return rocksdb::Status::OK();
    rocksdb::IOStatus s = file_->Close(rocksdb::IOOptions(), nullptr);
    file_.reset();
    return s;
  }

  Mutex mu_;
  std::unique_ptr<rocksdb::FSWritableFile> file_ GUARDED_BY(mu_);
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewFileLogger(std::unique_ptr<rocksdb::FSWritableFile> file) {
  return std::make_shared<FileLogger>(std::move(file));
}

}  // namespace tierfs
