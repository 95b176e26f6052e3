// The heuristic policies' decisions, against a storage made up in memory: no
// RocksDB, no files. Each test builds the tiers and placed segments it needs
// and checks what the policy places, evicts or plans.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "agents/policy.h"

namespace tierfs {
namespace {

constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kSeg = kMiB;

// A StorageView over a vector of segments. A tier's use is the bytes of the
// homes and copies on it plus `extra` (metadata, reservations).
class FakeView : public StorageView {
 public:
  explicit FakeView(std::vector<uint64_t> capacity)
      : capacity_(std::move(capacity)), extra_(capacity_.size(), 0) {}

  int NumTiers() const override { return int(capacity_.size()); }
  uint64_t Capacity(int tier) const override { return capacity_[size_t(tier)]; }
  uint64_t Used(int tier) const override {
    uint64_t used = extra_[size_t(tier)];
    for (const SegmentInfo& s : segments) {
      if (s.tier == tier) used += s.bytes;
      if (s.copy_tier == tier) used += s.bytes;
    }
    return used;
  }
  uint64_t Now() const override { return now; }
  uint64_t SegmentSize() const override { return kSeg; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    for (const SegmentInfo& s : segments) fn(s);
  }

  // Adds a segment of an old SST file, placed at seq 1 and never accessed.
  SegmentInfo& Add(uint64_t file, uint64_t segment, int tier, uint64_t bytes = kSeg) {
    SegmentInfo s;
    s.ref = {file, segment};
    s.kind = FileKind::kSst;
    s.bytes = bytes;
    s.file_bytes = bytes;
    s.tier = tier;
    s.stats.placed = 1;
    segments.push_back(s);
    return segments.back();
  }
  // Adds a whole file of `count` segments; returns the index of its first.
  size_t AddFile(uint64_t file, int count, int tier, uint32_t user_reads_each = 0) {
    size_t first = segments.size();
    for (int i = 0; i < count; ++i) {
      Add(file, uint64_t(i), tier).stats.user_reads = user_reads_each;
    }
    for (size_t i = first; i < segments.size(); ++i) segments[i].file_bytes = kSeg * count;
    return first;
  }
  SegmentInfo* Find(uint64_t file, uint64_t segment) {
    for (SegmentInfo& s : segments) {
      if (s.ref.file_id == file && s.ref.segment == segment) return &s;
    }
    return nullptr;
  }
  void SetExtra(int tier, uint64_t bytes) { extra_[size_t(tier)] = bytes; }

  std::vector<SegmentInfo> segments;
  uint64_t now = 1 << 20;

