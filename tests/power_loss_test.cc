// Power loss under TierFS: RocksDB runs on TierFS over a file system that
// keeps unsynced writes apart (tests/power_fs.h) and drops them at a
// simulated power cut, hundreds of times, during writes (some synced),
// flushes, compactions, HintStor moves (manual and the migration thread's),
// tier-full relocations, hot-page copies, the close of a store and database
// and their recovery. After each cut:
// the unsynced state is dropped, the store must open, its account must match
// the segment map and the backing files (tests/crash_audit.h), and every key
// acknowledged as synced must read back with its value (or a newer one that
// survived).
//
// A cut comes after a random number of calls through the base file system,
// counted from before the store opens, so cuts land inside RocksDB's and
// TierFS's background threads too; a run is bounded by its steps, not by
// time. TIERFS_POWER_CUTS sets the cuts per test (default 200; tests/
// crash_long.sh runs more), TIERFS_POWER_SEED the seed (printed on failure;
// background threads make a seed reproduce the schedule only approximately).
// To look into a failure: TIERFS_POWER_VERBOSE=1 prints what each drop did,
// TIERFS_POWER_SNAPSHOTS=DIR keeps copies of the tiers before and after the
// last drop, TIERFS_KEEP_TEST_DIRS=1 keeps the tiers; TIERFS_POWER_TMPDIR
// says where they are made (default /dev/shm when there is one).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <random>

#include <rocksdb/db.h>
#include <rocksdb/system_clock.h>
#include <rocksdb/table.h>

#include "env/tier_fs.h"
#include "tests/crash_audit.h"
#include "tests/power_fs.h"
#include "tests/test_util.h"
#include "tierfs/hints.h"

namespace tierfs {
namespace {

using test::PowerFS;

constexpr int kKeys = 1500;
constexpr int kStepsPerRun = 400;

std::string Key(int k) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%06d", k);
  return buf;
}

// The value of key k's version v: says both, padded with bytes that depend on
// them, so a value from another key, version or a zeroed page is told apart.
std::string Value(int k, uint64_t v) {
  std::string s = "k" + std::to_string(k) + " v" + std::to_string(v) + " ";
  std::mt19937 rng(uint32_t(k * 7919 + v));
  const size_t len = 100 + rng() % 300;
  while (s.size() < len) s += char('a' + rng() % 26);
  return s;
}

// The version a value names; 0 if it names none.
uint64_t VersionOf(const std::string& value) {
  const size_t at = value.find(" v");
  return at == std::string::npos ? 0 : strtoull(value.c_str() + at + 2, nullptr, 10);
}

// Where the stores live: tmpfs when there is one (its fsync costs nothing;
// what is durable is the wrapper's model, not the device's), else $TMPDIR.
// TIERFS_POWER_TMPDIR overrides it.
std::string ScratchParent() {
  const char* env = getenv("TIERFS_POWER_TMPDIR");
  if (env && *env) return env;
  return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "";
}

int EnvInt(const char* name, int fallback) {
  const char* env = getenv(name);
  return env && *env ? atoi(env) : fallback;
}

// RocksDB sleeps a second after a failed flush or compaction before trying
// again; once the power is cut that only slows the teardown down.
class CutClock : public rocksdb::SystemClockWrapper {
 public:
  CutClock(const std::shared_ptr<rocksdb::SystemClock>& target, const PowerFS* power)
      : SystemClockWrapper(target), power_(power) {}
  const char* Name() const override { return "CutClock"; }
  void SleepForMicroseconds(int micros) override {
    if (!power_->cut()) target_->SleepForMicroseconds(micros);
  }

