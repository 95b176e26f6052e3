// oracle: Belady's rule for tiers, paying for moves only when the future
// repays them, with every move off the critical path.
//   - Place: tier 0 while it has room (less the room planned promotions
//     will take). When it is full, Belady's choice: the
//     new segment displaces the one there needed latest if it is needed
//     sooner and its uses before the other is needed repay the eviction
//     (which then runs on the critical path) and the other's next access
//     from the slower tier; otherwise it goes to the next slower tier with
//     room.
//   - Plan, every `interval` requests: rank the placed segments by when they
//     are next accessed and fill the tiers fastest first in that order (tier
//     0 up to 1 - reserve of its capacity). A segment ranked onto a faster
//     tier than its own is promoted, soonest needed first, if it pays: the
//     device time its accesses save there — up to when the segment it
//     displaces (the one on the destination needed latest, and later than
//     it) is next needed — must exceed the device time of the move, of the
//     displaced segment's move down and of that segment's next access from
//     down there. Costs come from the device models,
//     an access that continues a sequential run costs no seek on a device
//     where that is free, and a move through such a device costs the seek it
//     puts in the way of the run it interrupts.
//   - While tier 0 has less than `reserve` free, segments there that are
//     never needed again go down, so new data keeps landing on it.
// `gate` (requests, 0 off) makes it the ceiling of a learned eviction on
// placement (agents/eviction_gate.h): it evicts lru's victims for a new
// segment needed within `gate` requests, else spills, and plans nothing.
// Knowing the order and kind of future accesses but not the queueing they
// will meet, it is a strong reference, not a proven optimum (with moves that
// cost device time no simple rule is).
#include "tools/sim/oracle.h"

#include <algorithm>
#include <cstdint>

#include "agents/lru_eviction.h"
#include "tools/sim/future_index.h"

namespace tierfs {
namespace sim {
namespace {

class Oracle : public Policy {
 public:
  Oracle(const FutureIndex* future, std::vector<DeviceParams> devices, ParamReader& params)
      : future_(future),
        devices_(std::move(devices)),
        interval_(uint64_t(std::max(1.0, params.Number("interval", 256)))),
        reserve_(std::min(0.9, std::max(0.0, params.Number("reserve", 0)))),
        horizon_(size_t(std::max(1.0, params.Number("horizon", 32)))),
        gate_(uint64_t(params.Number("gate", 0))) {}

  const char* Name() const override { return kOracleName; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    evict_ = false;
    view_ = &view;
    const int tiers = view.NumTiers();
    if (!future_ || tiers < 2 || view.Free(0) >= request.bytes + Reserved(view)) return 0;
    // Tier 0 is full: Belady's choice, if it pays. The victim is the segment
    // there needed latest; the new one displaces it if needed sooner and
    // used enough before the victim is needed to repay the eviction, which
    // runs now, on the critical path.
    segment_bytes_ = view.SegmentSize();
    const uint64_t now = future_->now();
    const SegmentRef ref{request.file_id, request.segment};
    const uint64_t next = future_->NextAccess(ref, now);
    // The access placing it is served where it lands: the next tier down,
    // even for data never needed again (the slowest would make this access
    // pay the most).
    const int slow = SlowerWithRoom(view, 0, request.bytes, false);
    if (next == UINT64_MAX || slow < 0) return slow < 0 ? 0 : slow;
    if (gate_ > 0) {
      // The gate's ceiling: the new segment's future known, the victim lru's.
      if (next - now > gate_) return slow;
      evict_ = lru_evict_ = true;
      return 0;
    }
    Victim v;
    if (!FurthestOnFast(view, now, &v) || v.next <= next) return slow;
    const int victim_to = SlowerWithRoom(view, 0, v.bytes, v.next == UINT64_MAX);
    if (victim_to < 0) return slow;
    FutureIndex::Use current;  // the access placing it
    if (!future_->UseAt(ref, now, &current)) {
      current = FutureIndex::Use{now, uint32_t(request.bytes), false, request.write_size > 0, false};
    }
    double gain = UseSaving(current, slow, 0, NextIsOn(ref, slow));
    gain += Saving(ref, now, v.next, slow, 0);
    if (gain <= MoveCost(0, victim_to) + Saving(v.ref, now, UINT64_MAX, victim_to, 0, 1)) {
      return slow;
    }
    evict_ = true;
    victim_ = v.ref;
    victim_to_ = victim_to;
    return 0;
  }

