#include "engine/placement.h"

#include <algorithm>
#include <cmath>

namespace tierfs {
namespace {

// What a policy places an upper level's segment by (Choose): tier 0 as if
// the hot-page copies on it were not there.
class WithoutCopies final : public StorageView {
 public:
  WithoutCopies(const StorageView& base, uint64_t copy_bytes)
      : base_(base), copy_bytes_(copy_bytes) {}
  int NumTiers() const override { return base_.NumTiers(); }
  uint64_t Capacity(int tier) const override { return base_.Capacity(tier); }
  uint64_t Used(int tier) const override {
    const uint64_t used = base_.Used(tier);
    return tier == 0 ? used - std::min(used, copy_bytes_) : used;
  }
  uint64_t Now() const override { return base_.Now(); }
  uint64_t SegmentSize() const override { return base_.SegmentSize(); }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override {
    base_.ForEachSegment(fn);
  }
  bool Lookup(const SegmentRef& ref, SegmentInfo* info) const override {
    return base_.Lookup(ref, info);
  }
  void ForEachSegmentThat(bool tables, bool read_below_fast,
                          const std::function<void(const SegmentInfo&)>& fn) const override {
    base_.ForEachSegmentThat(tables, read_below_fast, fn);
  }

 private:
  const StorageView& base_;
  const uint64_t copy_bytes_;
};

}  // namespace

int PlacementEngine::Choose(const PlacementRequest& request, bool bulk, uint64_t bytes,
                            const StorageView& view,
                            const std::function<void(const Move&)>& execute) {
  const int tiers = view.NumTiers();
  if (request.hints.pinned_tier >= 0 && request.hints.pinned_tier < tiers) {
    return request.hints.pinned_tier;  // REDIRECT
  }
  if (!bulk) return 0;
  int chosen = -1;
  const int want = Overrule(request, bytes, view, execute, &chosen);
  // Where the caller's charge goes (SpillOrder, as Store::ChargeSomeTier and
  // the simulator charge): the tier the policy learns it took.
  const int placed = SpillOrder(want, tiers, -1, [&](int t) { return view.Free(t) >= bytes; });
  policy_->OnPlaced(request, chosen, placed >= 0 ? placed : want);
  return want;
}

int PlacementEngine::Overrule(const PlacementRequest& request, uint64_t bytes,
                              const StorageView& view,
                              const std::function<void(const Move&)>& execute, int* chosen) {
  const int tiers = view.NumTiers();
  if (request.kind == FileKind::kWal) NoteWal(request, view);
  // Room for the upper levels (MigrationOptions::level_room): table files
  // are rewritten soonest, and read soonest after a write, the higher their
  // level (RocksDB's db_paths lays levels into paths in this order).
  const bool levels = options_.level_room && tiers > 1 && request.kind == FileKind::kSst &&
                      request.hints.level >= 0 && !policy_->KeepsItsPlacement();
  const int level = levels ? std::min(request.hints.level, kLevels - 1) : -1;
  const bool counted = levels && LevelsCounted(view);
  // Its segment fits in tier 0 beside the levels above it.
  const bool fits = counted && LeavesRoomAbove(level, bytes, view);
  // A segment of an upper level (one that fits in tier 0 whole, with the
  // levels above it) that fits: its room comes before the copies', so the
  // policy places it as if they were not there, and the least frequent
  // copies are dropped (no write) if it goes to tier 0. Under updates the
  // newest versions of hot keys are in the upper levels, and their pages are
  // rewritten too soon to be copied (DESIGN.md, "Room for the upper levels").
  const bool upper = fits && level <= upper_levels_.load(std::memory_order_relaxed);
  const uint64_t copy_bytes = upper && copies_ != nullptr ? copies_->used_bytes() : 0;
  // Room for the WAL (MigrationOptions::wal_room): a table segment leaves a
  // memtable's worth of tier 0 free (at most half of it, as the headroom),
  // or goes to tier 1. Its writes are the background's; the WAL's are the
  // client's, and under fast-first 38% of a db_bench fill's WAL spilled
  // behind flushes and L0-L1 output, each write 18x slower
  // (docs/lab-notebook.md, "Every workload of the issue in one run").
  const uint64_t wal_keep =
      options_.wal_room && tiers > 1 && request.kind != FileKind::kWal &&
              !policy_->EvictsOnPlacement() && !policy_->KeepsItsPlacement()
          ? std::min(wal_reached_.load(std::memory_order_relaxed), view.Capacity(0) / 2)
          : 0;
  const uint64_t claim = copy_claim_.load(std::memory_order_relaxed);
  // What the rules below will let stand, for the policy to choose among
  // (PlacementRequest::allowed): tier 0 unless one of them overrules it or
  // it has no room (an upper level's segment may drop copies for it; a
  // policy that evicts on placement makes its own), a slower tier if it has
  // room; the slowest always.
  PlacementRequest masked = request;
  masked.allowed = 0;
  for (int t = 0; t < tiers && t < 32; ++t) {
    bool ok = t == tiers - 1 || view.Free(t) >= bytes;
    if (t == 0 && tiers > 1) {
      ok = policy_->EvictsOnPlacement() || view.Free(0) + copy_bytes >= bytes + wal_keep;
      if (request.hints.level >= 1 && !upper && view.Free(0) < bytes + claim) ok = false;
      if (levels && level >= 1 && counted && !fits) ok = false;
    }
    if (ok) masked.allowed |= 1u << t;
  }
  *chosen = copy_bytes > 0 ? policy_->Place(masked, WithoutCopies(view, copy_bytes))
                           : policy_->Place(masked, view);
  int want = *chosen >= 0 && *chosen < tiers ? *chosen : 0;
  if (want == 0 && copy_bytes > 0 && view.Free(0) < bytes + wal_keep) {
    // In batches: a shrink ranks every copy.
    copies_->Shrink(
        std::max(bytes + wal_keep - view.Free(0), view.Capacity(0) / kShrinkBatches));
  }
  if (want == 0 && wal_keep > 0 && view.Free(0) < bytes + wal_keep) want = 1;
  if (want == 0 && !policy_->EvictsOnPlacement() && view.Free(0) < bytes &&
      (request.kind == FileKind::kWal || request.hints.level == 0)) {
    // New writes the policy wanted on tier 0 find it full: keep a
    // memtable's worth free from now on (Headroom).
    RaiseTo(&write_room_, wal_reached_.load(std::memory_order_relaxed));
  }
  if (want == 0 && tiers > 1 && request.hints.level >= 1 && !upper &&
      view.Free(0) < bytes + claim) {
    // Compaction output below L0 does not take the room the copies asked
    // for: their pages were read, it was not (yet), and its hot pages get
    // copies of their own (heat through compaction). The WAL, flushes and
    // L0 still take any free space, and so do the upper levels.
    want = 1;
  }
  if (levels) {
    // Deeper output leaves tier 0 the room the levels above it need.
    // Without it tier 0 ends up holding the longest-lived, deepest files:
    // an upper level's short-lived files free their room for whatever is
    // written next, and a deep file keeps it for long.
    if (want == 0 && level >= 1 && counted && !fits) want = 1;
    // What the segment will hold, as the recount will see it once written.
    const uint64_t holds = request.bytes > 0 ? request.bytes : bytes;
    level_bytes_[level].fetch_add(holds, std::memory_order_relaxed);
    if (want == 0) fast_level_bytes_[level].fetch_add(holds, std::memory_order_relaxed);
  }
  if (!policy_->EvictsOnPlacement() || view.Free(want) >= bytes) return want;
  MutexLock lock(&decide_mu_);
  // Another writer may have made the room while this one waited.
  if (view.Free(want) >= bytes) return want;
  victims_.clear();
  policy_->Evict(want, bytes - view.Free(want), view, &victims_);
  for (const Move& m : victims_) {
    // A victim that cannot move now (written, or no room below) is skipped;
    // if room is still short, the new segment spills.
    execute(m);
    if (view.Free(want) >= bytes) break;
  }
  return want;
}

bool PlacementEngine::Plan(const StorageView& view, size_t max, std::vector<Move>* moves,
                           bool policy_due) {
  MutexLock lock(&decide_mu_);
  const size_t before = moves->size();
  if (policy_due && policy_->PlanIntervalRequests() > 0) policy_->Plan(view, max, moves);
  size_t made = moves->size() - before;
  DecayWriteRoom(view.Now());
  // The level counts come from the fill's scan of the segments (nothing
  // before them reads the counts), or from a scan of their own if the fill
  // had no room to scan for.
  const bool count_levels =
      options_.level_room && view.NumTiers() > 1 && !policy_->KeepsItsPlacement();
  if (copies_) {
    copies_->SetHeadroom(Headroom(view.Capacity(0)));
    // Halved per kCopyDemandHalfLife requests, not per plan: plans come as
    // soon as the queue has room while the fill or the demotions have more
    // to do, and halving at each of those forgot the copies' demand within
    // a few moves (the fill then promoted homes into the room they asked for).
    const uint64_t now = view.Now();
    const double keep =
        now > copy_seq_ ? std::exp2(-double(now - copy_seq_) / double(kCopyDemandHalfLife)) : 1.0;
    copy_seq_ = std::max(copy_seq_, now);
    const uint64_t wanted = copies_->TakeWantedBytes();
    copy_demand_ = uint64_t(double(copy_demand_) * keep) + wanted + copies_->TakeAdmittedBytes();
    copy_claim_.store(std::min(copies_->reserve_left(), copy_demand_), std::memory_order_relaxed);
    copy_owed_ = std::min((wanted ? copy_owed_ : uint64_t(double(copy_owed_) * keep)) + wanted,
                          copies_->reserve_left());
  }
  LevelBytes levels;
  bool counted = false;
  bool more = Fill(view, made < max ? max - made : 0, moves, /*may_resume=*/!policy_due,
                   count_levels ? &levels : nullptr, &counted);
  // A resumed fill walked nothing: the counts of its scan, a moment ago, stand.
  if (count_levels && !fill_resumed_) {
    if (counted) {
      StoreLevels(view, levels);
    } else {
      CountLevels(view);
    }
  }
  made = moves->size() - before;
  if (copies_ && MakeRoomForCopies(view, made < max ? max - made : 0, moves)) more = true;
  return more;
}

bool PlacementEngine::MakeRoomForCopies(const StorageView& view, size_t max,
                                        std::vector<Move>* moves) {
  if (copy_owed_ == 0 || view.NumTiers() < 2) return false;
  if (max == 0) return true;  // the queue is full: the next plan as soon as it has room
  // What the copies are owed, less what is free already (above the headroom
  // kept for new writes) and what moves in flight free.
  int64_t need =
      int64_t(copy_owed_) - (int64_t(view.Free(0)) - int64_t(Headroom(view.Capacity(0))));
  for (const Move& m : *moves) {
    if (m.to == 0 && m.op != Move::kDropCopy) need += int64_t(view.SegmentSize());
  }
  if (need <= 0) return false;
  candidates_.clear();
  const uint64_t now = view.Now();
  const int upper = LevelsCounted(view) ? upper_levels_.load(std::memory_order_relaxed) : -1;
  view.ForEachSegment([&](const SegmentInfo& s) {
    decide_mu_.AssertHeld();  // called back here, under it
    if (s.tier != 0 || s.busy || s.hints.pinned_tier >= 0 || s.bytes == 0) return;
    // The upper levels' homes stay: their room comes first (Choose).
    if (s.kind == FileKind::kSst && s.hints.level >= 0 && s.hints.level <= upper) return;
    candidates_.push_back({policy_->FillRank(s, now), s.bytes, s.ref});
  });
  SortCandidates(/*best_first=*/false);
  size_t added = 0;
  for (const Candidate& c : candidates_) {
    if (need <= 0) return false;
    if (added == max) return true;
    if (Planned(*moves, c.ref)) continue;
    moves->push_back(Migration(c.ref, 1));
    need -= int64_t(c.bytes);
    copy_owed_ -= std::min(copy_owed_, c.bytes);
    added++;
  }
  return false;
}

bool PlacementEngine::LeavesRoomAbove(int level, uint64_t bytes, const StorageView& view) const {
  level = std::min(level, kLevels - 1);
  uint64_t need = bytes;
  for (int l = 0; l < kLevels; ++l) {
    need += (l < level ? level_bytes_ : fast_level_bytes_)[l].load(std::memory_order_relaxed);
  }
  const uint64_t capacity = view.Capacity(0);
  const uint64_t headroom = Headroom(capacity);
  return capacity > headroom && need <= capacity - headroom;
}

bool PlacementEngine::LevelsCounted(const StorageView& view) const {
  const uint64_t at = levels_counted_at_.load(std::memory_order_relaxed);
  const uint64_t now = view.Now();
  return at > 0 && (now < at || now - at <= kLevelCountsKeep);
}

void PlacementEngine::LevelBytes::Add(const SegmentInfo& s) {
  if (s.kind != FileKind::kSst || s.hints.level < 0) return;
  const int l = std::min(s.hints.level, kLevels - 1);
  all[l] += s.bytes;
  if (s.tier == 0) fast[l] += s.bytes;
}

void PlacementEngine::CountLevels(const StorageView& view) {
  LevelBytes counted;
  view.ForEachSegmentThat(/*tables=*/true, /*read_below_fast=*/false,
                          [&](const SegmentInfo& s) { counted.Add(s); });
  StoreLevels(view, counted);
}

void PlacementEngine::StoreLevels(const StorageView& view, const LevelBytes& counted) {
  const uint64_t* all = counted.all;
  const uint64_t* fast = counted.fast;
  const uint64_t capacity = view.Capacity(0), headroom = Headroom(capacity);
  const uint64_t room = capacity > headroom ? capacity - headroom : 0;
  uint64_t above = 0;
  int upper = -1;
  for (int l = 0; l < kLevels; ++l) {
    level_bytes_[l].store(all[l], std::memory_order_relaxed);
    fast_level_bytes_[l].store(fast[l], std::memory_order_relaxed);
    above += all[l];
    if (above <= room && upper == l - 1) upper = l;
  }
  const uint64_t now = view.Now();
  if (upper >= upper_peak_ || now < upper_peak_at_ || now - upper_peak_at_ > kUpperLevelsKeep) {
    upper_peak_ = upper;
    upper_peak_at_ = now;
  }
  upper_levels_.store(upper_peak_, std::memory_order_relaxed);
  levels_counted_at_.store(std::max<uint64_t>(view.Now(), 1), std::memory_order_relaxed);
}

void PlacementEngine::SortCandidates(bool best_first) {
  // Ties by name, so that the choice does not depend on the enumeration
  // order (the store's and the simulator's differ).
  std::sort(candidates_.begin(), candidates_.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.rank != b.rank) return best_first ? a.rank > b.rank : a.rank < b.rank;
    if (a.ref.file_id != b.ref.file_id) return a.ref.file_id < b.ref.file_id;
    return a.ref.segment < b.ref.segment;
  });
}