 private:
  const PowerFS* const power_;
};

// TierFS's Env (file system and all) with that clock.
class CutEnv : public rocksdb::EnvWrapper {
 public:
  CutEnv(rocksdb::Env* target, const PowerFS* power) : EnvWrapper(target) {
    file_system_ = target->GetFileSystem();
    system_clock_ = std::make_shared<CutClock>(target->GetSystemClock(), power);
  }
  const char* Name() const override { return "CutEnv"; }
};

// What the test knows of each key: the newest version acknowledged as synced
// (it must survive) and the newest written (nothing newer may appear).
struct Model {
  std::vector<uint64_t> synced = std::vector<uint64_t>(kKeys, 0);
  std::vector<uint64_t> written = std::vector<uint64_t>(kKeys, 0);
  std::vector<std::pair<int, uint64_t>> unsynced;  // written since the last flush
  uint64_t next_version = 1;
};

struct Totals {
  int cuts = 0, recovery_cuts = 0, workload_cuts = 0;
  uint64_t calls = 0, steps = 0, synced_keys = 0;
  uint64_t truncated = 0, undone = 0, removed = 0, restored = 0;
  uint64_t spills = 0, moves = 0, copies = 0, page_copies = 0, slow_homes = 0;
};

class PowerLossTest : public ::testing::Test {
 protected:
  PowerLossTest() : dir_("power", ScratchParent()) {}

  // `caps` and `extra` make the store; the check opens it with migration off
  // (a quiet store for the audit), odd runs reopen it with the migration
  // thread on.
  void Run(const std::vector<std::string>& caps, const std::string& extra) {
    check_options_ = test::MakeOptions(dir_, caps, extra + ";migration:off");
    run_options_ = test::MakeOptions(dir_, caps, extra + ";migration_plan_ms:50");
    power_ = std::make_shared<PowerFS>(dir_.path());
    check_options_.base = power_;
    run_options_.base = power_;
    const int cuts = EnvInt("TIERFS_POWER_CUTS", 200);
    seed_ = uint32_t(EnvInt("TIERFS_POWER_SEED", int(time(nullptr) % 100000)));
    rng_.seed(seed_);

    // A first run without a cut measures how many calls a run makes; cuts
    // then fall anywhere in such a run (the range grows with every run that
    // ends uncut: runs make more calls as the database grows).
    uint64_t calls_per_run = 0;
    for (int run = 0; run <= cuts; ++run) {
      SCOPED_TRACE("seed " + std::to_string(seed_) + ", run " + std::to_string(run));
      if (run > 0) {
        ASSERT_NO_FATAL_FAILURE(Check(run));
      }
      // One run in eight is cut within about an open's calls: in the close of
      // the checked store and database or in their reopening (recovery).
      const bool recovery_cut = run > 0 && rng_() % 8 == 0;
      if (run > 0) power_->CutAfter(1 + rng_() % (recovery_cut ? open_calls_ : calls_per_run));
      const uint64_t before = power_->calls();
      ASSERT_NO_FATAL_FAILURE(Work(run, recovery_cut));
      if (run_completed_) {
        calls_per_run = std::max<uint64_t>(calls_per_run, power_->calls() - before);
      }
      const uint64_t run_calls = power_->calls();
      Teardown();
      Snapshot("pre");
      test::DropReport drop;
      rocksdb::IOStatus s = power_->DropUnsynced(&drop);
      Snapshot("post");
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(0u, drop.entries_lost) << "a durable entry went by a call the wrapper missed";
      if (getenv("TIERFS_POWER_VERBOSE")) {
        printf("run %d: %llu calls; dropped %llu bytes in %llu files, undid %llu writes, "
               "removed %llu entries, restored %llu\n",
               run, (unsigned long long)run_calls, (unsigned long long)drop.bytes_truncated,
               (unsigned long long)drop.files_truncated, (unsigned long long)drop.writes_undone,
               (unsigned long long)drop.entries_removed, (unsigned long long)drop.entries_restored);
        printf("%s", drop.details.c_str());
      }
      totals_.cuts += run > 0;
      totals_.truncated += drop.bytes_truncated;
      totals_.undone += drop.writes_undone;
      totals_.removed += drop.entries_removed;
      totals_.restored += drop.entries_restored;
    }
    ASSERT_NO_FATAL_FAILURE(Check(cuts + 1));
    for (uint64_t v : model_.synced) totals_.synced_keys += v > 0;
    printf("power loss (seed %u): %d cuts (%d in recovery, %d in the workload), %llu steps, "
           "%llu calls; %llu keys synced at the end; dropped %llu bytes, undid %llu writes, "
           "removed %llu entries, restored %llu; at least %llu spills, %llu moves, %llu copies, "
           "%llu page copies; %llu segment homes on tier 1 seen after cuts\n",
           seed_, totals_.cuts, totals_.recovery_cuts, totals_.workload_cuts,
           (unsigned long long)totals_.steps, (unsigned long long)totals_.calls,
           (unsigned long long)totals_.synced_keys, (unsigned long long)totals_.truncated,
           (unsigned long long)totals_.undone, (unsigned long long)totals_.removed,
           (unsigned long long)totals_.restored, (unsigned long long)totals_.spills,
           (unsigned long long)totals_.moves, (unsigned long long)totals_.copies,
           (unsigned long long)totals_.page_copies, (unsigned long long)totals_.slow_homes);
    EXPECT_GT(totals_.workload_cuts, cuts / 3) << "too few cuts landed in the workload";
    EXPECT_GT(totals_.synced_keys, uint64_t(kKeys / 2)) << "too few keys synced to test anything";
    EXPECT_GT(totals_.undone + totals_.truncated, 0u) << "no cut dropped anything";
  }

