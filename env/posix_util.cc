#include "env/posix_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "env/namespace.h"

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

IOStatus CreateFileIfMissing(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("create " + path, errno);
  close(fd);
  return IOStatus::OK();
}

namespace {

// fsync of `fd`, closed either way; `what` names it in the error.
IOStatus FsyncAndClose(int fd, const std::string& what) {
  int r = fsync(fd);
  int err = errno;
  if (close(fd) != 0 && r == 0) {
    r = -1;
    err = errno;
  }
  return r == 0 ? IOStatus::OK() : PosixError("fsync " + what, err);
}

// Makes the entries of `path`'s directory durable.
IOStatus SyncParent(const std::string& path) {
  const std::string dir = Namespace::Parent(path);
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError("open directory " + dir, errno);
  return FsyncAndClose(fd, "directory " + dir);
}

}  // namespace

bool WriteAll(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += size_t(n);
  }
  return true;
}

IOStatus WriteFileDurably(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("create " + tmp, errno);
  if (!WriteAll(fd, bytes)) {
    const int err = errno;
    close(fd);
    return PosixError("write " + tmp, err);
  }
  IOStatus s = FsyncAndClose(fd, tmp);
  if (!s.ok()) return s;
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return PosixError("rename " + tmp + " to " + path, errno);
  }
  return SyncParent(path);
}

IOStatus RemoveFileDurably(const std::string& path) {
  if (unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return IOStatus::OK();
    return PosixError("unlink " + path, errno);
  }
  return SyncParent(path);
}

IOStatus SyncPath(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("open " + path, errno);
  int r = fdatasync(fd);
  int err = errno;
  close(fd);
  return r == 0 ? IOStatus::OK() : PosixError("fdatasync " + path, err);
}

pid_t LockHolder(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct flock fl;
  memset(&fl, 0, sizeof(fl));
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  pid_t pid = 0;
  if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK) pid = fl.l_pid;
  close(fd);
  return pid;
}

}  // namespace tierfs
