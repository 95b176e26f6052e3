// The engine core (engine/): the rules the live store and the simulator share.
// Links the policies alone: no RocksDB, no files, no wall time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/migration.h"
#include "engine/page_copies.h"
#include "engine/placement.h"

namespace tierfs {
namespace {

// A view with fixed free space per tier.
class View : public StorageView {
 public:
  explicit View(std::vector<CapacityAccount*> tiers) : tiers_(std::move(tiers)) {}
  int NumTiers() const override { return int(tiers_.size()); }
  uint64_t Capacity(int t) const override { return tiers_[size_t(t)]->capacity(); }
  uint64_t Used(int t) const override { return tiers_[size_t(t)]->used(); }
  uint64_t Now() const override { return 0; }
  uint64_t SegmentSize() const override { return 4096; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>&) const override {}

 private:
  std::vector<CapacityAccount*> tiers_;
};

TEST(EngineTest, SpillOrderTriesTheWantedTierThenSlowerThenFaster) {
  std::vector<int> tried;
  auto none = [&](int t) {
    tried.push_back(t);
    return false;
  };
  EXPECT_EQ(-1, SpillOrder(1, 4, -1, none));
  EXPECT_EQ((std::vector<int>{1, 2, 3, 0}), tried);
  tried.clear();
  EXPECT_EQ(-1, SpillOrder(2, 4, 3, none));  // never the excluded tier
  EXPECT_EQ((std::vector<int>{2, 1, 0}), tried);
  EXPECT_EQ(3, SpillOrder(1, 4, -1, [](int t) { return t == 3 || t == 0; }));
}

TEST(EngineTest, AFileIsChargedItsBlockOncePerTier) {
  CapacityAccount tier(3 * 4096);
  uint8_t mask = 0;
  ASSERT_TRUE(ChargeForFile(tier, 0, &mask, 4096));
  EXPECT_EQ(2 * 4096u, tier.used());  // the data and the file's block
  ASSERT_TRUE(ChargeForFile(tier, 0, &mask, 4096));
  EXPECT_EQ(3 * 4096u, tier.used());
  EXPECT_FALSE(ChargeForFile(tier, 0, &mask, 1));  // full: nothing charged
  EXPECT_EQ(3 * 4096u, tier.used());
  tier.Release(2 * 4096);
  ReleaseFileBlock(tier, 0, &mask, /*still_there=*/true);
  EXPECT_EQ(4096u, tier.used());
  ReleaseFileBlock(tier, 0, &mask, /*still_there=*/false);
  EXPECT_EQ(0u, tier.used());
  EXPECT_EQ(0, mask);
}

TEST(EngineTest, ADeviceThatSaidFullTakesNothingUntilSpaceIsFreed) {
  CapacityAccount tier(1 << 20);
  tier.MarkDeviceFull();
  EXPECT_FALSE(tier.TryCharge(4096));
  tier.NoteSpaceFreed();
  EXPECT_TRUE(tier.TryCharge(4096));
}

TEST(EngineTest, TheFirstStepOfAMove) {
  Move m;
  m.ref = SegmentRef{1, 0};
  m.op = Move::kMigrate;
  m.to = 0;
  EXPECT_EQ(MoveStep::kNothing, FirstStep(m, 2, /*home=*/0, /*copy=*/-1));
  EXPECT_EQ(MoveStep::kCarry, FirstStep(m, 2, 1, -1));
  EXPECT_EQ(MoveStep::kCarry, FirstStep(m, 2, 1, 0));  // the copy goes first
  m.to = 2;
  EXPECT_EQ(MoveStep::kInvalid, FirstStep(m, 2, 1, -1));
  m.op = Move::kReplicate;
  m.to = 0;
  EXPECT_EQ(MoveStep::kNothing, FirstStep(m, 2, 1, 0));  // that copy exists
  EXPECT_EQ(MoveStep::kCarry, FirstStep(m, 2, 1, -1));
  m.op = Move::kDropCopy;
  EXPECT_EQ(MoveStep::kNothing, FirstStep(m, 2, 1, -1));
  EXPECT_EQ(MoveStep::kDropCopy, FirstStep(m, 2, 1, 0));
}

// Places on tier 0 and evicts; notes whether two of its Evict()/Plan() calls
// ever overlapped.
class OverlapProbe : public Policy {
 public:
  const char* Name() const override { return "probe"; }
  int Place(const PlacementRequest&, const StorageView&) override { return 0; }
  bool EvictsOnPlacement() const override { return true; }
  void Evict(int, uint64_t, const StorageView&, std::vector<Move>* moves) override {
    Enter();
    moves->push_back(Move());
  }
  uint64_t PlanIntervalRequests() const override { return 1; }
  void Plan(const StorageView&, size_t, std::vector<Move>*) override { Enter(); }
  std::atomic<int> inside{0}, overlaps{0}, calls{0};

 private:
  void Enter() {
    if (inside.fetch_add(1) != 0) overlaps++;
    calls++;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    inside.fetch_sub(1);
  }
};

TEST(EngineTest, EvictAndPlanNeverRunTogether) {
  CapacityAccount fast(4096), slow(1 << 30);
  fast.ForceCharge(4096);  // full: every placement evicts
  View view({&fast, &slow});
  OverlapProbe policy;
  PlacementEngine engine(&policy, MigrationOptions());
  PlacementRequest req;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int n = 0; n < 50; ++n) {
        EXPECT_EQ(0, engine.Choose(req, true, 4096, view, [](const Move&) {}));
      }
    });
  }
  threads.emplace_back([&] {
    std::vector<Move> moves;
    for (int n = 0; n < 50; ++n) engine.Plan(view, 10, &moves);
  });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(250, policy.calls.load());
  EXPECT_EQ(0, policy.overlaps.load());
}

TEST(EngineTest, EvictionStopsOnceThereIsRoom) {
  CapacityAccount fast(3 * 4096), slow(1 << 30);
  fast.ForceCharge(3 * 4096);
  View view({&fast, &slow});
  class ThreeVictims : public OverlapProbe {
    void Evict(int, uint64_t, const StorageView&, std::vector<Move>* moves) override {
      moves->resize(3);
    }
  } policy;
  PlacementEngine engine(&policy, MigrationOptions());
  int executed = 0;
  EXPECT_EQ(0, engine.Choose(PlacementRequest(), true, 4096, view, [&](const Move&) {
    executed++;
    fast.Release(4096);
  }));
  EXPECT_EQ(1, executed);
  // A pin wins, and metadata goes to tier 0 without asking the policy.
  PlacementRequest pinned;
  pinned.hints.pinned_tier = 1;
  EXPECT_EQ(1, engine.Choose(pinned, true, 4096, view, [](const Move&) {}));
  fast.ForceCharge(4096);
  EXPECT_EQ(0, engine.Choose(PlacementRequest(), false, 4096, view, [&](const Move&) {
    ADD_FAILURE() << "metadata placement evicted";
  }));
}

