// HintStor's data operations (migrate, replicate, prefetch, drop-copy), pins,
// hints, eviction and the migration thread, through the public API: what each
// does to placement, data, space and statistics, and what survives a restart.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/utilities/options_util.h>

#include "env/admin_channel.h"
#include "env/registrar.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"
#include "tierfs/db.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::Slice;

using test::RandomBytes;

class MigrationTest : public ::testing::Test {
 protected:
  MigrationTest() : dir_("mig") {}

  // Two tiers, 16K segments; migration off unless `extra` turns it on, so
  // only the test moves data.
  void Open(const std::string& extra = ";policy:slow-only;migration:off",
            const std::vector<std::string>& caps = {"256K", "8M"}) {
    uri_ = test::MakeUri(dir_, caps, ";segment_size:16K" + extra);
    rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void Reopen() {
    fs_.reset();
    rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void Write(const std::string& path, const std::string& data) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(path, FileOptions(), &f, nullptr).ok());
    ASSERT_TRUE(f->Append(data, IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  }
  std::vector<SegmentReport> Segments(const std::string& file) {
    std::vector<SegmentReport> all, mine;
    EXPECT_TRUE(ListSegments(fs_.get(), "/", &all).ok());
    for (const auto& r : all) {
      if (r.file == file) mine.push_back(r);
    }
    return mine;
  }
  TierStats Stats(int tier) {
    std::vector<TierStats> stats;
    EXPECT_TRUE(GetTierStats(fs_.get(), &stats).ok());
    return stats[tier];
  }
  uint64_t Allocated(int tier) { return test::AllocatedOnTier(dir_.path() + "/tier" + std::to_string(tier)); }

  test::ScratchDir dir_;
  std::string uri_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
};

TEST_F(MigrationTest, MigrateMovesSegmentsAndFreesTheSource) {
  Open();
  const std::string data = RandomBytes(64 << 10, 1);
  Write("/db/000001.sst", data);
  for (const auto& r : Segments("/db/000001.sst")) ASSERT_EQ(1, r.tier);
  const uint64_t slow_before = Allocated(1);

  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000001.sst", 0, 1, 2, true).ok());
  auto segs = Segments("/db/000001.sst");
  ASSERT_EQ(4u, segs.size());
  EXPECT_EQ(1, segs[0].tier);
  EXPECT_EQ(0, segs[1].tier);
  EXPECT_EQ(0, segs[2].tier);
  EXPECT_EQ(1, segs[3].tier);
  EXPECT_EQ(1u, segs[1].migrations);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ(slow_before - (32 << 10), Allocated(1));  // the source copies were punched
  EXPECT_EQ(2u, Stats(0).Get(TierTicker::kMovesIn));
  EXPECT_EQ(uint64_t(32 << 10), Stats(0).Get(TierTicker::kMovedBytesIn));
  EXPECT_EQ(2u, Stats(1).Get(TierTicker::kMovesOut));

  const uint64_t used0 = Stats(0).used_bytes, used1 = Stats(1).used_bytes;
  Reopen();
  segs = Segments("/db/000001.sst");
  EXPECT_EQ(0, segs[1].tier);
  EXPECT_EQ(0, segs[2].tier);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ(used0, Stats(0).used_bytes);
  EXPECT_EQ(used1, Stats(1).used_bytes);
}

TEST_F(MigrationTest, ReplicaServesReadsSurvivesRestartAndDropsCleanly) {
  Open();
  const std::string data = RandomBytes(40 << 10, 2);
  Write("/db/000002.sst", data);
  const uint64_t fast_before = Allocated(0);
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kReplicate, "/db/000002.sst", 0, 0, ~0ull, true).ok());
  for (const auto& r : Segments("/db/000002.sst")) {
    EXPECT_EQ(1, r.tier);
    EXPECT_EQ(0, r.copy_tier);
  }
  EXPECT_EQ(3u, Stats(0).Get(TierTicker::kCopies));
  const uint64_t reads0 = Stats(0).Get(TierTicker::kReads);
  const uint64_t reads1 = Stats(1).Get(TierTicker::kReads);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000002.sst"));
  EXPECT_GT(Stats(0).Get(TierTicker::kReads), reads0);  // the copies served the reads
  EXPECT_EQ(reads1, Stats(1).Get(TierTicker::kReads));

