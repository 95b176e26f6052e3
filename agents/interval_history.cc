#include "agents/interval_history.h"

#include <algorithm>

namespace tierfs {

IntervalHistory::IntervalHistory(size_t length) : length_(std::max<size_t>(1, length)) {}

void IntervalHistory::Sample(const StorageView& view) {
  const uint64_t generation = ++intervals_;
  std::vector<Segment> next;
  next.reserve(segments_.size());
  std::vector<uint64_t> totals;
  totals.reserve(segments_.size());
  view.ForEachSegment([&](const SegmentInfo& s) {
    const uint64_t accesses = uint64_t(s.stats.user_reads) + s.stats.writes;
    Segment seg;
    seg.ref = s.ref;
    seg.bytes = s.bytes;
    seg.tier = s.tier;
    seg.fixed = s.busy || s.hints.pinned_tier >= 0;
    uint64_t before = 0;
    auto it = seen_.find(s.ref);
    if (it != seen_.end() && it->second.generation + 1 == generation) {
      seg.counts = std::move(segments_[it->second.index].counts);
      before = it->second.accesses;
    } else {
      seg.counts.assign(length_, 0);
    }
    // Counters only grow while a segment stays placed; a smaller total is a
    // segment placed again under the same name.
    const uint64_t delta = accesses >= before ? accesses - before : accesses;
    std::rotate(seg.counts.begin(), seg.counts.begin() + 1, seg.counts.end());
    seg.counts.back() = uint32_t(std::min<uint64_t>(delta, UINT32_MAX));
    next.push_back(std::move(seg));
    totals.push_back(accesses);
  });
  // By file, then segment: the plans do not depend on the view's order.
  std::vector<size_t> order(next.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SegmentRef& x = next[a].ref;
    const SegmentRef& y = next[b].ref;
    return x.file_id != y.file_id ? x.file_id < y.file_id : x.segment < y.segment;
  });
  segments_.clear();
  segments_.reserve(next.size());
  for (size_t i : order) {
    Seen& seen = seen_[next[i].ref];
    seen.accesses = totals[i];
    seen.generation = generation;
    seen.index = segments_.size();
    segments_.push_back(std::move(next[i]));
  }
  for (auto it = seen_.begin(); it != seen_.end();) {
    it = it->second.generation == generation ? std::next(it) : seen_.erase(it);
  }
}

void PlanTowardWanted(const StorageView& view, const IntervalHistory& history,
                      std::vector<Wanted> wanted, size_t max, std::vector<Move>* moves) {
  const std::vector<IntervalHistory::Segment>& segments = history.segments();
  const int tiers = view.NumTiers();
  std::vector<int64_t> free(static_cast<size_t>(tiers), 0);
  for (int t = 0; t < tiers; ++t) free[size_t(t)] = int64_t(view.Free(t));

  // The promotions, hottest first; the demotions by the tier they leave,
  // coldest first.
  std::vector<Wanted> up;
  std::vector<std::vector<Wanted>> down(static_cast<size_t>(tiers));
  for (Wanted w : wanted) {
    const IntervalHistory::Segment& s = segments[w.segment];
    if (s.fixed) continue;
    w.tier = std::clamp(w.tier, 0, tiers - 1);
    if (w.tier > s.tier) down[size_t(s.tier)].push_back(w);
    if (w.tier < s.tier) up.push_back(w);
  }
  std::sort(up.begin(), up.end(), [](const Wanted& a, const Wanted& b) {
    return a.score != b.score ? a.score > b.score : a.segment < b.segment;
  });
  for (std::vector<Wanted>& d : down) {
    std::sort(d.begin(), d.end(), [](const Wanted& a, const Wanted& b) {
      return a.score != b.score ? a.score < b.score : a.segment < b.segment;
    });
  }

  size_t left = max;
  auto move = [&](const IntervalHistory::Segment& s, int to) {
    Move m;
    m.op = Move::kMigrate;
    m.ref = s.ref;
    m.to = to;
    moves->push_back(m);
    free[size_t(to)] -= int64_t(s.bytes);
    free[size_t(s.tier)] += int64_t(s.bytes);
    --left;
  };
  // The coldest segment wanted off `from`, to its wanted tier or the next
  // slower one with room; false if none is left that can go.
  std::vector<size_t> next_down(static_cast<size_t>(tiers), 0);
  auto demote_one = [&](int from) {
    std::vector<Wanted>& d = down[size_t(from)];
    for (size_t& i = next_down[size_t(from)]; i < d.size() && left > 0;) {
      const Wanted& w = d[i++];
      const IntervalHistory::Segment& s = segments[w.segment];
      for (int t = w.tier; t < tiers; ++t) {
        if (free[size_t(t)] >= int64_t(s.bytes)) {
          move(s, t);
          return true;
        }
      }
    }
    return false;
  };
  // A promotion first takes free room; on a full tier, the coldest segments
  // wanted off it go down first to make room (the queue's slots are few: a
  // plan of demotions alone would never bring anything up).
  for (const Wanted& w : up) {
    if (left == 0) return;
    const IntervalHistory::Segment& s = segments[w.segment];
    int to = -1;
    for (int t = w.tier; t < s.tier && to < 0; ++t) {
      if (free[size_t(t)] >= int64_t(s.bytes)) to = t;
    }
    while (to < 0 && left >= 2 && demote_one(w.tier)) {
      if (free[size_t(w.tier)] >= int64_t(s.bytes)) to = w.tier;
    }
    if (to >= 0 && left > 0) move(s, to);
  }
  for (int from = 0; from < tiers; ++from) {
    while (demote_one(from)) {
    }
  }
}

}  // namespace tierfs
