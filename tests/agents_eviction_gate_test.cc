// The learned eviction on placement (agents/eviction_gate.h): what it learns
// from, when it evicts, and harmonia asking it when tier 0 is full.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/eviction_gate.h"
#include "agents/pending_filter.h"
#include "agents/policy.h"

namespace tierfs {
namespace {

constexpr uint64_t kSeg = 1 << 16;

// Tier 0 of `fast` segments, the slower ones unbounded; moves applied as asked.
class View : public StorageView {
 public:
  explicit View(uint64_t fast, int tiers = 2) : fast_(fast), tiers_(tiers) {}
  int NumTiers() const override { return tiers_; }
  uint64_t Capacity(int tier) const override { return tier == 0 ? fast_ * kSeg : 1ull << 40; }
  uint64_t Used(int tier) const override {
    uint64_t n = 0;
    for (const auto& [key, s] : segments) n += s.tier == tier;
    return n * kSeg;
  }
  uint64_t Now() const override { return now; }
  uint64_t SegmentSize() const override { return kSeg; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    for (const auto& [key, s] : segments) fn(s);
  }
  bool Lookup(const SegmentRef& ref, SegmentInfo* info) const override {
    auto it = segments.find({ref.file_id, ref.segment});
    if (it == segments.end()) return false;
    *info = it->second;
    return true;
  }
  SegmentInfo& Add(uint64_t file, uint64_t segment, int tier) {
    SegmentInfo& s = segments[{file, segment}];
    s.ref = SegmentRef{file, segment};
    s.kind = FileKind::kVolume;
    s.bytes = kSeg;
    s.tier = tier;
    s.stats.placed = now;
    return s;
  }
  void Apply(const std::vector<Move>& moves) {
    for (const Move& m : moves) segments.at({m.ref.file_id, m.ref.segment}).tier = m.to;
  }

  std::map<std::pair<uint64_t, uint64_t>, SegmentInfo> segments;
  uint64_t now = 0;

