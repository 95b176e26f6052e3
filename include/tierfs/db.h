// Opening RocksDB on TierFS from C++ in one call, and closing both in the
// right order. Part of the public API, installed as <tierfs/db.h>.
#pragma once

#include <memory>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>

namespace tierfs {

// A database and the Env and file system it runs on.
struct TierDB {
  std::shared_ptr<rocksdb::FileSystem> fs;
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<rocksdb::DB> db;

  // Closes the database (rocksdb::DB::Close), then the TierFS store
  // (tierfs::Close in <tierfs/file_system.h>: the final save of statistics
  // and policy state); the first failure, or OK. `db` is null afterwards.
  rocksdb::Status Close();
  // Closes the database; the store closes when its last file system goes,
  // without telling anyone how its final save went: call Close() to know.
  ~TierDB() { db.reset(); }
};

// Opens (creating if options.create_if_missing) the database at `path` on the
// TierFS described by `uri`. `options.env` is replaced by TierFS's Env.
rocksdb::Status OpenDB(const std::string& uri, rocksdb::Options options,
                       const std::string& path, std::unique_ptr<TierDB>* result);

}  // namespace tierfs
