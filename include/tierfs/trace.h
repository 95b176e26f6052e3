// Trace capture from C++: every I/O the store serves, recorded for the
// simulator (tierfs-sim) — the same capture the URI key `trace:PATH` starts at
// open. Part of the public API, installed as <tierfs/trace.h>. Both functions
// take a file system made by NewTierFileSystem (<tierfs/file_system.h>), or a
// FileSystemWrapper around one.
#pragma once

#include <cstdint>
#include <string>

#include <rocksdb/file_system.h>
#include <rocksdb/status.h>

namespace tierfs {

// Trace capture: records every I/O the store serves into `path` (outside
// the tiers) until StopTrace or the store closes; replay it with
// `tierfs-sim run --workload=PATH`, convert it with `tierfs-trace`. Busy if
// a capture runs already.
rocksdb::Status StartTrace(const rocksdb::FileSystem* fs, const std::string& path);
// Stops the capture; *records (if not null) is how many I/Os it recorded.
rocksdb::Status StopTrace(const rocksdb::FileSystem* fs, uint64_t* records);

}  // namespace tierfs
