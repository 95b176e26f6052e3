// The simulator decides as the live store does: a workload runs on a live
// store with trace capture, the trace is replayed in the simulator with the
// same configuration and policy, and the two must have made the same
// decisions in the same order — every placement (tier, spills included),
// every eviction move and whether it was made, every plan, the moves it
// queued, how each planned move ended, and every hot page copied.
//
// What timing alone can change is taken from the capture, not checked here:
// when the migration engine plans and when its moves run (wall-clock idle
// detection and cadence live, virtual time in a free replay), and how
// concurrent threads interleave. So the workload has one client thread, the
// policies plan only when the client asks (MigrateNow, with its cadence set
// beyond reach), and the replay follows the capture's plan and move points
// (SimConfig::follow_trace_timing). engine_test checks the cadence and pacing
// rules themselves.
//
// A learning policy (harmonia, sibyl) decides the same only if it learns the
// same: it trains inline (`inline`: no training thread, live or replayed),
// plans only when asked (its own request cadence, plan_interval, out of
// reach: a plan on the migration thread while the client reads races the
// client's requests into the agents), and hears each I/O took what the
// capture says. Harmonia's placement rewards come after 64 requests here (not
// 16,384), so that both agents train within the workload, and its copy
// admission learns after 16 labels (not 2,048), so that the reuse
// predictor, not TinyLFU's rule, admits most of the copies (65 against 17
// page copies with the default).
//
// TIERFS_EQUIVALENCE_DUMP=PREFIX writes PREFIX.POLICY: the capture's records,
// for reading a difference (`tierfs-sim verify` replays the same way).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/trace_format.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"
#include "tierfs/hints.h"
#include "tools/sim/simulator.h"
#include "tools/sim/verify.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;

constexpr uint64_t kSeg = 64 << 10;

struct LiveFile {
  std::string name;
  uint64_t size;
};

// One client: creates table files of one to four segments, reads pieces of
// them, deletes some, replicates some to tier 0, and (for planning policies)
// asks for a plan now and then. With `levels`, each table file is given an
// LSM level first (0 to 3, as the event listener would), so the room kept for
// the upper levels (level_room) decides placements, and L0-L1 are compacted
// as RocksDB would: a new file of theirs replaces the oldest once they hold
// two, so they stay small enough to be upper levels and their output drops
// copies. With `wal`, every step also appends to a write-ahead log, synced
// every 20 steps, and a new log replaces it every 40 steps (a memtable
// flushed), so the WAL's placement and the room table output leaves it
// (wal_room) decide too. Deterministic for a seed.
void RunWorkload(rocksdb::FileSystem* fs, const std::string& dir, bool plans, bool levels,
                 bool wal, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<LiveFile> files;
  std::vector<std::string> upper;  // levels: the L0-L1 files, oldest first
  int next = 1;
  std::unique_ptr<rocksdb::FSWritableFile> log;
  std::string log_name;
  for (int step = 0; step < 400; ++step) {
    if (wal) {
      if (step % 40 == 0) {
        if (log) {
          ASSERT_TRUE(log->Close(IOOptions(), nullptr).ok());
          ASSERT_TRUE(fs->DeleteFile(log_name, IOOptions(), nullptr).ok());
        }
        log_name = dir + "/" + std::to_string(100000 + step) + ".log";
        ASSERT_TRUE(fs->NewWritableFile(log_name, FileOptions(), &log, nullptr).ok());
      }
      const std::string record(2048 + rng() % 6144, char('A' + step % 26));
      ASSERT_TRUE(log->Append(rocksdb::Slice(record), IOOptions(), nullptr).ok());
      if (step % 20 == 19) {
        ASSERT_TRUE(log->Sync(IOOptions(), nullptr).ok());
      }
    }
    const int op = int(rng() % 10);
    if (op < 4 || files.size() < 3) {
      LiveFile f;
      const int level = next % 4;
      f.name = dir + "/" + std::to_string(next++) + ".sst";
      if (levels) {
        ASSERT_TRUE(NoteTableFile(fs, f.name, level, "").ok());
      }
      f.size = (1 + rng() % 4) * kSeg - (rng() % 3) * 4096;
      std::unique_ptr<rocksdb::FSWritableFile> w;
      ASSERT_TRUE(fs->NewWritableFile(f.name, FileOptions(), &w, nullptr).ok());
      const std::string chunk(16 << 10, char('a' + step % 26));
      for (uint64_t off = 0; off < f.size; off += chunk.size()) {
        const size_t n = size_t(std::min<uint64_t>(chunk.size(), f.size - off));
        ASSERT_TRUE(w->Append(rocksdb::Slice(chunk.data(), n), IOOptions(), nullptr).ok());
      }
      ASSERT_TRUE(w->Sync(IOOptions(), nullptr).ok());
      ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
      files.push_back(f);
      if (levels && level <= 1) {
        upper.push_back(f.name);
        if (upper.size() > 2) {
          ASSERT_TRUE(fs->DeleteFile(upper.front(), IOOptions(), nullptr).ok());
          files.erase(std::find_if(files.begin(), files.end(),
                                   [&](const LiveFile& l) { return l.name == upper.front(); }));
          upper.erase(upper.begin());
        }
      }
    } else if (op < 8) {
      // Reads skewed to the newest files.
      const size_t pick = files.size() - 1 - size_t(rng() % std::min<size_t>(files.size(), 6));
      std::unique_ptr<rocksdb::FSRandomAccessFile> r;
      ASSERT_TRUE(fs->NewRandomAccessFile(files[pick].name, FileOptions(), &r, nullptr).ok());
      char buf[4096];
      rocksdb::Slice got;
      for (int i = 0; i < 4; ++i) {
        const uint64_t off = rng() % (files[pick].size / 4096) * 4096;
        ASSERT_TRUE(r->Read(off, sizeof(buf), IOOptions(), &got, buf, nullptr).ok());
      }
    } else if (op == 8) {
      const size_t victim = size_t(rng() % (files.size() / 2 + 1));
      ASSERT_TRUE(fs->DeleteFile(files[victim].name, IOOptions(), nullptr).ok());
      upper.erase(std::remove(upper.begin(), upper.end(), files[victim].name), upper.end());
      files.erase(files.begin() + long(victim));
    } else {
      // A copy of a file's first segment on tier 0 (REPLICATE, run here):
      // copies are charged, dropped with their file, and counted by the
      // policies. No room, or already fast, is no error here.
      const rocksdb::Status s =
          ApplyDataOp(fs, DataOp::kReplicate, files[size_t(rng() % files.size())].name, 0, 0, 0,
                      /*wait=*/true);
      ASSERT_TRUE(s.ok() || s.IsNoSpace()) << s.ToString();
      if (plans) {
        ASSERT_TRUE(MigrateNow(fs, 30000).ok());
      }
    }
  }
  if (log) {
    ASSERT_TRUE(log->Close(IOOptions(), nullptr).ok());
  }
}

