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
// that fit tier 0 below its reserve make the top-k; each top-k segment not on
// tier 0 is migrated up, hottest first, and when tier 0 has no room for it the
// coldest tier-0 segments outside the top-k (and colder than it) go down to
// the slowest tier with room first (an extra copy there is dropped instead).
// Busy and pinned segments never move; at most `max` moves per plan.
// Parameters: interval (16384 requests), reserve (0.1: the fraction of tier 0
// that migration leaves free for new placements).
#include <algorithm>
#include <cstdint>

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
    // Hottest first; among equals, those already fast first (no move).
    std::sort(segments_.begin(), segments_.end(), [](const Segment& a, const Segment& b) {
      if (a.heat != b.heat) return a.heat > b.heat;
      if (a.OnFast() != b.OnFast()) return a.OnFast();
      if (a.ref.file_id != b.ref.file_id) return a.ref.file_id < b.ref.file_id;
      return a.ref.segment < b.ref.segment;
    });

    // The top-k: the hottest that fit what tier 0 may hold for segments.
    const int64_t limit = int64_t(double(view.Capacity(0)) * (1 - reserve_));
    const int64_t other = std::max<int64_t>(0, int64_t(view.Used(0)) - resident);
    int64_t budget = limit - other - fixed;
    for (Segment& s : segments_) {
      if (s.heat <= 0) break;
      if (int64_t(s.bytes) <= budget) {
        s.top = true;
        budget -= int64_t(s.bytes);
      }
    }

    // Promotions, hottest first, each after the demotions that make its room.
    int64_t room = limit - int64_t(view.Used(0));
    free_.assign(size_t(tiers), 0);
    for (int t = 1; t < tiers; ++t) free_[size_t(t)] = int64_t(view.Free(t));
    demotions_.clear();
    promotions_.clear();
    size_t victim = segments_.size();  // victims are taken from the cold end
    for (const Segment& up : segments_) {
      if (!up.top) continue;
      if (up.OnFast()) continue;
      size_t demoted = demotions_.size();
      while (room < int64_t(up.bytes) && victim > 0) {
        const Segment& down = segments_[victim - 1];
        if (down.heat >= up.heat) break;  // nothing colder left
        --victim;
        if (down.top || !down.OnFast()) continue;
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
  std::vector<int64_t> free_;
  std::vector<Move> demotions_;
  std::vector<Move> promotions_;
};

}  // namespace

std::unique_ptr<Policy> NewHintStorPolicy(ParamReader& params) {
  return std::make_unique<HintStor>(params);
}

}  // namespace tierfs
