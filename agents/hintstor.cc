// hintstor: HintStor's static hints and its heat-map migration ("HintStor: A
// Framework to Study I/O Hints in Heterogeneous Storage", hintstor.txt,
// sections 3.7, 4.1 and 4.2). Placement (REDIRECT) by static hints, the first
// rule that applies: a pinned file goes to its pin; a WAL (the file system's
// journal, a level-1 hint) to tier 0; an access hint hot, read- or
// write-intensive, or temperature hot, to tier 0; an access hint cold or
// archival, or temperature cold, to the slowest tier with room; segment 0 of
// any file to tier 0 (a small file fits in it entirely: the level-2 hint,
// small files on the fastest device); the rest of a large file to the slowest
// tier with room. Migration, every interval requests: segments are ranked by
// heat (user reads, decayed, SegmentStats::HeatAt) and the hottest
// that fit tier 0 below its reserve, counted as whole segments, make the
// top-k; each top-k segment not on
// tier 0 is migrated up, hottest first, and when tier 0 has no room for it the
// coldest tier-0 segments outside the top-k (and colder than it) go down to
// the slowest tier with room first (an extra copy there is dropped instead).
// Busy and pinned segments never move; at most `max` moves per plan.
// Parameters: interval (16384 requests), reserve (0.1: the fraction of tier 0
// that migration leaves free for new placements).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "agents/policies.h"

namespace tierfs {
namespace {

class HintStor : public Policy {
 public:
  explicit HintStor(ParamReader& params)
      : interval_(uint64_t(std::max(1.0, params.Number("interval", 1 << 14)))),
        reserve_(std::min(1.0, std::max(0.0, params.Number("reserve", 0.1)))) {}

  const char* Name() const override { return "hintstor"; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    const Hints& h = request.hints;
    if (h.pinned_tier >= 0) return std::min(h.pinned_tier, view.NumTiers() - 1);
    if (request.kind == FileKind::kWal || !IsBulkKind(request.kind)) return 0;
    if (h.access == AccessHint::kHot || h.access == AccessHint::kReadIntensive ||
        h.access == AccessHint::kWriteIntensive || h.temperature == Temperature::kHot) {
      return 0;
    }
    const bool cold = h.access == AccessHint::kCold || h.access == AccessHint::kArchival ||
                      h.temperature == Temperature::kCold;
    if (!cold && request.segment == 0) return 0;
    for (int t = view.NumTiers() - 1; t > 0; --t) {
      if (view.Free(t) >= request.bytes) return t;
    }
    return view.NumTiers() - 1;
  }

  uint64_t PlanIntervalRequests() const override { return interval_; }

  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    const int tiers = view.NumTiers();
    if (max == 0 || tiers < 2) return;
    const uint64_t now = view.Now();

    // The heat map. Busy and pinned segments do not move, but their bytes on
    // tier 0 stay there.
    segments_.clear();
    int64_t resident = 0;  // bytes of placed segments (homes and copies) on tier 0
    int64_t fixed = 0;     // of those, busy or pinned ones
    view.ForEachSegment([&](const SegmentInfo& s) {
      const bool on_fast = s.tier == 0 || s.copy_tier == 0;
      if (on_fast) resident += int64_t(s.bytes);
      if (s.busy || s.hints.pinned_tier >= 0) {
        if (on_fast) fixed += int64_t(s.bytes);
        return;
      }
      segments_.push_back({s.stats.HeatAt(now), s.ref, s.bytes, s.tier, s.copy_tier, false});
    });
    // The top-k: the hottest that fit what tier 0 may hold for segments,
    // counted as whole segments. Selected, not sorted: a plan runs every
    // interval requests over every segment, and only its few moves need an
    // order (the simulator replays millions of requests a second).
    const int64_t limit = int64_t(double(view.Capacity(0)) * (1 - reserve_));
    const int64_t other = std::max<int64_t>(0, int64_t(view.Used(0)) - resident);
    const int64_t budget = limit - other - fixed;
    MakeKeys();
    auto hot_end = std::partition(keys_.begin(), keys_.end(),
                                  [&](const Key& k) { return segments_[k.index].heat > 0; });
    const size_t top_count = std::min<size_t>(
        size_t(hot_end - keys_.begin()),
        budget > 0 ? size_t(uint64_t(budget) / std::max<uint64_t>(1, view.SegmentSize())) : 0);
    std::nth_element(keys_.begin(), keys_.begin() + long(top_count), hot_end, HotterOrder());
    for (size_t i = 0; i < top_count; ++i) segments_[keys_[i].index].top = true;

