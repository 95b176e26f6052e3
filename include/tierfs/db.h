// Opening RocksDB on TierFS from C++ in one call. Part of the public API,
// installed as <tierfs/db.h>.
#pragma once

#include <memory>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>

namespace tierfs {

// A database and the Env it runs on, closed in the right order.
struct TierDB {
  std::shared_ptr<rocksdb::FileSystem> fs;
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<rocksdb::DB> db;
  ~TierDB() { db.reset(); }
};

// Opens (creating if options.create_if_missing) the database at `path` on the
// TierFS described by `uri`. `options.env` is replaced by TierFS's Env.
rocksdb::Status OpenDB(const std::string& uri, rocksdb::Options options,
                       const std::string& path, std::unique_ptr<TierDB>* result);

}  // namespace tierfs