 private:
  uint64_t fast_;
  int tiers_;
};

PlacementRequest Placing(uint64_t seq, uint64_t file, uint64_t segment, bool write) {
  PlacementRequest r;
  r.seq = seq;
  r.file_id = file;
  r.kind = FileKind::kVolume;
  r.segment = segment;
  r.bytes = kSeg;
  r.write_size = write ? 4096 : 0;
  return r;
}

Request Access(uint64_t seq, uint64_t file, uint64_t segment) {
  Request r;
  r.seq = seq;
  r.file_id = file;
  r.kind = FileKind::kVolume;
  r.segment = segment;
  r.size = 4096;
  r.type = IoType::kUserRead;
  return r;
}

EvictionGate::Options SmallOptions() {
  EvictionGate::Options o;
  o.horizon = 100;
  o.warmup = 64;
  o.learning_rate = 0.2;
  return o;
}

// Placements alternate between writes, read again 10 requests later, and
// reads of segments never read again; scattered, so no neighbour tells.
// Returns the next sequence number.
uint64_t Teach(EvictionGate* gate, View* view, uint64_t seq, int placements) {
  for (int i = 0; i < placements; ++i) {
    const bool write = i % 2 == 0;
    const uint64_t file = 1000 + uint64_t(i);
    view->now = seq;
    gate->ShouldEvict(Placing(seq, file, 7, write), *view);
    if (write) gate->OnRequest(Access(seq + 10, file, 7));
    seq += 150;  // past the horizon: the read placement expires unused
    gate->OnRequest(Access(seq, 1, 0));  // the clock, on an unrelated segment
  }
  return seq;
}

TEST(EvictionGateTest, SpillsUntilWarmThenEvictsForWhatIsUsedSoon) {
  EvictionGate gate(SmallOptions());
  View view(4);
  EXPECT_FALSE(gate.ShouldEvict(Placing(1, 5, 0, true), view)) << "a cold gate evicts";
  uint64_t seq = Teach(&gate, &view, 2, 400);
  ASSERT_TRUE(gate.warm());
  const EvictionGate::Stats s = gate.stats();
  EXPECT_GE(s.labels, 390u);
  EXPECT_NEAR(0.5, double(s.positives) / double(s.labels), 0.05);
  view.now = seq;
  EXPECT_TRUE(gate.ShouldEvict(Placing(seq, 9000, 3, true), view))
      << "a write, which was always read again soon";
  EXPECT_FALSE(gate.ShouldEvict(Placing(seq + 1, 9001, 3, false), view))
      << "a read, which was never read again";
}

TEST(EvictionGateTest, AUseAfterTheHorizonOrByThePlacingRequestIsNoReuse) {
  EvictionGate::Options o = SmallOptions();
  o.warmup = 1000000;
  EvictionGate gate(o);
  View view(4);
  gate.ShouldEvict(Placing(10, 1, 0, true), view);
  gate.OnRequest(Access(10, 1, 0));  // the placing write's own piece
  EXPECT_EQ(0u, gate.stats().labels);
  gate.OnRequest(Access(10 + 101, 1, 0));  // one past the horizon
  EXPECT_EQ(1u, gate.stats().labels);
  EXPECT_EQ(0u, gate.stats().positives);
  gate.ShouldEvict(Placing(200, 2, 0, true), view);
  gate.OnRequest(Access(300, 2, 0));  // exactly at the horizon
  EXPECT_EQ(2u, gate.stats().labels);
  EXPECT_EQ(1u, gate.stats().positives);
  gate.ShouldEvict(Placing(400, 3, 0, true), view);
  gate.OnRequest(Access(401, 9, 9));  // not its segment
  EXPECT_EQ(2u, gate.stats().labels);
  // The horizon passes: at the gate's next question or eviction (here one
  // that finds nothing to evict), labelled unused.
  view.now = 600;
  std::vector<Move> none;
  gate.Evict(0, kSeg, view, &none);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(3u, gate.stats().labels);
  EXPECT_EQ(1u, gate.stats().positives);
  // A table file's next append is the compaction writing on, not a use; a
  // user read of it is.
  PlacementRequest table = Placing(700, 4, 0, true);
  table.kind = FileKind::kSst;
  gate.ShouldEvict(table, view);
  Request append = Access(701, 4, 0);
  append.kind = FileKind::kSst;
  append.type = IoType::kWrite;
  gate.OnRequest(append);
  EXPECT_EQ(3u, gate.stats().labels) << "an append labelled the table's placement";
  Request read = append;
  read.seq = 702;
  read.type = IoType::kUserRead;
  gate.OnRequest(read);
  EXPECT_EQ(4u, gate.stats().labels);
  EXPECT_EQ(2u, gate.stats().positives);
  // A WAL's next write is the client's: a use.
  PlacementRequest wal = Placing(800, 5, 0, true);
  wal.kind = FileKind::kWal;
  gate.ShouldEvict(wal, view);
  Request log = Access(801, 5, 0);
  log.kind = FileKind::kWal;
  log.type = IoType::kWrite;
  gate.OnRequest(log);
  EXPECT_EQ(5u, gate.stats().labels);
  EXPECT_EQ(3u, gate.stats().positives);
}

// The victims are the least recently used; when they turn out to be used as
// soon as the newcomers would be, evicting stops paying and the gate stops.
TEST(EvictionGateTest, VictimsUsedSoonAfterTheirEvictionStopTheEvictions) {
  EvictionGate::Options o = SmallOptions();
  o.margin = 0.1;
  EvictionGate gate(o);
  View view(4);
  for (uint64_t i = 0; i < 4; ++i) view.Add(1, i, 0).stats.last_access = i + 1;
  uint64_t seq = Teach(&gate, &view, 10, 400);
  view.now = seq;
  ASSERT_TRUE(gate.ShouldEvict(Placing(seq, 9000, 3, true), view));
  std::vector<Move> moves;
  gate.Evict(0, kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(Move::kMigrate, moves[0].op);
  EXPECT_EQ(1u, moves[0].ref.file_id);
  EXPECT_EQ(0u, moves[0].ref.segment) << "the least recently used";
  EXPECT_EQ(1, moves[0].to);
  // Every victim is read again at once, and every newcomer is a write read
  // again soon: the newcomers are no better than the victims.
  for (int round = 0; round < 300; ++round) {
    view.Apply(moves);
    const SegmentRef victim = moves[0].ref;
    ++seq;
    gate.OnRequest(Access(seq, victim.file_id, victim.segment));
    view.segments.at({victim.file_id, victim.segment}).stats.last_access = seq;
    view.segments.at({victim.file_id, victim.segment}).tier = 0;  // back, for the next round
    ++seq;
    view.now = seq;
    gate.ShouldEvict(Placing(seq, 20000 + uint64_t(round), 3, true), view);
    gate.OnRequest(Access(seq + 5, 20000 + uint64_t(round), 3));
    moves.clear();
    gate.Evict(0, kSeg, view, &moves);
    ASSERT_EQ(1u, moves.size());
  }
  EXPECT_GT(gate.stats().victim_rate, 0.8);
  view.now = seq + 10;
  EXPECT_FALSE(gate.ShouldEvict(Placing(seq + 10, 30000, 3, true), view));
}

// The lock-free test OnRequest makes first: a segment added is seen until
// removed as often as it was added; one never added is not (in a filter
// holding nothing else).
TEST(PendingFilterTest, HoldsWhatWasAddedUntilRemoved) {
  PendingFilter f;
  const SegmentRef a{1, 2}, b{3, 4};
  EXPECT_FALSE(f.MayHold(a));
  f.Add(a);
  f.Add(a);
  EXPECT_TRUE(f.MayHold(a));
  EXPECT_FALSE(f.MayHold(b));
  f.Remove(a);
  EXPECT_TRUE(f.MayHold(a));
  f.Remove(a);
  EXPECT_FALSE(f.MayHold(a));
}

// harmonia:evict=1 evicts on placement only where its gate says so: cold,
// never; it spills to tier 1 instead.
TEST(EvictionGateTest, HarmoniaAsksTheGateWhenTierZeroIsFull) {
  std::string error;
  std::unique_ptr<Policy> plain = NewPolicy("harmonia", {{"inline", "1"}}, &error);
  ASSERT_NE(nullptr, plain) << error;
  EXPECT_FALSE(plain->EvictsOnPlacement());
  std::unique_ptr<Policy> p =
      NewPolicy("harmonia", {{"inline", "1"}, {"evict", "1"}, {"evict_horizon", "500"}}, &error);
  ASSERT_NE(nullptr, p) << error;
  EXPECT_TRUE(p->EvictsOnPlacement());
  View view(2);
  view.Add(1, 0, 0);
  view.Add(1, 1, 0);
  ASSERT_EQ(0, plain->Place(Placing(1, 2, 0, true), view)) << "the agent's own choice";
  EXPECT_EQ(1, p->Place(Placing(1, 2, 0, true), view)) << "a cold gate lets it spill";
  std::vector<Move> moves;
  p->Evict(0, kSeg, view, &moves);
  EXPECT_TRUE(moves.empty()) << "an eviction the gate did not answer for";
  // A gate warm from the start (no labels: the victims' rate is 0, the
  // newcomer's 0.5) says evict: the placement stays on tier 0 and the
  // writer's eviction, and that one only, moves lru's victim down.
  std::unique_ptr<Policy> eager =
      NewPolicy("harmonia", {{"inline", "1"}, {"evict", "1"}, {"evict_warmup", "0"}}, &error);
  ASSERT_NE(nullptr, eager) << error;
  EXPECT_EQ(0, eager->Place(Placing(1, 2, 0, true), view));
  eager->Evict(0, kSeg, view, &moves);
  ASSERT_EQ(1u, moves.size());
  EXPECT_EQ(1, moves[0].to);
  moves.clear();
  eager->Evict(0, kSeg, view, &moves);
  EXPECT_TRUE(moves.empty()) << "a second eviction for one answer";
  // A full slower tier (three tiers: tier 1 full too) is no question for the
  // gate: the segment spills further, nothing is evicted there.
  View three(2, 3);
  three.Add(1, 0, 0);
  three.Add(1, 1, 0);
  three.Add(1, 2, 1);
  p->Evict(1, kSeg, three, &moves);
  EXPECT_TRUE(moves.empty()) << "an eviction on tier 1";
  EXPECT_EQ(nullptr, NewPolicy("harmonia", {{"evict", "1"}, {"evict_horizn", "5"}}, &error));
  EXPECT_NE(std::string::npos, error.find("evict_horizn")) << error;
  // The gate's tunables are known names with the gate off too; cde+rl-migr,
  // which evicts as cde, refuses the gate.
  EXPECT_NE(nullptr, NewPolicy("harmonia", {{"evict_margin", "0.2"}}, &error)) << error;
  EXPECT_EQ(nullptr, NewPolicy("cde+rl-migr", {{"evict", "1"}}, &error));
  EXPECT_NE(std::string::npos, error.find("evict")) << error;
}

}  // namespace
}  // namespace tierfs