// Always places on tier `want`; records what the engine says it got.
class PlacementRecorder : public Policy {
 public:
  explicit PlacementRecorder(int want) : want_(want) {}
  const char* Name() const override { return "recorder"; }
  int Place(const PlacementRequest&, const StorageView&) override { return want_; }
  void OnPlaced(const PlacementRequest& request, int chosen, int placed) override {
    calls.push_back({request.segment, chosen, placed});
  }
  struct Call {
    uint64_t segment;
    int chosen, placed;
  };
  std::vector<Call> calls;

 private:
  const int want_;
};

TEST(EngineTest, ThePolicyHearsTheTierItsSegmentGot) {
  CapacityAccount fast(2 * 4096), slow(1 << 30);
  View view({&fast, &slow});
  PlacementRecorder policy(0);
  PlacementEngine engine(&policy, MigrationOptions());
  auto place = [&](uint64_t segment) {
    PlacementRequest r;
    r.segment = segment;
    const int want = engine.Choose(r, /*bulk=*/true, 4096, view, [](const Move&) {});
    // As the caller does: charge the wanted tier, else spill.
    const int t = SpillOrder(want, 2, -1, [&](int i) { return (i ? slow : fast).TryCharge(4096); });
    ASSERT_EQ(segment, policy.calls.size()) << "told once per placement";
    EXPECT_EQ(t, policy.calls.back().placed) << "segment " << segment;
  };
  place(1);
  place(2);
  place(3);  // tier 0 is full: it spills to tier 1
  ASSERT_EQ(3u, policy.calls.size());
  EXPECT_EQ(0, policy.calls[1].chosen);
  EXPECT_EQ(0, policy.calls[1].placed);
  EXPECT_EQ(3u, policy.calls[2].segment);
  EXPECT_EQ(0, policy.calls[2].chosen);
  EXPECT_EQ(1, policy.calls[2].placed);
  // Neither a pin nor metadata asks the policy, nor tells it.
  PlacementRequest pinned;
  pinned.hints.pinned_tier = 1;
  engine.Choose(pinned, true, 4096, view, [](const Move&) {});
  engine.Choose(PlacementRequest(), /*bulk=*/false, 4096, view, [](const Move&) {});
  EXPECT_EQ(3u, policy.calls.size());
}

// Segments of one file with set homes and read counts, on a view with fixed
// use per tier.
class SegmentsView : public View {
 public:
  using View::View;
  std::vector<SegmentInfo> segments;
  uint64_t now = 1000;
  uint64_t SegmentSize() const override { return 64 << 10; }
  uint64_t Now() const override { return now; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    for (const SegmentInfo& s : segments) fn(s);
  }
  void Add(uint64_t segment, int tier, uint32_t reads, bool busy = false) {
    SegmentInfo s;
    s.ref = SegmentRef{7, segment};
    s.tier = tier;
    s.bytes = 64 << 10;
    s.busy = busy;
    s.stats.user_reads = reads;
    s.stats.heat = reads;
    s.stats.last_access = 1000;
    segments.push_back(s);
  }
};

class NoPlans : public Policy {
 public:
  const char* Name() const override { return "no-plans"; }
  int Place(const PlacementRequest&, const StorageView&) override { return 0; }
};

TEST(EngineTest, FreeFastSpaceIsFilledWithTheHottestReadSegmentsDownToTheHeadroom) {
  // Tier 0: 1 MiB, 5% headroom (51.2 KiB); 10 of its 16 segments' worth used.
  CapacityAccount fast(1 << 20), slow(1 << 30);
  fast.ForceCharge(10 * (64 << 10));
  SegmentsView view({&fast, &slow});
  for (uint64_t i = 0; i < 8; ++i) view.Add(i, 1, uint32_t(10 + i));  // hotter as i grows
  view.Add(8, 1, 0);                        // never read: not promoted
  view.Add(9, 1, 1000, /*busy=*/true);      // being written: not promoted
  view.Add(10, 0, 1000);                    // already fast
  NoPlans policy;
  MigrationOptions o;
  PlacementEngine engine(&policy, o);
  EXPECT_EQ(PlacementEngine::kFillIntervalRequests, engine.PlanIntervalRequests());
  std::vector<Move> moves;
  // Room for 5 segments above the headroom: the five hottest, hottest first.
  EXPECT_FALSE(engine.Plan(view, 10, &moves));
  ASSERT_EQ(5u, moves.size());
  for (size_t k = 0; k < moves.size(); ++k) {
    EXPECT_EQ(7 - k, moves[k].ref.segment);
    EXPECT_EQ(0, moves[k].to);
    EXPECT_EQ(Move::kMigrate, moves[k].op);
  }
  // Fewer slots than candidates: it says it has more.
  moves.clear();
  EXPECT_TRUE(engine.Plan(view, 2, &moves));
  EXPECT_EQ(2u, moves.size());
  // No room above the headroom: nothing.
  fast.ForceCharge(6 * (64 << 10));
  moves.clear();
  EXPECT_FALSE(engine.Plan(view, 10, &moves));
  EXPECT_TRUE(moves.empty());
}

// SegmentsView that counts its walks and answers Lookup from its list.
class CountingView : public SegmentsView {
 public:
  using SegmentsView::SegmentsView;
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    walks++;
    SegmentsView::ForEachSegment(fn);
  }
  bool Lookup(const SegmentRef& ref, SegmentInfo* info) const override {
    for (const SegmentInfo& s : segments) {
      if (s.ref == ref) {
        *info = s;
        return true;
      }
    }
    return false;
  }
  mutable int walks = 0;
};

