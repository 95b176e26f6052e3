// mutant: Mutant's temperature-driven organization of a file's placement
// (Yoon et al., "Mutant: Balancing Storage Cost and Latency in LSM-Tree Data
// Stores", SoCC 2018), which moves whole SSTables between a fast and a slow
// storage by their access frequency per byte. A file's temperature is its user
// reads, decayed to half every half_life requests, per byte of the file (the
// reads are the growth of its segments' stats.user_reads between plans, so
// compaction reads and writes do not warm it). Every interval requests, the
// fast tier is filled like a knapsack by a greedy pass: files sorted by
// temperature, hottest first, each taken whole if it fits in tier 0's capacity
// less the reserve (cold files already on tier 0 may stay in what is left but
// are never promoted). Segments of files outside that set that are on tier 0
// migrate down first (coldest file first) to the next slower tier with room,
// then segments of files inside it migrate up (hottest file first), at most
// `max` moves. Files younger than min_age requests (since their newest segment
// was placed), being written (busy) or pinned are not moved and keep their
// tier-0 bytes. Placement: a WAL goes to tier 0; any other new segment goes to
// tier 0 if tier 0 keeps the reserve free after it, else to tier 1 (the
// reserve is headroom for the WAL and metadata). Parameters: interval (8192
// requests), min_age (32768 requests), reserve (0.1 of tier 0), half_life
// (65536 requests).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "agents/policies.h"

namespace tierfs {
namespace {

class Mutant : public Policy {
 public:
  explicit Mutant(ParamReader& params)
      : interval_(uint64_t(std::max(1.0, params.Number("interval", 1 << 13)))),
        min_age_(uint64_t(std::max(0.0, params.Number("min_age", 1 << 15)))),
        reserve_(std::min(1.0, std::max(0.0, params.Number("reserve", 0.1)))),
        half_life_(std::max(1.0, params.Number("half_life", 1 << 16))) {}

  const char* Name() const override { return "mutant"; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    if (request.kind == FileKind::kWal || view.NumTiers() == 1) return 0;
    const double reserve = double(view.Capacity(0)) * reserve_;
    if (double(view.Free(0)) >= double(request.bytes) + reserve) return 0;
    return 1;
  }

  uint64_t PlanIntervalRequests() const override { return interval_; }

  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    if (view.NumTiers() < 2) return;
    const uint64_t now = view.Now();
    CollectFiles(view);
    UpdateTemperatures(now);

    // What tier 0 may hold for movable files.
    int64_t fixed = 0;  // tier-0 bytes of files that do not move
    for (const File& f : files_) {
      if (!f.movable) fixed += int64_t(f.fast_bytes);
    }
    const int64_t limit = int64_t(double(view.Capacity(0)) * (1 - reserve_));
    const int64_t other = std::max<int64_t>(0, int64_t(view.Used(0)) - resident_);

    Choose(limit - other - fixed);
    size_t left = max;
    AppendDemotions(view, &left, moves);
    AppendPromotions(&left, moves);
  }

 private:
  struct Segment {
    SegmentRef ref;
    uint64_t bytes;
    uint64_t file_bytes;
    uint64_t placed;
    uint32_t user_reads;
    int tier;
    int copy_tier;
    bool fixed;  // busy or pinned
  };
  // One file, from its segments segments_[first, first + count).
  struct File {
    uint64_t id = 0;
    size_t first = 0;
    size_t count = 0;
    uint64_t file_bytes = 0;  // the file's size
    uint64_t bytes = 0;       // of its placed segments
    uint64_t fast_bytes = 0;  // of those, on tier 0 (homes and copies)
    uint64_t newest = 0;      // placement of its newest segment
    uint64_t reads = 0;       // sum of its segments' user_reads
    double temperature = 0;   // decayed user reads per byte
    bool movable = true;      // old enough, not busy, not pinned
    bool fast = false;        // chosen for tier 0
    bool stays = false;       // cold, but may stay on tier 0
  };
  // What a file's temperature is made of, kept between plans.
  struct History {
    double reads = 0;         // user reads, decayed as of `seq`
    uint64_t seen_reads = 0;  // the file's user_reads total at `seq`
    uint64_t seq = 0;
    uint64_t generation = 0;  // the last plan that saw the file
  };

  void CollectFiles(const StorageView& view) {
    segments_.clear();
    resident_ = 0;
    view.ForEachSegment([this](const SegmentInfo& s) {
      if (s.tier == 0) resident_ += int64_t(s.bytes);
      if (s.copy_tier == 0) resident_ += int64_t(s.bytes);
      segments_.push_back({s.ref, s.bytes, s.file_bytes, s.stats.placed, s.stats.user_reads,
                           s.tier, s.copy_tier, s.busy || s.hints.pinned_tier >= 0});
    });
    // By file, then segment. The simulator enumerates them in that order
    // already: a check is linear, a sort is most of a plan.
    auto by_segment = [](const Segment& a, const Segment& b) {
      if (a.ref.file_id != b.ref.file_id) return a.ref.file_id < b.ref.file_id;
      return a.ref.segment < b.ref.segment;
    };
    if (!std::is_sorted(segments_.begin(), segments_.end(), by_segment)) {
      std::sort(segments_.begin(), segments_.end(), by_segment);
    }
    files_.clear();
    for (size_t i = 0; i < segments_.size(); ++i) {
      const Segment& s = segments_[i];
      if (files_.empty() || files_.back().id != s.ref.file_id) {
        files_.emplace_back();
        files_.back().id = s.ref.file_id;
        files_.back().first = i;
      }
      File& f = files_.back();
      f.count++;
      f.bytes += s.bytes;
      if (s.tier == 0) f.fast_bytes += s.bytes;
      if (s.copy_tier == 0) f.fast_bytes += s.bytes;
      f.newest = std::max(f.newest, s.placed);
      f.reads += s.user_reads;
      f.file_bytes = std::max(f.file_bytes, s.file_bytes);
      if (s.fixed) f.movable = false;
    }
  }