  bool EvictsOnPlacement() const override { return true; }
  void Evict(int tier, uint64_t bytes, const StorageView& view, std::vector<Move>* moves) override {
    if (lru_evict_) {
      lru_evict_ = evict_ = false;
      lru_.Evict(tier, bytes, view, moves);
      return;
    }
    if (!evict_ || tier != 0) return;
    evict_ = false;
    Move m;
    m.op = Move::kMigrate;
    m.ref = victim_;
    m.to = victim_to_;
    moves->push_back(m);
    far_.pop_back();  // it leaves tier 0
    if (far_.empty()) far_built_ = false;
  }

  uint64_t PlanIntervalRequests() const override { return gate_ > 0 ? 0 : interval_; }

  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    const int tiers = view.NumTiers();
    if (!future_ || tiers < 2 || max == 0 || size_t(tiers) > devices_.size()) return;
    const uint64_t now = future_->now();
    segment_bytes_ = view.SegmentSize();
    view_ = &view;
    segments_.clear();
    view.ForEachSegment([&](const SegmentInfo& s) {
      if (s.busy || s.hints.pinned_tier >= 0) return;
      segments_.push_back({future_->NextAccess(s.ref, now), s.ref, s.bytes, s.tier});
    });
    std::sort(segments_.begin(), segments_.end(), Sooner);

    // Room per tier as the plan goes, and the tier each segment deserves.
    free_.assign(size_t(tiers), 0);
    for (int t = 0; t < tiers; ++t) free_[size_t(t)] = int64_t(view.Free(t));
    const int64_t fast_reserve = int64_t(double(view.Capacity(0)) * reserve_);
    std::vector<int64_t> budget(static_cast<size_t>(tiers));
    for (int t = 0; t < tiers; ++t) budget[size_t(t)] = int64_t(view.Capacity(t));
    budget[0] -= fast_reserve;
    for (Segment& s : segments_) {
      s.deserves = tiers - 1;
      if (s.next == UINT64_MAX) continue;  // needed never: anywhere
      for (int t = 0; t < tiers; ++t) {
        if (budget[size_t(t)] >= int64_t(s.bytes)) {
          budget[size_t(t)] -= int64_t(s.bytes);
          s.deserves = t;
          break;
        }
      }
    }

    // Promotions of the last plan have run or been dropped by now.
    promotions_.clear();

    // Tier 0's segments for Place's evictions, needed latest at the back.
    far_.clear();
    for (const Segment& seg : segments_) {
      if (seg.tier == 0) far_.push_back(Victim{seg.next, seg.ref, seg.bytes});
    }
    far_built_ = true;

    // Victims per tier, needed latest first (the back of the sorted list).
    victims_.assign(size_t(tiers), {});
    for (size_t i = segments_.size(); i-- > 0;) {
      victims_[size_t(segments_[i].tier)].push_back(i);
    }
    cursor_.assign(size_t(tiers), 0);

    for (Segment& up : segments_) {
      if (moves->size() >= max) return;
      if (up.next == UINT64_MAX) break;  // the rest are never needed
      if (up.moved || up.deserves >= up.tier) continue;
      const int to = up.deserves;
      const int64_t room = free_[size_t(to)] - (to == 0 ? fast_reserve : 0);
      Segment* down = nullptr;
      int down_to = -1;
      if (room < int64_t(up.bytes)) {
        down = PeekVictim(to);
        if (!down || down->next <= up.next) continue;  // nothing needed later than it
        down_to = DemotionTarget(*down, to);
        if (down_to < 0 || moves->size() + 2 > max) continue;
      }
      if (!Pays(up, to, down, down_to, now)) continue;
      if (down) {
        TakeVictim(to);
        Push(down, to, down_to, moves);
      }
      Push(&up, up.tier, to, moves);
      if (to == 0) promotions_.push_back(Victim{up.next, up.ref, up.bytes});
    }

    // Keep room on tier 0 for new data.
    while (free_[0] < fast_reserve && moves->size() < max) {
      Segment* down = PeekVictim(0);
      if (!down || down->next != UINT64_MAX) break;  // only what is never needed again
      TakeVictim(0);
      const int to = DemotionTarget(*down, 0);
      if (to >= 0) Push(down, 0, to, moves);
    }
  }

 private:
  struct Segment {
    uint64_t next;  // trace index of the next access, UINT64_MAX never
    SegmentRef ref;
    uint64_t bytes;
    int tier;
    int deserves = 0;
    bool moved = false;
  };

  struct Victim {
    uint64_t next;
    SegmentRef ref;
    uint64_t bytes;
  };