 private:
  std::vector<uint64_t> capacity_;
  std::vector<uint64_t> extra_;
};

std::unique_ptr<Policy> Make(const std::string& name, const PolicyParams& params = {}) {
  std::string error;
  std::unique_ptr<Policy> policy = NewPolicy(name, params, &error);
  EXPECT_NE(policy, nullptr) << error;
  return policy;
}

PlacementRequest NewSegment(uint64_t file, uint64_t segment, FileKind kind = FileKind::kSst,
                            uint64_t write_size = kMiB) {
  PlacementRequest r;
  r.seq = 1000;
  r.file_id = file;
  r.kind = kind;
  r.segment = segment;
  r.bytes = kSeg;
  r.write_size = write_size;
  return r;
}

Request UserRead(uint64_t file, uint64_t seq) {
  Request r;
  r.seq = seq;
  r.file_id = file;
  r.kind = FileKind::kSst;
  r.size = 4096;
  r.type = IoType::kUserRead;
  return r;
}

bool IsMove(const Move& m, Move::Op op, uint64_t file, uint64_t segment, int to) {
  return m.op == op && m.ref == SegmentRef{file, segment} && (op == Move::kDropCopy || m.to == to);
}

std::string Describe(const std::vector<Move>& moves) {
  std::string out;
  for (const Move& m : moves) {
    out += std::string(DataOpName(m.op)) + " " + std::to_string(m.ref.file_id) + "/" +
           std::to_string(m.ref.segment) + "->" + std::to_string(m.to) + "; ";
  }
  return out;
}

// --- the registry --------------------------------------------------------------

TEST(HintNamesTest, EveryValueRoundTripsAndOthersAreRefused) {
  for (int i = 0; i <= int(AccessHint::kArchival); ++i) {
    AccessHint h = AccessHint::kHot;
    EXPECT_TRUE(ParseAccessHint(AccessHintName(AccessHint(i)), &h)) << i;
    EXPECT_EQ(AccessHint(i), h);
  }
  for (int i = 0; i <= int(DataOp::kDropCopy); ++i) {
    DataOp op = DataOp::kMigrate;
    EXPECT_TRUE(ParseDataOp(DataOpName(DataOp(i)), &op)) << i;
    EXPECT_EQ(DataOp(i), op);
  }
  AccessHint h = AccessHint::kCold;
  EXPECT_FALSE(ParseAccessHint("lukewarm", &h));
  EXPECT_EQ(AccessHint::kCold, h);
  DataOp op = DataOp::kPrefetch;
  EXPECT_FALSE(ParseDataOp("teleport", &op));
  EXPECT_EQ(DataOp::kPrefetch, op);
  EXPECT_STREQ("?", AccessHintName(AccessHint(77)));
  EXPECT_STREQ("?", DataOpName(DataOp(77)));
}

TEST(PolicyRegistryTest, EveryNameConstructsAndAnswersToIt) {
  for (const std::string& name : PolicyNames()) {
    std::unique_ptr<Policy> policy = Make(name);
    ASSERT_NE(policy, nullptr) << name;
    EXPECT_EQ(name, policy->Name());
  }
}

TEST(PolicyRegistryTest, UnknownParameterIsAnErrorNamingIt) {
  std::string error;
  EXPECT_EQ(NewPolicy("mutant", {{"min_agee", "5"}}, &error), nullptr);
  EXPECT_NE(error.find("mutant"), std::string::npos) << error;
  EXPECT_NE(error.find("min_agee"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(NewPolicy("lru", {{"interval", "5"}}, &error), nullptr);
  EXPECT_NE(error.find("interval"), std::string::npos) << error;
}

TEST(PolicyRegistryTest, MalformedParameterIsAnErrorNamingIt) {
  std::string error;
  EXPECT_EQ(NewPolicy("hintstor", {{"interval", "often"}}, &error), nullptr);
  EXPECT_NE(error.find("hintstor.interval:often"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(NewPolicy("rocksdb-levels", {{"level_base", "12Q"}}, &error), nullptr);
  EXPECT_NE(error.find("level_base:12Q"), std::string::npos) << error;
}

TEST(PolicyRegistryTest, UnknownPolicyIsNamed) {
  std::string error;
  EXPECT_EQ(NewPolicy("lfu", {}, &error), nullptr);
  EXPECT_NE(error.find("'lfu'"), std::string::npos) << error;
}

TEST(PolicyRegistryTest, DocumentedParametersAreAccepted) {
  Make("cde", {{"random_size", "32K"}, {"hot_factor", "2"}, {"min_reads", "8"},
               {"half_life", "1000"}});
  Make("hintstor", {{"interval", "100"}, {"reserve", "0.2"}});
  Make("mutant", {{"interval", "100"}, {"min_age", "10"}, {"reserve", "0"},
                  {"half_life", "1000"}});
  Make("rocksdb-levels", {{"level_base", "64M"}, {"level_multiplier", "8"}, {"interval", "10"}});
}

// --- lru -----------------------------------------------------------------------

TEST(LruPolicyTest, PlacesNewDataOnTheFastestTierAndEvictsThere) {
  auto lru = Make("lru");
  FakeView view({2 * kSeg, 100 * kSeg});
  view.Add(1, 0, 0);
  view.Add(1, 1, 0);  // tier 0 is full
  EXPECT_EQ(0, lru->Place(NewSegment(2, 0), view));
  EXPECT_TRUE(lru->EvictsOnPlacement());
  EXPECT_EQ(0u, lru->PlanIntervalRequests());
}

TEST(LruPolicyTest, EvictsTheLeastRecentlyUsedSegmentsThatAreNotBusy) {
  auto lru = Make("lru");
  FakeView view({4 * kSeg, 100 * kSeg, 100 * kSeg});
  view.Add(1, 0, 0).stats.last_access = 50;
  SegmentInfo& busy = view.Add(2, 0, 0);
  busy.stats.last_access = 10;  // the oldest, but its file is being written
  busy.busy = true;
  view.Add(3, 0, 0).stats.placed = 20;  // never accessed: placement counts
  view.Add(4, 0, 0).stats.last_access = 100;
  view.Add(5, 0, 1).stats.last_access = 1;  // not on the tier

  std::vector<Move> moves;
  lru->Evict(0, 2 * kSeg, view, &moves);
  ASSERT_EQ(2u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 3, 0, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 1, 0, 1)) << Describe(moves);

  // Victims are whole segments; an eviction from tier 1 goes to tier 2.
  moves.clear();
  lru->Evict(1, 1, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 5, 0, 2)) << Describe(moves);
}

TEST(LruPolicyTest, DropsExtraCopiesBeforeMovingHomes) {
  auto lru = Make("lru");
  FakeView view({4 * kSeg, 100 * kSeg});
  view.Add(1, 0, 0).stats.last_access = 1;  // the least recent home
  SegmentInfo& copied = view.Add(2, 0, 1);  // home on tier 1, copy on tier 0
  copied.copy_tier = 0;
  copied.stats.last_access = 99;

  std::vector<Move> moves;
  lru->Evict(0, 2 * kSeg, view, &moves);
  ASSERT_EQ(2u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kDropCopy, 2, 0, 0)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 1, 0, 1)) << Describe(moves);
}

TEST(LruPolicyTest, KeepsItsCandidatesBetweenEvictionsAndChecksThemAgain) {
  auto lru = Make("lru");
  FakeView view({4 * kSeg, 100 * kSeg});
  view.Add(1, 0, 0).stats.last_access = 1;
  view.Add(2, 0, 0).stats.last_access = 2;
  view.Add(3, 0, 0).stats.last_access = 3;
  std::vector<Move> moves;
  lru->Evict(0, kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 1, 0, 1)) << Describe(moves);
  view.segments[0].tier = 1;  // the move ran