TEST(EngineTest, AFillLeftWithMoreGoesOnDownItsOrderWithoutWalkingAgain) {
  CapacityAccount fast(1 << 20), slow(1 << 30);
  CountingView view({&fast, &slow});
  for (uint64_t i = 0; i < 8; ++i) view.Add(i, 1, uint32_t(10 + i));  // hotter as i grows
  NoPlans policy;
  MigrationOptions o;
  PlacementEngine engine(&policy, o);
  std::vector<Move> moves;
  ASSERT_TRUE(engine.Plan(view, 2, &moves));  // the policy's plan: a walk
  ASSERT_EQ(2u, moves.size());
  EXPECT_EQ(7u, moves[0].ref.segment);
  EXPECT_EQ(6u, moves[1].ref.segment);
  const int walks = view.walks;
  EXPECT_GT(walks, 0);

  // A fill-only plan soon after: the next in the order, looked up again (5
  // went to tier 0 meanwhile), and no walk.
  view.segments[5].tier = 0;
  view.now += 10;
  moves.clear();
  ASSERT_TRUE(engine.Plan(view, 2, &moves, /*policy_due=*/false));
  ASSERT_EQ(2u, moves.size());
  EXPECT_EQ(4u, moves[0].ref.segment);
  EXPECT_EQ(3u, moves[1].ref.segment);
  EXPECT_EQ(walks, view.walks);

  // The policy's own plan walks afresh, and so does a fill-only plan once
  // the order is kFillResumeRequests old.
  moves.clear();
  engine.Plan(view, 1, &moves);
  EXPECT_GT(view.walks, walks);
  const int after_policy = view.walks;
  view.now += PlacementEngine::kFillResumeRequests;
  moves.clear();
  engine.Plan(view, 1, &moves, /*policy_due=*/false);
  EXPECT_GT(view.walks, after_policy);
}

TEST(EngineTest, TheFillTakesTheCandidatesThatFitTheRoomDownToTheSmallest) {
  // Tier 0: 1 MiB, headroom 0. Candidates of 64 KiB, and a file's last
  // segment of 4 KiB, the coldest.
  MigrationOptions o;
  o.fast_headroom_pct = 0;
  o.fast_headroom_auto = false;
  for (const uint64_t free : {uint64_t(4 << 10), uint64_t(4 << 10) - 1}) {
    CapacityAccount fast(1 << 20), slow(1 << 30);
    fast.ForceCharge((1 << 20) - free);
    SegmentsView view({&fast, &slow});
    for (uint64_t i = 0; i < 4; ++i) view.Add(i, 1, uint32_t(10 + i));
    view.Add(4, 1, 1);
    view.segments.back().bytes = 4 << 10;
    NoPlans policy;
    PlacementEngine engine(&policy, o);
    std::vector<Move> moves;
    EXPECT_FALSE(engine.Plan(view, 10, &moves));
    if (free == (4 << 10)) {  // the small one fits exactly, the others never
      ASSERT_EQ(1u, moves.size());
      EXPECT_EQ(4u, moves[0].ref.segment);
    } else {
      EXPECT_TRUE(moves.empty()) << "a byte short of the smallest candidate";
    }
  }
}

TEST(EngineTest, TheHeadroomKeepsAMemtablesWorthOnceNewWritesFindTierZeroFull) {
  // Tier 0: 1 MiB with 8 segments' worth used; 8 read segments on tier 1.
  CapacityAccount fast(1 << 20), slow(1 << 30);
  fast.ForceCharge(8 * (64 << 10));
  SegmentsView view({&fast, &slow});
  for (uint64_t i = 0; i < 8; ++i) view.Add(i, 1, 10);
  NoPlans policy;  // places everything on tier 0, evicts nothing
  PlacementEngine engine(&policy, MigrationOptions());
  auto promotions = [&] {
    std::vector<Move> moves;
    engine.Plan(view, 100, &moves);
    return moves.size();
  };
  auto wal = [&](uint64_t segment) {
    PlacementRequest r;
    r.kind = FileKind::kWal;
    r.segment = segment;
    EXPECT_EQ(0, engine.Choose(r, true, 64 << 10, view, [](const Move&) {}));
  };
  // 5% (51 KiB) kept: 7 of the 8 fit in the 460 KiB above it.
  EXPECT_EQ(52425u, engine.Headroom(1 << 20));
  EXPECT_EQ(7u, promotions());
  // A WAL reaches 384 KiB while tier 0 has room: nothing changes.
  for (uint64_t seg = 0; seg < 6; ++seg) wal(seg);
  EXPECT_EQ(52425u, engine.Headroom(1 << 20));
  // The next WAL segment finds tier 0 full: from now on a memtable's worth
  // (the 448 KiB the WAL reached) is kept free, and the fill leaves it.
  fast.ForceCharge(fast.capacity() - fast.used());
  wal(6);
  EXPECT_EQ(448u << 10, engine.Headroom(1 << 20));
  fast.Release(8 * (64 << 10));
  EXPECT_EQ(1u, promotions());  // 512 KiB free less 448 KiB kept
  // Never more than half of tier 0.
  EXPECT_EQ(256u << 10, engine.Headroom(512 << 10));
  // Writes stop: the room halves every kWriteRoomHalfLife requests (at plans).
  view.now += 4 << 16;
  EXPECT_EQ(7u, promotions());
  EXPECT_EQ(52425u, engine.Headroom(1 << 20));

  // A headroom given in the URI is kept as given.
  MigrationOptions fixed;
  fixed.fast_headroom_auto = false;
  PlacementEngine exact(&policy, fixed);
  PlacementRequest r;
  r.kind = FileKind::kWal;
  r.segment = 5;
  fast.ForceCharge(fast.capacity() - fast.used());
  exact.Choose(r, true, 64 << 10, view, [](const Move&) {});
  EXPECT_EQ(52425u, exact.Headroom(1 << 20));
}

TEST(EngineTest, TableOutputLeavesTheWalAMemtablesWorthOfTierZero) {
  // Tier 0: 1 MiB. A WAL reaches 256 KiB (4 segments) while tier 0 has room.
  CapacityAccount fast(1 << 20), slow(1 << 30);
  SegmentsView view({&fast, &slow});
  NoPlans policy;  // wants everything on tier 0
  auto place = [&](PlacementEngine& engine, FileKind kind, int level, uint64_t segment) {
    PlacementRequest r;
    r.kind = kind;
    r.hints.level = level;
    r.segment = segment;
    return engine.Choose(r, true, 64 << 10, view, [](const Move&) {});
  };
  MigrationOptions off;
  off.wal_room = false;
  PlacementEngine engine(&policy, MigrationOptions()), without(&policy, off);
  for (uint64_t seg = 0; seg < 4; ++seg) {
    EXPECT_EQ(0, place(engine, FileKind::kWal, -1, seg));
    EXPECT_EQ(0, place(without, FileKind::kWal, -1, seg));
  }
  // 320 KiB free: a flush or compaction segment still leaves 256 KiB.
  fast.ForceCharge(fast.capacity() - (320 << 10));
  EXPECT_EQ(0, place(engine, FileKind::kSst, 0, 0));
  EXPECT_EQ(0, place(engine, FileKind::kOther, -1, 0));
  // 256 KiB free: table output goes to tier 1, the WAL still to tier 0.
  fast.ForceCharge(64 << 10);
  EXPECT_EQ(1, place(engine, FileKind::kSst, 0, 1));
  EXPECT_EQ(1, place(engine, FileKind::kSst, -1, 1));
  EXPECT_EQ(0, place(engine, FileKind::kWal, -1, 4));
  // With wal_room off, table output takes it, as the policy says.
  EXPECT_EQ(0, place(without, FileKind::kSst, 0, 1));
  // A policy that places as RocksDB would keeps its placement.
  class Levels : public NoPlans {
    bool KeepsItsPlacement() const override { return true; }
  } levels;
  PlacementEngine emulated(&levels, MigrationOptions());
  for (uint64_t seg = 0; seg < 4; ++seg) place(emulated, FileKind::kWal, -1, seg);
  EXPECT_EQ(0, place(emulated, FileKind::kSst, 0, 1));
}