  Reopen();  // a replica is durable
  for (const auto& r : Segments("/db/000002.sst")) EXPECT_EQ(0, r.copy_tier);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000002.sst"));

  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kDropCopy, "/db/000002.sst", 0, 0, ~0ull, true).ok());
  for (const auto& r : Segments("/db/000002.sst")) EXPECT_EQ(-1, r.copy_tier);
  EXPECT_EQ(0u, Stats(0).Get(TierTicker::kCopies));
  EXPECT_LE(Allocated(0), fast_before + 4096);  // at most the empty backing file's block
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000002.sst"));
  Reopen();
  for (const auto& r : Segments("/db/000002.sst")) EXPECT_EQ(-1, r.copy_tier);
}

TEST_F(MigrationTest, PrefetchedCopyIsForgottenAtRestart) {
  Open();
  const std::string data = RandomBytes(48 << 10, 3);
  Write("/db/000003.sst", data);
  const uint64_t fast_used = Stats(0).used_bytes;
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kPrefetch, "/db/000003.sst", 0, 0, ~0ull, true).ok());
  for (const auto& r : Segments("/db/000003.sst")) EXPECT_EQ(0, r.copy_tier);
  EXPECT_GT(Stats(0).used_bytes, fast_used);
  Reopen();
  for (const auto& r : Segments("/db/000003.sst")) EXPECT_EQ(-1, r.copy_tier);
  EXPECT_LT(Allocated(0), uint64_t(16 << 10));  // recovery punched the volatile copy
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000003.sst"));
}

TEST_F(MigrationTest, WritingAFileDropsItsCopiesFirst) {
  Open();
  Write("/db/000004.log", RandomBytes(20 << 10, 4));
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kReplicate, "/db/000004.log", 0, 0, ~0ull, true).ok());
  ASSERT_EQ(0, Segments("/db/000004.log")[0].copy_tier);
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->ReopenWritableFile("/db/000004.log", FileOptions(), &f, nullptr).ok());
  const std::string more = RandomBytes(10 << 10, 5);
  ASSERT_TRUE(f->Append(more, IOOptions(), nullptr).ok());
  for (const auto& r : Segments("/db/000004.log")) EXPECT_EQ(-1, r.copy_tier);
  // A move of a file open for writing is refused, not raced.
  rocksdb::Status busy =
      ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000004.log", 0, 0, ~0ull, true);
  EXPECT_TRUE(busy.IsBusy()) << busy.ToString();
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  std::string all = test::ReadAll(fs_.get(), "/db/000004.log");
  EXPECT_EQ(more, all.substr(20 << 10));
}

TEST_F(MigrationTest, AdminChannelReachesTheProcessThatHasTheStoreOpen) {
  // The tool's path to a running process: a request file answered by the
  // store's admin server (here in the same process), the move queued for the
  // migration thread.
  Open(";policy:slow-only;migration:on;migration_rate:64M");
  const std::string data = RandomBytes(32 << 10, 13);
  Write("/db/000009.sst", data);
  DataOpRequest req;
  req.op = DataOp::kMigrate;
  req.path = "/db/000009.sst";
  req.tier = 0;
  AdminResponse resp;
  const std::string meta = dir_.path() + "/tier0/meta";
  rocksdb::Status s = SendAdminRequest(meta, req, &resp, 10000);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(resp.ok) << resp.message;
  EXPECT_EQ("queued", resp.message);
  ASSERT_TRUE(WaitForManualMoves(fs_.get(), 10000).ok());
  for (const auto& r : Segments("/db/000009.sst")) EXPECT_EQ(0, r.tier);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000009.sst"));

  ASSERT_TRUE(SendAdminRequest(meta, QueueRequest(), &resp, 10000).ok());
  EXPECT_TRUE(resp.migration.enabled);
  EXPECT_EQ(2u, resp.migration.done);
  // The tool cannot encode an unknown op; a request file naming one is
  // answered with the decoder's error, naming it.
  ASSERT_TRUE(SendAdminRequestText(meta, R"({"v":2,"op":"warp"})", &resp, 10000).ok());
  EXPECT_FALSE(resp.ok);
  EXPECT_NE(std::string::npos, resp.message.find("unknown admin op 'warp'")) << resp.message;
}