  // Segment 2 was read since the scan: no longer the least recent.
  view.segments[1].stats.last_access = 10;
  moves.clear();
  lru->Evict(0, kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 3, 0, 1)) << Describe(moves);
  view.segments[2].tier = 1;

  // The heap ran out: a new scan finds segment 2 (and no move made twice).
  moves.clear();
  lru->Evict(0, 3 * kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 2, 0, 1)) << Describe(moves);
}

TEST(LruPolicyTest, TheSlowestTierCanOnlyDropCopies) {
  auto lru = Make("lru");
  FakeView view({4 * kSeg, 4 * kSeg});
  view.Add(1, 0, 1);
  SegmentInfo& copied = view.Add(2, 0, 0);
  copied.copy_tier = 1;
  std::vector<Move> moves;
  lru->Evict(1, 3 * kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kDropCopy, 2, 0, 1)) << Describe(moves);
}

// --- cde -----------------------------------------------------------------------

TEST(CdePolicyTest, SmallRandomWritesGoFastLargeSequentialOnesSlow) {
  auto cde = Make("cde");
  FakeView view({16 * kSeg, 64 * kSeg, 256 * kSeg});
  EXPECT_EQ(0, cde->Place(NewSegment(1, 0, FileKind::kWal, 4096), view));
  EXPECT_EQ(0, cde->Place(NewSegment(1, 1, FileKind::kWal, kMiB), view));  // a WAL always
  EXPECT_EQ(0, cde->Place(NewSegment(2, 0, FileKind::kSst, 4096), view));
  EXPECT_EQ(0, cde->Place(NewSegment(2, 1, FileKind::kSst, 64 * 1024 - 1), view));
  EXPECT_EQ(2, cde->Place(NewSegment(3, 0, FileKind::kSst, 64 * 1024), view));
  EXPECT_EQ(2, cde->Place(NewSegment(3, 1, FileKind::kSst, kMiB), view));
  EXPECT_EQ(2, cde->Place(NewSegment(4, 0, FileKind::kBlob, kMiB), view));
}

