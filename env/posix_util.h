// The few operations on backing files that rocksdb::FileSystem does not
// offer: hole punching, allocation queries, truncation by path, and the
// store's saves at process exit. Used only off the I/O path (recovery,
// relocation, exit, tests, the admin tool). Nothing here calls into RocksDB
// beyond building an IOStatus, so it works during static destruction.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <rocksdb/io_status.h>

namespace tierfs {

// errno -> IOStatus in one place. `context` names the file and operation.
rocksdb::IOStatus PosixError(const std::string& context, int err);

// Deallocates [offset, offset+len) of `path`, keeping its size.
rocksdb::IOStatus PunchHole(const std::string& path, uint64_t offset, uint64_t len);

// True if any byte of [offset, offset+len) of `path` is allocated (not a hole).
bool HasData(const std::string& path, uint64_t offset, uint64_t len);

// The allocated (non-hole) ranges of `path`, as [begin, end) in order. Empty
// if the file is missing.
std::vector<std::pair<uint64_t, uint64_t>> DataExtents(const std::string& path);

// Bytes allocated to `path` on its device (st_blocks * 512); 0 if missing.
uint64_t AllocatedBytes(const std::string& path);

rocksdb::IOStatus TruncatePath(const std::string& path, uint64_t size);

// Creates `path` empty if it does not exist (an existing file is left as it
// is).
rocksdb::IOStatus CreateFileIfMissing(const std::string& path);

// Writes all of `bytes` to `fd` (retrying short writes and EINTR); false,
// with errno set, on an error.
bool WriteAll(int fd, const std::string& bytes);

// Replaces `path` by `bytes` durably with POSIX calls alone: writes and
// fsyncs <path>.tmp, renames it over `path`, fsyncs the directory. For the
// saves at process exit (env/exit_hook.h), when RocksDB's file system may
// call into statics already destroyed. The error names the step and file.
rocksdb::IOStatus WriteFileDurably(const std::string& path, const std::string& bytes);

// Removes `path` durably with POSIX calls alone: unlink, then fsync of its
// directory. A missing file is not an error.
rocksdb::IOStatus RemoveFileDurably(const std::string& path);

// fdatasync(2) of `path` through a descriptor of its own (Linux syncs the
// file's pages whichever descriptor wrote them).
rocksdb::IOStatus SyncPath(const std::string& path);

// The process holding a lock on `path` (fcntl, as RocksDB's LockFile takes
// it: the store's <tier 0>/meta/LOCK while a process has it open); 0 if
// none, if `path` cannot be opened, or if it is this process (whose own
// locks F_GETLK ignores).
pid_t LockHolder(const std::string& path);

}  // namespace tierfs