  // Turns each file's read total into its decayed temperature and forgets
  // files no longer placed.
  void UpdateTemperatures(uint64_t now) {
    ++generation_;
    for (File& f : files_) {
      const double size = double(std::max({f.file_bytes, f.bytes, uint64_t(1)}));
      History& h = history_[f.id];
      if (h.seq != 0 && now > h.seq) h.reads *= std::exp2(-double(now - h.seq) / half_life_);
      if (f.reads > h.seen_reads) h.reads += double(f.reads - h.seen_reads);
      h.seen_reads = f.reads;
      h.seq = now;
      h.generation = generation_;
      f.temperature = h.reads / size;
      if (now - std::min(now, f.newest) < min_age_) f.movable = false;
    }
    for (auto it = history_.begin(); it != history_.end();) {
      it = it->second.generation == generation_ ? std::next(it) : history_.erase(it);
    }
  }

  // The knapsack, greedily: movable files hottest first, whole files, into
  // `budget` bytes of tier 0; cold files (temperature 0) already there stay
  // in what is left, newest first (upper LSM levels), but never come up.
  // Fills order_ (hottest first) and marks the files fast or stays.
  void Choose(int64_t budget) {
    order_.clear();
    for (size_t i = 0; i < files_.size(); ++i) {
      if (files_[i].movable) order_.push_back(i);
    }
    std::sort(order_.begin(), order_.end(), [this](size_t a, size_t b) {
      const File& x = files_[a];
      const File& y = files_[b];
      if (x.temperature != y.temperature) return x.temperature > y.temperature;
      if (x.newest != y.newest) return x.newest > y.newest;
      return x.id < y.id;
    });
    for (size_t i : order_) {
      File& f = files_[i];
      if (f.temperature > 0 && int64_t(f.bytes) <= budget) {
        f.fast = true;
        budget -= int64_t(f.bytes);
      } else if (f.temperature <= 0 && f.fast_bytes > 0 && int64_t(f.fast_bytes) <= budget) {
        f.stays = true;
        budget -= int64_t(f.fast_bytes);
      }
    }
  }

  // Moves the tier-0 segments of files left out down, coldest file first, to
  // the next slower tier with room (an extra copy on tier 0 is dropped), at
  // most *left moves.
  void AppendDemotions(const StorageView& view, size_t* left, std::vector<Move>* moves) {
    free_.assign(size_t(view.NumTiers()), 0);
    for (int t = 1; t < view.NumTiers(); ++t) free_[size_t(t)] = int64_t(view.Free(t));
    for (auto it = order_.rbegin(); it != order_.rend() && *left > 0; ++it) {
      const File& f = files_[*it];
      if (f.fast || f.stays || f.fast_bytes == 0) continue;
      for (size_t s = f.first; s < f.first + f.count && *left > 0; ++s) {
        const Segment& seg = segments_[s];
        Move m;
        m.ref = seg.ref;
        if (seg.copy_tier == 0) {
          m.op = Move::kDropCopy;
        } else if (seg.tier == 0) {
          m.op = Move::kMigrate;
          m.to = NextWithRoom(seg.bytes);
          if (m.to < 0) continue;
          free_[size_t(m.to)] -= int64_t(seg.bytes);
        } else {
          continue;
        }
        moves->push_back(m);
        --*left;
      }
    }
  }

  // Moves the segments of the chosen files up, hottest file first, at most
  // *left moves.
  void AppendPromotions(size_t* left, std::vector<Move>* moves) {
    for (size_t i : order_) {
      const File& f = files_[i];
      if (!f.fast) continue;
      for (size_t s = f.first; s < f.first + f.count && *left > 0; ++s) {
        const Segment& seg = segments_[s];
        if (seg.tier == 0 || seg.copy_tier == 0) continue;
        Move m;
        m.op = Move::kMigrate;
        m.ref = seg.ref;
        m.to = 0;
        moves->push_back(m);
        --*left;
      }
    }
  }

  // The fastest tier below 0 with room for `bytes` after the moves planned so
  // far; -1 if none.
  int NextWithRoom(uint64_t bytes) const {
    for (size_t t = 1; t < free_.size(); ++t) {
      if (free_[t] >= int64_t(bytes)) return int(t);
    }
    return -1;
  }

  // Constant after construction.
  const uint64_t interval_;
  const uint64_t min_age_;
  const double reserve_;
  const double half_life_;

  // Plan's state and scratch (Plan runs one at a time).
  std::unordered_map<uint64_t, History> history_;
  uint64_t generation_ = 0;
  std::vector<Segment> segments_;
  std::vector<File> files_;
  std::vector<size_t> order_;
  std::vector<int64_t> free_;
  int64_t resident_ = 0;  // bytes of placed segments (homes and copies) on tier 0
};

}  // namespace

std::unique_ptr<Policy> NewMutantPolicy(ParamReader& params) {
  return std::make_unique<Mutant>(params);
}

}  // namespace tierfs