TEST(CdePolicyTest, HintsDecideHotnessBeforeSize) {
  auto cde = Make("cde");
  FakeView view({16 * kSeg, 256 * kSeg});
  for (AccessHint hot : {AccessHint::kHot, AccessHint::kReadIntensive,
                         AccessHint::kWriteIntensive}) {
    PlacementRequest r = NewSegment(1, 3);  // large and sequential
    r.hints.access = hot;
    EXPECT_EQ(0, cde->Place(r, view)) << AccessHintName(hot);
  }
  for (AccessHint cold : {AccessHint::kCold, AccessHint::kArchival}) {
    PlacementRequest r = NewSegment(1, 3, FileKind::kSst, 4096);  // small and random
    r.hints.access = cold;
    EXPECT_EQ(1, cde->Place(r, view)) << AccessHintName(cold);
  }
  PlacementRequest warm = NewSegment(2, 0);
  warm.hints.temperature = Temperature::kHot;
  EXPECT_EQ(0, cde->Place(warm, view));
  PlacementRequest cold = NewSegment(2, 0, FileKind::kSst, 4096);
  cold.hints.temperature = Temperature::kCold;
  EXPECT_EQ(1, cde->Place(cold, view));
}

TEST(CdePolicyTest, ReadsMakeAStreamHotUntilTheyDecay) {
  auto cde = Make("cde", {{"half_life", "1000"}, {"min_reads", "32"}});
  FakeView view({16 * kSeg, 256 * kSeg});
  auto level = [](uint64_t file, int level) {
    PlacementRequest r = NewSegment(file, 0);
    r.seq = 10;
    r.hints.level = level;
    return r;
  };
  EXPECT_EQ(1, cde->Place(level(1, 0), view));  // no history yet: sequential, cold
  EXPECT_EQ(1, cde->Place(level(2, 5), view));
  for (uint64_t seq = 20; seq < 120; ++seq) cde->OnRequest(UserRead(1, seq), 0);
  cde->OnRequest(UserRead(2, 130), 0);

  EXPECT_EQ(0, cde->Place(level(3, 0), view));  // L0 is read: hot
  EXPECT_EQ(1, cde->Place(level(4, 5), view));  // L5 is not
  // Another column family's L0 is a stream of its own.
  PlacementRequest other = level(5, 0);
  other.hints.column_family = 3;
  EXPECT_EQ(1, cde->Place(other, view));

  // Two half-lives later L0 has 100/4 < 32 reads left.
  cde->OnRequest(UserRead(9, 2100), 0);
  PlacementRequest later = level(6, 0);
  later.seq = 2100;
  EXPECT_EQ(1, cde->Place(later, view));
}

TEST(CdePolicyTest, ConcurrentReadsAreAllCounted) {
  auto cde = Make("cde", {{"min_reads", "40000"}});
  FakeView view({16 * kSeg, 256 * kSeg});
  PlacementRequest first = NewSegment(1, 0);
  first.hints.level = 1;
  ASSERT_EQ(1, cde->Place(first, view));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cde] {
      for (uint64_t i = 0; i < 10000; ++i) cde->OnRequest(UserRead(1, 100 + i), 0);
    });
  }
  for (std::thread& t : threads) t.join();
  PlacementRequest next = NewSegment(2, 0);
  next.hints.level = 1;
  EXPECT_EQ(0, cde->Place(next, view));  // 40000 reads: every one counted
}

TEST(CdePolicyTest, EvictsLeastRecentlyUsedOnPlacement) {
  auto cde = Make("cde");
  FakeView view({2 * kSeg, 256 * kSeg});
  view.Add(1, 0, 0).stats.last_access = 30;
  view.Add(2, 0, 0).stats.last_access = 20;
  EXPECT_TRUE(cde->EvictsOnPlacement());
  std::vector<Move> moves;
  cde->Evict(0, kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 2, 0, 1)) << Describe(moves);
}

// --- hintstor ------------------------------------------------------------------

