// The emulation-only mode (placement:rocksdb): TierFS follows RocksDB's
// placement instead of deciding it. Files created under a tier's root
// directory live on that tier, files written warm or cold on the slowest
// tier, the rest on tier 0; and RocksDB itself, with db_paths or with
// last_level_temperature, finds each table file on the tier it chose.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "tests/test_util.h"
#include "tierfs/tierfs.h"

namespace tierfs {
namespace {

constexpr uint64_t kKiB = 1024;

std::shared_ptr<rocksdb::FileSystem> OpenFs(const std::string& uri) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = NewTierFileSystem(uri, &fs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return fs;
}

// Writes `bytes` to a new file `path` with temperature `temperature`.
void WriteFile(rocksdb::FileSystem* fs, const std::string& path, size_t bytes,
               rocksdb::Temperature temperature = rocksdb::Temperature::kUnknown) {
  rocksdb::FileOptions fo;
  fo.temperature = temperature;
  std::unique_ptr<rocksdb::FSWritableFile> f;
  rocksdb::IOStatus s = fs->NewWritableFile(path, fo, &f, nullptr);
  ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
  s = f->Append(test::RandomBytes(bytes, 7), rocksdb::IOOptions(), nullptr);
  if (s.ok()) s = f->Close(rocksdb::IOOptions(), nullptr);
  ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
}

// Segments per tier of every file under `dir`, by logical path.
std::map<std::string, std::vector<uint64_t>> SegmentTiers(rocksdb::FileSystem* fs, const std::string& dir) {
  std::vector<FileInfo> files;
  rocksdb::Status s = ListFiles(fs, dir, &files);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::map<std::string, std::vector<uint64_t>> out;
  for (const FileInfo& f : files) out[f.name] = f.segments_per_tier;
  return out;
}

// The only tier holding segments of `segments_per_tier`; -1 if several, -2
// if none (an empty file).
int OnlyTier(const std::vector<uint64_t>& segments_per_tier) {
  int tier = -2;
  for (size_t t = 0; t < segments_per_tier.size(); ++t) {
    if (segments_per_tier[t] == 0) continue;
    if (tier >= 0) return -1;
    tier = int(t);
  }
  return tier;
}

// --- configuration -------------------------------------------------------------

TEST(EmulationConfigTest, PlacementRocksdbBringsItsPolicyAndTurnsMigrationOff) {
  test::ScratchDir dir("emu-cfg");
  Options o = test::MakeOptions(dir, {"16M", "1G"}, ";placement:rocksdb");
  EXPECT_EQ(Placement::kRocksDB, o.placement);
  EXPECT_EQ("rocksdb-temperature", o.policy);
  EXPECT_FALSE(o.migration.enabled);
  // The default mode is untouched.
  o = test::MakeOptions(dir, {"16M", "1G"});
  EXPECT_EQ(Placement::kTierFS, o.placement);
  EXPECT_EQ("fast-first", o.policy);
  EXPECT_TRUE(o.migration.enabled);
}

TEST(EmulationConfigTest, BadOrContradictoryInputIsNamed) {
  test::ScratchDir dir("emu-bad");
  struct Case {
    std::string options, named;
  } cases[] = {
      {";placement:fast", "'fast'"},
      {";placement:rocksdb;policy:lru", "'lru'"},
      {";policy:hintstor;placement:rocksdb", "'hintstor'"},
      {";placement:rocksdb;migration:on", "migration:on"},
  };
  for (const Case& c : cases) {
    Options o;
    rocksdb::Status s = ParseUri(test::MakeUri(dir, {"16M", "1G"}, c.options), &o);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.options << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(c.named), std::string::npos) << s.ToString();
  }
  // The struct, as C++ callers fill it, is checked too.
  Options o = test::MakeOptions(dir, {"16M", "1G"});
  o.placement = Placement::kRocksDB;
  rocksdb::Status s = ValidateOptions(o);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("rocksdb-temperature"), std::string::npos) << s.ToString();
  o.placement = static_cast<Placement>(7);  // a cast integer
  s = ValidateOptions(o);
  EXPECT_NE(s.ToString().find("bad placement 7"), std::string::npos) << s.ToString();
}