  // With TIERFS_POWER_SNAPSHOTS=DIR, the tiers as the cut left them
  // (DIR/pre) and as the drop made them (DIR/post), for the last cut: what a
  // failing check started from.
  void Snapshot(const char* name) {
    const char* to = getenv("TIERFS_POWER_SNAPSHOTS");
    if (!to || !*to) return;
    const std::string cmd = std::string("rm -rf '") + to + "/" + name + "' && mkdir -p '" + to +
                            "' && cp -a '" + dir_.path() + "' '" + to + "/" + name + "'";
    if (system(cmd.c_str()) != 0) ADD_FAILURE() << "could not run: " << cmd;
  }

  rocksdb::Options DBOptions() {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.compression = rocksdb::kNoCompression;
    o.write_buffer_size = 64 << 10;
    o.target_file_size_base = 256 << 10;
    o.max_bytes_for_level_base = 512 << 10;
    o.level0_file_num_compaction_trigger = 2;
    o.max_background_jobs = 2;
    // Table files reach TierFS in 32 KiB writes (not one 1 MiB buffer): a
    // file then grows on its tier, and outgrows it while being written.
    o.writable_file_max_buffer_size = 32 << 10;
    o.env = cut_env_.get();
    rocksdb::BlockBasedTableOptions t;
    t.no_block_cache = true;  // every read reaches TierFS (and its page copies)
    t.block_size = 4096;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    return o;
  }

  rocksdb::Status OpenStore(const Options& options) {
    Teardown();
    rocksdb::Status s = NewTierFileSystem(options, &fs_);
    if (!s.ok()) return s;
    env_ = NewTierEnv(fs_);
    cut_env_ = std::make_unique<CutEnv>(env_.get(), power_.get());
    return rocksdb::Status::OK();
  }
  rocksdb::Status OpenDB() {
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(DBOptions(), "/db", &db);
    db_.reset(db);
    return s;
  }
  void Teardown() {
    if (db_) db_->Close().PermitUncheckedError();
    db_.reset();
    cut_env_.reset();
    env_.reset();
    fs_.reset();
  }

