// The info LOG of a database on TierFS: RocksDB's default NewLogger would
// write to the logical path on the local disk, outside TierFS.
#pragma once

#include <memory>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

namespace tierfs {

// A thread-safe Logger that writes "YYYY/MM/DD-HH:MM:SS.uuuuuu TID message"
// lines to `file`.
std::shared_ptr<rocksdb::Logger> NewFileLogger(std::unique_ptr<rocksdb::FSWritableFile> file);

}  // namespace tierfs
