#include "env/posix_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tierfs {

using rocksdb::IOStatus;

IOStatus PosixError(const std::string& context, int err) {
  std::string msg = context + ": " + strerror(err);
  switch (err) {
    case ENOENT: return IOStatus::PathNotFound(msg);
    case ENOSPC: return IOStatus::NoSpace(msg);
    default: return IOStatus::IOError(msg);
  }
}

IOStatus PunchHole(const std::string& path, uint64_t offset, uint64_t len) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("open " + path, errno);
  int r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset), off_t(len));
  int err = errno;
  close(fd);
  return r == 0 ? IOStatus::OK() : PosixError("punch hole in " + path, err);
}

bool HasData(const std::string& path, uint64_t offset, uint64_t len) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  off_t data = lseek(fd, off_t(offset), SEEK_DATA);
  close(fd);
  return data >= 0 && uint64_t(data) < offset + len;
}

std::vector<std::pair<uint64_t, uint64_t>> DataExtents(const std::string& path) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  off_t off = 0;
  while (true) {
    off_t data = lseek(fd, off, SEEK_DATA);
    if (data < 0) break;  // ENXIO: no data past off
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole <= data) break;
    out.emplace_back(uint64_t(data), uint64_t(hole));
    off = hole;
  }
  close(fd);
  return out;
}

uint64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return uint64_t(st.st_blocks) * 512;
}

IOStatus TruncatePath(const std::string& path, uint64_t size) {
  if (truncate(path.c_str(), off_t(size)) != 0) {
    return PosixError("truncate " + path, errno);
  }
  return IOStatus::OK();
}

}  // namespace tierfs