void PlacementEngine::OrderBestUpTo(std::vector<Candidate>* list, size_t want, size_t* ordered) {
  auto better = [](const Candidate& a, const Candidate& b) {  // SortCandidates(true)'s order
    if (a.rank != b.rank) return a.rank > b.rank;
    if (a.ref.file_id != b.ref.file_id) return a.ref.file_id < b.ref.file_id;
    return a.ref.segment < b.ref.segment;
  };
  const auto first = list->begin() + long(*ordered);
  const size_t k = std::min(list->size(), std::max(want, *ordered));
  if (k < list->size()) std::nth_element(first, list->begin() + long(k), list->end(), better);
  std::sort(first, list->begin() + long(k), better);
  *ordered = k;
}

bool PlacementEngine::Planned(const std::vector<Move>& moves, const SegmentRef& ref) {
  return std::any_of(moves.begin(), moves.end(), [&](const Move& m) { return m.ref == ref; });
}

Move PlacementEngine::Migration(const SegmentRef& ref, int to) {
  Move m;
  m.op = Move::kMigrate;
  m.ref = ref;
  m.to = to;
  return m;
}

uint64_t PlacementEngine::PlanIntervalRequests() const {
  const uint64_t own = policy_->PlanIntervalRequests();
  return own > 0 ? own : kFillIntervalRequests;
}