// --- placement by path and temperature -------------------------------------------

TEST(EmulationTest, FilesUnderATiersRootLandOnThatTier) {
  test::ScratchDir dir("emu-path");
  const std::string t0 = dir.path() + "/tier0", t1 = dir.path() + "/tier1";
  auto fs = OpenFs(test::MakeUri(dir, {"16M", "16M", "1G"}, ";segment_size:64K;placement:rocksdb"));
  ASSERT_NE(fs, nullptr);
  const std::string t2 = dir.path() + "/tier2";
  for (const std::string& d : {t0 + "/db", t1 + "/db", t2 + "/db", std::string("/elsewhere")}) {
    ASSERT_TRUE(fs->CreateDirIfMissing(d, rocksdb::IOOptions(), nullptr).ok()) << d;
  }
  // Table files, a WAL and metadata: all follow their directory. Written
  // warm, a file under tier 0's root stays there: the path is RocksDB's
  // decision (db_paths), the temperature only a hint about it.
  WriteFile(fs.get(), t0 + "/db/000010.sst", 200 * kKiB);
  WriteFile(fs.get(), t0 + "/db/000011.sst", 200 * kKiB, rocksdb::Temperature::kWarm);
  WriteFile(fs.get(), t1 + "/db/000012.sst", 200 * kKiB);
  WriteFile(fs.get(), t1 + "/db/000013.log", 100 * kKiB);
  WriteFile(fs.get(), t1 + "/db/MANIFEST-000005", 10 * kKiB);
  WriteFile(fs.get(), t2 + "/db/000014.sst", 200 * kKiB);
  // Outside every root: the policy and the metadata rule decide.
  WriteFile(fs.get(), "/elsewhere/000015.sst", 200 * kKiB);
  WriteFile(fs.get(), "/elsewhere/MANIFEST-000001", 10 * kKiB);
  // A path that only starts like a root is not under it.
  ASSERT_TRUE(fs->CreateDirIfMissing(t1 + "x", rocksdb::IOOptions(), nullptr).ok());
  WriteFile(fs.get(), t1 + "x/000016.sst", 200 * kKiB);

  auto placed = SegmentTiers(fs.get(), "/");
  const std::map<std::string, int> want = {
      {t0 + "/db/000010.sst", 0},     {t0 + "/db/000011.sst", 0},
      {t1 + "/db/000012.sst", 1},     {t1 + "/db/000013.log", 1},
      {t1 + "/db/MANIFEST-000005", 1}, {t2 + "/db/000014.sst", 2},
      {"/elsewhere/000015.sst", 0},   {"/elsewhere/MANIFEST-000001", 0},
      {t1 + "x/000016.sst", 0},
  };
  for (const auto& [path, tier] : want) {
    ASSERT_TRUE(placed.count(path)) << path;
    EXPECT_EQ(tier, OnlyTier(placed[path])) << path;
  }
}

TEST(EmulationTest, WarmAndColdFilesGoToTheSlowestTierTheRestToTier0) {
  test::ScratchDir dir("emu-temp");
  auto fs = OpenFs(test::MakeUri(dir, {"16M", "16M", "1G"}, ";segment_size:64K;placement:rocksdb"));
  ASSERT_NE(fs, nullptr);
  ASSERT_TRUE(fs->CreateDirIfMissing("/db", rocksdb::IOOptions(), nullptr).ok());
  const std::pair<rocksdb::Temperature, int> cases[] = {
      {rocksdb::Temperature::kUnknown, 0},
      {rocksdb::Temperature::kHot, 0},
      {rocksdb::Temperature::kWarm, 2},
      {rocksdb::Temperature::kCold, 2},
  };
  for (const auto& [temperature, tier] : cases) {
    const std::string path = "/db/0000" + std::to_string(20 + int(temperature)) + ".sst";
    WriteFile(fs.get(), path, 300 * kKiB, temperature);
    EXPECT_EQ(tier, OnlyTier(SegmentTiers(fs.get(), "/db")[path]))
        << path << " temperature " << int(temperature);
  }
}