TEST_F(MigrationTest, TheToolCanWaitForTheManualMovesItQueued) {
  // `tierfs move --wait`: four 64 KiB segments queued in a running process,
  // whose migration carries 128 KiB/s (half a second between moves).
  Open(";policy:slow-only;migration:on;segment_size:64K;migration_rate:128K", {"1M", "8M"});
  const std::string data = RandomBytes(256 << 10, 17);
  Write("/db/000011.sst", data);
  DataOpRequest req;
  req.path = "/db/000011.sst";
  req.tier = 0;
  AdminResponse resp;
  const std::string meta = dir_.path() + "/tier0/meta";
  ASSERT_TRUE(SendAdminRequest(meta, req, &resp, 10000).ok());
  ASSERT_TRUE(resp.ok) << resp.message;
  std::vector<ManualMovesProgress> seen;
  rocksdb::Status s = WaitForQueuedManualMoves(
      meta, 50, 10000, [&](const ManualMovesProgress& p) { seen.push_back(p); });
  ASSERT_TRUE(s.ok()) << s.ToString();
  // It returned when the moves were done, not before.
  for (const auto& r : Segments("/db/000011.sst")) EXPECT_EQ(0, r.tier);
  ASSERT_FALSE(seen.empty());
  EXPECT_GE(seen.front().first, 2u) << "the first look found the moves queued";
  EXPECT_EQ(0u, seen.back().left);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i].left, seen[i - 1].left);
  EXPECT_GE(seen.back().bytes_moved, 64u << 10);
  ASSERT_TRUE(SendAdminRequest(meta, QueueRequest(), &resp, 10000).ok());
  EXPECT_FALSE(resp.migration.running && resp.migration.running->manual);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000011.sst"));
}

TEST_F(MigrationTest, AdminChannelAnswersWithMigrationOff) {
  // The channel has its own thread: with migration off the tool still gets
  // answers, and a data operation runs at once, in that thread.
  Open(";policy:slow-only;migration:off");
  const std::string data = RandomBytes(32 << 10, 15);
  Write("/db/000010.sst", data);
  AdminResponse resp;
  const std::string meta = dir_.path() + "/tier0/meta";
  rocksdb::Status s = SendAdminRequest(meta, QueueRequest(), &resp, 10000);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(resp.ok) << resp.message;
  EXPECT_FALSE(resp.migration.enabled);
  DataOpRequest req;
  req.path = "/db/000010.sst";
  req.tier = 0;
  ASSERT_TRUE(SendAdminRequest(meta, req, &resp, 10000).ok());
  EXPECT_TRUE(resp.ok) << resp.message;
  EXPECT_EQ("done", resp.message);
  for (const auto& r : Segments("/db/000010.sst")) EXPECT_EQ(0, r.tier);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000010.sst"));
}

TEST_F(MigrationTest, SegmentStatisticsAndLevelsSurviveACleanRestart) {
  Open();
  NoteTableFileInOpenStores("/db/000020.sst", 3, "users");
  Write("/db/000020.sst", RandomBytes(32 << 10, 14));
  std::unique_ptr<rocksdb::FSRandomAccessFile> f;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000020.sst", FileOptions(), &f, nullptr).ok());
  std::string scratch(100, '\0');
  Slice got;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(f->Read(20 << 10, 100, IOOptions(), &got, &scratch[0], nullptr).ok());
  }
  f.reset();
  auto before = Segments("/db/000020.sst");
  ASSERT_EQ(5u, before[1].user_reads);
  Reopen();
  auto after = Segments("/db/000020.sst");
  EXPECT_EQ(5u, after[1].user_reads);
  EXPECT_EQ(0u, after[0].user_reads);
  EXPECT_GT(after[1].heat, 4.0);  // the request clock went on where it stopped: little decay
  std::vector<FileInfo> files;
  ASSERT_TRUE(ListFiles(fs_.get(), "/db", &files).ok());
  ASSERT_EQ(1u, files.size());
  EXPECT_EQ(3, files[0].level);
}