    // Promotion candidates, hottest first; victims, coldest first: the
    // first `max` of each are all a plan can use.
    ups_.clear();
    downs_.clear();
    for (size_t i = 0; i < keys_.size(); ++i) {
      const Segment& seg = segments_[keys_[i].index];
      if (seg.top && !seg.OnFast()) ups_.push_back(keys_[i]);
      if (!seg.top && seg.OnFast()) downs_.push_back(keys_[i]);
    }
    const size_t n_up = std::min(max, ups_.size());
    std::partial_sort(ups_.begin(), ups_.begin() + long(n_up), ups_.end(), HotterOrder());
    const size_t n_down = std::min(max, downs_.size());
    std::partial_sort(downs_.begin(), downs_.begin() + long(n_down), downs_.end(),
                      [&](const Key& a, const Key& b) { return HotterOrder()(b, a); });

    // Promotions, hottest first, each after the demotions that make its room.
    int64_t room = limit - int64_t(view.Used(0));
    free_.assign(size_t(tiers), 0);
    for (int t = 1; t < tiers; ++t) free_[size_t(t)] = int64_t(view.Free(t));
    demotions_.clear();
    promotions_.clear();
    size_t victim = 0;  // into downs_
    for (size_t u = 0; u < n_up; ++u) {
      const Segment& up = segments_[ups_[u].index];
      size_t demoted = demotions_.size();
      while (room < int64_t(up.bytes) && victim < n_down) {
        const Segment& down = segments_[downs_[victim].index];
        if (down.heat >= up.heat) break;  // nothing colder left
        ++victim;
        Move m;
        m.ref = down.ref;
        if (down.copy_tier == 0) {
          m.op = Move::kDropCopy;
        } else {
          m.op = Move::kMigrate;
          m.to = SlowestWithRoom(down.bytes);
          if (m.to < 0) continue;
          free_[size_t(m.to)] -= int64_t(down.bytes);
        }
        demotions_.push_back(m);
        room += int64_t(down.bytes);
      }
      if (room < int64_t(up.bytes) ||
          demotions_.size() + promotions_.size() + 1 > max) {
        demotions_.resize(demoted);  // their room would go unused
        break;
      }
      Move m;
      m.op = Move::kMigrate;
      m.ref = up.ref;
      m.to = 0;
      promotions_.push_back(m);
      room -= int64_t(up.bytes);
    }
    moves->insert(moves->end(), demotions_.begin(), demotions_.end());
    moves->insert(moves->end(), promotions_.begin(), promotions_.end());
  }

 private:
  struct Segment {
    double heat;
    SegmentRef ref;
    uint64_t bytes;
    int tier;
    int copy_tier;
    bool top;  // in the top-k
    bool OnFast() const { return tier == 0 || copy_tier == 0; }
  };
  struct Key {
    uint64_t heat;  // inverted bits of the heat
    bool slow;      // not on tier 0
    uint32_t index; // into segments_
  };

  // One small key per segment, to select on instead of the segments.
  void MakeKeys() {
    keys_.clear();
    for (uint32_t i = 0; i < uint32_t(segments_.size()); ++i) {
      const Segment& s = segments_[i];
      // A non-negative double's bits order as the double does; inverted,
      // the hottest comes first.
      uint64_t bits;
      static_assert(sizeof(bits) == sizeof(s.heat), "heat is a double");
      std::memcpy(&bits, &s.heat, sizeof(bits));
      keys_.push_back({~bits, !s.OnFast(), i});
    }
  }
  // Hottest first; among equals, those already fast first (no move), then by
  // segment, so that the choice does not depend on the enumeration order.
  struct Hotter {
    const std::vector<Segment>* segments;
    bool operator()(const Key& a, const Key& b) const {
      if (a.heat != b.heat) return a.heat < b.heat;
      if (a.slow != b.slow) return a.slow < b.slow;
      const SegmentRef& x = (*segments)[a.index].ref;
      const SegmentRef& y = (*segments)[b.index].ref;
      if (x.file_id != y.file_id) return x.file_id < y.file_id;
      return x.segment < y.segment;
    }
  };
  Hotter HotterOrder() const { return Hotter{&segments_}; }

  // The slowest tier below 0 that still has room for `bytes` after the moves
  // planned so far; -1 if none.
  int SlowestWithRoom(uint64_t bytes) const {
    for (int t = int(free_.size()) - 1; t > 0; --t) {
      if (free_[size_t(t)] >= int64_t(bytes)) return t;
    }
    return -1;
  }

  // Constant after construction.
  const uint64_t interval_;
  const double reserve_;

  // Plan's scratch, kept to avoid reallocating (Plan runs one at a time).
  std::vector<Segment> segments_;
  std::vector<Key> keys_, ups_, downs_;
  std::vector<int64_t> free_;
  std::vector<Move> demotions_;
  std::vector<Move> promotions_;
};

}  // namespace

std::unique_ptr<Policy> NewHintStorPolicy(ParamReader& params) {
  return std::make_unique<HintStor>(params);
}

}  // namespace tierfs