TEST(EmulationTest, AFullTierSpillsDownAndNothingMoves) {
  test::ScratchDir dir("emu-spill");
  const std::string t0 = dir.path() + "/tier0";
  auto fs = OpenFs(test::MakeUri(dir, {"256K", "1G"}, ";segment_size:64K;placement:rocksdb"));
  ASSERT_NE(fs, nullptr);
  ASSERT_TRUE(fs->CreateDirIfMissing(t0 + "/db", rocksdb::IOOptions(), nullptr).ok());
  WriteFile(fs.get(), t0 + "/db/000030.sst", 1024 * kKiB);
  const std::vector<uint64_t> segs = SegmentTiers(fs.get(), t0 + "/db")[t0 + "/db/000030.sst"];
  ASSERT_EQ(2u, segs.size());
  EXPECT_GT(segs[0], 0u);
  EXPECT_GT(segs[1], 0u);  // what tier 0 could not hold
  EXPECT_EQ(16u, segs[0] + segs[1]);
  MigrationInfo info;
  ASSERT_TRUE(GetMigrationInfo(fs.get(), &info).ok());
  EXPECT_FALSE(info.enabled);
}

TEST(EmulationTest, APathStillChoosesTheTierAfterARestart) {
  test::ScratchDir dir("emu-reopen");
  const std::string t1 = dir.path() + "/tier1";
  const std::string uri = test::MakeUri(dir, {"16M", "1G"}, ";segment_size:64K;placement:rocksdb");
  const std::string path = t1 + "/db/LOG";
  {
    auto fs = OpenFs(uri);
    ASSERT_NE(fs, nullptr);
    ASSERT_TRUE(fs->CreateDirIfMissing(t1 + "/db", rocksdb::IOOptions(), nullptr).ok());
    WriteFile(fs.get(), path, 64 * kKiB);
  }
  auto fs = OpenFs(uri);
  ASSERT_NE(fs, nullptr);
  // Appended after the restart: the new segments follow the path too.
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs->ReopenWritableFile(path, rocksdb::FileOptions(), &f, nullptr).ok());
  ASSERT_TRUE(f->Append(test::RandomBytes(200 * kKiB, 3), rocksdb::IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Close(rocksdb::IOOptions(), nullptr).ok());
  const std::vector<uint64_t> segs = SegmentTiers(fs.get(), t1 + "/db")[path];
  EXPECT_EQ(1, OnlyTier(segs));
  EXPECT_EQ(5u, segs[1]);  // 264 KiB in 64 KiB segments
}

// --- RocksDB's own tiering on TierFS -----------------------------------------------

rocksdb::Options SmallLsm() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 128 * kKiB;
  o.target_file_size_base = 128 * kKiB;
  o.max_bytes_for_level_base = 256 * kKiB;
  o.level0_file_num_compaction_trigger = 2;
  o.num_levels = 4;
  return o;
}

void Fill(rocksdb::DB* db, int first, int count) {
  for (int i = first; i < first + count; ++i) {
    char key[16];
    snprintf(key, sizeof(key), "key%08d", (i * 7919) % 100000);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, test::RandomBytes(500, uint32_t(i))).ok());
  }
}