// The policy sees the rules as a mask (PlacementRequest::allowed): every
// choice inside it stands, and tier 0 is outside it exactly when a choice of
// tier 0 would be overruled or spill.
TEST(EngineTest, ThePolicySeesWhatTheEngineWouldOverruleAsAMask) {
  CapacityAccount fast(1 << 20), slow(1 << 30);
  SegmentsView view({&fast, &slow});
  class Recording : public NoPlans {
   public:
    int Place(const PlacementRequest& r, const StorageView&) override {
      allowed = r.allowed;
      return 0;
    }
    uint32_t allowed = 0;
  } policy;
  PlacementEngine engine(&policy, MigrationOptions());
  auto place = [&](FileKind kind, int level, uint64_t segment) {
    PlacementRequest r;
    r.kind = kind;
    r.hints.level = level;
    r.segment = segment;
    return engine.Choose(r, true, 64 << 10, view, [](const Move&) {});
  };
  // Room everywhere: both tiers, and tier 0 stands.
  for (uint64_t seg = 0; seg < 4; ++seg) {
    EXPECT_EQ(0, place(FileKind::kWal, -1, seg));
    EXPECT_EQ(3u, policy.allowed);
  }
  // 256 KiB free, the WAL's memtable worth: a table segment may not take it.
  fast.ForceCharge(fast.capacity() - (256 << 10) - fast.used());
  EXPECT_EQ(1, place(FileKind::kSst, 0, 0));
  EXPECT_EQ(2u, policy.allowed);
  EXPECT_EQ(0, place(FileKind::kWal, -1, 4));  // the WAL may
  EXPECT_EQ(3u, policy.allowed);
  // Tier 0 full: the WAL spills, and tier 0 is masked for it too.
  fast.ForceCharge(fast.capacity() - fast.used());
  place(FileKind::kWal, -1, 5);
  EXPECT_EQ(2u, policy.allowed);
}

TEST(EngineTest, APolicyRanksTheFillOrKeepsItsDataWhereItIs) {
  CapacityAccount fast(1 << 20), slow(1 << 30);
  SegmentsView view({&fast, &slow});
  view.Add(0, 1, 5);
  view.Add(1, 1, 50);
  class Coldest : public NoPlans {  // ranks the least read first
    double FillRank(const SegmentInfo& s, uint64_t) const override {
      return 1.0 / s.stats.user_reads;
    }
  } coldest;
  std::vector<Move> moves;
  PlacementEngine(&coldest, MigrationOptions()).Plan(view, 1, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(0u, moves[0].ref.segment);
  class Stays : public NoPlans {
    double FillRank(const SegmentInfo&, uint64_t) const override { return 0; }
  } stays;
  moves.clear();
  PlacementEngine(&stays, MigrationOptions()).Plan(view, 10, &moves);
  EXPECT_TRUE(moves.empty());
  // A reference that does not fill: no promotion, and no rank asked.
  class DoesNotFill : public NoPlans {
   public:
    bool Fills() const override { return false; }
    double FillRank(const SegmentInfo&, uint64_t) const override {
      ranked++;
      return 1;
    }
    mutable int ranked = 0;
  } does_not_fill;
  moves.clear();
  PlacementEngine(&does_not_fill, MigrationOptions()).Plan(view, 10, &moves);
  EXPECT_TRUE(moves.empty());
  EXPECT_EQ(0, does_not_fill.ranked);
  // fast_headroom_pct 100: the fill is off.
  MigrationOptions off;
  off.fast_headroom_pct = 100;
  NoPlans plain;
  moves.clear();
  PlacementEngine(&plain, off).Plan(view, 10, &moves);
  EXPECT_TRUE(moves.empty());
}

TEST(EngineTest, TheFillLeavesFreeWhatThePolicysOwnPlansKeepFree) {
  // A policy that demotes whenever tier 0 is more than 90% full, as sibyl
  // does. Tier 0: 16 segments of 64 KiB, 12 used by homes; 8 read segments
  // on tier 1. The default headroom (5%) would let the fill take tier 0 to
  // 15 segments (93.75%), which the policy's next plan demotes again.
  class KeepsATenth : public NoPlans {
   public:
    double FastHeadroomShare() const override { return 0.1; }
    uint64_t PlanIntervalRequests() const override { return 1; }
    void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
      const uint64_t limit = view.Capacity(0) / 10 * 9;
      uint64_t used = view.Used(0);
      view.ForEachSegment([&](const SegmentInfo& s) {
        if (s.tier != 0 || used <= limit || moves->size() >= max) return;
        Move m;
        m.ref = s.ref;
        m.to = 1;
        moves->push_back(m);
        used -= s.bytes;
      });
    }
  } policy;
  const uint64_t seg = 64 << 10;
  CapacityAccount fast(16 * seg), slow(1 << 30);
  SegmentsView view({&fast, &slow});
  for (uint64_t i = 0; i < 12; ++i) view.Add(i, 0, 1);
  for (uint64_t i = 12; i < 20; ++i) view.Add(i, 1, 10);
  fast.ForceCharge(12 * seg);
  PlacementEngine engine(&policy, MigrationOptions());
  EXPECT_EQ(16 * seg / 10, engine.Headroom(16 * seg));
  int promoted = 0, demoted = 0;
  for (int plan = 0; plan < 4; ++plan) {
    std::vector<Move> moves;
    engine.Plan(view, 16, &moves, /*policy_due=*/true);
    for (const Move& m : moves) {
      for (SegmentInfo& s : view.segments) {
        if (!(s.ref == m.ref) || s.tier == m.to) continue;
        (m.to == 0 ? fast : slow).ForceCharge(s.bytes);
        (m.to == 0 ? slow : fast).Release(s.bytes);
        s.tier = m.to;
        (m.to == 0 ? promoted : demoted)++;
      }
    }
  }
  // The fill takes tier 0 to 14 segments (87.5%), where the policy lets it be.
  EXPECT_EQ(2, promoted);
  EXPECT_EQ(0, demoted);
  EXPECT_EQ(14 * seg, fast.used());
  // More than half, if the policy keeps that much (the memtable's worth is
  // what is capped at half).
  class KeepsMost : public NoPlans {
    double FastHeadroomShare() const override { return 0.75; }
  } most;
  EXPECT_EQ(12 * seg, PlacementEngine(&most, MigrationOptions()).Headroom(16 * seg));
}