  // After a cut (with nothing armed): the store opens and its account, map
  // and backing files agree; the database opens and every key is a version
  // between the newest synced and the newest written.
  void Check(int run) {
    const uint64_t open_start = power_->calls();
    rocksdb::Status s = OpenStore(check_options_);
    ASSERT_TRUE(s.ok()) << "the store does not open after a cut: " << s.ToString();
    test::Audit audit = test::AuditStore(fs_.get(), "/", /*all_files=*/true);
    totals_.slow_homes += audit.homes.size() > 1 ? audit.homes[1] : 0;
    ASSERT_EQ("", audit.problems) << "after the cut before run " << run;
    s = OpenDB();
    ASSERT_TRUE(s.ok()) << "the database does not open after a cut: " << s.ToString();
    // The calls of an open (store and database, and the audit's few): the
    // range of the next recovery cut.
    open_calls_ = std::max<uint64_t>(power_->calls() - open_start, 20);
    for (int k = 0; k < kKeys; ++k) {
      std::string value;
      s = db_->Get(rocksdb::ReadOptions(), Key(k), &value);
      uint64_t v = 0;
      if (s.ok()) {
        v = VersionOf(value);
        ASSERT_EQ(Value(k, v), value) << Key(k) << " reads back damaged";
      } else {
        ASSERT_TRUE(s.IsNotFound()) << Key(k) << ": " << s.ToString();
      }
      ASSERT_GE(v, model_.synced[k]) << Key(k) << ": synced version " << model_.synced[k]
                                     << " lost, found " << (s.ok() ? std::to_string(v) : "none");
      ASSERT_LE(v, model_.written[k]) << Key(k) << ": a version never written";
      // What recovery found is in the database now: the base of what follows.
      model_.synced[k] = model_.written[k] = v;
    }
    model_.unsynced.clear();
    if (run % 10 == 0) {
      s = db_->VerifyChecksum();
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    // What recovery found is durable by now (recovery flushes the WALs it
    // replays); a flush makes sure before the next run counts on it.
    s = db_->Flush(rocksdb::FlushOptions());
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // One run: (odd runs) reopen with the migration thread, then steps of
  // writes, reads and moves until the power goes or the steps are done.
  void Work(int run, bool recovery_cut) {
    run_completed_ = false;
    if (run == 0 || run % 2 == 1 || recovery_cut) {
      rocksdb::Status s = OpenStore(run == 0 ? check_options_ : run_options_);
      if (s.ok()) s = OpenDB();
      if (!s.ok()) {
        ASSERT_TRUE(power_->cut()) << "open failed without a cut: " << s.ToString();
        totals_.recovery_cuts++;
        return;
      }
      if (recovery_cut) {
        power_->PowerCut();  // the cut fell after the open: nothing more to see
        totals_.recovery_cuts++;
        return;
      }
    }
    for (int step = 0; step < kStepsPerRun; ++step) {
      rocksdb::Status s = Step(step);
      if (!s.ok()) {
        ASSERT_TRUE(power_->cut()) << "step " << step << " failed without a cut: " << s.ToString();
        totals_.workload_cuts++;
        break;
      }
      totals_.steps++;
    }
    if (!power_->cut()) {
      run_completed_ = true;
      power_->PowerCut();
    }
    totals_.calls += power_->calls();
    // The store's counters (the store is still up, its files frozen). They
    // run on from open to open as long as STATS is saved, which a cut
    // prevents: the largest seen is a lower bound of the whole test's.
    std::vector<TierStats> stats;
    if (fs_ && GetTierStats(fs_.get(), &stats).ok()) {
      Totals now;
      for (const TierStats& t : stats) {
        now.spills += t.Get(TierTicker::kSpillsIn);
        now.moves += t.Get(TierTicker::kMovesIn);
        now.copies += t.Get(TierTicker::kCopiesIn);
        now.page_copies += t.Get(TierTicker::kPagesCopied);
      }
      totals_.spills = std::max(totals_.spills, now.spills);
      totals_.moves = std::max(totals_.moves, now.moves);
      totals_.copies = std::max(totals_.copies, now.copies);
      totals_.page_copies = std::max(totals_.page_copies, now.page_copies);
    }
  }

  rocksdb::Status Step(int step) {
    const int k = int(rng_() % kKeys);
    const uint64_t v = model_.next_version++;
    rocksdb::WriteOptions wo;
    wo.sync = rng_() % 5 == 0;
    model_.written[k] = v;
    rocksdb::Status s = db_->Put(wo, Key(k), Value(k, v));
    if (!s.ok()) return s;
    if (wo.sync) {
      model_.synced[k] = std::max(model_.synced[k], v);
    } else {
      model_.unsynced.emplace_back(k, v);
    }
    // Reads (they fill hot-page copies of pages whose home is slow).
    for (int i = 0; i < 3; ++i) {
      const int r = int(rng_() % kKeys);
      std::string value;
      rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), Key(r), &value);
      if (got.IsNotFound()) continue;
      if (!got.ok()) return got;
      if (value != Value(r, model_.written[r])) {
        ADD_FAILURE() << Key(r) << " reads back " << value.substr(0, 40) << ", not version "
                      << model_.written[r];
        return rocksdb::Status::Corruption("bad read");
      }
    }
    // A flush that returns makes every write before it durable (SST and
    // MANIFEST synced), and so does SyncWAL (every live WAL synced, from
    // this thread while RocksDB's may be writing).
    if (step % 60 == 29 || step % 60 == 59) {
      s = step % 60 == 29 ? db_->SyncWAL() : db_->Flush(rocksdb::FlushOptions());
      if (!s.ok()) return s;
      for (const auto& [key, version] : model_.unsynced) {
        model_.synced[key] = std::max(model_.synced[key], version);
      }
      model_.unsynced.clear();
    }
    if (s.ok() && step % 300 == 299) {
      s = db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
    }
    if (s.ok() && step % 25 == 24) s = ManualMove();
    return s;
  }

