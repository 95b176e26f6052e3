// Opens RocksDB on TierFS through the installed public header only.
//   consumer TIER0_DIR TIER1_DIR
#include <tierfs/tierfs.h>

#include <rocksdb/db.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::string uri = std::string("tierfs://") + argv[1] + ":1M," + argv[2] + ":64M";
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = tierfs::NewTierFileSystem(uri, &fs);
  if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  std::unique_ptr<rocksdb::Env> env = tierfs::NewTierEnv(fs);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.env = env.get();
  rocksdb::DB* db = nullptr;
  s = rocksdb::DB::Open(options, "/consumer-db", &db);
  if (s.ok()) s = db->Put(rocksdb::WriteOptions(), "k", "v");
  std::string v;
  if (s.ok()) s = db->Get(rocksdb::ReadOptions(), "k", &v);
  delete db;
  if (!s.ok() || v != "v") { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  std::vector<tierfs::TierStats> stats;
  s = tierfs::GetTierStats(fs.get(), &stats);
  printf("consumer ok: %zu tiers\n", stats.size());
  return s.ok() && stats.size() == 2 ? 0 : 1;
}
