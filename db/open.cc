// OpenDB and TierDB (tierfs/db.h).
#include "tierfs/db.h"

#include "tierfs/file_system.h"

namespace tierfs {

rocksdb::Status OpenDB(const std::string& uri, rocksdb::Options options,
                       const std::string& path, std::unique_ptr<TierDB>* result) {
  auto tdb = std::make_unique<TierDB>();
  rocksdb::Status s = NewTierFileSystem(uri, &tdb->fs);
  if (!s.ok()) return s;
  tdb->env = NewTierEnv(tdb->fs);
  options.env = tdb->env.get();
  rocksdb::DB* db = nullptr;
  s = rocksdb::DB::Open(options, path, &db);
  if (!s.ok()) return s;
  tdb->db.reset(db);
  *result = std::move(tdb);
  return s;
}

rocksdb::Status TierDB::Close() {
  rocksdb::Status s;
  if (db) {
    s = db->Close();
    db.reset();
  }
  if (fs) {
    rocksdb::Status c = tierfs::Close(fs.get());
    if (s.ok()) s = c;
  }
  return s;
}

}  // namespace tierfs