TEST(HintStorPolicyTest, StaticHintsRedirectNewSegments) {
  auto hs = Make("hintstor");
  FakeView view({16 * kSeg, 64 * kSeg, 256 * kSeg});
  EXPECT_EQ(0, hs->Place(NewSegment(1, 7, FileKind::kWal), view));
  EXPECT_EQ(0, hs->Place(NewSegment(2, 0), view));  // a small file fits in segment 0
  EXPECT_EQ(2, hs->Place(NewSegment(2, 1), view));  // the rest of a large file
  PlacementRequest archival = NewSegment(3, 0);
  archival.hints.access = AccessHint::kArchival;
  EXPECT_EQ(2, hs->Place(archival, view));
  PlacementRequest hot = NewSegment(4, 9);
  hot.hints.access = AccessHint::kReadIntensive;
  EXPECT_EQ(0, hs->Place(hot, view));
  PlacementRequest pinned = NewSegment(5, 9);
  pinned.hints.pinned_tier = 1;
  EXPECT_EQ(1, hs->Place(pinned, view));

  view.SetExtra(2, 256 * kSeg);  // the slowest tier is full
  EXPECT_EQ(1, hs->Place(NewSegment(2, 2), view));
}

// Tier 0 holds 4 segments (no reserve), all cold; tier 1 holds 6 hot ones.
class HintStorPlanTest : public ::testing::Test {
 protected:
  HintStorPlanTest() : view_({4 * kSeg, 100 * kSeg}) {
    hs_ = Make("hintstor", {{"reserve", "0"}});
    for (uint64_t f = 1; f <= 4; ++f) {
      SegmentInfo& s = view_.Add(f, 0, 0);
      s.stats.heat = double(f);  // 1..4
      s.stats.last_access = view_.now;
    }
    for (uint64_t f = 11; f <= 16; ++f) {
      SegmentInfo& s = view_.Add(f, 0, 1);
      s.stats.heat = double(f * 10);  // 110..160
      s.stats.last_access = view_.now;
    }
  }
  std::vector<Move> Plan(size_t max) {
    std::vector<Move> moves;
    hs_->Plan(view_, max, &moves);
    return moves;
  }

  FakeView view_;
  std::unique_ptr<Policy> hs_;
};

TEST_F(HintStorPlanTest, PromotesTheHottestIntoCapacityAfterDemotingTheColdest) {
  EXPECT_EQ(uint64_t(1) << 14, hs_->PlanIntervalRequests());
  std::vector<Move> moves = Plan(100);
  ASSERT_EQ(8u, moves.size()) << Describe(moves);
  // Demotions first, coldest first, to the slowest tier.
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(IsMove(moves[i], Move::kMigrate, 1 + i, 0, 1)) << Describe(moves);
  }
  // Then the top 4, hottest first.
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(IsMove(moves[4 + i], Move::kMigrate, 16 - i, 0, 0)) << Describe(moves);
  }
}

TEST_F(HintStorPlanTest, KeepsWithinMaxAndEachPromotionAfterItsRoom) {
  std::vector<Move> moves = Plan(3);
  ASSERT_EQ(2u, moves.size()) << Describe(moves);  // a third move would be a useless demotion
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 1, 0, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 16, 0, 0)) << Describe(moves);
  EXPECT_TRUE(Plan(0).empty());
}

TEST_F(HintStorPlanTest, NeverMovesBusySegments) {
  view_.Find(16, 0)->busy = true;  // the hottest, being written
  view_.Find(1, 0)->busy = true;   // the coldest, being written
  std::vector<Move> moves = Plan(100);
  for (const Move& m : moves) {
    EXPECT_NE(16u, m.ref.file_id) << Describe(moves);
    EXPECT_NE(1u, m.ref.file_id) << Describe(moves);
  }
  // Three cold ones make room for the next three hot ones.
  ASSERT_EQ(6u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[3], Move::kMigrate, 15, 0, 0)) << Describe(moves);
}