  // The segment on tier 0 needed latest, from the list the last Plan built,
  // brought up to date: an entry gone from tier 0 is dropped, one accessed
  // since (now needed later) is re-ranked. Nothing on tier 0 is needed later
  // than the result except segments placed since the plan.
  bool FurthestOnFast(const StorageView& view, uint64_t now, Victim* out) {
    SegmentInfo info;
    if (far_.empty() && !far_built_) {
      // Used up since the last plan (segments placed since are not in it):
      // list tier 0 again, once per plan.
      view.ForEachSegment([&](const SegmentInfo& s) {
        if (s.tier == 0 && !s.busy && s.hints.pinned_tier < 0) {
          far_.push_back(Victim{future_->NextAccess(s.ref, now), s.ref, s.bytes});
        }
      });
      std::sort(far_.begin(), far_.end(), [](const Victim& a, const Victim& b) {
        if (a.next != b.next) return a.next < b.next;
        if (a.ref.file_id != b.ref.file_id) return a.ref.file_id < b.ref.file_id;
        return a.ref.segment < b.ref.segment;
      });
      far_built_ = true;
    }
    while (!far_.empty()) {
      Victim& v = far_.back();
      if (!view.Lookup(v.ref, &info) || info.tier != 0) {
        far_.pop_back();
        continue;
      }
      const uint64_t next = future_->NextAccess(v.ref, now);
      if (next != v.next) {
        // Needed later than ranked (accessed since): move it up the list.
        Victim moved{next, v.ref, v.bytes};
        far_.pop_back();
        auto at = std::upper_bound(far_.begin(), far_.end(), moved,
                                   [](const Victim& a, const Victim& b) { return a.next < b.next; });
        far_.insert(at, moved);
        if (far_.back().next == next && far_.back().ref == moved.ref) {
          *out = far_.back();
          return true;
        }
        continue;
      }
      *out = v;
      return true;
    }
    return false;
  }

  // Bytes of tier 0 kept for the promotions planned and not yet run: room a
  // demotion makes for a promotion is not for new data.
  uint64_t Reserved(const StorageView& view) {
    SegmentInfo info;
    uint64_t bytes = 0;
    for (size_t i = 0; i < promotions_.size();) {
      if (view.Lookup(promotions_[i].ref, &info) && info.tier != 0) {
        bytes += promotions_[i].bytes;
        ++i;
      } else {
        promotions_.erase(promotions_.begin() + long(i));  // done, or gone
      }
    }
    return bytes;
  }

  // A tier slower than `from` with room: the slowest if the data is never
  // needed again, else the next; -1 if none.
  static int SlowerWithRoom(const StorageView& view, int from, uint64_t bytes, bool never) {
    const int tiers = view.NumTiers();
    if (never) {
      for (int t = tiers - 1; t > from; --t) {
        if (view.Free(t) >= bytes) return t;
      }
      return -1;
    }
    for (int t = from + 1; t < tiers; ++t) {
      if (view.Free(t) >= bytes) return t;
    }
    return -1;
  }

  static bool Sooner(const Segment& a, const Segment& b) {
    if (a.next != b.next) return a.next < b.next;
    if (a.ref.file_id != b.ref.file_id) return a.ref.file_id < b.ref.file_id;
    return a.ref.segment < b.ref.segment;
  }

  // Device time, in ns, of one access of `bytes` on `tier`.
  double Cost(int tier, bool write, bool sequential, uint64_t bytes) const {
    const DeviceParams& d = devices_[size_t(tier)];
    double lat_us = write ? d.write_latency_us : d.read_latency_us;
    if (sequential && d.sequential_is_free) lat_us = 0;
    const double mbps = write ? d.write_mbps : d.read_mbps;
    return 1000.0 * (lat_us + (mbps > 0 ? double(bytes) / mbps : 0));
  }
  // A move through a device where sequential runs are free breaks the run
  // in progress there: one more seek.
  double Interruption(int tier) const {
    const DeviceParams& d = devices_[size_t(tier)];
    return d.sequential_is_free ? 1000.0 * d.read_latency_us : 0;
  }
  // Device time the accesses to `ref` after `now` and before `until` (at
  // most `max` of them) save on tier `fast` rather than `slow`.
  double Saving(const SegmentRef& ref, uint64_t now, uint64_t until, int slow, int fast,
                size_t max = SIZE_MAX) {
    future_->Uses(ref, now, until, std::min(max, horizon_), &uses_);
    const bool next_stays = NextIsOn(ref, slow);
    double saved = 0;
    for (const FutureIndex::Use& u : uses_) saved += UseSaving(u, slow, fast, next_stays);
    return saved;
  }
  // True if the segment after `ref` in its file is on `tier`.
  bool NextIsOn(const SegmentRef& ref, int tier) const {
    SegmentInfo next;
    return view_ && view_->Lookup(SegmentRef{ref.file_id, ref.segment + 1}, &next) &&
           next.tier == tier;
  }
  // Device time one access saves on tier `fast` rather than `slow`;
  // `next_stays`: the segment after it stays on `slow`.
  double UseSaving(const FutureIndex::Use& u, int slow, int fast, bool next_stays) const {
    // A request that goes on into a next segment left on a device where
    // runs are free pays the seek there if not here: moving the start of a
    // run moves its seek, saves none.
    const bool seek_moves =
        u.continued && next_stays && devices_[size_t(slow)].sequential_is_free;
    return Cost(slow, u.write, u.sequential || seek_moves, u.bytes) -
           Cost(fast, u.write, u.sequential, u.bytes);
  }
  double MoveCost(int from, int to) const {
    return Cost(from, false, false, segment_bytes_) + Cost(to, true, false, segment_bytes_) +
           Interruption(from) + Interruption(to);
  }

