// The few operations on backing files that rocksdb::FileSystem does not
// offer: hole punching, allocation queries, truncation by path. Used only
// off the I/O path (recovery, relocation, tests, the admin tool).
#pragma once

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

}  // namespace tierfs