struct Case {
  std::string policy;
  std::string params;
  bool plans;
  bool levels = false;
  bool wal = false;
};

class SimEquivalenceTest : public ::testing::TestWithParam<Case> {};

TEST_P(SimEquivalenceTest, TheReplayMakesTheStoresDecisions) {
  const Case& c = GetParam();
  test::ScratchDir dir("equivalence");
  const std::string trace = dir.path() + "/live.trace";
  // A fast tier of twelve segments; plans only when asked.
  const std::string config = ";segment_size:64K;policy:" + c.policy + c.params +
                             ";migration_plan_ms:1000000000";
  // The workload on a fresh store of `config`, captured to `path`.
  auto capture = [&](const std::string& config, const std::string& path, const std::string& sub,
                     std::vector<TraceRecord>* records) {
    {
      test::ScratchDir run(sub);
      std::shared_ptr<rocksdb::FileSystem> fs;
      ASSERT_TRUE(NewTierFileSystem(test::MakeUri(run, {"768K:optane", "64M:sata-ssd"},
                                                  config + ";trace:" + path),
                                    &fs)
                      .ok());
      ASSERT_TRUE(fs->CreateDir("/db", IOOptions(), nullptr).ok());
      ASSERT_NO_FATAL_FAILURE(RunWorkload(fs.get(), "/db", c.plans, c.levels, c.wal, 7));
    }  // closed: the capture ends
    TraceHeader header;
    std::string error;
    ASSERT_TRUE(ReadTrace(path, &header, records, &error)) << error;
  };
  std::vector<TraceRecord> records;
  std::string error;
  ASSERT_NO_FATAL_FAILURE(capture(config, trace, "equivalence-store", &records));
  if (c.wal && c.policy == "fast-first") {
    // The WAL must matter: without the room kept for it, the store decides
    // otherwise. (lru evicts for any write, the WAL's included: there the
    // room changes nothing.)
    std::vector<TraceRecord> without;
    ASSERT_NO_FATAL_FAILURE(
        capture(config + ";wal_room:off", dir.path() + "/off.trace", "equivalence-off", &without));
    auto decisions = [](const std::vector<TraceRecord>& rs) {
      std::vector<std::string> out;
      for (const TraceRecord& r : sim::RecordedDecisions(rs)) {
        out.push_back(sim::DescribeDecision(r) + " size " + std::to_string(r.size));
      }
      return out;
    };
    EXPECT_NE(decisions(records), decisions(without)) << "wal_room changed no decision";
  }
  uint64_t evictions = 0, spills = 0, planned_moves = 0, page_copies = 0;
  const std::vector<TraceRecord> live = sim::RecordedDecisions(records);
  for (const TraceRecord& r : live) {
    if (r.event == TraceEvent::kMove) {
      Move::Op op;
      bool made;
      MoveCause cause;
      DecodeMoveOutcome(r.size, &op, &made, &cause);
      (cause == MoveCause::kEviction   ? evictions
       : cause == MoveCause::kPageCopy ? page_copies
                                       : planned_moves) += made;
    }
    if (r.event == TraceEvent::kPlace && r.tier == 1) spills++;
  }
  uint64_t copies = 0;  // manual replications made (followed, not decided, by the replay)
  for (const TraceRecord& r : records) {
    if (r.event != TraceEvent::kMove) continue;
    Move::Op op;
    bool made, started;
    MoveCause cause;
    DecodeMoveOutcome(r.size, &op, &made, &cause, &started);
    copies += cause == MoveCause::kManual && made && !started;
  }
  // The workload must have exercised what it claims to.
  EXPECT_GT(live.size(), 100u);
  // (rocksdb-levels, RocksDB's db_paths imitated, keeps no copies.)
  if (c.params.find("copies:off") == std::string::npos && c.policy != "rocksdb-levels") {
    EXPECT_GT(page_copies, 0u) << "no hot page was copied";
  }
  if (c.policy != "fast-first" && c.params.find("copies:off") != std::string::npos) {
    // (fast-first and the fill keep tier 0 full down to its headroom, 38 KiB
    // here, which a copy of a segment does not fit; with hot-page copies,
    // so do lru and cde: homes and page copies fill tier 0 between them.)
    EXPECT_GT(copies, 0u) << "no copy was made";
  }
  if (c.params.find("evict:1") != std::string::npos) {
    // harmonia's gate: some newcomers evicted for, others spilled.
    EXPECT_GT(evictions, 0u) << "the gate never evicted";
    EXPECT_GT(spills, 0u) << "the gate never let a segment spill";
  } else if (c.policy == "lru" || c.policy == "cde") {
    EXPECT_GT(evictions, 0u) << "the fast tier never filled";
  } else {
    EXPECT_GT(spills, 0u) << "the fast tier never filled";
  }
  if (c.plans) {
    EXPECT_GT(planned_moves, 0u);
  }

  sim::SimConfig sc;
  ASSERT_TRUE(sim::ParseSimConfig(test::MakeUri(dir, {"768K:optane", "64M:sata-ssd"}, config),
                                  &sc, &error))
      << error;
  sim::Verification v;
  ASSERT_TRUE(sim::Verify(records, sc, &v, &error)) << error;
  EXPECT_TRUE(v.ok()) << c.policy << ": " << v.difference;
  EXPECT_EQ(v.live, v.same);
  if (c.policy == "harmonia" || c.policy == "sibyl") {
    // Its agents (harmonia's two, sibyl's one) trained (inline, in the
    // store's threads and in the replay's alike) while the decisions were made.
    ASSERT_EQ(c.policy == "harmonia" ? 2u : 1u, v.losses.size());
    for (const Policy::LossCurve& curve : v.losses) {
      EXPECT_GE(curve.points.size(), 3u) << curve.agent << " trained too little";
    }
  }
  if (c.levels && c.policy != "rocksdb-levels") {
    // The upper levels' output dropped copies for its room (the replay
    // made the store's decisions, so its counts are the store's).
    EXPECT_GT(v.copies.shrunk, 0u) << "no copy gave way to an upper level";
  }

  if (getenv("TIERFS_EQUIVALENCE_DUMP")) {
    FILE* f = fopen((std::string(getenv("TIERFS_EQUIVALENCE_DUMP")) + "." + c.policy).c_str(), "w");
    for (const TraceRecord& r : records) {
      if (r.is_io()) {
        fprintf(f, "io %s file %llu off %llu size %llu tier %d\n", r.is_write() ? "W" : "R",
                (unsigned long long)r.file_id, (unsigned long long)r.offset,
                (unsigned long long)r.size, r.tier);
      } else {
        fprintf(f, "%s size %llu\n", sim::DescribeDecision(r).c_str(), (unsigned long long)r.size);
      }
    }
    fclose(f);
  }
}