  // True if promoting `up` to `to` (displacing `down` to `down_to`, if
  // given) saves more device time than it costs.
  bool Pays(const Segment& up, int to, const Segment* down, int down_to, uint64_t now) {
    const double gain = Saving(up.ref, now, down ? down->next : UINT64_MAX, up.tier, to);
    double cost = MoveCost(up.tier, to);
    // The displaced segment pays its move and, at least, its next access
    // from the slower tier.
    if (down) cost += MoveCost(to, down_to) + Saving(down->ref, now, UINT64_MAX, down_to, to, 1);
    return gain > cost;
  }

  // The unmoved segment on `tier` needed latest, or nullptr.
  Segment* PeekVictim(int tier) {
    std::vector<size_t>& list = victims_[size_t(tier)];
    size_t& c = cursor_[size_t(tier)];
    while (c < list.size() && segments_[list[c]].moved) ++c;
    return c < list.size() ? &segments_[list[c]] : nullptr;
  }
  void TakeVictim(int tier) { cursor_[size_t(tier)]++; }

  // Where `down` goes off `from`: the slowest tier with room if it is never
  // needed again, else the next slower tier with room; -1 if none has.
  int DemotionTarget(const Segment& down, int from) const {
    const int tiers = int(free_.size());
    if (down.next == UINT64_MAX) {
      for (int t = tiers - 1; t > from; --t) {
        if (free_[size_t(t)] >= int64_t(down.bytes)) return t;
      }
      return -1;
    }
    for (int t = from + 1; t < tiers; ++t) {
      if (free_[size_t(t)] >= int64_t(down.bytes)) return t;
    }
    return -1;
  }

  void Push(Segment* s, int from, int to, std::vector<Move>* moves) {
    Move m;
    m.op = Move::kMigrate;
    m.ref = s->ref;
    m.to = to;
    moves->push_back(m);
    s->moved = true;
    free_[size_t(to)] -= int64_t(s->bytes);
    free_[size_t(from)] += int64_t(s->bytes);
  }

  const FutureIndex* const future_;
  const std::vector<DeviceParams> devices_;
  const uint64_t interval_;
  const double reserve_;
  const size_t horizon_;
  const uint64_t gate_;      // > 0: the gate's ceiling (no plans, lru's victims)
  bool lru_evict_ = false;   // Place chose to evict, lru's victims
  LruEviction lru_;

  // Plan's scratch.
  const StorageView* view_ = nullptr;  // of the Place or Plan running
  uint64_t segment_bytes_ = 0;
  std::vector<Segment> segments_;
  std::vector<int64_t> free_;
  std::vector<std::vector<size_t>> victims_;
  std::vector<size_t> cursor_;
  std::vector<FutureIndex::Use> uses_;
  std::vector<Victim> far_;  // tier 0 by next access, ascending (Place's victims)
  bool far_built_ = false;   // far_ was listed and has not been used up by evictions
  std::vector<Victim> promotions_;  // to tier 0, planned and not yet run
  // Place chose to evict: Evict names this victim.
  bool evict_ = false;
  SegmentRef victim_;
  int victim_to_ = 1;
};

}  // namespace

std::unique_ptr<Policy> NewOraclePolicy(const FutureIndex* future,
                                        std::vector<DeviceParams> devices, ParamReader& params) {
  return std::make_unique<Oracle>(future, std::move(devices), params);
}

}  // namespace sim
}  // namespace tierfs