TEST(EmulationRocksDBTest, DbPathsPutEachTableFileOnTheTierOfItsPath) {
  test::ScratchDir dir("emu-dbpaths");
  const std::string t0 = dir.path() + "/tier0", t1 = dir.path() + "/tier1";
  const std::string uri = test::MakeUri(dir, {"64M", "1G"}, ";segment_size:64K;placement:rocksdb");
  rocksdb::Options o = SmallLsm();
  // L0 and L1 (256 KiB each, as RocksDB estimates them) fit the first path;
  // L2 and deeper go to the second.
  o.db_paths = {{t0 + "/db", 600 * kKiB}, {t1 + "/db", 1 << 30}};
  o.level0_file_num_compaction_trigger = 4;
  std::unique_ptr<TierDB> tdb;
  rocksdb::Status s = OpenDB(uri, o, t0 + "/db", &tdb);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Fill(tdb->db.get(), 0, 8000);
  ASSERT_TRUE(tdb->db->Flush(rocksdb::FlushOptions()).ok());
  // Waits for the compactions running and holds off new ones: the live
  // files stay as they are while they are checked.
  ASSERT_TRUE(tdb->db->PauseBackgroundWork().ok());

  std::vector<rocksdb::LiveFileMetaData> live;
  tdb->db->GetLiveFilesMetaData(&live);
  auto placed = SegmentTiers(tdb->fs.get(), "/");
  std::map<int, int> files_per_tier;
  for (const rocksdb::LiveFileMetaData& f : live) {
    const int tier = f.db_path == t0 + "/db" ? 0 : f.db_path == t1 + "/db" ? 1 : -1;
    ASSERT_GE(tier, 0) << f.db_path;
    const std::string path = f.db_path + f.name;
    ASSERT_TRUE(placed.count(path)) << path;
    EXPECT_EQ(tier, OnlyTier(placed[path])) << path << " (L" << f.level << ")";
    files_per_tier[tier]++;
  }
  EXPECT_GT(files_per_tier[0], 0);
  EXPECT_GT(files_per_tier[1], 0);
  // The WAL, MANIFEST etc. live in the main directory, on tier 0 (a WAL
  // just switched to may hold nothing yet).
  int metadata = 0;
  for (const auto& [path, segs] : placed) {
    if (path.compare(0, t0.size() + 4, t0 + "/db/") != 0 || path.find(".sst") != std::string::npos) {
      continue;
    }
    const int tier = OnlyTier(segs);
    EXPECT_TRUE(tier == 0 || tier == -2) << path << " on tier " << tier;
    metadata += tier == 0;
  }
  EXPECT_GT(metadata, 0);
}

TEST(EmulationRocksDBTest, LastLevelTemperatureSendsWarmFilesToTheSlowTier) {
  test::ScratchDir dir("emu-temperature");
  const std::string uri = test::MakeUri(dir, {"64M", "64M", "1G"}, ";segment_size:64K;placement:rocksdb");
  rocksdb::Options o = SmallLsm();
  o.num_levels = 3;
  o.last_level_temperature = rocksdb::Temperature::kWarm;
  o.level0_file_num_compaction_trigger = 4;
  std::unique_ptr<TierDB> tdb;
  rocksdb::Status s = OpenDB(uri, o, "/db", &tdb);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Compactions into L2, the last level, write warm files (only those: a
  // manual compaction of a database that has not reached L2 yet does not).
  Fill(tdb->db.get(), 0, 8000);
  ASSERT_TRUE(tdb->db->Flush(rocksdb::FlushOptions()).ok());
  // The compactions run in the background: wait until one has reached L2
  // (a slow build, as under ASan, may not have got there yet).
  std::string at_l2 = "0";
  for (int i = 0; i < 600 && at_l2 == "0"; ++i) {
    ASSERT_TRUE(tdb->db->GetProperty("rocksdb.num-files-at-level2", &at_l2));
    if (at_l2 == "0") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE("0", at_l2) << "no compaction reached L2 in 60 s";
  Fill(tdb->db.get(), 8000, 200);  // a fresh L0 file: not the last level, not warm
  ASSERT_TRUE(tdb->db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(tdb->db->PauseBackgroundWork().ok());

  std::vector<rocksdb::LiveFileMetaData> live;
  tdb->db->GetLiveFilesMetaData(&live);
  auto placed = SegmentTiers(tdb->fs.get(), "/db");
  int warm = 0, other = 0;
  for (const rocksdb::LiveFileMetaData& f : live) {
    const std::string path = f.db_path + f.name;
    ASSERT_TRUE(placed.count(path)) << path;
    const bool is_warm = f.temperature == rocksdb::Temperature::kWarm;
    EXPECT_EQ(is_warm ? 2 : 0, OnlyTier(placed[path]))
        << path << " (L" << f.level << ", temperature " << int(f.temperature) << ")";
    (is_warm ? warm : other)++;
  }
  EXPECT_GT(warm, 0);
  EXPECT_GT(other, 0);
}

}  // namespace
}  // namespace tierfs