// Pages 0..n-1 of table file `file_id`, each read twice (missed twice):
// what the copies offer, and what they do with it, is the caller's to check.
std::vector<PageCopies::Fill> ReadPagesTwice(PageCopies* copies, uint64_t n,
                                             uint64_t file_id = 9) {
  std::vector<PageCopies::Fill> second;
  for (uint64_t p = 0; p < n; ++p) {
    Policy::CopyCandidate cand;
    cand.file_id = file_id;
    cand.kind = FileKind::kSst;
    cand.page = p;
    copies->OnMiss(cand, true);
    second.push_back(copies->OnMiss(cand, true));
  }
  return second;
}

// Tier 0 of 1 MiB full of sixteen 64 KiB homes (segments 0-15, colder as
// the index grows) and a slow tier, with hot-page copies of 4 KiB pages in a
// reserve of `reserve` bytes attached to the engine.
struct FullFastTier {
  static PageCopies::Config CopyConfig(uint64_t reserve) {
    PageCopies::Config c;
    c.page = 4096;
    c.slots = reserve / 4096;
    return c;
  }
  explicit FullFastTier(uint64_t reserve, const MigrationOptions& options = MigrationOptions())
      : view({&fast, &slow}),
        engine(&policy, options),
        copies(CopyConfig(reserve), &policy, &fast, [] {}, [](uint64_t, uint64_t) {}) {
    fast.SetCopyReserve(reserve);
    fast.ForceCharge(1 << 20);
    for (uint64_t i = 0; i < 16; ++i) view.Add(i, 0, uint32_t(100 - i));
    engine.AttachCopies(&copies);
  }
  CapacityAccount fast{1 << 20}, slow{1 << 30};
  SegmentsView view;
  NoPlans policy;
  PlacementEngine engine;
  PageCopies copies;
};

TEST(EngineTest, CopiesShortOfRoomGetTheColdestFastHomesDemoted) {
  // Tier 0: 1 MiB, 5% headroom, copies' reserve 256 KiB; homes fill it.
  FullFastTier t(256 << 10);
  t.view.Add(16, 0, 0, /*busy=*/true);  // being written: stays
  PlacementEngine& engine = t.engine;
  PageCopies& copies = t.copies;
  SegmentsView& view = t.view;
  std::vector<Move> moves;
  // The copies asked for nothing: nothing moves.
  EXPECT_FALSE(engine.Plan(view, 10, &moves));
  EXPECT_TRUE(moves.empty());
  // Thirty-two pages (128 KiB) read twice found no room.
  for (const PageCopies::Fill& f : ReadPagesTwice(&copies, 32)) EXPECT_EQ(-1, f.slot);
  // 128 KiB plus the headroom (51.2 KiB): the three coldest homes go down.
  engine.Plan(view, 10, &moves);
  ASSERT_EQ(3u, moves.size());
  for (size_t k = 0; k < moves.size(); ++k) {
    EXPECT_EQ(15 - k, moves[k].ref.segment);
    EXPECT_EQ(1, moves[k].to);
    EXPECT_EQ(Move::kMigrate, moves[k].op);
  }
  // Asked once: the next plan moves nothing more.
  moves.clear();
  engine.Plan(view, 10, &moves);
  EXPECT_TRUE(moves.empty());
}

// Demotions the queue had no room for make the next plan due as soon as it
// has: the copies displace homes at the migration's pace, not a queue's worth
// per plan interval.
TEST(EngineTest, CopiesShortOfRoomAskForTheNextPlanAtOnce) {
  FullFastTier t(512 << 10);
  for (const PageCopies::Fill& f : ReadPagesTwice(&t.copies, 64)) {  // 256 KiB found no room
    EXPECT_EQ(-1, f.slot);
  }
  std::vector<Move> moves;
  EXPECT_TRUE(t.engine.Plan(t.view, 2, &moves)) << "five homes are wanted, two fit the queue";
  ASSERT_EQ(2u, moves.size());
  EXPECT_EQ(15u, moves[0].ref.segment);
  EXPECT_EQ(14u, moves[1].ref.segment);
  // With room for all of them, nothing is left for the next plan.
  FullFastTier t2(512 << 10);
  ReadPagesTwice(&t2.copies, 64);
  moves.clear();
  EXPECT_FALSE(t2.engine.Plan(t2.view, 10, &moves));
  EXPECT_EQ(5u, moves.size());  // 256 KiB + 51.2 KiB of headroom: five 64 KiB homes
}

// Room asked for and not yet given stays owed: a plan the queue let demote
// less carries the rest to the next plans, fading with the requests that
// come while no more is asked (not with the plans: they come as fast as the
// queue drains while there is more to do).
TEST(EngineTest, RoomTheCopiesAreOwedCarriesToTheNextPlans) {
  FullFastTier t(512 << 10);
  ReadPagesTwice(&t.copies, 64);  // 256 KiB found no room
  std::vector<Move> moves;
  EXPECT_TRUE(t.engine.Plan(t.view, 1, &moves));  // room in the queue for one
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(15u, moves[0].ref.segment);
  // It is done: segment 15 is on tier 1, 64 KiB of tier 0 free (12.8 KiB
  // above the headroom). Nothing more was asked, and a half-life of requests
  // went by: the 192 KiB still owed halve to 96 KiB, for which two more
  // homes go down.
  t.view.segments[15].tier = 1;
  t.fast.Release(64 << 10);
  t.view.now += PlacementEngine::kFillIntervalRequests;
  moves.clear();
  EXPECT_FALSE(t.engine.Plan(t.view, 10, &moves));
  ASSERT_EQ(2u, moves.size());
  EXPECT_EQ(14u, moves[0].ref.segment);
  EXPECT_EQ(13u, moves[1].ref.segment);
  // Planned for: nothing is owed any more.
  moves.clear();
  EXPECT_FALSE(t.engine.Plan(t.view, 10, &moves));
  EXPECT_TRUE(moves.empty());
}