TEST_F(HintStorPlanTest, UsesFreeRoomWithoutDemoting) {
  view_.segments.erase(view_.segments.begin(), view_.segments.begin() + 2);  // files 1, 2
  std::vector<Move> moves = Plan(100);
  ASSERT_EQ(6u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 3, 0, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 4, 0, 1)) << Describe(moves);
  for (size_t i = 2; i < 6; ++i) EXPECT_EQ(0, moves[i].to) << Describe(moves);
}

TEST_F(HintStorPlanTest, LeavesTheTierAloneWhenItHoldsTheHottest) {
  for (SegmentInfo& s : view_.segments) {
    if (s.tier == 0) s.stats.heat *= 1000;  // tier 0 now holds the four hottest
  }
  EXPECT_TRUE(Plan(100).empty()) << Describe(Plan(100));
}

TEST_F(HintStorPlanTest, DropsACopyRatherThanMovingItsHome) {
  SegmentInfo* cold = view_.Find(1, 0);
  cold->tier = 1;
  cold->copy_tier = 0;
  std::vector<Move> moves = Plan(2);
  ASSERT_EQ(2u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[0], Move::kDropCopy, 1, 0, 0)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 16, 0, 0)) << Describe(moves);
}

// --- mutant --------------------------------------------------------------------

TEST(MutantPolicyTest, PlacesOnTier0WhileTheReserveHolds) {
  auto mutant = Make("mutant", {{"reserve", "0.25"}});
  FakeView view({8 * kSeg, 64 * kSeg, 256 * kSeg});
  EXPECT_EQ(0, mutant->Place(NewSegment(1, 0), view));
  view.SetExtra(0, 5 * kSeg);  // 3 free, 2 reserved: one more fits
  EXPECT_EQ(0, mutant->Place(NewSegment(1, 1), view));
  view.SetExtra(0, 6 * kSeg);
  EXPECT_EQ(1, mutant->Place(NewSegment(1, 2), view));
  EXPECT_EQ(0, mutant->Place(NewSegment(2, 0, FileKind::kWal), view));
}

TEST(MutantPolicyTest, PromotesTheFilesWithMostReadsPerByteWithinCapacity) {
  auto mutant = Make("mutant", {{"reserve", "0"}});
  EXPECT_EQ(uint64_t(1) << 13, mutant->PlanIntervalRequests());
  FakeView view({4 * kSeg, 100 * kSeg});
  view.AddFile(1, 2, 1, 50);   // 100 reads over 2 MiB
  view.AddFile(2, 1, 1, 80);   // 80 reads over 1 MiB: the hottest per byte
  view.AddFile(3, 4, 1, 30);   // 120 reads over 4 MiB: most reads, coolest per byte
  std::vector<Move> moves;
  mutant->Plan(view, 100, &moves);
  ASSERT_EQ(3u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 2, 0, 0)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 1, 0, 0)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[2], Move::kMigrate, 1, 1, 0)) << Describe(moves);
}

TEST(MutantPolicyTest, DemotesColdFilesBeforePromotingHotOnes) {
  auto mutant = Make("mutant", {{"reserve", "0"}});
  FakeView view({4 * kSeg, 100 * kSeg});
  view.AddFile(1, 2, 0, 0);    // cold, on tier 0
  view.AddFile(2, 2, 0, 1);    // lukewarm, on tier 0
  view.AddFile(3, 2, 1, 100);  // hot, on tier 1
  std::vector<Move> moves;
  mutant->Plan(view, 100, &moves);
  ASSERT_EQ(4u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 1, 0, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[1], Move::kMigrate, 1, 1, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[2], Move::kMigrate, 3, 0, 0)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[3], Move::kMigrate, 3, 1, 0)) << Describe(moves);

  moves.clear();
  mutant->Plan(view, 1, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 1, 0, 1)) << Describe(moves);
}

