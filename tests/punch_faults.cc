// The fallocate(2) that tests/punch_faults.h describes.
#include "tests/punch_faults.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <string>

namespace tierfs {
namespace test {
namespace {

std::mutex mu;
std::string failing;  // guarded by mu
std::atomic<int> failed{0};
std::atomic<int> seen{0};

// The path `fd` was opened by ("" if unknown).
std::string PathOf(int fd) {
  char link[64], path[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof(path) - 1);
  return n > 0 ? std::string(path, size_t(n)) : std::string();
}

bool Fails(int fd) {
  std::lock_guard<std::mutex> lock(mu);
  return !failing.empty() && PathOf(fd).find(failing) != std::string::npos;
}

}  // namespace

void FailPunchesOf(const std::string& substring) {
  std::lock_guard<std::mutex> lock(mu);
  failing = substring;
}

int PunchesFailed() { return failed.load(); }
int PunchesSeen() { return seen.load(); }

}  // namespace test
}  // namespace tierfs

// Found by the dynamic linker before glibc's (the executable comes first in
// the lookup order), for libtierfs's calls as for this binary's.
extern "C" int fallocate(int fd, int mode, off_t offset, off_t len) {
  using namespace tierfs::test;
  if (mode & FALLOC_FL_PUNCH_HOLE) {
    seen++;
    if (Fails(fd)) {
      failed++;
      errno = EOPNOTSUPP;
      return -1;
    }
  }
  return int(syscall(SYS_fallocate, fd, mode, offset, len));
}