TEST_F(MigrationTest, BadOperationsAreNamed) {
  Open();
  Write("/db/000005.sst", RandomBytes(8 << 10, 6));
  // Names typed by people (the admin tool, the admin channel) are decoded
  // there (admin_protocol.h); an unknown one is named back.
  AdminRequest req;
  rocksdb::Status d =
      DecodeAdminRequest(R"({"v":2,"op":"teleport","path":"/db/000005.sst"})", &req);
  EXPECT_TRUE(d.IsInvalidArgument());
  EXPECT_NE(std::string::npos, d.ToString().find("'teleport'")) << d.ToString();
  d = DecodeAdminRequest(R"({"v":2,"op":"hint","path":"/db/000005.sst","hint":"lukewarm"})",
                         &req);
  EXPECT_NE(std::string::npos, d.ToString().find("unknown access hint 'lukewarm'")) << d.ToString();
  // The typed API cannot be given a bad name, only a bad value.
  rocksdb::Status s = ApplyDataOp(fs_.get(), DataOp(9), "/db/000005.sst", 0, 0, 0, true);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = SetAccessHint(fs_.get(), "/db/000005.sst", "", AccessHint(9));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000005.sst", 7, 0, 0, true);
  EXPECT_NE(std::string::npos, s.ToString().find("tier 7")) << s.ToString();
  s = ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/nope.sst", 0, 0, 0, true);
  EXPECT_NE(std::string::npos, s.ToString().find("/db/nope.sst")) << s.ToString();
  s = ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000005.sst", 0, 0, 0, false);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();  // migration is off: nothing would run it
}

TEST_F(MigrationTest, ConfigurationErrorsNameTheKey) {
  test::ScratchDir d("migcfg");
  Options o;
  for (const std::string bad : {";migration:maybe", ";policy:lru;lru.speed:3",
                                ";policy:mutant;mutant.min_age:soon",
                                ";policy:lru;hintstor.interval:5", ";migration_rate:0"}) {
    rocksdb::Status s = ParseUri(test::MakeUri(d, {"1M", "8M"}, bad), &o);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    std::string key = bad.substr(bad.rfind(';') + 1);
    key = key.substr(0, key.find(':'));
    EXPECT_NE(std::string::npos, s.ToString().find(key.substr(key.find('.') + 1)))
        << bad << ": " << s.ToString();
  }
  EXPECT_TRUE(ParseUri(test::MakeUri(d, {"1M", "8M"}, ";policy:mutant;mutant.min_age:5000;"
                                                      "migration_rate:8M;migration_queue:4"),
                       &o).ok());
  EXPECT_EQ("5000", o.policy_params["mutant.min_age"]);
  EXPECT_EQ(uint64_t(8 << 20), o.migration.rate);
  EXPECT_EQ(4u, o.migration.queue);
}

TEST_F(MigrationTest, PinRedirectsNewSegmentsAndMovesExistingOnes) {
  Open(";policy:fast-first;migration:on;migration_rate:64M");
  const std::string data = RandomBytes(32 << 10, 7);
  Write("/db/000006.sst", data);
  for (const auto& r : Segments("/db/000006.sst")) ASSERT_EQ(0, r.tier);
  ASSERT_TRUE(Pin(fs_.get(), "/db/000006.sst", "", 1).ok());
  ASSERT_TRUE(WaitForManualMoves(fs_.get(), 10000).ok());
  for (const auto& r : Segments("/db/000006.sst")) EXPECT_EQ(1, r.tier);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000006.sst"));

  // A column family pinned to the slow tier: files the listener attributes to
  // it are written there although fast-first would put them on tier 0.
  ASSERT_TRUE(Pin(fs_.get(), "", "cold_cf", 1).ok());
  NoteTableFileInOpenStores("/db/000007.sst", 2, "cold_cf");
  Write("/db/000007.sst", data);
  for (const auto& r : Segments("/db/000007.sst")) EXPECT_EQ(1, r.tier);
  std::vector<FileInfo> files;
  ASSERT_TRUE(ListFiles(fs_.get(), "/db", &files).ok());
  for (const auto& f : files) {
    if (f.name == "/db/000007.sst") {
      EXPECT_EQ(2, f.level);
      EXPECT_EQ(1, f.pinned_tier);
    }
  }
  MigrationInfo info;
  ASSERT_TRUE(GetMigrationInfo(fs_.get(), &info).ok());
  EXPECT_TRUE(info.enabled);
  EXPECT_EQ(2u, info.done);
  EXPECT_EQ(uint64_t(32 << 10), info.bytes);
}

