// The trace simulator (tools/sim/simulator.h): timing against hand-computed
// device times, placement and spill, closed and open replay, migration only
// in idle time, the oracle, determinism, and configuration errors.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "tools/sim/compare.h"
#include "tools/sim/report.h"
#include "agents/policies.h"
#include "engine/migration.h"
#include "engine/page_copies.h"
#include "engine/placement.h"
#include "tools/sim/simulator.h"
#include "tools/sim/workloads.h"

namespace tierfs {
namespace sim {
namespace {

constexpr uint64_t kSeg = 64 << 10;

SimTier Tier(const char* device, uint64_t capacity) {
  SimTier t;
  t.name = std::string("/") + device;
  t.capacity = capacity;
  EXPECT_TRUE(ParseDeviceParams(device, &t.device).ok());
  return t;
}

SimConfig Config(const std::string& policy, uint64_t fast_bytes, const char* slow = "hdd") {
  SimConfig c;
  c.tiers = {Tier("optane", fast_bytes), Tier(slow, 1ull << 40)};
  c.segment_size = kSeg;
  c.policy = policy;
  return c;
}

TraceRecord Read(uint64_t time_ns, uint64_t offset, uint64_t size = 4096, uint32_t stream = 0) {
  TraceRecord r;
  r.time_ns = time_ns;
  r.stream = stream;
  r.file_id = stream;
  r.offset = offset;
  r.size = size;
  r.kind = FileKind::kVolume;
  return r;
}

SimResult Replay(const std::vector<TraceRecord>& trace, const SimConfig& config) {
  SimResult r;
  std::string error;
  EXPECT_TRUE(RunPolicy(trace, config, &r, &error)) << error;
  return r;
}

// Nanoseconds a device model takes for one I/O, as DeviceModel computes it.
double ServiceUs(const char* device, bool write, uint64_t bytes) {
  DeviceParams p;
  EXPECT_TRUE(ParseDeviceParams(device, &p).ok());
  return double(DeviceModel(p).ServiceNanos(write, false, bytes)) / 1000.0;
}

TEST(SimulatorTest, OneReadTakesTheDeviceModelsTime) {
  SimResult r = Replay({Read(0, 0)}, Config("fast-first", 10 * kSeg));
  EXPECT_EQ(1u, r.requests);
  // optane: 10 us + 4096 B / 2400 MB/s.
  EXPECT_NEAR(10 + 4096 / 2400.0, r.avg_latency_us, 0.002);
  EXPECT_NEAR(ServiceUs("optane", false, 4096), r.p99_us, 0.002);
  EXPECT_EQ(1.0, r.tiers[0].hit_ratio);
}

TEST(SimulatorTest, UserReadLatencyLeavesOtherIoOut) {
  // fast-first with room for segment 0 only: a user read of it (optane) and a
  // background read of segment 1 (spilled to the hdd), far apart in time.
  std::vector<TraceRecord> t = {Read(0, 0), Read(1000000000, kSeg)};
  t[1].type = IoType::kBackgroundRead;
  SimResult r = Replay(t, Config("fast-first", kSeg + kFileBlock));
  const double fast = ServiceUs("optane", false, 4096), slow = ServiceUs("hdd", false, 4096);
  EXPECT_NEAR((fast + slow) / 2, r.avg_latency_us, 0.01);
  EXPECT_NEAR(fast, r.user_read_latency_us, 0.002);
  EXPECT_NEAR(fast, r.user_read_p99_us, 0.002);
}

TEST(SimulatorTest, ARequestAcrossSegmentsCompletesWithItsLastPiece) {
  // 8 KiB straddling a segment boundary on an HDD: one seek, then the
  // second piece continues the first on the same device.
  SimConfig c = Config("slow-only", 10 * kSeg);
  SimResult r = Replay({Read(0, kSeg - 4096, 8192)}, c);
  EXPECT_EQ(2u, r.pieces);
  EXPECT_NEAR(12200 + 8192 / 191.75, r.avg_latency_us, 0.01);
}

TEST(SimulatorTest, AFullTierSpillsToTheNextOne) {
  // fast-first with room for one segment (and, as the store charges it, the
  // file's own block): the second segment goes slow.
  SimResult r = Replay({Read(0, 0), Read(1000000, kSeg), Read(2000000, 0)},
                       Config("fast-first", kSeg + kFileBlock));
  EXPECT_NEAR(2.0 / 3, r.tiers[0].hit_ratio, 1e-9);
  EXPECT_NEAR(1.0 / 3, r.tiers[1].hit_ratio, 1e-9);
  EXPECT_EQ(kSeg + kFileBlock, r.tiers[0].peak_used);
}

TEST(SimulatorTest, ASegmentFirstReadStaysWhereTheCaptureFoundIt) {
  // A captured trace starts on a store that holds data: a segment first met
  // by a read is on the tier that served it, not where fast-first would put
  // a new segment (tier 0, which has room). A read that does not say which
  // tier served it (synthetic traces) is placed by the policy.
  std::vector<TraceRecord> t = {Read(0, 0), Read(1000000, 0)};
  t[0].tier = 1;
  t[1].tier = 1;
  SimResult r = Replay(t, Config("fast-first", 4 * kSeg));
  EXPECT_EQ(0u, r.tiers[0].user_reads);
  EXPECT_EQ(2u, r.tiers[1].user_reads);
  t[0].tier = t[1].tier = -1;
  r = Replay(t, Config("fast-first", 4 * kSeg));
  EXPECT_EQ(2u, r.tiers[0].user_reads);
}

TEST(SimulatorTest, UserReadBytesGiveTheByteShare) {
  // As AFullTierSpillsToTheNextOne, the reads 4, 12 and 8 KiB: tier 0 serves
  // two of three pieces but 12 of 24 KiB.
  SimResult r = Replay({Read(0, 0, 4096), Read(1000000, kSeg, 12288), Read(2000000, 0, 8192)},
                       Config("fast-first", kSeg + kFileBlock));
  EXPECT_NEAR(2.0 / 3, r.tiers[0].user_read_share, 1e-9);
  EXPECT_EQ(12288u, r.tiers[0].user_read_bytes);
  EXPECT_EQ(12288u, r.tiers[1].user_read_bytes);
  EXPECT_NEAR(0.5, r.tiers[0].user_read_byte_share, 1e-9);
  EXPECT_NEAR(0.5, r.tiers[1].user_read_byte_share, 1e-9);
}

TEST(SimulatorTest, AWarmupIsReplayedButNotMeasured) {
  // fast-first with room for one segment: the first read places segment 0
  // fast; segment 1 spills. Measured after two of the five reads.
  std::vector<TraceRecord> t = {Read(0, 0), Read(1000000, kSeg), Read(2000000, 0),
                                Read(3000000, kSeg), Read(4000000, kSeg)};
  SimConfig c = Config("fast-first", kSeg + kFileBlock);
  c.measure_after = 2;
  const SimResult r = Replay(t, c);
  EXPECT_EQ(3u, r.requests);
  EXPECT_EQ(3u, r.pieces);
  EXPECT_EQ(1u, r.tiers[0].user_reads);  // the third read
  EXPECT_EQ(2u, r.tiers[1].user_reads);
  EXPECT_NEAR(1.0 / 3, r.tiers[0].user_read_share, 1e-9);
  EXPECT_EQ(4096u, r.tiers[0].user_read_bytes);  // the warm-up's not counted
  EXPECT_NEAR(1.0 / 3, r.tiers[0].user_read_byte_share, 1e-9);
  // The placement made in the warm-up stands: tier 0 holds segment 0 all along.
  EXPECT_EQ(double(kSeg + kFileBlock), r.tiers[0].mean_used);
  const double slow = ServiceUs("hdd", false, 4096), fast = ServiceUs("optane", false, 4096);
  EXPECT_GT(r.avg_latency_us, (fast + slow) / 2);  // two of three measured reads were slow
  c.measure_after = 0;
  EXPECT_EQ(5u, Replay(t, c).requests);
}

TEST(SimulatorTest, ReadsOfYoungFilesAreCountedApart) {
  // File 0 written at the first record, read at the second and the fifth;
  // young for three records, so only the first read is young. fast-only
  // serves it from tier 0.
  std::vector<TraceRecord> t = {Read(0, 0), Read(1000, 0), Read(2000, 0, 4096, 1),
                                Read(3000, 0, 4096, 1), Read(4000, 0)};
  t[0].type = IoType::kWrite;
  SimConfig c = Config("fast-only", 1ull << 30);
  c.young_records = 3;
  SimResult r = Replay(t, c);
  EXPECT_EQ(4u, r.tiers[0].user_reads);
  EXPECT_EQ(1u, r.tiers[0].young_user_reads);
  EXPECT_DOUBLE_EQ(1.0, r.tiers[0].young_read_share);
  // slow-only: the young read is tier 1's.
  c.policy = "slow-only";
  r = Replay(t, c);
  EXPECT_EQ(0u, r.tiers[0].young_user_reads);
  EXPECT_EQ(1u, r.tiers[1].young_user_reads);
  EXPECT_DOUBLE_EQ(0.0, r.tiers[0].young_read_share);
  c.young_records = 0;
  EXPECT_EQ(0u, Replay(t, c).tiers[1].young_user_reads);
}

TEST(SimulatorTest, ClosedReplayWaitsForEachRequestAndKeepsTheThinkTime) {
  // Two reads 1 ms apart on an HDD (12.2 ms each): the second is issued
  // when the first completes plus the 1 ms of think time.
  SimConfig c = Config("slow-only", kSeg);
  SimResult closed = Replay({Read(0, 0), Read(1000000, 40 * kSeg)}, c);
  const double one = ServiceUs("hdd", false, 4096);
  EXPECT_NEAR(one, closed.avg_latency_us, 0.01);
  EXPECT_NEAR((2 * one + 1000) / 1e6, closed.virtual_seconds, 1e-8);

  // Open replay issues at trace times: the second waits for the first.
  c.replay = SimConfig::Replay::kOpen;
  SimResult open = Replay({Read(0, 0), Read(1000000, 40 * kSeg)}, c);
  EXPECT_NEAR((one + (2 * one - 1000)) / 2, open.avg_latency_us, 0.01);
}

TEST(SimulatorTest, TheRecordedLatencyIsNotThinkTime) {
  // A captured trace: the first request took 5 ms at capture, so of the
  // 6 ms to the next only 1 ms was think time.
  SimConfig c = Config("fast-only", 1ull << 30);
  std::vector<TraceRecord> trace = {Read(0, 0), Read(6000000, kSeg)};
  trace[0].latency_ns = 5000000;
  SimResult r = Replay(trace, c);
  EXPECT_NEAR((2 * ServiceUs("optane", false, 4096) + 1000) / 1e6, r.virtual_seconds, 1e-8);
}

TEST(SimulatorTest, StreamsRunConcurrentlyAndQueueOnOneDevice) {
  // Two streams reading at time 0 on one HDD: one waits for the other.
  SimResult r = Replay({Read(0, 0, 4096, 0), Read(0, 0, 4096, 1)}, Config("slow-only", kSeg));
  const double one = ServiceUs("hdd", false, 4096);
  EXPECT_NEAR((one + 2 * one) / 2, r.avg_latency_us, 0.01);
}

TEST(SimulatorTest, AReadWaitsForTheWriteOfItsFileThatTheTracePutsBeforeIt) {
  // Stream 1 writes file 7 at 1 ms, after a read the capture found instant
  // and the replay's HDD takes 12.2 ms for: it is issued at 13.2 ms. Stream
  // 2 reads file 7 at 2 ms of the trace, after that write. Served at 2 ms,
  // the read would find no file 7 and take it for data the capture began
  // with, on the tier the capture served it from (tier 1); it waits for the
  // write, and reads it where fast-first wrote it, tier 0.
  TraceRecord slow = Read(0, 0, 4096, 1);
  slow.file_id = 5;
  slow.tier = 1;
  slow.latency_ns = 0;
  TraceRecord write = Read(1000000, 0, 4096, 1);
  write.file_id = 7;
  write.type = IoType::kWrite;
  TraceRecord read = Read(2000000, 0, 4096, 2);
  read.file_id = 7;
  read.tier = 1;
  SimConfig c = Config("fast-first", 1ull << 30);
  c.record_timings = true;
  EXPECT_EQ((std::vector<uint32_t>{kNoRecord, kNoRecord, 1}), WritesBefore({slow, write, read}));
  const SimResult r = Replay({slow, write, read}, c);
  std::map<size_t, SimResult::Timing> by_record;
  for (const SimResult::Timing& t : r.timings) by_record[t.record] = t;
  ASSERT_EQ(3u, by_record.size());
  EXPECT_NEAR((ServiceUs("hdd", false, 4096) + 1000) * 1000, double(by_record[1].issued), 1);
  EXPECT_EQ(by_record[1].done, by_record[2].issued);
  EXPECT_EQ(1u, r.tiers[0].user_reads);
  EXPECT_EQ(1u, r.tiers[1].user_reads);  // stream 1's read of file 5
}

// Places everything on the slow tier, then keeps asking to promote segment 0.
class PromoteSegmentZero : public Policy {
 public:
  const char* Name() const override { return "promote-zero"; }
  int Place(const PlacementRequest&, const StorageView& view) override { return view.NumTiers() - 1; }
  uint64_t PlanIntervalRequests() const override { return 1; }
  void Plan(const StorageView& view, size_t, std::vector<Move>* moves) override {
    SegmentInfo info;
    if (view.Lookup(SegmentRef{0, 0}, &info) && info.tier != 0) {
      Move m;
      m.ref = SegmentRef{0, 0};
      m.to = 0;
      moves->push_back(m);
    }
  }
};

TEST(SimulatorTest, MigrationRunsInIdleGapsWithoutDelayingRequests) {
  // Reads of segment 0 one second apart: the move fits in the first gap, no
  // request waits for it, and the reads after it are served fast.
  std::vector<TraceRecord> trace;
  for (int i = 0; i < 5; ++i) trace.push_back(Read(uint64_t(i) * 1000000000, 0));
  SimConfig c = Config("promote-zero", 10 * kSeg);
  PromoteSegmentZero policy;
  SimResult r;
  std::string error;
  ASSERT_TRUE(Simulate(trace, c, &policy, nullptr, &r, &error)) << error;
  EXPECT_EQ(1u, r.moves);
  EXPECT_EQ(4096u, r.migrated_bytes);  // what the segment holds, as the store moves it
  EXPECT_EQ(0u, r.forced_chunks);
  EXPECT_NEAR(0.2, r.tiers[1].hit_ratio, 1e-9);  // only the first read was slow
  EXPECT_NEAR((ServiceUs("hdd", false, 4096) + 4 * ServiceUs("optane", false, 4096)) / 5,
              r.avg_latency_us, 0.01);
}

// PromoteSegmentZero that also wants segment 1 moved to tier 0, which has
// room for one segment only, and records what the engine reports back.
class PromoteTwo : public PromoteSegmentZero {
 public:
  void Plan(const StorageView& view, size_t, std::vector<Move>* moves) override {
    for (uint64_t seg : {0, 1}) {
      SegmentInfo info;
      if (planned_ < 2 && view.Lookup(SegmentRef{0, seg}, &info) && info.tier != 0) {
        Move m;
        m.ref = SegmentRef{0, seg};
        m.to = 0;
        moves->push_back(m);
        planned_++;
      }
    }
  }
  void OnMoveDone(const Move& move, bool made) override { done.push_back({move.ref.segment, made}); }
  std::vector<std::pair<uint64_t, bool>> done;