  // A HintStor operation on a live table file, sometimes waited for.
  rocksdb::Status ManualMove() {
    std::vector<rocksdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    if (files.empty()) return rocksdb::Status::OK();
    const rocksdb::LiveFileMetaData& f = files[rng_() % files.size()];
    const std::string path = f.db_path + f.name;
    static const DataOp kOps[] = {DataOp::kMigrate, DataOp::kMigrate, DataOp::kReplicate,
                                  DataOp::kPrefetch, DataOp::kDropCopy};
    const DataOp op = kOps[rng_() % 5];
    const int tier = int(rng_() % 2);
    rocksdb::Status s = ApplyDataOp(fs_.get(), op, path, tier, 0, ~0ull, rng_() % 2 == 0);
    // A file compacted away meanwhile, a full tier, a busy segment: not ours.
    if (!s.ok() && !power_->cut()) return rocksdb::Status::OK();
    return s;
  }

  test::ScratchDir dir_;
  std::shared_ptr<PowerFS> power_;
  Options check_options_, run_options_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;
  std::unique_ptr<rocksdb::Env> cut_env_;  // env_ with a CutClock
  std::unique_ptr<rocksdb::DB> db_;
  uint32_t seed_ = 0;
  std::mt19937 rng_;
  Model model_;
  Totals totals_;
  uint64_t open_calls_ = 100;
  bool run_completed_ = false;  // the last Work did every step before its cut
};

// 16 KiB segments: moves and copies segment by segment, hot-page copies of
// 4 KiB pages, a fast tier that fills (spills and relocations).
TEST_F(PowerLossTest, SyncedKeysSurviveCutsDuringWritesMovesAndCopies) {
  Run({"512K", "64M"}, ";segment_size:16K;copy_page:4K");
}

// Whole-file segments on a fast tier smaller than a compaction's output: files
// outgrowing it are relocated while written (copy, sync, commit, punch).
TEST_F(PowerLossTest, SyncedKeysSurviveCutsDuringRelocations) {
  Run({"512K", "64M"}, ";segment_size:whole");
}

}  // namespace
}  // namespace tierfs
