// Faults injected through a FileSystem wrapper under TierFS: a device that
// fills up before TierFS's account says so (the write spills to the next
// tier), read errors and sync errors (they surface to RocksDB, and nothing
// synced before them is lost).
#include <gtest/gtest.h>

#include <atomic>

#include "env/meta_reserve.h"
#include "env/tier_fs.h"
#include "tests/fault_fs.h"
#include "tests/test_util.h"
#include "tierfs/db.h"

namespace tierfs {
namespace {

using rocksdb::IOOptions;
using test::FaultFS;

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Value(int i) { return std::string(500, char('a' + i % 26)) + std::to_string(i); }

class FaultInjectionTest : public ::testing::Test {
 protected:
  FaultInjectionTest() : dir_("fault"), fault_(std::make_shared<FaultFS>()) {}

  void Open(const std::vector<std::string>& caps) {
    options_ = test::MakeOptions(dir_, caps, ";segment_size:64K");
    options_.base = fault_;
    Reopen();
  }
  void Reopen() {
    db_.reset();
    fs_.reset();
    rocksdb::Status s = NewTierFileSystem(options_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    env_ = NewTierEnv(fs_);
    rocksdb::Options o;
    o.create_if_missing = true;
    o.compression = rocksdb::kNoCompression;
    o.write_buffer_size = 128 << 10;
    o.env = env_.get();
    o.paranoid_checks = true;
    rocksdb::DB* db = nullptr;
    s = rocksdb::DB::Open(o, "/db", &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }
  void Close() {
    db_.reset();
    env_.reset();
    fs_.reset();
  }
  rocksdb::Status Load(int from, int to) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    for (int i = from; i < to; ++i) {
      rocksdb::Status s = db_->Put(wo, Key(i), Value(i));
      if (!s.ok()) return s;
    }
    return rocksdb::Status::OK();
  }
  void ExpectKeys(int from, int to) {
    for (int i = from; i < to; ++i) {
      std::string v;
      rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), Key(i), &v);
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i), v);
    }
  }
  std::string TierData(int t) { return dir_.path() + "/tier" + std::to_string(t) + "/data/"; }

  test::ScratchDir dir_;
  std::shared_ptr<FaultFS> fault_;
  Options options_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(FaultInjectionTest, FullDeviceOnTier0SpillsToTier1) {
  // TierFS believes tier 0 holds 64M; the device says no after 300K. (The
  // prefix before the store's threads start: they read it at every write.)
  fault_->faults.enospc_prefix = TierData(0);
  Open({"64M", "256M"});
  fault_->faults.enospc_after = 300 << 10;
  ASSERT_TRUE(Load(0, 3000).ok());  // ~1.5 MB: never fails while tier 1 has room
  EXPECT_GT(fault_->faults.injected.load(), 0);
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_GT(stats[1].Get(TierTicker::kSpillsIn), 0u);
  EXPECT_GT(stats[1].Get(TierTicker::kSegments), 0u);
  ExpectKeys(0, 3000);
  fault_->faults.enospc_after = -1;
  Reopen();
  ASSERT_TRUE(db_->VerifyChecksum().ok());
  ExpectKeys(0, 3000);
}

TEST_F(FaultInjectionTest, ReadErrorSurfacesAndLosesNothing) {
  Open({"256K", "256M"});
  ASSERT_TRUE(Load(0, 3000).ok());
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  Close();
  fault_->faults.eio_prefix = TierData(1);
  fault_->faults.read_eio = true;
  // Opening reads table files on tier 1 (or the first Get does): the error
  // must surface, not zeros and not OK.
  bool surfaced = false;
  {
    rocksdb::Status s = NewTierFileSystem(options_, &fs_);
    ASSERT_TRUE(s.ok());
    env_ = NewTierEnv(fs_);
    rocksdb::Options o;
    o.env = env_.get();
    rocksdb::DB* db = nullptr;
    s = rocksdb::DB::Open(o, "/db", &db);
    if (!s.ok()) {
      surfaced = true;
    } else {
      db_.reset(db);
      for (int i = 0; i < 3000 && !surfaced; i += 10) {
        std::string v;
        s = db_->Get(rocksdb::ReadOptions(), Key(i), &v);
        if (!s.ok()) surfaced = s.IsIOError() || s.IsCorruption();
        else ASSERT_EQ(Value(i), v);  // served from tier 0 or cache: must be right
      }
    }
  }
  EXPECT_TRUE(surfaced);
  EXPECT_GT(fault_->faults.injected.load(), 0);
  Close();
  fault_->faults.read_eio = false;
  Reopen();
  ASSERT_TRUE(db_->VerifyChecksum().ok());
  ExpectKeys(0, 3000);
}

TEST_F(FaultInjectionTest, SyncErrorSurfacesAndSyncedDataSurvives) {
  Open({"256K", "256M"});
  ASSERT_TRUE(Load(0, 1000).ok());
  fault_->faults.eio_prefix = dir_.path();  // every tier
  fault_->faults.sync_eio = true;
  rocksdb::Status s = Load(1000, 2000);
  EXPECT_FALSE(s.ok());
  EXPECT_GT(fault_->faults.injected.load(), 0);
  Close();
  fault_->faults.sync_eio = false;
  Reopen();
  ASSERT_TRUE(db_->VerifyChecksum().ok());
  ExpectKeys(0, 1000);
}