TEST(MutantPolicyTest, LeavesYoungAndBusyFilesAlone) {
  auto mutant = Make("mutant", {{"reserve", "0"}, {"min_age", "1000"}});
  FakeView view({4 * kSeg, 100 * kSeg});
  view.AddFile(1, 4, 0, 0);  // cold, fills tier 0
  size_t hot = view.AddFile(2, 2, 1, 100);
  view.segments[hot + 1].stats.placed = view.now - 10;  // its newest segment is young
  std::vector<Move> moves;
  mutant->Plan(view, 100, &moves);
  EXPECT_TRUE(moves.empty()) << Describe(moves);

  view.segments[hot + 1].stats.placed = 1;  // old now, but being written to
  view.segments[hot].busy = true;
  mutant->Plan(view, 100, &moves);
  EXPECT_TRUE(moves.empty()) << Describe(moves);

  view.segments[hot].busy = false;
  mutant->Plan(view, 100, &moves);
  ASSERT_EQ(6u, moves.size()) << Describe(moves);  // file 1 goes down whole, then file 2 up
  EXPECT_TRUE(IsMove(moves[3], Move::kMigrate, 1, 3, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[4], Move::kMigrate, 2, 0, 0)) << Describe(moves);
}

TEST(MutantPolicyTest, TemperatureIsDecayedReadsNotTotalReads) {
  auto mutant = Make("mutant", {{"reserve", "0"}, {"half_life", "1000"}});
  FakeView view({2 * kSeg, 100 * kSeg});
  view.AddFile(1, 2, 1, 50);  // 100 reads
  view.AddFile(2, 2, 1, 0);
  std::vector<Move> moves;
  mutant->Plan(view, 100, &moves);
  ASSERT_EQ(2u, moves.size()) << Describe(moves);
  EXPECT_EQ(1u, moves[0].ref.file_id);
  for (SegmentInfo& s : view.segments) {
    if (s.ref.file_id == 1) s.tier = 0;  // the moves done
  }

  // Ten half-lives on, file 1 read no more and file 2 got 10 reads.
  view.now += 10 * 1000;
  for (SegmentInfo& s : view.segments) {
    if (s.ref.file_id == 2) s.stats.user_reads = 5;
  }
  moves.clear();
  mutant->Plan(view, 100, &moves);
  ASSERT_EQ(4u, moves.size()) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[0], Move::kMigrate, 1, 0, 1)) << Describe(moves);
  EXPECT_TRUE(IsMove(moves[2], Move::kMigrate, 2, 0, 0)) << Describe(moves);
}

// --- rocksdb-levels ------------------------------------------------------------

// Tier 0 holds L0 + L1 (2 x 256M), tier 1 holds L2 (2.5G), tier 2 the rest.
class RocksDBLevelsTest : public ::testing::Test {
 protected:
  RocksDBLevelsTest() : view_({600 * kMiB, 6 * 1024 * kMiB, uint64_t(1) << 40}) {}

  int TierOf(int level, int lifetime = 0, FileKind kind = FileKind::kSst) {
    PlacementRequest r = NewSegment(1, 0, kind);
    r.hints.level = level;
    r.hints.lifetime = lifetime;
    return policy_->Place(r, view_);
  }

  FakeView view_;
  std::unique_ptr<Policy> policy_ = Make("rocksdb-levels");
};

TEST_F(RocksDBLevelsTest, LevelsFillTheTiersInOrderOfTheirTargetSizes) {
  EXPECT_EQ(0, TierOf(0));
  EXPECT_EQ(0, TierOf(1));
  EXPECT_EQ(1, TierOf(2));
  EXPECT_EQ(2, TierOf(3));
  EXPECT_EQ(2, TierOf(6));
}

TEST_F(RocksDBLevelsTest, LifetimeHintsStandForUnknownLevels) {
  EXPECT_EQ(0, TierOf(-1, 3));  // MEDIUM: L0 or the base level
  EXPECT_EQ(1, TierOf(-1, 4));  // LONG: base + 1
  EXPECT_EQ(2, TierOf(-1, 5));  // EXTREME: deeper
  EXPECT_EQ(0, TierOf(-1, 2));  // SHORT: a WAL
  EXPECT_EQ(0, TierOf(-1, 0));  // nothing known
  EXPECT_EQ(2, TierOf(5, 3));   // the level, when known, wins
}

TEST_F(RocksDBLevelsTest, WalAndBlobFilesGoToTheFirstPath) {
  EXPECT_EQ(0, TierOf(-1, 2, FileKind::kWal));
  EXPECT_EQ(0, TierOf(5, 5, FileKind::kBlob));
}