uint64_t PlacementEngine::Headroom(uint64_t fast_capacity) const {
  const uint64_t given =
      options_.fast_headroom_bytes > 0
          ? options_.fast_headroom_bytes
          : fast_capacity / 100 * std::min<uint64_t>(options_.fast_headroom_pct, 100);
  // What the policy's own plans keep free (Policy::FastHeadroomShare).
  const double share = std::clamp(policy_->FastHeadroomShare(), 0.0, 1.0);
  const uint64_t configured = std::max(given, uint64_t(double(fast_capacity) * share));
  if (!options_.fast_headroom_auto) return configured;
  const uint64_t writes = std::min(write_room_.load(std::memory_order_relaxed), fast_capacity / 2);
  return std::max(configured, writes);
}

void PlacementEngine::DecayWriteRoom(uint64_t now) {
  if (now <= write_room_seq_) return;
  const double keep = std::exp2(-double(now - write_room_seq_) / double(kWriteRoomHalfLife));
  write_room_seq_ = now;
  for (std::atomic<uint64_t>* v : {&write_room_, &wal_reached_}) {
    v->store(uint64_t(double(v->load(std::memory_order_relaxed)) * keep),
             std::memory_order_relaxed);
  }
}

void PlacementEngine::RaiseTo(std::atomic<uint64_t>* v, uint64_t bytes) {
  uint64_t cur = v->load(std::memory_order_relaxed);
  while (bytes > cur && !v->compare_exchange_weak(cur, bytes, std::memory_order_relaxed)) {
  }
}

