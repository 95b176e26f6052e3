// rocksdb-levels: what RocksDB's own db_paths / cf_paths do under level
// compaction (RocksDB 7.8.3, LevelCompactionBuilder::GetPathId in
// db/compaction/compaction_picker_level.cc), each tier standing for one path
// whose target_size is the tier's capacity. Levels are laid into the tiers in
// order, L0 and L1 first: a level goes to the first tier, counting from the one
// the previous level went to, whose remaining target size holds the level's
// size, and the slowest tier takes what fits nowhere. A level's size is its
// target, L0 and L1 level_base and each deeper level level_multiplier times the
// one above (as GetPathId estimates it), or the bytes the level was seen to
// hold at the last plan if more, so that a level that outgrew its target pushes
// the levels after it down instead of overfilling a tier. A table file's level
// is hints.level if known, else from its write-lifetime hint as RocksDB sets it
// (ColumnFamilyData::CalculateSSTWriteHint: L0 and the base level MEDIUM=3,
// base+1 LONG=4, deeper EXTREME=5), taken as L1, L2 and L3; L0 goes to tier 0
// (RocksDB writes every flush to path 0). WAL, blob files (RocksDB puts them
// in the first path) and tables of unknown level go to tier 0. Plan() only
// refreshes the observed level sizes and never moves anything: RocksDB moves a
// file only by compacting it into a new one. Parameters: level_base (256M:
// max_bytes_for_level_base), level_multiplier (10:
// max_bytes_for_level_multiplier), interval (4096 requests).
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "agents/policies.h"

namespace tierfs {
namespace {

class RocksDBLevels : public Policy {
 public:
  explicit RocksDBLevels(ParamReader& params)
      : interval_(uint64_t(std::max(1.0, params.Number("interval", 1 << 12)))) {
    const uint64_t base = params.Size("level_base", uint64_t(256) << 20);
    const double multiplier = std::max(1.0, params.Number("level_multiplier", 10));
    double size = double(base);
    for (int level = 0; level < kLevels; ++level) {
      if (level >= 2) size *= multiplier;
      target_[level] = size >= 1.8e19 ? UINT64_MAX : uint64_t(size);
    }
  }

  const char* Name() const override { return "rocksdb-levels"; }
  // RocksDB's db_paths never move a file: neither does its emulation.
  bool Fills() const override { return false; }
  int CopySharePct() const override { return 0; }
  bool KeepsItsPlacement() const override { return true; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    if (request.kind != FileKind::kSst) return 0;
    const int level = LevelOf(request.hints);
    if (level <= 0) return 0;
    return TierOfLevel(level, view);
  }

  uint64_t PlanIntervalRequests() const override { return interval_; }

  void Plan(const StorageView& view, size_t, std::vector<Move>*) override {
    uint64_t seen[kLevels] = {};
    // The table files' segments alone: a view that keeps them answers
    // without a walk of every segment (a block trace has none).
    view.ForEachSegmentThat(/*tables=*/true, /*read_below_fast=*/false, [&seen](const SegmentInfo& s) {
      if (s.kind != FileKind::kSst) return;
      const int level = LevelOf(s.hints);
      if (level >= 0) seen[level] += s.bytes;
    });
    for (int level = 0; level < kLevels; ++level) {
      seen_[level].store(seen[level], std::memory_order_relaxed);
    }
  }

 private:
  static constexpr int kLevels = 16;  // deeper levels count as the last

  // The LSM level of a table file, -1 unknown.
  static int LevelOf(const Hints& hints) {
    if (hints.level >= 0) return std::min(hints.level, kLevels - 1);
    switch (hints.lifetime) {
      case 3: return 1;  // MEDIUM: L0 or the base level
      case 4: return 2;  // LONG: base level + 1
      case 5: return 3;  // EXTREME: deeper
      default: return -1;
    }
  }

  uint64_t LevelSize(int level) const {
    return std::max(target_[level], seen_[level].load(std::memory_order_relaxed));
  }

  // GetPathId over the tiers: levels 0, 1, ... fill tier 0's capacity in
  // order; a level that does not fit in what is left moves on to the next
  // tier (and every level after it); the last tier is the fallback.
  int TierOfLevel(int level, const StorageView& view) const {
    const int last = view.NumTiers() - 1;
    int tier = 0;
    uint64_t left = view.Capacity(0);
    int current = 0;
    while (tier < last) {
      const uint64_t size = LevelSize(current);
      if (size <= left) {
        if (current == level) return tier;
        left -= size;
        ++current;
        continue;
      }
      ++tier;
      left = view.Capacity(tier);
    }
    return last;
  }

  // Constant after construction.
  const uint64_t interval_;
  uint64_t target_[kLevels];

  // Written by Plan, read by Place: relaxed (an estimate).
  std::atomic<uint64_t> seen_[kLevels] = {};
};

}  // namespace

std::unique_ptr<Policy> NewRocksDBLevelsPolicy(ParamReader& params) {
  return std::make_unique<RocksDBLevels>(params);
}

}  // namespace tierfs