// Plans one after another, with no requests between them (the queue drained
// and the fill had more), forget nothing the copies asked for: halving the
// room owed at each plan let the fill promote homes into it within a few
// moves (simulator, YCSB B hotspot: copies at 35% of tier 0 with 50,000
// misses finding no room; at the 75% reserve once the fade followed the
// requests).
TEST(EngineTest, PlansInQuickSuccessionKeepWhatTheCopiesAreOwed) {
  FullFastTier t(512 << 10);
  ReadPagesTwice(&t.copies, 64);  // 256 KiB found no room: four homes owed
  std::vector<Move> moves;
  // One demotion per plan (a queue with room for one), queued but not yet
  // run: each plan demotes the next home for the 64 KiB still owed. (Halved
  // per plan, 256 KiB gave three: 192, then 96 -> 32, then 16 -> 0.)
  for (uint64_t k = 0; k < 4; ++k) {
    moves.clear();
    t.engine.Plan(t.view, 1, &moves);
    ASSERT_EQ(1u, moves.size()) << "plan " << k;
    EXPECT_EQ(15 - k, moves[0].ref.segment);
    t.view.segments[15 - k].busy = true;  // queued: not a candidate again
  }
  moves.clear();
  EXPECT_FALSE(t.engine.Plan(t.view, 1, &moves));
  EXPECT_TRUE(moves.empty()) << "all that was asked for is planned";
}

// Compaction output (level 1 and below) does not take tier 0's free space
// that copies short of room asked for; the WAL, flushes and L0 do, and the
// claim fades when the copies stop asking. (With level_room on, the upper
// levels take it too: UpperLevelsTakeTheirRoomBeforeTheCopies.)
TEST(EngineTest, CompactionOutputLeavesTheCopiesTheRoomTheyAskedFor) {
  MigrationOptions no_levels;
  no_levels.level_room = false;
  FullFastTier t(256 << 10, no_levels);
  auto place = [&](FileKind kind, int level) {
    PlacementRequest r;
    r.kind = kind;
    r.hints.level = level;
    r.bytes = 64 << 10;
    return t.engine.Choose(r, /*bulk=*/true, r.bytes + kFileBlock, t.view, [](const Move&) {});
  };
  std::vector<Move> moves;
  t.engine.Plan(t.view, 10, &moves);
  t.fast.Release(160 << 10);  // room for two segments
  EXPECT_EQ(0, place(FileKind::kSst, 1)) << "the copies asked for nothing";
  t.fast.ForceCharge(160 << 10);
  for (const PageCopies::Fill& f : ReadPagesTwice(&t.copies, 32)) EXPECT_EQ(-1, f.slot);
  t.engine.Plan(t.view, 10, &moves);  // they claim the 128 KiB they asked for
  t.fast.Release(160 << 10);          // 160 KiB free < 68 KiB + 128 KiB
  EXPECT_EQ(1, place(FileKind::kSst, 1));
  EXPECT_EQ(1, place(FileKind::kSst, 3));
  EXPECT_EQ(0, place(FileKind::kSst, 0)) << "a flush or L0 output";
  EXPECT_EQ(0, place(FileKind::kSst, -1)) << "level unknown";
  EXPECT_EQ(0, place(FileKind::kWal, -1));
  // Not asked again: at once the claim stands; a half-life of requests
  // later it has halved (64 KiB), and 160 KiB hold both.
  t.engine.Plan(t.view, 10, &moves);
  EXPECT_EQ(1, place(FileKind::kSst, 1));
  t.view.now += PlacementEngine::kFillIntervalRequests;
  t.engine.Plan(t.view, 10, &moves);
  EXPECT_EQ(0, place(FileKind::kSst, 1));
}

TEST(EngineTest, DeeperOutputLeavesTierZeroTheRoomTheLevelsAboveItNeed) {
  // Tier 0: 1 MiB less its 5% headroom leaves 996,151 bytes (972.8 KiB) for
  // levels. A placed segment counts the 64 KiB it will hold; the rule asks
  // room for its charge, 68 KiB.
  constexpr uint64_t kSeg = 64 << 10, kBytes = kSeg + kFileBlock;
  CapacityAccount fast(1 << 20), slow(1 << 30);
  SegmentsView view({&fast, &slow});
  uint64_t next = 0;
  auto add = [&](int level, int tier, int n) {
    for (int i = 0; i < n; ++i) {
      view.Add(next++, tier, 0);
      view.segments.back().kind = FileKind::kSst;
      view.segments.back().hints.level = level;
    }
  };
  add(0, 0, 4);   // L0: 256 KiB on tier 0
  add(1, 1, 4);   // L1: 256 KiB on tier 1
  add(2, 0, 5);   // L2: 320 KiB on tier 0
  add(3, 1, 20);  // L3: 1.25 MiB on tier 1
  auto place = [&](PlacementEngine& engine, int level, FileKind kind = FileKind::kSst) {
    PlacementRequest r;
    r.kind = kind;
    r.hints.level = level;
    r.bytes = kSeg;
    return engine.Choose(r, /*bulk=*/true, kBytes, view, [](const Move&) {});
  };
  NoPlans policy;
  MigrationOptions o;
  o.fast_headroom_auto = false;
  PlacementEngine engine(&policy, o);
  std::vector<Move> moves;
  EXPECT_EQ(0, place(engine, 3)) << "nothing counted yet: the policy's choice stands";
  engine.Plan(view, 10, &moves);  // counts the levels
  // L2 output: L0 + L1 (512 KiB) + L2 and deeper on tier 0 (320 KiB) + 68 KiB.
  EXPECT_EQ(0, place(engine, 2));  // 900 KiB
  EXPECT_EQ(0, place(engine, 2));  // 964 KiB: the one placed counts at once
  EXPECT_EQ(1, place(engine, 2));  // 1,028 KiB
  // L1 output: only L0 is above it (256 + 448 of L2 on tier 0 + 68 KiB).
  EXPECT_EQ(0, place(engine, 1));
  // L3 output: every byte of L0-L2 (1,088 KiB by now) is above it.
  EXPECT_EQ(1, place(engine, 3));
  // Counts older than kLevelCountsKeep requests decide nothing: plans stopped.
  view.now += PlacementEngine::kLevelCountsKeep + 1;
  EXPECT_EQ(0, place(engine, 3));
  // Once L2's files on tier 0 are compacted away, the next plan sees the room.
  view.segments.erase(view.segments.begin() + 8, view.segments.begin() + 13);
  engine.Plan(view, 10, &moves);
  EXPECT_EQ(0, place(engine, 2));  // 68 + 512 KiB, where it was 1,028

  // L0 alone overfills tier 0 (1.06 MiB): deeper output goes down, while
  // flushes, the WAL and tables of unknown level still go where the policy says.
  view.segments.clear();
  next = 0;
  add(0, 0, 17);
  add(1, 1, 4);
  PlacementEngine full(&policy, o);
  full.Plan(view, 10, &moves);
  EXPECT_EQ(1, place(full, 1));
  EXPECT_EQ(0, place(full, 0));
  EXPECT_EQ(0, place(full, -1));
  EXPECT_EQ(0, place(full, -1, FileKind::kWal));
  // Off, or a policy that must place as it says: tier 0.
  MigrationOptions off = o;
  off.level_room = false;
  PlacementEngine without(&policy, off);
  without.Plan(view, 10, &moves);
  EXPECT_EQ(0, place(without, 1));
  class Keeps : public NoPlans {
   public:
    bool KeepsItsPlacement() const override { return true; }
  } keeps;
  PlacementEngine reference(&keeps, o);
  reference.Plan(view, 10, &moves);
  EXPECT_EQ(0, place(reference, 1));
}

