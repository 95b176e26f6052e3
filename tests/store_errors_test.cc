// Errors no caller hears of are never swallowed: each one injected here — a
// failed journal rotation, a damaged STATS file, a torn journal tail, failed
// saves at close, an eviction move and a migration that fail, a hole punch
// or a delete that does not return space, an old journal generation not
// removed, a file dropped unclosed whose close fails — leaves its line in
// <tier0>/meta/LOG and bumps its counter (env/store_errors.h), the admin tool
// shows the counter, offline and through the admin channel, and the library
// prints nothing on stderr meanwhile.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "env/journal.h"
#include "env/journal_format.h"
#include "env/posix_util.h"
#include "env/store.h"
#include "env/tier_fs.h"
#include "tests/fault_fs.h"
#include "tests/punch_faults.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using nlohmann::json;
using rocksdb::FileOptions;
using rocksdb::IOOptions;

class StoreErrorsTest : public ::testing::Test {
 protected:
  StoreErrorsTest() : dir_("errors"), fault_(std::make_shared<test::FaultFS>()) {}

  // Two tiers, 64K segments, the fault-injecting base file system.
  void Open(const std::string& extra = "", const std::vector<std::string>& caps = {"8M", "64M"},
            bool read_only = false) {
    fs_.reset();
    uri_ = test::MakeUri(dir_, caps, ";segment_size:64K" + extra);
    Options options = test::MakeOptions(dir_, caps, ";segment_size:64K" + extra);
    options.base = fault_;
    options.read_only = read_only;
    rocksdb::Status s = NewTierFileSystem(options, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void Close() { fs_.reset(); }

  Store& store() { return *StoreOf(fs_.get()); }
  // The counter of `e` as the public API gives it (GetStoreErrors), with the
  // info log that names each error.
  uint64_t Count(StoreError e) {
    StoreErrorCounts counts{};
    std::string info_log;
    EXPECT_TRUE(GetStoreErrors(fs_.get(), &counts, &info_log).ok());
    EXPECT_EQ(Meta() + "/LOG", info_log);
    return counts[size_t(e)];
  }

  std::string Meta() const { return dir_.path() + "/tier0/meta"; }
  std::string Tier(int t) const { return dir_.path() + "/tier" + std::to_string(t) + "/"; }

  // The LOG lines that contain `needle`.
  std::vector<std::string> LogLines(const std::string& needle) {
    std::vector<std::string> out;
    for (const std::string& line : test::ReadLines(Meta() + "/LOG")) {
      if (line.find(needle) != std::string::npos) out.push_back(line);
    }
    return out;
  }
  // How many LOG lines report an error of kind `kind` with both `what` and
  // `status` in them.
  size_t Logged(StoreError kind, const std::string& what, const std::string& status) {
    const std::string head = std::string("ERROR ") + kStoreErrors[size_t(kind)].name + ": ";
    size_t n = 0;
    for (const std::string& line : LogLines(head)) {
      n += line.find(what) != std::string::npos && line.find(status) != std::string::npos;
    }
    return n;
  }
  std::string Log() { return "LOG:\n" + Dump(Meta() + "/LOG"); }
  // The backing file of `path` on tier `t`, and the file's id.
  std::string Backing(const std::string& path, int t) {
    return store().tier(t).DataPath(store().Find(path)->id);
  }
  std::string Id(const std::string& path) { return std::to_string(store().Find(path)->id); }
  static std::string Dump(const std::string& path) {
    std::string all;
    for (const std::string& line : test::ReadLines(path)) all += line + "\n";
    return all;
  }

  void Write(const std::string& path, size_t bytes, bool sync = true) {
    IOOptions io;
    ASSERT_TRUE(fs_->CreateDirIfMissing("/db", io, nullptr).ok());
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(path, FileOptions(), &f, nullptr).ok());
    ASSERT_TRUE(f->Append(test::RandomBytes(bytes, uint32_t(bytes)), io, nullptr).ok());
    if (sync) {
      ASSERT_TRUE(f->Sync(io, nullptr).ok());
    }
    ASSERT_TRUE(f->Close(io, nullptr).ok());
  }

  // `n` namespace changes, two journal records each.
  void Churn(int n) {
    IOOptions io;
    for (int i = 0; i < n; ++i) {
      const std::string d = "/churn/" + std::to_string(churned_++);
      ASSERT_TRUE(fs_->CreateDir(d, io, nullptr).ok());
      ASSERT_TRUE(fs_->DeleteDir(d, io, nullptr).ok());
    }
  }

  // Half a record at the end of the newest journal: an append a crash cut.
  void TearJournal() {
    std::string newest;
    for (uint64_t g = 1; g < 100; ++g) {
      if (access(Journal::JournalName(Meta(), g).c_str(), F_OK) == 0) newest = Journal::JournalName(Meta(), g);
    }
    ASSERT_FALSE(newest.empty());
    std::string record;
    EncodeRecord(JournalRecord::Mkdir("/never-acknowledged"), &record);
    std::ofstream(newest, std::ios::app | std::ios::binary) << record.substr(0, record.size() / 2);
    torn_journal_ = newest;
  }

  // STATS whose tiers load but whose file rows hold a string for a file id.
  void DamageStats() {
    std::ifstream in(Meta() + "/STATS");
    json doc = json::parse(in);
    doc["files"] = json::array({json::array({"not a file id", 1, "default"})});
    std::ofstream(Meta() + "/STATS") << doc.dump();
  }

  // The admin tool's answer to `args` on this store.
  json ToolJson(const std::string& args) {
    std::string out;
    EXPECT_EQ(0, test::RunTool("--fs_uri='" + uri_ + "' --json " + args, &out)) << out;
    return json::parse(out, nullptr, false);
  }
  std::string ToolText(const std::string& args) {
    std::string out;
    EXPECT_EQ(0, test::RunTool("--fs_uri='" + uri_ + "' " + args, &out)) << out;
    return out;
  }
  bool HaveTool() { return access(test::ToolPath().c_str(), X_OK) == 0; }

  test::ScratchDir dir_;
  std::shared_ptr<test::FaultFS> fault_;
  std::string uri_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  int churned_ = 0;
  std::string torn_journal_;
};

TEST_F(StoreErrorsTest, FailedJournalRotationIsLoggedCountedAndRetriedLater) {
  Open();
  fault_->faults.create_fails = "JOURNAL-000002";
  Churn(32800);  // 65,600 records: a rotation is due at 65,536, and it fails
  EXPECT_EQ(1u, Count(StoreError::kJournalRotation));
  EXPECT_EQ(1u, Logged(StoreError::kJournalRotation, "journal rotation to generation 2 after ",
               "generation 1 stays in use: IO error: TierFS cannot start journal generation 2")) << Log();
  Churn(1900);  // not every change tries again...
  EXPECT_EQ(1u, Count(StoreError::kJournalRotation));
  Churn(200);  // ...but every 4,096 records
  EXPECT_EQ(2u, Count(StoreError::kJournalRotation));
  fault_->faults.create_fails.clear();
  Churn(2100);
  EXPECT_EQ(2u, Count(StoreError::kJournalRotation));
  EXPECT_EQ(0, access(Journal::JournalName(Meta(), 2).c_str(), F_OK)) << "rotated at last";
  Close();
  if (!HaveTool()) GTEST_SKIP() << "no " << test::ToolPath();
  // Saved at the clean close; the tool opens the store itself.
  const json out = ToolJson("errors");
  EXPECT_EQ(2u, out["errors"]["journal_rotation"].get<uint64_t>()) << out.dump();
  EXPECT_TRUE(out["offline"].get<bool>());
}

TEST_F(StoreErrorsTest, DamagedStatsIsLoggedCountedAndShownByTheTool) {
  Open();
  Write("/db/000001.sst", 200 << 10);
  Close();
  DamageStats();
  if (HaveTool()) {
    // `tierfs stats` opens the store read-only: it meets the damage too.
    const std::string out = ToolText("stats");
    EXPECT_NE(std::string::npos, out.find("errors: stats_load 1 ")) << out;
    EXPECT_NE(std::string::npos, out.find(Meta() + "/LOG")) << out;
  }
  Open();
  EXPECT_EQ(1u, Count(StoreError::kStatsLoad));
  // One line from the tool's open, if it ran, one from this one.
  EXPECT_EQ(HaveTool() ? 2u : 1u,
            Logged(StoreError::kStatsLoad, "loading " + Meta() + "/STATS (counters go on from what was read)",
               "Corruption: " + Meta() + "/STATS is damaged (")) << Log();
  // The tiers came before the damage: their counters were loaded.
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_GT(stats[0].Get(TierTicker::kWriteBytes), 0u);

  // Not JSON at all: nothing loaded, not even the count saved before.
  Close();
  std::ofstream(Meta() + "/STATS") << "{\"tiers\": [";
  Open();
  EXPECT_EQ(1u, Count(StoreError::kStatsLoad));
  EXPECT_EQ(1u, Logged(StoreError::kStatsLoad, "loading " + Meta() + "/STATS",
               Meta() + "/STATS is not a TierFS statistics file: nothing loaded")) << Log();
}

// Found by tests/fuzz/stats_fuzzer: numbers a field cannot hold (a level of
// 1e20, a counter of 1e300) were converted with undefined behaviour. They are
// damage like any other: logged and counted, and the store opens.
TEST_F(StoreErrorsTest, NumbersOutOfRangeInStatsAreDamage) {
  Open();
  Write("/db/000001.sst", 200 << 10);
  Close();
  json doc;
  {
    std::ifstream in(Meta() + "/STATS");
    doc = json::parse(in);
  }
  doc["files"] = json::array({json::array({1, 1e20, "default"})});
  std::ofstream(Meta() + "/STATS") << doc.dump();
  Open();
  EXPECT_EQ(1u, Count(StoreError::kStatsLoad));
  EXPECT_EQ(1u, Logged(StoreError::kStatsLoad, "loading " + Meta() + "/STATS",
               "expected an integer from -128 to 127, got 1e+20")) << Log();
  Close();
  doc["files"] = json::array();
  doc["tiers"][0]["reads"] = 1e300;
  std::ofstream(Meta() + "/STATS") << doc.dump();
  Open();
  EXPECT_EQ(1u, Count(StoreError::kStatsLoad));
  EXPECT_EQ(1u, Logged(StoreError::kStatsLoad, "loading " + Meta() + "/STATS",
               "\"reads\": expected an integer from 0 to 18446744073709551615")) << Log();
}

TEST_F(StoreErrorsTest, TornJournalTailDroppedAtRecoveryIsLoggedAndCounted) {
  Open();
  Write("/db/000001.sst", 100 << 10);
  Close();
  TearJournal();
  // A read-only open drops nothing (the tail may be a live writer's append
  // in progress): nothing to report.
  Open("", {"8M", "64M"}, /*read_only=*/true);
  EXPECT_EQ(0u, Count(StoreError::kTornJournalTail));
  Open();
  EXPECT_EQ(1u, Count(StoreError::kTornJournalTail));
  EXPECT_EQ(1u, Logged(StoreError::kTornJournalTail,
               "recovery dropped an incomplete record at the end of " + torn_journal_,
               "Corruption: torn journal tail")) << Log();
  EXPECT_EQ(test::RandomBytes(100 << 10, 100 << 10), test::ReadAll(fs_.get(), "/db/000001.sst"));
  Close();
  if (!HaveTool()) GTEST_SKIP() << "no " << test::ToolPath();
  const std::string out = ToolText("stats");
  EXPECT_NE(std::string::npos, out.find("errors: torn_journal_tail 1 ")) << out;
}

// The last database lock given back saves the store (env/store_close.cc),
// through the base file system: a failure there is logged and counted, and
// the store stays open.
TEST_F(StoreErrorsTest, SaveWhenTheLastDatabaseClosesGoesThroughTheBaseFileSystem) {
  Open();
  Write("/db/000001.sst", 100 << 10);
  IOOptions io;
  rocksdb::FileLock* first = nullptr;
  rocksdb::FileLock* second = nullptr;
  ASSERT_TRUE(fs_->LockFile("/db/LOCK", io, &first, nullptr).ok());
  ASSERT_TRUE(fs_->CreateDirIfMissing("/db2", io, nullptr).ok());
  ASSERT_TRUE(fs_->LockFile("/db2/LOCK", io, &second, nullptr).ok());
  fault_->faults.rename_fails = "/meta/STATS.tmp";
  ASSERT_TRUE(fs_->UnlockFile(first, io, nullptr).ok());
  EXPECT_TRUE(LogLines("last database closed").empty()) << Log();  // one still open
  ASSERT_TRUE(fs_->UnlockFile(second, io, nullptr).ok());
  fault_->faults.rename_fails.clear();
  EXPECT_EQ(1u, Logged(StoreError::kFinalSave, "saving " + Meta() + "/STATS at last database closed",
               "injected: cannot rename " + Meta() + "/STATS.tmp")) << Log();
  EXPECT_EQ(1u, LogLines("last database closed: errors over the store's life: final_save 1").size())
      << Log();
  EXPECT_EQ(1u, Count(StoreError::kFinalSave));
  // Still open: the file reads back, and Close saves.
  EXPECT_EQ(test::RandomBytes(100 << 10, 100 << 10), test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_TRUE(tierfs::Close(fs_.get()).ok());
  EXPECT_EQ(1u, LogLines("close: errors over the store's life: final_save 1").size()) << Log();
}

TEST_F(StoreErrorsTest, FailedSavesAtCloseAreLoggedAndCountedInTheStatsSavedLast) {
  Open();
  Write("/db/000001.sst", 100 << 10);
  ASSERT_TRUE(StartTrace(fs_.get(), "/dev/full").ok());  // its last write fails: ENOSPC
  fault_->faults.writable_sync_fails = "/meta/JOURNAL-";
  fault_->faults.writable_sync_eio = true;
  ASSERT_TRUE(fs_->CreateDir("/db/unsynced", IOOptions(), nullptr).ok());
  Close();
  fault_->faults.writable_sync_eio = false;
  EXPECT_EQ(1u, Logged(StoreError::kFinalSave, "writing trace /dev/full at close",
               "cannot close trace file '/dev/full'")) << Log();
  EXPECT_EQ(1u, Logged(StoreError::kFinalSave, "syncing the journal at close",
               "injected EIO on sync: " + Meta() + "/JOURNAL-")) << Log();
  EXPECT_EQ(1u, LogLines("close: errors over the store's life: final_save 2").size());

  // STATS is saved after the others, so it carries their count.
  Open();
  EXPECT_EQ(2u, Count(StoreError::kFinalSave));
  EXPECT_TRUE(fs_->FileExists("/db/unsynced", IOOptions(), nullptr).ok());
  // A STATS that cannot be saved is in the LOG only: the count it would
  // have carried is lost with it.
  fault_->faults.rename_fails = "/meta/STATS.tmp";
  Close();
  fault_->faults.rename_fails.clear();
  EXPECT_EQ(1u, Logged(StoreError::kFinalSave, "saving " + Meta() + "/STATS at close",
               "injected: cannot rename " + Meta() + "/STATS.tmp")) << Log();
  Open();
  EXPECT_EQ(2u, Count(StoreError::kFinalSave));
  Close();
  if (!HaveTool()) GTEST_SKIP() << "no " << test::ToolPath();
  const json out = ToolJson("errors");
  EXPECT_EQ(2u, out["errors"]["final_save"].get<uint64_t>()) << out.dump();
}

TEST_F(StoreErrorsTest, FailedEvictionMoveIsLoggedAndCountedAndTheWriteGoesOn) {
  // lru: new data to tier 0; a full tier 0 evicts its least recently used
  // segments to tier 1 on the writer's path.
  Open(";policy:lru;migration:off", {"256K", "64M"});
  Write("/db/000001.sst", 192 << 10);
  fault_->faults.eio_prefix = Tier(1);
  fault_->faults.sync_eio = true;  // the eviction's copy cannot be made durable
  Write("/db/000002.sst", 128 << 10, /*sync=*/false);
  fault_->faults.sync_eio = false;
  const std::string id = std::to_string(store().Find("/db/000001.sst")->id);
  EXPECT_GE(Count(StoreError::kEvictionMove), 1u);
  EXPECT_EQ(Count(StoreError::kEvictionMove),
            LogLines("ERROR eviction_move: eviction migrate " + id + ":").size());
  // Each placement that wants room tries the same least recently used
  // victims again.
  EXPECT_LE(1u, Logged(StoreError::kEvictionMove, "eviction migrate " + id + ":0 -> tier 1",
               "IO error: injected EIO on sync: " + Tier(1) + "data/")) << Log();
  // Neither file lost a byte; the segment that found no room spilled.
  EXPECT_EQ(test::RandomBytes(192 << 10, 192 << 10), test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ(test::RandomBytes(128 << 10, 128 << 10), test::ReadAll(fs_.get(), "/db/000002.sst"));
  const uint64_t failed = Count(StoreError::kEvictionMove);
  Close();
  if (!HaveTool()) GTEST_SKIP() << "no " << test::ToolPath();
  const json out = ToolJson("errors");
  EXPECT_EQ(failed, out["errors"]["eviction_move"].get<uint64_t>()) << out.dump();
}

TEST_F(StoreErrorsTest, GivenUpMigrationIsLoggedCountedAndShownThroughTheAdminChannel) {
  Open(";migration:on");
  Write("/db/000001.sst", 128 << 10);  // two segments, on tier 0
  fault_->faults.eio_prefix = Tier(1);
  fault_->faults.sync_eio = true;
  ASSERT_TRUE(
      ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000001.sst", 1, 0, ~0ull, false).ok());
  ASSERT_TRUE(WaitForManualMoves(fs_.get(), 10000).ok());
  fault_->faults.sync_eio = false;
  MigrationInfo info;
  ASSERT_TRUE(GetMigrationInfo(fs_.get(), &info).ok());
  EXPECT_EQ(2u, info.given_up);
  EXPECT_EQ(2u, Count(StoreError::kMigrationGivenUp));
  const std::string id = std::to_string(store().Find("/db/000001.sst")->id);
  for (const char* seg : {":0", ":1"}) {
    EXPECT_EQ(1u, Logged(StoreError::kMigrationGivenUp, "manual migrate " + id + seg + " -> tier 1 given up",
                 "IO error: injected EIO on sync")) << Log();
  }
  EXPECT_EQ(test::RandomBytes(128 << 10, 128 << 10), test::ReadAll(fs_.get(), "/db/000001.sst"));
  if (!HaveTool()) GTEST_SKIP() << "no " << test::ToolPath();
  // This process has the store open: the tool asks it through the admin
  // channel, served by the store's admin thread.
  const json out = ToolJson("errors");
  EXPECT_FALSE(out["offline"].get<bool>()) << out.dump();
  EXPECT_EQ(2u, out["errors"]["migration_given_up"].get<uint64_t>()) << out.dump();
  EXPECT_EQ(0u, out["errors"]["stats_load"].get<uint64_t>()) << out.dump();
  const std::string text = ToolText("errors");
  EXPECT_TRUE(std::regex_search(text, std::regex("migration_given_up +2 "))) << text;
  EXPECT_NE(std::string::npos, text.find(Meta() + "/LOG")) << text;
  // Every steering answer carries the counters.
  EXPECT_EQ(2u, ToolJson("queue")["errors"]["migration_given_up"].get<uint64_t>());
}

// Returning the space of data no longer needed is best effort: a punch that
// fails leaves the move standing and the space allocated until the next open
// punches it, and is logged and counted.
TEST_F(StoreErrorsTest, FailedHolePunchIsLoggedCountedAndTheNextOpenFreesTheSpace) {
  Open(";migration:off");
  Write("/db/000001.sst", 64 << 10);  // one segment, on tier 0
  const std::string id = Id("/db/000001.sst");
  const std::string old_home = Backing("/db/000001.sst", 0);
  ASSERT_GE(AllocatedBytes(old_home), uint64_t(64 << 10));
  test::FailPunchesOf(old_home);
  const int seen = test::PunchesSeen();
  const rocksdb::Status s =
      ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000001.sst", 1, 0, ~0ull, /*wait=*/true);
  test::FailPunchesOf("");
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(seen + 1, test::PunchesSeen()) << "the migration punched once";
  EXPECT_EQ(1, test::PunchesFailed());
  EXPECT_EQ(1u, Count(StoreError::kSpaceNotFreed));
  EXPECT_EQ(1u, Logged(StoreError::kSpaceNotFreed,
                       "freeing [0, +65536) of file " + id + " on tier 0, migrate " + id +
                           ":0 -> tier 1: the old home (allocated until the next open)",
                       "IO error: punch hole in " + old_home + ": Operation not supported"))
      << Log();
  // The move stands: the data reads back from tier 1; tier 0 still holds it.
  EXPECT_EQ(1, store().Find("/db/000001.sst")->segments.tier(0));
  EXPECT_EQ(test::RandomBytes(64 << 10, 64 << 10), test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_GE(AllocatedBytes(old_home), uint64_t(64 << 10));
  Close();
  Open(";migration:off");  // recovery punches data neither home nor copy
  EXPECT_EQ(0u, AllocatedBytes(old_home));
  EXPECT_EQ(1u, Count(StoreError::kSpaceNotFreed)) << "saved in STATS, not counted again";
  EXPECT_EQ(test::RandomBytes(64 << 10, 64 << 10), test::ReadAll(fs_.get(), "/db/000001.sst"));
  Close();
  if (!HaveTool()) GTEST_SKIP() << "no " << test::ToolPath();
  const json out = ToolJson("errors");
  EXPECT_EQ(1u, out["errors"]["space_not_freed"].get<uint64_t>()) << out.dump();
}

// A deleted file's backing files and a rotation's older generation are
// removed best effort: what stays is logged and counted, and removed later
// (at the next open, at the next rotation).
TEST_F(StoreErrorsTest, FilesNotRemovedAreLoggedCountedAndRemovedLater) {
  Open();
  Write("/db/000001.sst", 64 << 10);
  const std::string id = Id("/db/000001.sst");
  const std::string backing = Backing("/db/000001.sst", 0);
  fault_->faults.delete_fails = backing;
  ASSERT_TRUE(fs_->DeleteFile("/db/000001.sst", IOOptions(), nullptr).ok());
  fault_->faults.delete_fails.clear();
  EXPECT_EQ(1u, Count(StoreError::kSpaceNotFreed));
  EXPECT_EQ(1u, Logged(StoreError::kSpaceNotFreed,
                       "removing the backing file of deleted file " + id + " on tier 0",
                       "injected: cannot delete " + backing)) << Log();
  EXPECT_EQ(0, access(backing.c_str(), F_OK));

  fault_->faults.delete_fails = "JOURNAL-000001";
  Churn(32800);  // a rotation to generation 2 is due at 65,536 records
  fault_->faults.delete_fails.clear();
  const std::string old_journal = Journal::JournalName(Meta(), 1);
  EXPECT_EQ(0, access(Journal::JournalName(Meta(), 2).c_str(), F_OK));
  EXPECT_EQ(1u, Count(StoreError::kCleanup));
  EXPECT_EQ(1u, Logged(StoreError::kCleanup,
                       "removing " + old_journal + " (an older generation; removed at the next "
                       "rotation)", "injected: cannot delete " + old_journal)) << Log();
  EXPECT_EQ(0, access(old_journal.c_str(), F_OK));
  Close();
  Open();  // starts generation 3: removes generation 1 and the orphan
  EXPECT_NE(0, access(old_journal.c_str(), F_OK));
  EXPECT_NE(0, access(backing.c_str(), F_OK));
  EXPECT_EQ(1u, Count(StoreError::kSpaceNotFreed));
  EXPECT_EQ(1u, Count(StoreError::kCleanup));
}

// RocksDB closes every file it writes and hears Close's status; a file
// dropped unclosed has no one to hear it: its failure is logged and counted.
TEST_F(StoreErrorsTest, AFileDroppedUnclosedWhoseCloseFailsIsLoggedAndCounted) {
  Open();
  IOOptions io;
  ASSERT_TRUE(fs_->CreateDirIfMissing("/db", io, nullptr).ok());
  std::unique_ptr<rocksdb::FSWritableFile> closed, dropped;
  ASSERT_TRUE(fs_->NewWritableFile("/db/closed.log", FileOptions(), &closed, nullptr).ok());
  ASSERT_TRUE(fs_->NewWritableFile("/db/dropped.log", FileOptions(), &dropped, nullptr).ok());
  ASSERT_TRUE(closed->Append(test::RandomBytes(4096, 1), io, nullptr).ok());
  ASSERT_TRUE(dropped->Append(test::RandomBytes(4096, 2), io, nullptr).ok());
  const std::string id = Id("/db/dropped.log");
  fault_->faults.eio_prefix = Tier(0);
  fault_->faults.close_eio = true;
  EXPECT_FALSE(closed->Close(io, nullptr).ok());  // its caller is told
  closed.reset();
  dropped.reset();
  fault_->faults.close_eio = false;
  EXPECT_EQ(1u, Count(StoreError::kDroppedFileClose));
  EXPECT_EQ(1u, Logged(StoreError::kDroppedFileClose,
                       "closing file " + id + ", dropped without Close",
                       "injected EIO on close: " + Tier(0) + "data/")) << Log();
}

TEST_F(StoreErrorsTest, ALogThatCannotBeWrittenIsCountedToo) {
  Open();
  Close();
  DamageStats();
  ASSERT_EQ(0, unlink((Meta() + "/LOG").c_str()));
  ASSERT_EQ(0, mkdir((Meta() + "/LOG").c_str(), 0755));  // open(2) of LOG fails
  Open();
  EXPECT_EQ(1u, Count(StoreError::kStatsLoad));
  EXPECT_GE(Count(StoreError::kInfoLog), 1u);
}

// The library's own output goes to the LOG: a run that hits every kind of
// error above but a rotation writes nothing on stderr.
TEST_F(StoreErrorsTest, TheLibraryWritesNothingToStderrWhileItHitsErrors) {
  Open(";policy:lru", {"256K", "64M"});
  Write("/db/000001.sst", 192 << 10);
  Close();
  DamageStats();
  TearJournal();
  test::StderrCapture capture;
  Open(";policy:lru", {"256K", "64M"});
  fault_->faults.eio_prefix = Tier(1);
  fault_->faults.sync_eio = true;
  Write("/db/000002.sst", 128 << 10, /*sync=*/false);  // eviction fails
  ASSERT_TRUE(
      ApplyDataOp(fs_.get(), DataOp::kMigrate, "/db/000002.sst", 1, 0, ~0ull, false).ok());
  ASSERT_TRUE(WaitForManualMoves(fs_.get(), 10000).ok());
  fault_->faults.sync_eio = false;
  const StoreErrorCounts counts = store().errors();
  ASSERT_TRUE(StartTrace(fs_.get(), "/dev/full").ok());
  Close();
  const std::string err = capture.Finish();
  EXPECT_EQ("", err);
  for (StoreError e : {StoreError::kStatsLoad, StoreError::kTornJournalTail,
                       StoreError::kEvictionMove}) {
    EXPECT_GE(counts[size_t(e)], 1u) << kStoreErrors[size_t(e)].name;
  }
  EXPECT_EQ(1u, LogLines("ERROR final_save: writing trace /dev/full at close").size());
}

}  // namespace
}  // namespace tierfs