TEST_F(MigrationTest, BackgroundMigrationPromotesTheHotSegment) {
  // hintstor: segment 0 of a file fast, the rest slow; its heat map then
  // promotes what is read.
  Open(";policy:hintstor;hintstor.interval:32;migration:on;migration_rate:64M");
  const std::string data = RandomBytes(64 << 10, 8);
  Write("/db/000008.sst", data);
  ASSERT_EQ(1, Segments("/db/000008.sst")[2].tier);
  std::unique_ptr<rocksdb::FSRandomAccessFile> f;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000008.sst", FileOptions(), &f, nullptr).ok());
  std::string scratch(4096, '\0');
  Slice got;
  bool promoted = false;
  for (int i = 0; i < 2000 && !promoted; ++i) {
    ASSERT_TRUE(f->Read((32 << 10) + 100, 1000, IOOptions(), &got, &scratch[0], nullptr).ok());
    ASSERT_EQ(data.substr((32 << 10) + 100, 1000), got.ToString());
    if (i % 50 == 49) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      promoted = Segments("/db/000008.sst")[2].tier == 0;
    }
  }
  EXPECT_TRUE(promoted);
  auto segs = Segments("/db/000008.sst");
  EXPECT_EQ(1, segs[3].tier);  // never read: stays slow
  EXPECT_GT(segs[2].user_reads, 0u);
}

TEST_F(MigrationTest, LruEvictsTheLeastRecentSegmentOnTheCriticalPath) {
  Open(";policy:lru;migration:off", {"64K", "8M"});
  Write("/db/000010.sst", RandomBytes(16 << 10, 9));  // older
  Write("/db/000011.sst", RandomBytes(16 << 10, 10));
  Write("/db/000012.sst", RandomBytes(16 << 10, 11));
  ASSERT_EQ(0, Segments("/db/000010.sst")[0].tier);
  {
    // A user read (random access; sequential reads are recovery's, not recency).
    std::unique_ptr<rocksdb::FSRandomAccessFile> f;
    ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000010.sst", FileOptions(), &f, nullptr).ok());
    std::string scratch(100, '\0');
    Slice got;
    ASSERT_TRUE(f->Read(0, 100, IOOptions(), &got, &scratch[0], nullptr).ok());
  }  // now 000011 is the least recent
  Write("/db/000013.sst", RandomBytes(16 << 10, 12));  // tier 0 is full: evict
  EXPECT_EQ(0, Segments("/db/000013.sst")[0].tier);
  EXPECT_EQ(1, Segments("/db/000011.sst")[0].tier);
  EXPECT_EQ(0, Segments("/db/000010.sst")[0].tier);
  EXPECT_EQ(1u, Stats(1).Get(TierTicker::kMovesIn));
}

TEST_F(MigrationTest, ListenerFromAnOptionsFileGivesTableFilesTheirLevels) {
  // The OPTIONS file lives on the host; TierFS reads files outside its own
  // directories from there, so db_bench --options_file works through --fs_uri.
  test::ScratchDir host("migopts");
  const std::string opts_path = host.path() + "/OPTIONS.ini";
  {
    FILE* f = fopen(opts_path.c_str(), "w");
    ASSERT_NE(nullptr, f);
    fputs("[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n"
          "[DBOptions]\n  create_if_missing=true\n  listeners={TierFSListener}\n"
          "[CFOptions \"default\"]\n  write_buffer_size=65536\n"
          "[TableOptions/BlockBasedTable \"default\"]\n",
          f);
    fclose(f);
  }
  Open(";policy:fast-first;migration:off", {"8M", "64M"});
  std::unique_ptr<rocksdb::Env> env = NewTierEnv(fs_);
  rocksdb::ConfigOptions config;
  config.env = env.get();
  rocksdb::DBOptions db_opts;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadOptionsFromFile(config, opts_path, &db_opts, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(1u, db_opts.listeners.size());
  EXPECT_STREQ("TierFSListener", db_opts.listeners[0]->Name());

  rocksdb::Options options(db_opts, cfs[0].options);
  options.env = env.get();
  rocksdb::DB* raw;
  s = rocksdb::DB::Open(options, "/ldb", &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "key" + std::to_string(i), std::string(100, 'v')).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  rocksdb::CompactRangeOptions cro;
  cro.change_level = true;
  cro.target_level = 2;
  ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
  std::vector<FileInfo> files;
  ASSERT_TRUE(ListFiles(fs_.get(), "/ldb", &files).ok());
  int ssts = 0;
  for (const auto& f : files) {
    if (f.kind != FileKind::kSst) continue;
    ++ssts;
    EXPECT_GE(f.level, 0) << f.name;  // the compaction's output level
  }
  EXPECT_GT(ssts, 0);
  db.reset();
}

}  // namespace
}  // namespace tierfs