 private:
  int planned_ = 0;
};

TEST(SimulatorTest, ThePolicyHearsOfEveryPlannedMoveMadeOrSkipped) {
  // Enough requests for the request clock, which advances a block of 64 at a
  // time (engine/request_clock.h), to call for a second plan.
  std::vector<TraceRecord> trace;
  for (int i = 0; i < 200; ++i) trace.push_back(Read(uint64_t(i) * 10000000, uint64_t(i % 2) * kSeg));
  // Segment 0 moves before segment 1 is first read, holding the 4 KiB read
  // so far: room for it (and the file's block), not for segment 1 too.
  SimConfig c = Config("promote-two", 4096 + kFileBlock);
  PromoteTwo policy;
  SimResult r;
  std::string error;
  ASSERT_TRUE(Simulate(trace, c, &policy, nullptr, &r, &error)) << error;
  // Segment 0 moves up; segment 1 finds no room and is skipped.
  ASSERT_EQ(2u, policy.done.size());
  EXPECT_EQ((std::pair<uint64_t, bool>{0, true}), policy.done[0]);
  EXPECT_EQ((std::pair<uint64_t, bool>{1, false}), policy.done[1]);
  EXPECT_EQ(1u, r.moves);
  EXPECT_EQ(1u, r.moves_skipped);
}

// A policy due to plan at every request that never has a move to give.
class PlansNothing : public PromoteSegmentZero {
 public:
  void Plan(const StorageView&, size_t, std::vector<Move>*) override {}
};

TEST(SimulatorTest, AnIdleMigrationThreadLooksForWorkOnlyAfterItsNap) {
  // A read every 100 us for one second: the policy is due at every tick of
  // the request clock (every 64 requests, 6.4 ms), but the store's
  // migration thread, having found nothing to run, naps kIdleLookNanos
  // (20 ms) before it asks again, and so does the replay's.
  std::vector<TraceRecord> trace;
  const uint64_t n = 10000, gap_ns = 100000;
  for (uint64_t i = 0; i < n; ++i) trace.push_back(Read(i * gap_ns, (i % 8) * kSeg));
  SimConfig c = Config("plans-nothing", 10 * kSeg, "optane");
  c.replay = SimConfig::Replay::kOpen;
  c.migration.fast_headroom_pct = 100;  // no fill either: no plan has a move
  PlansNothing policy;
  SimResult r;
  std::string error;
  ASSERT_TRUE(Simulate(trace, c, &policy, nullptr, &r, &error)) << error;
  const uint64_t looks = n * gap_ns / uint64_t(kIdleLookNanos) + 1;  // at most, one a nap
  EXPECT_LE(r.plans, looks);
  EXPECT_GE(r.plans, looks * 3 / 4);  // and it does look again
}

TEST(SimulatorTest, ABusyDeviceGetsForcedChunksOnlyAfterWaiting) {
  // Back-to-back HDD reads with no think time: the devices never idle, so
  // the chunk waits 10 ms of virtual time and then goes anyway.
  std::vector<TraceRecord> trace = {Read(0, 0)};
  for (int i = 0; i < 20; ++i) trace.push_back(Read(0, uint64_t(i + 1) * kSeg * 7));
  SimConfig c = Config("promote-zero", 10 * kSeg);
  PromoteSegmentZero policy;
  SimResult r;
  std::string error;
  ASSERT_TRUE(Simulate(trace, c, &policy, nullptr, &r, &error)) << error;
  EXPECT_EQ(1u, r.forced_chunks);
  EXPECT_EQ(1u, r.moves);

  c.migration.enabled = false;  // and without migration, nothing moves
  PromoteSegmentZero again;
  ASSERT_TRUE(Simulate(trace, c, &again, nullptr, &r, &error)) << error;
  EXPECT_EQ(0u, r.moves);
  EXPECT_EQ(0u, r.migrated_bytes);
}

TEST(SimulatorTest, AWriteDropsTheExtraCopy) {
  // As in the file system: a write to a replicated segment drops the copy
  // (which would be stale), so the next read is served by the home.
  class ReplicateZero : public PromoteSegmentZero {
   public:
    void Plan(const StorageView& view, size_t, std::vector<Move>* moves) override {
      SegmentInfo info;
      if (!done_ && view.Lookup(SegmentRef{0, 0}, &info)) {
        moves->push_back(Move{Move::kReplicate, SegmentRef{0, 0}, 0});
        done_ = true;
      }
    }
    bool done_ = false;
  };
  std::vector<TraceRecord> trace = {Read(0, 0), Read(1000000000, 0), Read(2000000000, 0),
                                    Read(3000000000, 0)};
  trace[2].type = IoType::kWrite;
  ReplicateZero policy;
  SimResult r;
  std::string error;
  ASSERT_TRUE(Simulate(trace, Config("x", 10 * kSeg), &policy, nullptr, &r, &error)) << error;
  EXPECT_EQ(1u, r.moves);
  // Read 1 from the copy on tier 0; reads 0 and 3 and the write from the home.
  EXPECT_EQ(1u, r.tiers[0].served);
  EXPECT_EQ(3u, r.tiers[1].served);
}

TEST(SimulatorTest, AWriteAnywhereInAFileDropsItsCopies) {
  // As SegmentWriter::Write: the first write to a file with copies drops
  // them all, not only the written segment's.
  class ReplicateZero : public PromoteSegmentZero {
   public:
    void Plan(const StorageView& view, size_t, std::vector<Move>* moves) override {
      SegmentInfo info;
      if (!done_ && view.Lookup(SegmentRef{0, 0}, &info)) {
        moves->push_back(Move{Move::kReplicate, SegmentRef{0, 0}, 0});
        done_ = true;
      }
    }
    bool done_ = false;
  };
  std::vector<TraceRecord> trace = {Read(0, 0), Read(1000000000, 0), Read(2000000000, kSeg),
                                    Read(3000000000, 0)};
  trace[2].type = IoType::kWrite;  // segment 1
  ReplicateZero policy;
  SimResult r;
  std::string error;
  ASSERT_TRUE(Simulate(trace, Config("x", 10 * kSeg), &policy, nullptr, &r, &error)) << error;
  EXPECT_EQ(1u, r.moves);
  // Read 1 from the copy; read 3, after the write to segment 1, from the home.
  EXPECT_EQ(1u, r.tiers[0].served);
  EXPECT_EQ(3u, r.tiers[1].served);
}

TEST(SimulatorTest, AReplayStartsWithTheCopiesTheStoreTookBack) {
  // A store whose tier 0 holds page copies of four pages of table 7 at its
  // open (saved at the last close): its first reads of them hit. The replay
  // given that state does the same; without it, nothing is copied yet.
  SimConfig config = Config("fast-first", 4 << 20, "sata-ssd");
  config.copies.blocks = false;
  config.copies.page = 8192;
  const uint64_t page = config.copies.page;
  const uint64_t reserve = (4u << 20) / 100 * config.copies.share_pct / page * page;
  CapacityAccount account(4 << 20);
  account.SetCopyReserve(reserve);
  std::string error;
  std::unique_ptr<Policy> policy = NewPolicy("fast-first", {}, &error);
  ASSERT_TRUE(policy) << error;
  PageCopies::Config c;
  c.page = page;
  c.slots = reserve / page;
  c.blocks = false;
  PageCopies copies(c, policy.get(), &account, [] {}, [](uint64_t, uint64_t) {});
  for (uint64_t p = 0; p < 4; ++p) {
    Policy::CopyCandidate candidate;
    candidate.file_id = 7;
    candidate.kind = FileKind::kSst;
    candidate.page = p;
    for (int i = 0; i < 4; ++i) {  // misses until the sketch admits it
      PageCopies::Fill f = copies.OnMiss(candidate, /*blocking=*/true);
      if (f.slot >= 0) {
        ASSERT_TRUE(copies.Publish(f));
        break;
      }
    }
  }
  std::string state;
  ASSERT_TRUE(copies.SaveState({{7, 1 << 20}}, [&](const std::string& bytes) {
    state = bytes;
    return true;
  }));
  const std::string file = testing::TempDir() + "/sim-copies.state";
  std::ofstream(file, std::ios::binary) << PageCopies::StateFileBytes(state);

  std::vector<TraceRecord> trace;
  for (uint64_t p = 0; p < 4; ++p) {
    TraceRecord r = Read(p * 1000000, p * page, 4096);
    r.file_id = 7;
    r.kind = FileKind::kSst;
    r.tier = 1;  // where the capture found the table
    trace.push_back(r);
  }
  SimResult cold = Replay(trace, config);
  EXPECT_EQ(0u, cold.tiers[0].page_hits);
  EXPECT_EQ(0u, cold.copies_restored);
  config.copies_state_file = file;
  SimResult warm = Replay(trace, config);
  EXPECT_EQ(4u, warm.copies_restored);
  EXPECT_EQ(4u, warm.tiers[0].page_hits);

  // The store's trace says tier 0 served a read a restored copy answered:
  // the segment's home is below tier 0 all the same (copies are made of
  // bytes tier 0 does not serve), and the copy serves the read.
  for (TraceRecord& r : trace) r.tier = 0;
  SimResult said_fast = Replay(trace, config);
  EXPECT_EQ(4u, said_fast.tiers[0].page_hits);
  EXPECT_EQ(kSeg, said_fast.tiers[1].peak_used - kFileBlock) << ResultJson(said_fast, config);

  // A state the copies cannot take is forgotten, as the store forgets it:
  // the replay starts with none and says why. A file that cannot be read is
  // an error naming it.
  config.copies.page = 16384;
  SimResult other = Replay(trace, config);
  EXPECT_EQ(0u, other.copies_restored);
  EXPECT_EQ(0u, other.tiers[0].page_hits);
  EXPECT_NE(std::string::npos, other.copies_refused.find("another configuration"))
      << other.copies_refused;
  config.copies.page = page;
  std::ofstream(file, std::ios::binary) << "not a state";
  EXPECT_EQ("not a saved copy state", Replay(trace, config).copies_refused);
  config.copies_state_file = file + ".missing";
  SimResult r;
  EXPECT_FALSE(RunPolicy(trace, config, &r, &error));
  EXPECT_NE(std::string::npos, error.find(file + ".missing")) << error;
}

TEST(SimulatorTest, AReplayGoesOnFromTheStoresClockAndPlansAtOnceAsTheStoreDid) {
  // A capture of a reopened store begins with its request clock (a `start`
  // event: it goes on from the last process's) and what it held. The
  // store's migration engine, its last plan at request 0, plans at once; so
  // does the replay. Fifty reads a millisecond apart: within neither the
  // plan interval's requests nor its time.
  std::vector<TraceRecord> trace;
  trace.push_back(MakeEvent(TraceEvent::kStart, 0, FileKind::kOther, 1 << 20, 0, -1));
  trace.push_back(MakeEvent(TraceEvent::kHeld, 5, FileKind::kSst, 0, kSeg, 1));
  for (int i = 0; i < 50; ++i) {
    TraceRecord r = Read(uint64_t(i) * 1000000, uint64_t(i % 16) * 4096);
    r.file_id = 5;
    r.kind = FileKind::kSst;
    trace.push_back(r);
  }
  const SimConfig config = Config("fast-first", 10 * kSeg);
  EXPECT_GE(Replay(trace, config).plans, 1u);
  std::vector<TraceRecord> from_zero(trace.begin() + 1, trace.end());
  EXPECT_EQ(0u, Replay(from_zero, config).plans);
}

TEST(SimulatorTest, AReplayGivesTheHeldSegmentsTheStatisticsTheStoreTookBack) {
  // A reopened store took back its segments' statistics (meta/STATS) and
  // its first plan, at once, promotes by them: of two table segments held
  // on the slow tier, the one its last process read most, where tier 0 has
  // room for one. Given the same file (--stats_in), the replay promotes it
  // too and serves its read from tier 0; without, the first plan has
  // nothing to rank and that read stays slow.
  const uint64_t start = 1 << 20;
  std::vector<TraceRecord> trace;
  trace.push_back(MakeEvent(TraceEvent::kStart, 0, FileKind::kOther, start, 0, -1));
  trace.push_back(MakeEvent(TraceEvent::kHeld, 5, FileKind::kSst, 0, 2 * kSeg, 1));
  trace.push_back(MakeEvent(TraceEvent::kHeld, 5, FileKind::kSst, 1, 2 * kSeg, 1));
  for (int i = 0; i < 50; ++i) {  // a plan interval's time, the devices idle
    TraceRecord r = Read(uint64_t(i) * 20000000, 0);
    r.file_id = 6;
    r.kind = FileKind::kOther;  // never moved
    r.tier = 1;                 // where the capture found it
    trace.push_back(r);
  }
  TraceRecord hot = Read(uint64_t(50) * 20000000, kSeg);
  hot.file_id = 5;
  hot.kind = FileKind::kSst;
  trace.push_back(hot);

  const std::string stats = testing::TempDir() + "/sim-STATS";
  auto write = [&](const std::string& segments) {
    std::ofstream(stats) << R"({"version": 1, "seq": )" << start
                         << R"(, "tiers": [], "files": [], "segments": )" << segments << "}";
  };
  // [file, segment, user reads, background reads, writes, migrations, heat,
  // last access, placed, last migration]; file 9 is not held: left alone.
  const std::string rows = "[[5, 1, 40, 0, 1, 0, 40.0, " + std::to_string(start - 10) +
                           ", 1, 0], [9, 0, 7, 0, 0, 0, 7.0, 5, 1, 0]";
  write(rows + "]");
  SimConfig config = Config("fast-first", kSeg + kFileBlock + kSeg / 2);
  config.stats_state_file = stats;
  const SimResult warm = Replay(trace, config);
  EXPECT_EQ(1u, warm.stats_restored);
  EXPECT_EQ("", warm.stats_refused);
  EXPECT_GE(warm.moves, 1u);
  EXPECT_EQ(1u, warm.tiers[0].user_reads) << "the hot segment's read";
  config.stats_state_file.clear();
  const SimResult cold = Replay(trace, config);
  EXPECT_EQ(0u, cold.stats_restored);
  EXPECT_EQ(0u, cold.tiers[0].user_reads);

  // A row without the times (7 fields, as files saved before the clock was)
  // gives the counts and heat alone: its last access stays the replay's
  // placement, so the heat is decayed from then, still the hottest.
  config.stats_state_file = stats;
  write("[[5, 1, 40, 0, 1, 0, 40.0]]");
  const SimResult untimed = Replay(trace, config);
  EXPECT_EQ(1u, untimed.stats_restored);
  EXPECT_EQ(1u, untimed.tiers[0].user_reads);

  // A damaged row ends the rows restored there, as at the store's open; a
  // malformed one is skipped; a file that is no statistics file is an error.
  write(rows + R"(, [5, 0, "many", 0, 0, 0, 1.0], [5, 0, 3, 0, 0, 0, 3.0]])");
  const SimResult damaged = Replay(trace, config);
  EXPECT_EQ(1u, damaged.stats_restored);
  EXPECT_NE(std::string::npos, damaged.stats_refused.find("segment row 2 is damaged"))
      << damaged.stats_refused;
  write(rows + ", [5, 0]]");
  EXPECT_NE(std::string::npos, Replay(trace, config).stats_refused.find("1 malformed rows skipped"));
  std::ofstream(stats) << "[1, 2, 3]";
  SimResult r;
  std::string error;
  EXPECT_FALSE(RunPolicy(trace, config, &r, &error));
  EXPECT_NE(std::string::npos, error.find("sim-STATS is not a TierFS statistics file")) << error;
}

TEST(SimulatorTest, TheOracleKeepsTheSegmentNeededSoonestFast) {
  // One hot segment read every other request among 1000 segments read once;
  // tier 0 holds one segment. Whatever comes first, the oracle keeps the
  // hot one fast; fast-first keeps the first segment it saw. (A file's
  // first segment on a tier also costs the file's block there.)
  std::vector<TraceRecord> trace;
  uint64_t t = 0;
  for (int i = 0; i < 1000; ++i) {
    trace.push_back(Read(t += 1000000, uint64_t(i + 1) * kSeg));
    trace.push_back(Read(t += 1000000, 0));
  }
  SimConfig c = Config("oracle", kSeg + kFileBlock);
  c.policy_params["interval"] = "16";
  SimResult oracle = Replay(trace, c);
  SimResult first = Replay(trace, Config("fast-first", kSeg + kFileBlock));
  EXPECT_GT(oracle.tiers[0].hit_ratio, 0.45);
  EXPECT_LT(first.tiers[0].hit_ratio, 0.01);
  EXPECT_LT(oracle.avg_latency_us, 0.6 * first.avg_latency_us);
}

TEST(SimulatorTest, TheGatedOracleEvictsOnlyForASegmentNeededWithinItsGate) {
  // Tier 0 holds one segment. Segment 1 fills it; segment 2, read again
  // next, displaces it (lru's victim); segment 3, read again only after
  // four requests, spills and leaves segment 2 fast for its next three
  // reads. lru evicts for both, fast-first for neither.
  std::vector<TraceRecord> trace;
  uint64_t t = 0;
  for (uint64_t segment : {1, 2, 2, 3, 2, 2, 2, 3}) trace.push_back(Read(t += 1000000, segment * kSeg));
  SimConfig c = Config("oracle", kSeg + kFileBlock);
  c.policy_params["gate"] = "2";
  EXPECT_EQ(6u, Replay(trace, c).tiers[0].served);
  EXPECT_EQ(5u, Replay(trace, Config("lru", kSeg + kFileBlock)).tiers[0].served);
  EXPECT_EQ(1u, Replay(trace, Config("fast-first", kSeg + kFileBlock)).tiers[0].served);
}

TEST(SimulatorTest, SameTraceConfigAndPolicyGiveTheSameBytes) {
  WorkloadOptions w;
  w.requests = 20000;
  w.seed = 7;
  std::vector<TraceRecord> trace;
  std::string error;
  ASSERT_TRUE(Generate("mix4", w, &trace, &error)) << error;
  for (const char* policy : {"hintstor", "lru", "mutant", "oracle"}) {
    SimConfig c;
    ASSERT_TRUE(MakeConfig("tri", Footprint(trace, kSeg), 10, kSeg, policy, &c, &error)) << error;
    SimResult a = Replay(trace, c), b = Replay(trace, c);
    EXPECT_EQ(FormatResult(a, c), FormatResult(b, c)) << policy;
    EXPECT_EQ(ResultJson(a, c), ResultJson(b, c)) << policy;
  }
  // A comparison gives the same tables whatever the number of threads.
  CompareOptions o;
  o.configs = {"perf", "cost"};
  o.workloads = {"ssd-02", "YCSB-F"};
  o.policies = {"fast-first", "hintstor", "oracle"};
  o.requests = 5000;
  std::vector<Cell> one, two;
  ASSERT_TRUE(Compare(o, &one, &error)) << error;
  o.jobs = 2;
  ASSERT_TRUE(Compare(o, &two, &error)) << error;
  EXPECT_EQ(ComparisonCsv(one), ComparisonCsv(two));
  EXPECT_EQ(ComparisonMarkdown(one, o.policies), ComparisonMarkdown(two, o.policies));
  EXPECT_EQ(2u * 2u * 4u, one.size());  // fast-only added
}

TEST(SimulatorTest, ATraceThatDoesNotFitIsAnError) {
  SimConfig c = Config("fast-first", kSeg);
  c.tiers[1].capacity = kSeg;
  SimResult r;
  std::string error;
  EXPECT_FALSE(RunPolicy({Read(0, 0), Read(1, kSeg), Read(2, 2 * kSeg)}, c, &r, &error));
  EXPECT_NE(std::string::npos, error.find("does not fit")) << error;
}

TEST(SimConfigTest, ReadsTheLiveGrammarWithoutDirectories) {
  SimConfig c;
  std::string error;
  ASSERT_TRUE(ParseSimConfig(
      "tierfs:///nowhere/fast:1G:optane,/nowhere/slow:1T:hdd;segment_size:256K;policy:hintstor;"
      "hintstor.interval:100;migration_rate:32M",
      &c, &error))
      << error;
  ASSERT_EQ(2u, c.tiers.size());
  EXPECT_EQ(1ull << 30, c.tiers[0].capacity);
  EXPECT_EQ("hdd", c.tiers[1].device.name);
  EXPECT_EQ(256u << 10, c.segment_size);
  EXPECT_EQ("hintstor", c.policy);
  EXPECT_EQ("100", c.policy_params["interval"]);
  EXPECT_EQ(32u << 20, c.migration.rate);

  EXPECT_FALSE(ParseSimConfig("tierfs:///a:1G:floppy", &c, &error));
  EXPECT_NE(std::string::npos, error.find("floppy")) << error;
  EXPECT_FALSE(ParseSimConfig("tierfs:///a:1G;policy:lru;mutant.min_age:5", &c, &error));
  EXPECT_NE(std::string::npos, error.find("mutant.min_age")) << error;
  EXPECT_FALSE(ParseSimConfig("tierfs:///a:1G;colour:blue", &c, &error));
  EXPECT_NE(std::string::npos, error.find("colour")) << error;
  EXPECT_FALSE(ParseSimConfig("tierfs:///a:1G;segment_size:whole", &c, &error));
  EXPECT_NE(std::string::npos, error.find("segment_size")) << error;

  SimConfig bad = Config("no-such-policy", kSeg);
  SimResult r;
  EXPECT_FALSE(RunPolicy({Read(0, 0)}, bad, &r, &error));
  EXPECT_NE(std::string::npos, error.find("no-such-policy")) << error;
  EXPECT_FALSE(MakeConfig("fastest", 1 << 20, 10, kSeg, "lru", &c, &error));
  EXPECT_NE(std::string::npos, error.find("fastest")) << error;
}

TEST(SimConfigTest, PresetsSizeTheTiersToTheFootprint) {
  SimConfig c;
  std::string error;
  ASSERT_TRUE(MakeConfig("tri", 100 * kSeg, 10, kSeg, "lru", &c, &error)) << error;
  ASSERT_EQ(3u, c.tiers.size());
  EXPECT_EQ(10 * kSeg, c.tiers[0].capacity);
  EXPECT_EQ(30 * kSeg, c.tiers[1].capacity);
  EXPECT_EQ(200 * kSeg, c.tiers[2].capacity);
  EXPECT_EQ("sata-ssd", c.tiers[1].device.name);
  // fast-only: the fast tier holds everything.
  ASSERT_TRUE(MakeConfig("cost", 100 * kSeg, 10, kSeg, "fast-only", &c, &error)) << error;
  EXPECT_EQ(210 * kSeg, c.tiers[0].capacity);
}

}  // namespace
}  // namespace sim
}  // namespace tierfs
