#include "env/info_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace tierfs {

namespace {
constexpr size_t kMaxMessage = 4096;
}  // namespace

InfoLog::InfoLog(std::string path, bool may_rotate, uint64_t max_bytes)
    : path_(std::move(path)), may_rotate_(may_rotate), max_bytes_(max_bytes) {}

InfoLog::~InfoLog() {
  if (fd_ >= 0) close(fd_);
}

bool InfoLog::OpenLocked() {
  if (fd_ >= 0) return true;
  fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return false;
  struct stat st;
  size_ = fstat(fd_, &st) == 0 ? uint64_t(st.st_size) : 0;
  return true;
}

void InfoLog::RotateLocked() {
  // If the rename fails, LOG simply grows on; the next line tries again.
  if (rename(path_.c_str(), (path_ + ".old").c_str()) != 0) return;
  close(fd_);
  fd_ = -1;
  OpenLocked();
}

bool InfoLog::Log(const char* format, ...) {
  char line[kMaxMessage + 64];
  struct timeval now;
  gettimeofday(&now, nullptr);
  struct tm t;
  localtime_r(&now.tv_sec, &t);
  int n = snprintf(line, sizeof(line), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %lx ",
                   t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                   long(now.tv_usec), static_cast<unsigned long>(pthread_self()));
  if (n < 0) return false;
  size_t head = size_t(n);
  va_list ap;
  va_start(ap, format);
  int m = vsnprintf(line + head, kMaxMessage, format, ap);
  va_end(ap);
  if (m < 0) return false;
  size_t len = head + std::min(size_t(m), kMaxMessage - 1);
  std::replace(line + head, line + len, '\n', ' ');
  line[len++] = '\n';

  MutexLock lock(&mu_);
  if (!OpenLocked()) return false;
  if (may_rotate_ && size_ > 0 && size_ + len > max_bytes_) RotateLocked();
  if (fd_ < 0) return false;  // the new LOG would not open
  for (size_t done = 0; done < len;) {
    ssize_t w = write(fd_, line + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += size_t(w);
    size_ += uint64_t(w);
  }
  return true;
}

}  // namespace tierfs