// A journal rotation that fails (here: its new journal cannot be created) must
// leave the old generation in charge: everything synced since stays
// findable after a reopen.
TEST_F(FaultInjectionTest, FailedJournalRotationLosesNothing) {
  Open({"256K", "256M"});
  fault_->faults.create_fails = "JOURNAL-000002";
  std::shared_ptr<rocksdb::FileSystem> fs = fs_;
  IOOptions io;
  for (int i = 0; i < 33000; ++i) {  // 66,000 records: past a rotation
    std::string d = "/dirs/" + std::to_string(i);
    ASSERT_TRUE(fs->CreateDir(d, io, nullptr).ok());
    ASSERT_TRUE(fs->DeleteDir(d, io, nullptr).ok());
  }
  ASSERT_TRUE(Load(0, 500).ok());
  EXPECT_GT(fault_->faults.injected.load(), 0);
  Close();
  fault_->faults.create_fails.clear();
  Reopen();
  ASSERT_TRUE(db_->VerifyChecksum().ok());
  ExpectKeys(0, 500);
}

TEST_F(FaultInjectionTest, CloseReturnsAFailedFinalSaveNamingIt) {
  Open({"256K", "256M"});
  ASSERT_TRUE(Load(0, 500).ok());
  db_.reset();  // the database first, then the store
  fault_->faults.create_fails = "/meta/STATS.tmp";
  rocksdb::Status s = tierfs::Close(fs_.get());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("TierFS close: saving " + dir_.path() +
                                                 "/tier0/meta/STATS"))
      << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("injected")) << s.ToString();
  EXPECT_EQ(s.ToString(), tierfs::Close(fs_.get()).ToString());  // the first close's status
  // The other steps ran: the journal is synced and the lock released, so the
  // store opens again in this process with every key.
  fault_->faults.create_fails.clear();
  Reopen();
  ExpectKeys(0, 500);
}

// Tier 0's device is 6 MiB though TierFS is told 64M, and it holds the
// journal: data must stop at the room kept for meta/, so no journal append
// meets ENOSPC and the writes spill to tier 1 (before the reserve, the data
// filled the device and the next journal append failed the Put).
TEST_F(FaultInjectionTest, SmallTier0DeviceKeepsRoomForTheJournal) {
  fault_->faults.devices[0].prefix = dir_.path() + "/tier0/";
  fault_->faults.devices[0].left = 6 << 20;
  Open({"64M", "256M"});
  rocksdb::Status s = Load(0, 10000);  // ~5 MB of values, and as much again in WAL
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_GT(stats[1].Get(TierTicker::kSpillsIn), 0u);
  EXPECT_GT(stats[1].Get(TierTicker::kSegments), 0u);
  // The device took data up to about the reserve, and the reserve is intact
  // but for what meta/ wrote into it.
  const int64_t left = fault_->faults.devices[0].left.load();
  EXPECT_GT(left, 0);
  EXPECT_LT(left, int64_t(MetaReserve::kMetaReserve));
  EXPECT_GT(stats[0].Get(TierTicker::kWriteBytes), 1u << 20);
  ExpectKeys(0, 10000);
  Close();
  Reopen();
  ASSERT_TRUE(db_->VerifyChecksum().ok());
  ExpectKeys(0, 10000);
  ASSERT_TRUE(Load(10000, 11000).ok());  // still room for the journal
  ExpectKeys(0, 11000);
}

// Two of three devices say ENOSPC before their accounts are full, the
// second one to a segment relocated off the first: each is marked full in
// turn and the write lands on the third (it used to fail after one
// relocation, and the second device was never marked).
TEST_F(FaultInjectionTest, EnospcOnTwoTiersOfThreeLandsOnTheThird) {
  fault_->faults.devices[0].prefix = TierData(0);
  fault_->faults.devices[0].left = 300 << 10;
  fault_->faults.devices[1].prefix = TierData(1);
  fault_->faults.devices[1].left = 0;  // full from the start
  Open({"64M", "64M", "256M"});
  rocksdb::Status s = Load(0, 3000);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_GT(stats[2].Get(TierTicker::kSegments), 0u);
  EXPECT_GT(stats[0].Get(TierTicker::kWriteBytes), 0u);
  EXPECT_EQ(0u, stats[1].Get(TierTicker::kSegments));
  ExpectKeys(0, 3000);
  Close();
  fault_->faults.devices[0].left = -1;
  fault_->faults.devices[1].left = -1;
  Reopen();
  ASSERT_TRUE(db_->VerifyChecksum().ok());
  ExpectKeys(0, 3000);
}

// Every device full: one error naming the tiers, and every write
// acknowledged before it reads back once the devices have room again.
TEST_F(FaultInjectionTest, EveryDeviceFullIsOneClearErrorAndLosesNothing) {
  for (int t = 0; t < 3; ++t) {
    fault_->faults.devices[t].prefix = TierData(t);
    fault_->faults.devices[t].left = 200 << 10;
  }
  Open({"64M", "64M", "256M"});
  rocksdb::WriteOptions wo;
  wo.sync = true;
  int acked = 0;
  rocksdb::Status s;
  for (; acked < 20000; ++acked) {
    s = db_->Put(wo, Key(acked), Value(acked));
    if (!s.ok()) break;
  }
  ASSERT_FALSE(s.ok()) << "600K of devices took 20,000 values";
  EXPECT_GT(acked, 300);  // ~600K fit, less RocksDB's own files
  const std::string msg = s.ToString();
  EXPECT_NE(std::string::npos, msg.find("No space")) << msg;
  for (int t = 0; t < 3; ++t) {
    EXPECT_NE(std::string::npos, msg.find("tier " + std::to_string(t))) << msg;
  }
  Close();
  for (int t = 0; t < 3; ++t) fault_->faults.devices[t].left = -1;
  Reopen();
  ExpectKeys(0, acked);
  ASSERT_TRUE(Load(acked, acked + 500).ok());  // room again: writes go on
}

}  // namespace
}  // namespace tierfs