// Tier 0 of 1 MiB (5% headroom, 51.2 KiB) with a 512 KiB copy reserve and
// 128 copy slots of 4 KiB, for the upper-levels tests; Levels() adds their
// table segments: L0 (128 KiB) and L1 (256 KiB, never read) on tier 0, one
// read L3 segment (number 6) on tier 0 and L3's other 1.9 MiB on tier 1.
// L0-L2 fit in tier 0: they are the upper levels.
struct LevelsBesideCopies {
  static constexpr uint64_t kSeg = 64 << 10;
  explicit LevelsBesideCopies(Policy* policy)
      : view({&fast, &slow}),
        copies(FullFastTier::CopyConfig(128 * 4096), policy, &fast, [] {},
               [](uint64_t, uint64_t) {}) {
    fast.SetCopyReserve(512 << 10);
  }
  void Add(int level, int tier, int n, uint32_t reads) {
    for (int i = 0; i < n; ++i) {
      view.Add(next++, tier, reads);
      view.segments.back().kind = FileKind::kSst;
      view.segments.back().hints.level = level;
      if (tier == 0) fast.ForceCharge(kSeg);
    }
  }
  void Levels() {
    Add(0, 0, 2, 0);
    Add(1, 0, 4, 0);
    Add(3, 0, 1, 50);
    Add(3, 1, 30, 50);
  }
  CapacityAccount fast{1 << 20}, slow{1 << 30};
  SegmentsView view;
  PageCopies copies;
  uint64_t next = 0;
};

