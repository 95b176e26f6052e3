// The admin channel's access rules (admin_access.h).
#include "env/admin_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "env/store.h"
#include "env/tier_fs.h"

namespace tierfs {

using rocksdb::Status;

namespace {

// A request is a few hundred bytes; anything past this is not one.
constexpr off_t kMaxRequestBytes = 1 << 20;

std::string Errno(const std::string& what, int err) { return what + ": " + strerror(err); }

std::string Mode(mode_t mode) {
  char buf[8];
  snprintf(buf, sizeof(buf), "0%03o", unsigned(mode & 07777));
  return buf;
}

Status Refused(const std::string& why) { return Status::InvalidArgument("refused: " + why); }

// OK if `dir` is a directory owned by this process's user, with no access
// for anyone else (making it so if it is ours).
Status CheckPrivateDir(const std::string& dir, const char* whose_fix) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return Status::IOError(Errno("stat " + dir, errno));
  if (!S_ISDIR(st.st_mode)) {
    return Status::IOError("the admin channel " + dir + " is not a directory (a link, or a file)");
  }
  const uid_t self = geteuid();
  if (st.st_uid != self) {
    return Status::IOError("the admin channel " + dir + " belongs to uid " +
                           std::to_string(st.st_uid) + ", not to uid " + std::to_string(self) +
                           whose_fix);
  }
  if ((st.st_mode & 077) != 0 && chmod(dir.c_str(), 0700) != 0) {
    return Status::IOError(Errno("making the admin channel " + dir + " private (mode " +
                                     Mode(st.st_mode) + ")",
                                 errno));
  }
  return Status::OK();
}

}  // namespace

Status PrepareAdminDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::IOError(Errno("creating the admin channel " + dir, errno));
  }
  return CheckPrivateDir(dir, ", the user this process runs as: nothing is served from it");
}

Status ReadRequestFile(const std::string& path, std::string* text) {
  // O_NOFOLLOW: a link is refused, not followed; O_NONBLOCK: a FIFO does not
  // hang the server.
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path);
    if (err == ELOOP) return Refused(path + " is a symbolic link");
    return Status::IOError(Errno("open " + path, err));
  }
  struct stat st;
  Status s;
  const uid_t self = geteuid();
  if (fstat(fd, &st) != 0) {
    s = Status::IOError(Errno("stat " + path, errno));
  } else if (!S_ISREG(st.st_mode)) {
    s = Refused(path + " is not a regular file");
  } else if (st.st_uid != self) {
    s = Refused(path + " is owned by uid " + std::to_string(st.st_uid) +
                ", not by the store's owner (uid " + std::to_string(self) + ")");
  } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    s = Refused(path + " is writable by others than its owner (mode " + Mode(st.st_mode) + ")");
  } else if (st.st_size > kMaxRequestBytes) {
    s = Refused(path + " is " + std::to_string(st.st_size) + " bytes, more than a request");
  }
  if (s.ok()) {
    text->clear();
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0 && off_t(text->size()) <= kMaxRequestBytes) {
      text->append(buf, size_t(n));
    }
    if (n < 0) s = Status::IOError(Errno("read " + path, errno));
  }
  close(fd);
  return s;
}

Status CheckRequestPath(Store* store, const std::string& path) {
  if (path.empty()) return Status::OK();
  if (path[0] != '/') {
    return Refused("path '" + path + "' is not absolute (the store's paths are: /db/...)");
  }
  const std::string normal = TierFileSystem::Normalize(path);
  if (normal != path) {
    return Refused("path '" + path + "' is not normalized (it reads as '" + normal + "')");
  }
  bool is_dir = false;
  if (!store->Exists(path, &is_dir).ok()) {
    return Refused("path '" + path + "' is outside the store's namespace (no such file or "
                   "directory in the TierFS store at " + store->options().tiers[0].path + ")");
  }
  return Status::OK();
}

Status OpenAdminDirForClient(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::IOError(Errno("creating the admin channel " + dir, errno));
  }
  return CheckPrivateDir(dir, ": run the tool as its owner (the store refuses other users' "
                              "requests)");
}

Status WritePrivateFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError(Errno("create " + tmp, errno));
  Status s;
  if (fchmod(fd, 0600) != 0) s = Status::IOError(Errno("chmod " + tmp, errno));
  for (size_t done = 0; s.ok() && done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = Status::IOError(Errno("write " + tmp, errno));
    } else {
      done += size_t(n);
    }
  }
  if (close(fd) != 0 && s.ok()) s = Status::IOError(Errno("close " + tmp, errno));
  if (s.ok() && rename(tmp.c_str(), path.c_str()) != 0) {
    s = Status::IOError(Errno("rename " + tmp + " to " + path, errno));
  }
  if (!s.ok()) unlink(tmp.c_str());
  return s;
}

}  // namespace tierfs
