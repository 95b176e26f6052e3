// Uses every public header of an installed TierFS, and nothing else of it:
// opens RocksDB on TierFS, steers it, reads its statistics, closes it and
// checks what the close saved.
//   consumer TIER0_DIR TIER1_DIR
#include <tierfs/db.h>
#include <tierfs/file_system.h>
#include <tierfs/hint_types.h>
#include <tierfs/hints.h>
#include <tierfs/migration.h>
#include <tierfs/statistics.h>
#include <tierfs/trace.h>

#include <rocksdb/db.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

bool Check(const rocksdb::Status& s, const char* what) {
  if (!s.ok()) fprintf(stderr, "consumer: %s: %s\n", what, s.ToString().c_str());
  return s.ok();
}

uint64_t BytesWritten(rocksdb::FileSystem* fs) {
  std::vector<tierfs::TierStats> stats;
  if (!Check(tierfs::GetTierStats(fs, &stats), "GetTierStats")) return 0;
  uint64_t sum = 0;
  for (const tierfs::TierStats& t : stats) sum += t.Get(tierfs::TierTicker::kWriteBytes);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const std::string uri = std::string("tierfs://") + argv[1] + ":1M," + argv[2] + ":64M";
  tierfs::Options parsed;  // file_system.h, migration.h
  if (!Check(tierfs::ParseUri(uri + ";migration_rate:32M", &parsed), "ParseUri")) return 1;
  if (parsed.migration.rate != (32u << 20) || parsed.tiers.size() != 2) return 1;

  rocksdb::Options options;  // db.h, hints.h
  options.create_if_missing = true;
  options.listeners.push_back(tierfs::NewTierFSListener());
  std::unique_ptr<tierfs::TierDB> tdb;
  if (!Check(tierfs::OpenDB(uri, options, "/consumer-db", &tdb), "OpenDB")) return 1;
  rocksdb::FileSystem* fs = tdb->fs.get();
  const std::string trace = std::string(argv[1]) + ".trace";  // outside the tiers
  if (!Check(tierfs::StartTrace(fs, trace), "StartTrace")) return 1;  // trace.h
  rocksdb::Status s = tdb->db->Put(rocksdb::WriteOptions(), "k", "v");
  if (s.ok()) s = tdb->db->Flush(rocksdb::FlushOptions());
  std::string v;
  if (s.ok()) s = tdb->db->Get(rocksdb::ReadOptions(), "k", &v);
  if (!Check(s, "RocksDB") || v != "v") return 1;
  uint64_t records = 0;
  if (!Check(tierfs::StopTrace(fs, &records), "StopTrace") || records == 0) return 1;

  // hint_types.h, hints.h, statistics.h
  if (!Check(tierfs::SetAccessHint(fs, "", "default", tierfs::AccessHint::kHot), "SetAccessHint")) {
    return 1;
  }
  std::vector<tierfs::FileInfo> files;
  if (!Check(tierfs::ListFiles(fs, "/consumer-db", &files), "ListFiles")) return 1;
  std::string sst;
  for (const tierfs::FileInfo& f : files) {
    if (f.kind == tierfs::FileKind::kSst) sst = f.name;
  }
  if (sst.empty()) return 1;
  if (!Check(tierfs::ApplyDataOp(fs, tierfs::DataOp::kMigrate, sst, 1, 0, ~0ull, /*wait=*/true),
             "ApplyDataOp")) {
    return 1;
  }
  std::vector<tierfs::SegmentReport> segments;
  if (!Check(tierfs::ListSegments(fs, "/consumer-db", &segments), "ListSegments")) return 1;
  for (const tierfs::SegmentReport& r : segments) {
    if (r.file == sst && r.tier != 1) return 1;
  }
  tierfs::MigrationInfo info;
  if (!Check(tierfs::GetMigrationInfo(fs, &info), "GetMigrationInfo") || !info.enabled) return 1;
  if (!Check(tierfs::WaitForManualMoves(fs, 1000), "WaitForManualMoves")) return 1;
  const uint64_t written = BytesWritten(fs);

  // The database, then the store's final save; then a reopen sees the saved
  // counters.
  if (!Check(tdb->Close(), "TierDB::Close")) return 1;
  std::shared_ptr<rocksdb::FileSystem> again;
  if (!Check(tierfs::NewTierFileSystem(uri, &again), "reopen")) return 1;
  const uint64_t reopened = BytesWritten(again.get());
  if (!Check(tierfs::Close(again.get()), "Close")) return 1;
  printf("consumer ok: %zu files, %llu bytes written, %llu after reopen, %llu traced\n",
         files.size(), (unsigned long long)written, (unsigned long long)reopened,
         (unsigned long long)records);
  return written > 0 && reopened >= written ? 0 : 1;
}