// The upper levels (those that fit in tier 0 with the levels above them)
// come before the copies: their new segments take room the copies hold, the
// least frequent copies dropped for them, and their homes are not demoted for
// copies short of room. Deeper output drops no copy.
TEST(EngineTest, UpperLevelsTakeTheirRoomBeforeTheCopies) {
  constexpr uint64_t kSeg = LevelsBesideCopies::kSeg, kBytes = kSeg + kFileBlock;
  // As fast-first: the fastest tier with room. It places an upper level's
  // segment as if the copies were not there.
  class RoomFirst : public NoPlans {
   public:
    int Place(const PlacementRequest& r, const StorageView& v) override {
      return v.Used(0) + r.bytes <= v.Capacity(0) ? 0 : 1;
    }
  } policy;
  LevelsBesideCopies t(&policy);
  CapacityAccount& fast = t.fast;
  SegmentsView& view = t.view;
  PageCopies& copies = t.copies;
  MigrationOptions o;
  o.fast_headroom_auto = false;
  PlacementEngine engine(&policy, o);
  engine.AttachCopies(&copies);
  // Copies of pages 0-63 of file 9, read twice (those whose set had room).
  for (const PageCopies::Fill& f : ReadPagesTwice(&copies, 64)) {
    if (f.slot >= 0) {
      ASSERT_TRUE(copies.Publish(f));
    }
  }
  const uint64_t held = copies.used_bytes();
  ASSERT_GE(held, 32u << 10);
  t.Levels();
  fast.ForceCharge(fast.free() - (60 << 10));  // the rest (WAL, metadata): 60 KiB free
  ASSERT_EQ(60u << 10, fast.free());
  std::vector<Move> moves;
  engine.Plan(view, 10, &moves);  // counts the levels
  EXPECT_TRUE(moves.empty());
  auto place = [&](int level, PlacementEngine* e) {
    PlacementRequest r;
    r.kind = FileKind::kSst;
    r.hints.level = level;
    r.bytes = kSeg;
    return e->Choose(r, /*bulk=*/true, kBytes, view, [](const Move&) {});
  };
  // An L1 segment (68 KiB) finds 60 KiB free: copies are dropped for it, at
  // least a 64th of tier 0 (16 KiB, four pages) at once.
  EXPECT_EQ(0, place(1, &engine));
  EXPECT_EQ(4u, copies.counters().evicted);
  EXPECT_EQ(held - (16 << 10), copies.used_bytes());
  EXPECT_GE(fast.free(), kBytes);
  fast.ForceCharge(kBytes);  // the store charges it
  // L3 output does not fit beside L0-L2: it goes down, and drops no copy.
  EXPECT_EQ(1, place(3, &engine));
  EXPECT_EQ(4u, copies.counters().evicted);
  // Copies short of room (64 KiB of pages of another file read twice, none
  // admitted) get the read L3 home demoted, not the unread homes of L0-L1.
  for (const PageCopies::Fill& f : ReadPagesTwice(&copies, 16, /*file_id=*/11)) {
    EXPECT_EQ(-1, f.slot);
  }
  engine.Plan(view, 10, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(6u, moves[0].ref.segment);
  EXPECT_EQ(1, moves[0].to);

  // With level_room off the copies keep their room: the L1 segment spills.
  MigrationOptions off = o;
  off.level_room = false;
  PlacementEngine without(&policy, off);
  without.AttachCopies(&copies);
  moves.clear();
  without.Plan(view, 10, &moves);
  const uint64_t evicted = copies.counters().evicted;
  EXPECT_EQ(1, place(1, &without));
  EXPECT_EQ(evicted, copies.counters().evicted);
}

TEST(EngineTest, AnUpperLevelStaysUpperWhileACompactionRewritesIt) {
  NoPlans policy;
  LevelsBesideCopies t(&policy);
  CapacityAccount& fast = t.fast;
  SegmentsView& view = t.view;
  MigrationOptions o;
  o.fast_headroom_auto = false;
  PlacementEngine engine(&policy, o);
  engine.AttachCopies(&t.copies);
  t.Levels();
  fast.ForceCharge(fast.free());
  std::vector<Move> moves;
  engine.Plan(view, 10, &moves);
  ASSERT_TRUE(moves.empty());
  // A compaction into L1 has written 768 KiB of output on tier 1 and not yet
  // deleted its input: L0 + L1 count 1,152 KiB for now, more than tier 0's
  // 972.8 KiB for levels.
  t.Add(1, 1, 12, 0);
  view.now += 1000;
  // Copies short of room get the read L3 home demoted; L1's unread homes
  // (the lowest-ranked) stay: L1 is still upper.
  auto refused = [&](uint64_t file_id) {
    for (const PageCopies::Fill& f : ReadPagesTwice(&t.copies, 16, file_id)) {
      EXPECT_EQ(-1, f.slot);
    }
  };
  refused(11);
  engine.Plan(view, 10, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(6u, moves[0].ref.segment);
  // Still that size kUpperLevelsKeep requests after it was last counted
  // upper: L1 is no longer upper, and its homes are the first demoted.
  moves.clear();
  view.now += PlacementEngine::kUpperLevelsKeep;
  refused(12);
  engine.Plan(view, 10, &moves);
  ASSERT_FALSE(moves.empty());
  EXPECT_EQ(1, view.segments[size_t(moves[0].ref.segment)].hints.level);
}

TEST(EngineTest, TheFillLeavesGrowingCopiesTheirReserve) {
  CapacityAccount fast(1 << 20), slow(1 << 30);
  fast.SetCopyReserve(512 << 10);
  SegmentsView view({&fast, &slow});
  for (uint64_t i = 0; i < 16; ++i) view.Add(i, 1, uint32_t(10 + i));
  NoPlans policy;
  PlacementEngine engine(&policy, MigrationOptions());
  PageCopies::Config c;
  c.page = 4096;
  c.slots = 128;
  PageCopies copies(c, &policy, &fast, [] {}, [](uint64_t, uint64_t) {});
  engine.AttachCopies(&copies);
  std::vector<Move> moves;
  // Copies idle: the fill takes all of tier 0 above the headroom (51.2 KiB),
  // 15 segments.
  engine.Plan(view, 20, &moves);
  EXPECT_EQ(15u, moves.size());
  // Copies growing (512 KiB of pages admitted since the last plan): the fill
  // leaves their reserve free, 7 segments.
  for (uint64_t p = 0; p < 128; ++p) {
    Policy::CopyCandidate cand;
    cand.file_id = 9;
    cand.kind = FileKind::kSst;
    cand.page = p;
    copies.OnMiss(cand, true);
    PageCopies::Fill f = copies.OnMiss(cand, true);
    ASSERT_GE(f.slot, 0);
    copies.Abandon(f);  // admitted, not kept: the reserve stays unused
  }
  moves.clear();
  engine.Plan(view, 20, &moves);
  EXPECT_EQ(7u, moves.size());
}

TEST(EngineTest, ThePolicyPlansByTheRequestClockOrTheTimeWhenItsQueueHasRoom) {
  MigrationOptions o;
  o.queue = 3;
  o.plan_ms = 1000;
  MoveScheduler s(o, 0);
  EXPECT_EQ(0u, s.PlanRoom(/*interval=*/0, 100, 0));  // a policy that never plans
  EXPECT_EQ(0u, s.PlanRoom(100, 99, 0));              // not due
  EXPECT_EQ(3u, s.PlanRoom(100, 100, 0));
  s.Planned(100, 0);
  EXPECT_EQ(0u, s.PlanRoom(100, 150, 999999999));
  EXPECT_EQ(3u, s.PlanRoom(100, 150, 1000000000));  // a second passed while requests came
  EXPECT_EQ(0u, s.PlanRoom(100, 100, 2000000000));  // but none came
  // A fill with more to give is due again at once, but the policy is not: a
  // plan for the fill alone leaves the policy's cadence where it was.
  bool policy_due = true;
  s.Planned(100, 0, /*policy_ran=*/true, /*more=*/true);
  EXPECT_EQ(3u, s.PlanRoom(100, 150, 0, &policy_due));
  EXPECT_FALSE(policy_due);
  s.Planned(150, 0, /*policy_ran=*/false, /*more=*/false);
  EXPECT_EQ(0u, s.PlanRoom(100, 150, 0, &policy_due));
  EXPECT_EQ(3u, s.PlanRoom(100, 200, 0, &policy_due));  // 100 requests since the policy's plan
  EXPECT_TRUE(policy_due);
  // The first plan by time is due plan_ms after the engine started, not at
  // once (a clock far from zero at start).
  MoveScheduler late(o, 5000000000);
  EXPECT_EQ(0u, late.PlanRoom(100, 1, 5999999999));
  EXPECT_EQ(3u, late.PlanRoom(100, 1, 6000000000));
  Move a, b;
  a.ref = SegmentRef{1, 0};
  b.ref = SegmentRef{1, 1};
  s.Enqueue({a, a, b});  // a segment queued once
  EXPECT_EQ(2u, s.planned().size());
  EXPECT_EQ(1u, s.PlanRoom(100, 200, 0));
  s.SubmitManual({b});
  Move next;
  bool manual = false;
  ASSERT_TRUE(s.Next(&next, &manual));
  EXPECT_TRUE(manual);  // manual moves first
  ASSERT_TRUE(s.Next(&next, &manual));
  EXPECT_FALSE(manual);
  EXPECT_EQ(a.ref, next.ref);
}

TEST(EngineTest, ChunksKeepTheRateAndTheBusyShare) {
  MigrationOptions o;
  o.rate = 1 << 20;  // 1 MiB/s: a 256 KiB chunk every 250 ms
  o.busy_share = 10;
  MoveScheduler s(o, 0);
  EXPECT_EQ(5, s.EarliestStart(5));
  s.ChunkDone(0, 1000000, kMoveChunk, /*forced=*/false);
  EXPECT_EQ(250000000, s.EarliestStart(0));
  EXPECT_EQ(250000000 + kMinForcedGapNanos, s.ForcedStart(250000000));
  // A forced chunk of 200 ms: the next forced one waits 9 x 200 ms.
  s.ChunkDone(0, 200000000, kMoveChunk, /*forced=*/true);
  EXPECT_EQ(1800000000, s.ForcedStart(0));
  s.ChunkDone(0, 1000, kMoveChunk, /*forced=*/false);
  EXPECT_EQ(kMinForcedGapNanos, s.ForcedStart(0));
}

}  // namespace
}  // namespace tierfs