void PlacementEngine::NoteWal(const PlacementRequest& request, const StorageView& view) {
  // Where the WAL has reached: its segments are placed in order. A store of
  // whole-file segments places a WAL once, at its start: nothing to learn.
  const uint64_t seg = view.SegmentSize();
  if (seg == 0 || request.segment > (UINT64_MAX - seg) / seg) return;
  RaiseTo(&wal_reached_, (request.segment + 1) * seg);
}

bool PlacementEngine::Fill(const StorageView& view, size_t max, std::vector<Move>* moves,
                           bool may_resume, LevelBytes* levels, bool* counted) {
  if (counted) *counted = false;
  const bool could_resume = fill_more_;
  fill_more_ = fill_resumed_ = false;
  if (view.NumTiers() < 2 || !policy_->Fills()) return false;
  const uint64_t headroom = Headroom(view.Capacity(0));
  // The copies' reserve they do not use yet is theirs to grow into, as far
  // as they are growing.
  const uint64_t reserved = copies_ ? std::min(copies_->reserve_left(), copy_demand_) : 0;
  int64_t room = int64_t(view.Free(0)) - int64_t(headroom) - int64_t(reserved);
  for (const Move& m : *moves) {
    if (m.to == 0 && m.op != Move::kDropCopy) room -= int64_t(view.SegmentSize());
  }
  if (room <= 0) return false;
  const uint64_t now = view.Now();
  auto wanted = [](const SegmentInfo& s) {
    return s.tier != 0 && s.copy_tier != 0 && !s.busy && s.hints.pinned_tier < 0 &&
           s.stats.user_reads > 0 && s.bytes > 0;
  };
  fill_resumed_ = may_resume && could_resume && now >= fill_scanned_at_ &&
                  now - fill_scanned_at_ < kFillResumeRequests;
  if (!fill_resumed_) {
    fill_.clear();
    fill_least_bytes_ = UINT64_MAX;
    fill_next_ = fill_ordered_ = 0;
    fill_scanned_at_ = now;
    view.ForEachSegmentThat(levels != nullptr, /*read_below_fast=*/true, [&](const SegmentInfo& s) {
      decide_mu_.AssertHeld();  // called back here, under it
      if (levels) levels->Add(s);
      if (!wanted(s)) return;
      const double rank = policy_->FillRank(s, now);
      if (!(rank > 0)) return;  // NaN too
      fill_.push_back({rank, s.bytes, s.ref});
      fill_least_bytes_ = std::min(fill_least_bytes_, s.bytes);
    });
    if (counted) *counted = levels != nullptr;
  }
  // Best first, ordered as far as the loop looks: it stops after `max`
  // moves, skipping those planned already, those too large for the room and,
  // resumed, those that have moved or changed since the scan. A plan comes
  // after every move while the fill has more, so a full sort of every
  // candidate each time, or a scan each time, cost most of a replay. Room
  // for less than the smallest candidate skips every one left, at once: in
  // order, as all were skipped for their size, that cost most of a mutant
  // replay (a file's last segments are the small ones).
  size_t added = 0;
  SegmentInfo now_info;
  for (; fill_next_ < fill_.size(); ++fill_next_) {
    if (room <= 0) break;
    if (uint64_t(room) < fill_least_bytes_) {
      fill_next_ = fill_.size();
      break;
    }
    if (fill_next_ == fill_ordered_) {
      OrderBestUpTo(&fill_, std::max(2 * fill_ordered_, max + moves->size() + 8), &fill_ordered_);
    }
    const Candidate& c = fill_[fill_next_];
    if (int64_t(c.bytes) > room) continue;
    if (added == max) {
      fill_more_ = true;
      return true;
    }
    if (Planned(*moves, c.ref)) continue;
    if (fill_resumed_ && (!view.Lookup(c.ref, &now_info) || !wanted(now_info))) continue;
    moves->push_back(Migration(c.ref, 0));
    room -= int64_t(c.bytes);
    added++;
  }
  return false;
}

MoveStep FirstStep(const Move& move, int tiers, int home, int copy) {
  if (move.op == Move::kDropCopy) return copy < 0 ? MoveStep::kNothing : MoveStep::kDropCopy;
  if (move.to < 0 || move.to >= tiers) return MoveStep::kInvalid;
  if (move.to == home) return MoveStep::kNothing;
  if (move.op != Move::kMigrate && copy == move.to) return MoveStep::kNothing;
  return MoveStep::kCarry;
}

}  // namespace tierfs