// A store reopened holds the data the first process left, where it left it,
// and takes back the copies it saved at its close (meta/PAGES.state). The
// replay of the reopened store's capture, started from the tiers as the
// capture's `held` events give them and from the saved copies
// (SimConfig::copies_state_file), makes its decisions — the page copies
// among them — where a replay without either does not: tier 0 would look
// emptier than the store's, and the copies would be admitted into room the
// store did not have.
TEST(SimEquivalenceRestartTest, TheReplayOfAReopenedStoreStartsFromWhatItHeldAndItsSavedCopies) {
  test::ScratchDir dir("equivalence-restart");
  test::ScratchDir run("equivalence-restart-store");
  const std::string trace = dir.path() + "/live.trace";
  const std::string saved = dir.path() + "/PAGES.state";
  const std::string config = ";segment_size:64K;policy:fast-first;migration_plan_ms:1000000000";
  const std::string uri = test::MakeUri(run, {"768K:optane", "64M:sata-ssd"}, config);
  {
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
    ASSERT_TRUE(fs->CreateDir("/db", IOOptions(), nullptr).ok());
    ASSERT_NO_FATAL_FAILURE(RunWorkload(fs.get(), "/db", false, false, false, 7));
    // A file of a kind no policy moves (RocksDB's MANIFEST, info log,
    // OPTIONS): it takes tier 0's room all the same.
    std::unique_ptr<rocksdb::FSWritableFile> w;
    ASSERT_TRUE(fs->NewWritableFile("/db/MANIFEST-000001", FileOptions(), &w, nullptr).ok());
    ASSERT_TRUE(w->Append(std::string(100 << 10, 'm'), IOOptions(), nullptr).ok());
    ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
  }  // closed: the copies saved
  {
    std::ifstream in(run.Sub("tier0") + "/meta/PAGES.state", std::ios::binary);
    ASSERT_TRUE(in.good()) << "no saved copies";
    std::ofstream(saved, std::ios::binary) << in.rdbuf();
  }
  {
    // Reopened, captured: reads of the tables the first process left.
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(uri + ";trace:" + trace, &fs).ok());
    std::vector<std::string> names;
    ASSERT_TRUE(fs->GetChildren("/db", IOOptions(), &names, nullptr).ok());
    std::mt19937_64 rng(11);
    char buf[4096];
    for (int i = 0; i < 600; ++i) {
      const std::string& name = names[size_t(rng() % std::min<size_t>(names.size(), 8))];
      if (name.find(".sst") == std::string::npos) continue;
      std::unique_ptr<rocksdb::FSRandomAccessFile> r;
      uint64_t size = 0;
      ASSERT_TRUE(fs->GetFileSize("/db/" + name, IOOptions(), &size, nullptr).ok());
      if (size < sizeof(buf)) continue;
      ASSERT_TRUE(fs->NewRandomAccessFile("/db/" + name, FileOptions(), &r, nullptr).ok());
      rocksdb::Slice got;
      const uint64_t off = rng() % (size / 4096) * 4096;
      ASSERT_TRUE(r->Read(off, sizeof(buf), IOOptions(), &got, buf, nullptr).ok());
    }
  }
  TraceHeader header;
  std::vector<TraceRecord> records;
  std::string error;
  ASSERT_TRUE(ReadTrace(trace, &header, &records, &error)) << error;
  sim::SimConfig sc;
  ASSERT_TRUE(sim::ParseSimConfig(test::MakeUri(dir, {"768K:optane", "64M:sata-ssd"}, config),
                                  &sc, &error))
      << error;
  sc.copies_state_file = saved;
  sim::Verification v;
  ASSERT_TRUE(sim::Verify(records, sc, &v, &error)) << error;
  EXPECT_TRUE(v.ok()) << v.difference;
  EXPECT_EQ(v.live, v.same);
  EXPECT_GT(v.live, 0u) << "the reopened store decided nothing";
  // The capture began with the store's clock, gone on from the first
  // process's, and what the store held, every segment of every kind.
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(TraceEvent::kStart, records[0].event);
  EXPECT_GT(records[0].offset, 0u) << "the reopened store's clock started again";
  const size_t held = size_t(std::count_if(records.begin(), records.end(), [](const TraceRecord& r) {
    return r.event == TraceEvent::kHeld;
  }));
  EXPECT_GT(held, 0u);
  EXPECT_TRUE(std::any_of(records.begin(), records.end(), [](const TraceRecord& r) {
    return r.event == TraceEvent::kHeld && r.kind == FileKind::kManifest;
  })) << "the MANIFEST's segments are not among what the store held";
  for (size_t i = 1; i <= held; ++i) EXPECT_EQ(TraceEvent::kHeld, records[i].event) << i;
  // Started with no copies, the replay decides otherwise.
  sc.copies_state_file.clear();
  sim::Verification cold;
  ASSERT_TRUE(sim::Verify(records, sc, &cold, &error)) << error;
  EXPECT_FALSE(cold.ok()) << "the saved copies changed no decision";
  // And so it does without the held data (found only where reads find it).
  sc.copies_state_file = saved;
  std::vector<TraceRecord> unheld;
  for (const TraceRecord& r : records) {
    if (r.event != TraceEvent::kHeld) unheld.push_back(r);
  }
  sim::Verification found;
  ASSERT_TRUE(sim::Verify(unheld, sc, &found, &error)) << error;
  EXPECT_FALSE(found.ok()) << "the held data changed no decision";
  // The same from the command line: `tierfs-sim verify` starts from the
  // saved copies when told (--copies_in), and from none when not.
  const std::string out = dir.path() + "/verify.out";
  auto verify = [&](const std::string& extra) {
    const std::string command =
        "'" + std::string(TIERFS_BUILD_DIR) + "/tools/sim/tierfs-sim' verify '--workload=" + trace +
        "' '--config=" + test::MakeUri(dir, {"768K:optane", "64M:sata-ssd"}, config) + "' " +
        extra + " > '" + out + "' 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(out);
    std::stringstream printed;
    printed << in.rdbuf();
    return std::make_pair(status, printed.str());
  };
  const auto [warm_status, warm_out] = verify("'--copies_in=" + saved + "'");
  EXPECT_EQ(0, warm_status) << warm_out;
  EXPECT_NE(std::string::npos, warm_out.find("all the same in the replay")) << warm_out;
  const auto [cold_status, cold_out] = verify("");
  EXPECT_NE(0, cold_status) << cold_out;
  EXPECT_NE(std::string::npos, cold_out.find("differs")) << cold_out;
}