TEST_F(RocksDBLevelsTest, ALevelOverItsTargetPushesTheNextOnesDownAndNothingMoves) {
  for (uint64_t i = 0; i < 4; ++i) {
    SegmentInfo& s = view_.Add(100 + i, 0, 0, 100 * kMiB);  // L1 holds 400M
    s.hints.level = 1;
  }
  SegmentInfo& wal = view_.Add(200, 0, 0, 1024 * kMiB);  // not a table: not counted
  wal.kind = FileKind::kWal;
  EXPECT_EQ(0, TierOf(1));  // as yet, by the targets
  EXPECT_EQ(4096u, policy_->PlanIntervalRequests());
  std::vector<Move> moves;
  policy_->Plan(view_, 100, &moves);
  EXPECT_TRUE(moves.empty());
  EXPECT_EQ(0, TierOf(0));  // flushes always write to the first path
  EXPECT_EQ(1, TierOf(1));  // 256M + 400M > 600M
  EXPECT_EQ(1, TierOf(2));  // 400M + 2.5G fit tier 1's 6G
  EXPECT_EQ(2, TierOf(3));
}

TEST(RocksDBLevelsParamsTest, LevelBaseAndMultiplierSetTheTargets) {
  FakeView view({600 * kMiB, 6 * 1024 * kMiB, uint64_t(1) << 40});
  auto policy = Make("rocksdb-levels", {{"level_base", "64M"}, {"level_multiplier", "4"}});
  auto tier_of = [&](int level) {
    PlacementRequest r = NewSegment(1, 0);
    r.hints.level = level;
    return policy->Place(r, view);
  };
  // 64 + 64 + 256 = 384M fit tier 0; L3 (1G) and L4 (4G) fit tier 1; L5 (16G) does not.
  EXPECT_EQ(0, tier_of(2));
  EXPECT_EQ(1, tier_of(3));
  EXPECT_EQ(1, tier_of(4));
  EXPECT_EQ(2, tier_of(5));
}

// --- rocksdb-temperature ----------------------------------------------------------

TEST(RocksDBTemperaturePolicyTest, WarmAndColdGoToTheSlowestTierTheRestToTier0) {
  auto policy = Make("rocksdb-temperature");
  FakeView view({kSeg, 100 * kSeg, 100 * kSeg});
  view.Add(1, 0, 0);  // tier 0 is full: still asked for (the file system spills)
  auto tier_of = [&](Temperature t, FileKind kind) {
    PlacementRequest r = NewSegment(2, 0, kind);
    r.hints.temperature = t;
    return policy->Place(r, view);
  };
  EXPECT_EQ(0, tier_of(Temperature::kUnknown, FileKind::kSst));
  EXPECT_EQ(0, tier_of(Temperature::kHot, FileKind::kSst));
  EXPECT_EQ(2, tier_of(Temperature::kWarm, FileKind::kSst));
  EXPECT_EQ(2, tier_of(Temperature::kCold, FileKind::kSst));
  EXPECT_EQ(0, tier_of(Temperature::kUnknown, FileKind::kWal));
  // It follows RocksDB: it never moves or evicts anything.
  EXPECT_EQ(0u, policy->PlanIntervalRequests());
  EXPECT_FALSE(policy->EvictsOnPlacement());
}

TEST(RocksDBTemperaturePolicyTest, ByNameButNotAmongThePoliciesThatDecide) {
  auto names = PolicyNames();
  EXPECT_EQ(names.end(), std::find(names.begin(), names.end(), "rocksdb-temperature"));
  EXPECT_STREQ("rocksdb-temperature", Make("rocksdb-temperature")->Name());
  std::string error;
  EXPECT_EQ(nullptr, NewPolicy("rocksdb-temperature", {{"interval", "5"}}, &error));
  EXPECT_NE(error.find("interval"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(nullptr, NewPolicy("lfu", {}, &error));
  EXPECT_NE(error.find("rocksdb-temperature"), std::string::npos) << error;  // listed as known
}

}  // namespace
}  // namespace tierfs
