// YCSB's RocksDB binding (site.ycsb.db.rocksdb.RocksDBClient) in C++: each
// YCSB table is a column family, each record one value in the layout of
// record_codec.h, an update is get + merge fields + put. The database may
// live on any registered FileSystem (rocksdb.fs_uri, e.g. tierfs://...).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include "tools/ycsb/db.h"
#include "tools/ycsb/rocksdb_options.h"

namespace tierfs {
namespace ycsb {

class RocksDbBinding : public DB {
 public:
  // Opens (creating if missing) the database `config` describes, with its
  // existing column families and one for `table`. Errors name what failed:
  // the file system URI, the OPTIONS file, the open.
  static rocksdb::Status Open(const RocksDbConfig& config, const std::string& table,
                              std::unique_ptr<RocksDbBinding>* result);
  ~RocksDbBinding() override;

  // Per client thread, as YCSB's: the last Cleanup closes the database.
  DbStatus Init() override;
  DbStatus Cleanup() override;

  DbStatus Read(const std::string& table, const std::string& key,
                const std::vector<std::string>* fields, Fields* result) override;
  DbStatus Scan(const std::string& table, const std::string& start_key, int64_t count,
                const std::vector<std::string>* fields, std::vector<Fields>* result) override;
  DbStatus Update(const std::string& table, const std::string& key, const Fields& values) override;
  DbStatus Insert(const std::string& table, const std::string& key, const Fields& values) override;

  // Sets *bytes to the size of the persistent read cache's files (everything
  // under rocksdb.persistent_cache_path, as its file system lists it): how
  // full the cache is. NotSupported without a persistent cache.
  rocksdb::Status PersistentCacheBytes(uint64_t* bytes) const;

  // Closes the database (flushing nothing more than RocksDB's Close does,
  // unless rocksdb.wait_for_compaction: then it first flushes and waits for
  // the LSM to settle). Idempotent. REQUIRES: no operation running.
  rocksdb::Status Close();

 private:
  RocksDbBinding() = default;

  // The column family of `table`, or null (an error, logged).
  rocksdb::ColumnFamilyHandle* Family(const std::string& table);
  // Logs a failed RocksDB call (the first few) and returns kError.
  DbStatus Fail(const char* op, const std::string& key, const rocksdb::Status& s);
  // Flushes every column family and waits until no flush or compaction is
  // pending or running. TimedOut after an hour.
  rocksdb::Status WaitForCompaction();

  // Constant after Open; destroyed in reverse: the database before the Env
  // and FileSystem it runs on.
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;
  rocksdb::Env* files_env_ = nullptr;    // env_, or the host's without rocksdb.fs_uri
  std::string persistent_cache_path_;  // "" for none
  std::unique_ptr<rocksdb::DB> db_;
  std::map<std::string, rocksdb::ColumnFamilyHandle*> families_;
  bool wait_for_compaction_ = false;

  std::mutex clients_mu_;
  int clients_ = 0;  // guarded by clients_mu_: Init calls not yet matched by Cleanup
  std::atomic<int> errors_logged_{0};
};

}  // namespace ycsb
}  // namespace tierfs