INSTANTIATE_TEST_SUITE_P(
    Policies, SimEquivalenceTest,
    ::testing::Values(Case{"fast-first", "", false}, Case{"lru", "", false},
                      Case{"cde", "", false}, Case{"lru", ";copy_unit:page", false},
                      Case{"lru", ";copies:off", false},
                      Case{"lru", ";copy_policy:s3-fifo", false},
                      Case{"cde", ";copy_policy:w-tinylfu", false},
                      Case{"cde", ";copies:off", false},
                      Case{"hintstor", ";hintstor.interval:1000000000", true},
                      Case{"mutant", ";mutant.interval:1000000000;mutant.min_age:0", true},
                      Case{"fast-first", "", true, /*levels=*/true},
                      Case{"fast-first", "", false, /*levels=*/false, /*wal=*/true},
                      Case{"lru", "", false, /*levels=*/false, /*wal=*/true},
                      Case{"rocksdb-levels", ";rocksdb-levels.level_base:256K", false,
                           /*levels=*/true, /*wal=*/true},
                      Case{"harmonia",
                           ";harmonia.inline:1;harmonia.plan_interval:1000000000"
                           ";harmonia.placement_read_wait:64;harmonia.copy_warmup:16",
                           true},
                      // Its eviction gate (agents/eviction_gate.h), warm early.
                      Case{"harmonia",
                           ";harmonia.inline:1;harmonia.plan_interval:1000000000"
                           ";harmonia.placement_read_wait:64;harmonia.copy_warmup:16"
                           ";harmonia.evict:1;harmonia.evict_warmup:16;harmonia.evict_horizon:200",
                           true},
                      Case{"sibyl", ";sibyl.inline:1;sibyl.plan_interval:1000000000", true},
                      // The field's supervised baselines: their models learn at each plan.
                      Case{"k-svm", ";k-svm.interval:1000000000", true},
                      Case{"rnn-hss", ";rnn-hss.interval:1000000000", true}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.policy;
      if (info.param.params.find("copies:off") != std::string::npos) name += "_without_page_copies";
      if (info.param.params.find("copy_unit:page") != std::string::npos) name += "_page_copies";
      const size_t copy_policy = info.param.params.find("copy_policy:");
      if (copy_policy != std::string::npos) name += "_" + info.param.params.substr(copy_policy + 12);
      if (info.param.levels) name += "_with_levels";
      if (info.param.wal) name += "_with_a_wal";
      if (info.param.params.find("evict:1") != std::string::npos) name += "_evicting";
      for (char& ch : name) {
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace tierfs
