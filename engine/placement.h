// Placement and critical-path eviction: the rules by which a new segment gets
// a tier. The live store (env/store.cc) and the simulator (tools/sim/) both
// call these, so they place, spill and evict alike; neither holds a copy.
//
// A new segment's tier:
//   1. a pin (REDIRECT) wins;
//   2. a bulk file's segment (SST, WAL, blob) goes where the policy says
//      (clamped to the tiers there are), except that compaction output
//      (a table file of level 1 or below) does not take the room the levels
//      above its own need (MigrationOptions::level_room), nor tier 0's free
//      space the hot-page copies claim; but a segment of an upper level (one
//      that fits in tier 0 with those above it) is placed as if the copies
//      were not there, and copies are dropped for it; metadata goes to tier 0;
//   3. if the policy evicts and that tier lacks room, its victims are moved
//      now, on the critical path, until there is room;
//   4. the tier is charged; if it has no room the segment spills: the next
//      slower tier with room, then faster ones (SpillOrder);
//   5. the policy is told the tier its Place() answer became
//      (Policy::OnPlaced): the caller charges right after Choose returns,
//      so the engine tells the tier that charge will take as the view shows
//      the room now. It can differ only when another writer takes the room
//      in between, when the file's block is already on the tier (Choose is
//      given it in `bytes`) or when a full store drops copies for the data.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "agents/policy.h"
#include "engine/capacity.h"
#include "engine/page_copies.h"
#include "tierfs/migration.h"
#include "util/mutex.h"

namespace tierfs {

// The bytes every file is charged on each tier it has data or a copy on, for
// its backing file's own metadata: one file-system block.
constexpr uint64_t kFileBlock = 4096;

// What a segment spanning [start, limit) of a file of `file_size` bytes
// holds, in whole blocks: what it is charged once its writer closes, and what
// a move of it carries and charges.
inline uint64_t SegmentBytes(uint64_t file_size, uint64_t start, uint64_t limit) {
  const uint64_t end = file_size < limit ? file_size : limit;
  return end > start ? (end - start + kFileBlock - 1) / kFileBlock * kFileBlock : 0;
}

// Tries tiers in spill order — `want`, each slower one, then each faster one,
// never `exclude` — and returns the first for which take(t) is true; -1 if
// none.
template <typename Take>
int SpillOrder(int want, int tiers, int exclude, Take take) {
  for (int t = want; t < tiers; ++t) {
    if (t != exclude && take(t)) return t;
  }
  for (int t = want - 1; t >= 0; --t) {
    if (t != exclude && take(t)) return t;
  }
  return -1;
}

// Charges `bytes` to `account` (tier t) for a file whose tiers that already
// carry its block are the bits of *mask, adding the block if t has none yet.
inline bool ChargeForFile(CapacityAccount& account, int t, uint8_t* mask, uint64_t bytes) {
  const bool block = !(*mask & (1u << t));
  if (!account.TryCharge(bytes + (block ? kFileBlock : 0))) return false;
  *mask |= uint8_t(1u << t);
  return true;
}
// Gives back the file's block on tier t once it has no segment or copy there
// (`still_there` false).
inline void ReleaseFileBlock(CapacityAccount& account, int t, uint8_t* mask, bool still_there) {
  if (still_there || !(*mask & (1u << t))) return;
  *mask &= uint8_t(~(1u << t));
  account.Release(kFileBlock);
}

// The policy's decisions that change state it keeps between calls — Evict()
// and Plan() — run one at a time, under this engine's lock, so a policy never
// needs a lock of its own for them. Place() and OnRequest() are the policy's
// to make thread-safe (they run on every I/O path).
class PlacementEngine {
 public:
  PlacementEngine(Policy* policy, const MigrationOptions& options)
      : policy_(policy), options_(options) {}

  Policy& policy() { return *policy_; }

  // The preferred tier of a new segment (steps 1-3 above), after which the
  // policy hears where the segment goes (step 5). `bulk`: the file is an
  // SST, WAL or blob file; `bytes` what the segment will be charged.
  // `execute` carries out one eviction move; it runs under the engine's lock
  // (lock order: the engine's lock, then whatever execute takes).
  int Choose(const PlacementRequest& request, bool bulk, uint64_t bytes, const StorageView& view,
             const std::function<void(const Move&)>& execute) EXCLUDES(decide_mu_);

  // Asks the policy for at most `max` moves (serialized with eviction; only
  // if `policy_due`: a plan for the fill alone leaves the policy's cadence
  // alone), then fills free space on tier 0 with the rest (Fill). True if
  // the fill had more to promote, or the copies more homes to demote, than
  // `max` allowed: plan again as soon as there is room.
  bool Plan(const StorageView& view, size_t max, std::vector<Move>* moves,
            bool policy_due = true) EXCLUDES(decide_mu_);

  // How often to plan: the policy's interval, or, for a policy that never
  // plans itself, kFillIntervalRequests (the fill still runs).
  uint64_t PlanIntervalRequests() const;
  static constexpr uint64_t kFillIntervalRequests = 1 << 14;
  // How long a fill's order stands for the fill-only plans that resume it
  // (Fill), in requests: the reads since its walk raise no one in it. The
  // simulator's suite moves by at most 0.15% per policy for it (geometric
  // means; hintstor's cells by -2.7% to +1.2%), and hintstor and mutant
  // replay 8x faster.
  static constexpr uint64_t kFillResumeRequests = 1024;
  // How long the level counts of a plan decide placements (level_room), in
  // requests: a few plan intervals.
  static constexpr uint64_t kLevelCountsKeep = 4 * kFillIntervalRequests;
  // How long a level counted upper stays so (upper_levels_).
  static constexpr uint64_t kUpperLevelsKeep = kFillIntervalRequests;

  // The bytes of tier 0 the fill and the copies leave free for new writes:
  // the configured headroom (MigrationOptions::fast_headroom_*) or what the
  // policy's plans keep free (Policy::FastHeadroomShare), whichever is more;
  // or, if more and fast_headroom_auto, a memtable's worth (the largest WAL written
  // lately) once new writes the policy wanted on tier 0 found it full
  // (write_room_), so the next flush lands there whole; at most half of
  // tier 0.
  uint64_t Headroom(uint64_t fast_capacity) const;

  // The hot-page copies on tier 0, if any (set once, before any Plan): the
  // fill leaves their unused reserve alone, and a plan demotes the coldest
  // homes of tier 0 when the copies had no room (MakeRoomForCopies).
  void AttachCopies(PageCopies* copies) { copies_ = copies; }

 private:
  // Steps 2-3 of Choose for a bulk file's segment: the policy's tier, in
  // *chosen as Place() gave it, and the tier wanted after the engine's rules.
  int Overrule(const PlacementRequest& request, uint64_t bytes, const StorageView& view,
               const std::function<void(const Move&)>& execute, int* chosen)
      EXCLUDES(decide_mu_);

  // The bytes of SST segments per level, all and on tier 0.
  static constexpr int kLevels = 8;  // levels deeper than kLevels - 1 count as the last
  struct LevelBytes {
    uint64_t all[kLevels] = {}, fast[kLevels] = {};
    void Add(const SegmentInfo& s);
  };

  // No idle fast capacity: appends up to `max` promotions to tier 0 of the
  // segments on slower tiers that were read, best ranked first
  // (Policy::FillRank), while they fit in tier 0's free space above the
  // headroom, counting the promotions already in *moves.
  // True if candidates that fit were left for want of `max`.
  // With `levels`, it also counts the table segments into it and sets
  // *counted if it walked them (it does not when tier 0 has no room): one
  // walk a plan for both (StorageView::ForEachSegmentThat).
  // `may_resume`: if the last fill stopped for want of `max` less than
  // kFillResumeRequests ago, go on down the order its walk made (each
  // candidate looked up again, fill_resumed_) instead of walking every
  // segment again; the policy's own plans walk afresh.
  bool Fill(const StorageView& view, size_t max, std::vector<Move>* moves, bool may_resume,
            LevelBytes* levels = nullptr, bool* counted = nullptr) REQUIRES(decide_mu_);

  // Homes and copies share tier 0 (engine/page_copies.h): new writes take
  // free space first, and the copies get theirs back in the background.
  // Appends demotions to tier 1 of the coldest homes of tier 0 (lowest
  // Policy::FillRank first; never the upper levels', upper_levels_) for the
  // bytes the copies are owed (copy_owed_), beyond tier 0's free space above
  // the headroom.
  // True if demotions were left for want of `max`: as the fill's, the next
  // plan then comes as soon as the queue has room, not a plan interval later
  // (a queue of 10 64 KiB segments a second let copies displace 0.6 MiB/s of
  // homes: 135 MiB of homes written at load took minutes to give way).
  bool MakeRoomForCopies(const StorageView& view, size_t max, std::vector<Move>* moves)
      REQUIRES(decide_mu_);
  // Room for the upper levels (MigrationOptions::level_room): whether a
  // segment of `bytes` of a table file of level `level` fits in tier 0
  // beside the levels above it (their bytes on every tier) and the tier-0
  // bytes of its own level and deeper ones, within tier 0 less the headroom.
  // Lock-free: from the counts of the last plan and what was placed since.
  bool LeavesRoomAbove(int level, uint64_t bytes, const StorageView& view) const;
  // Whether the level counts are recent enough to decide by: counted at a
  // plan within kLevelCountsKeep requests. Between plans they only grow
  // (deleted files leave them at the next count), and a store whose plans
  // stopped (migration:off, a full move queue) or that has not planned since
  // it opened places as the policy says. Lock-free.
  bool LevelsCounted(const StorageView& view) const;
  // Recounts level_bytes_ and fast_level_bytes_ from a scan of every
  // segment.
  void CountLevels(const StorageView& view) REQUIRES(decide_mu_);
  // Sets them (and the upper levels) to `counted`.
  void StoreLevels(const StorageView& view, const LevelBytes& counted) REQUIRES(decide_mu_);
  // Halves write_room_ and wal_reached_ for every kWriteRoomHalfLife
  // requests since the last call.
  void DecayWriteRoom(uint64_t now) REQUIRES(decide_mu_);
  // Raises *v to `bytes` if below. Lock-free.
  static void RaiseTo(std::atomic<uint64_t>* v, uint64_t bytes);
  // Raises wal_reached_ to where a WAL's new segment reaches. Lock-free.
  void NoteWal(const PlacementRequest& request, const StorageView& view);

  struct Candidate {
    double rank;
    uint64_t bytes;
    SegmentRef ref;
  };
  // Sorts candidates_ by rank, best or worst first.
  void SortCandidates(bool best_first) REQUIRES(decide_mu_);
  // Orders *list best first up to at least `want` (all of them if
  // fewer), given the first *ordered are the best in order already: the
  // same order SortCandidates gives, at the cost of a selection when only
  // the first few are looked at.
  void OrderBestUpTo(std::vector<Candidate>* list, size_t want, size_t* ordered)
      REQUIRES(decide_mu_);
  // Whether `moves` already moves `ref`; a MIGRATE of `ref` to `to`.
  static bool Planned(const std::vector<Move>& moves, const SegmentRef& ref);
  static Move Migration(const SegmentRef& ref, int to);

  Policy* const policy_;
  const MigrationOptions options_;
  // Held across Evict() (and its moves) and Plan(): the order in env/store.h.
  Mutex decide_mu_;
  std::vector<Candidate> candidates_ GUARDED_BY(decide_mu_);
  // The fill's candidates, best first as far as fill_ordered_, kept for the
  // fills that resume them: the next to look at, the request of the walk,
  // whether the last fill stopped for want of room in the queue, and
  // whether the last one resumed; and the fewest bytes of any of them: less
  // room than that, and none fits.
  std::vector<Candidate> fill_ GUARDED_BY(decide_mu_);
  uint64_t fill_least_bytes_ GUARDED_BY(decide_mu_) = 0;
  size_t fill_next_ GUARDED_BY(decide_mu_) = 0;
  size_t fill_ordered_ GUARDED_BY(decide_mu_) = 0;
  uint64_t fill_scanned_at_ GUARDED_BY(decide_mu_) = 0;
  bool fill_more_ GUARDED_BY(decide_mu_) = false;
  bool fill_resumed_ GUARDED_BY(decide_mu_) = false;
  std::vector<Move> victims_ GUARDED_BY(decide_mu_);
  PageCopies* copies_ = nullptr;
  // What the copies took or asked for lately, in bytes, halved every
  // kCopyDemandHalfLife requests: the fill leaves that much of their
  // reserve free, and nothing while they are idle (a tier 0 kept empty for
  // copies no one reads is idle capacity).
  uint64_t copy_demand_ GUARDED_BY(decide_mu_) = 0;
  // The request count copy_demand_ and copy_owed_ were decayed to.
  uint64_t copy_seq_ GUARDED_BY(decide_mu_) = 0;
  static constexpr uint64_t kCopyDemandHalfLife = kFillIntervalRequests;
  // The part of tier 0 the copies claim now: their demand, within the
  // reserve they do not hold yet (written at each plan, read by Choose).
  std::atomic<uint64_t> copy_claim_{0};
  // The room the copies asked for that no demotion has been planned for yet:
  // a plan whose queue had room for fewer demotions leaves the rest to the
  // next plans instead of forgetting it. Within their reserve; decays as
  // copy_demand_ while they ask nothing.
  uint64_t copy_owed_ GUARDED_BY(decide_mu_) = 0;
  // The bytes the largest WAL reached lately: a memtable's worth, what the
  // next flush writes while the next WAL grows (raised as WAL segments are
  // placed, in Choose).
  std::atomic<uint64_t> wal_reached_{0};
  // The room kept for new writes beyond the configured headroom: raised to
  // wal_reached_ when a WAL or flush segment the policy wanted on tier 0
  // found it full (a policy that evicts on placement makes its own room).
  // Both are halved every kWriteRoomHalfLife requests (at plans), so a phase
  // without writes gives the room back to the fill and the copies.
  std::atomic<uint64_t> write_room_{0};
  uint64_t write_room_seq_ GUARDED_BY(decide_mu_) = 0;  // the last decay's request
  static constexpr uint64_t kWriteRoomHalfLife = 1 << 16;
  // The bytes of table files per LSM level (levels deeper than kLevels - 1
  // count as the last) on every tier, and on tier 0: recounted at each plan
  // (level_room on) and raised by what Choose places (the bytes a segment
  // will hold: a whole-file store's file counts one segment's worth until
  // the next plan; deleted files, and a segment that spills elsewhere,
  // count until then too). Relaxed: the rule is an estimate, as GetPathId's
  // is, and a plan's recount may overwrite a placement made beside it.
  std::atomic<uint64_t> level_bytes_[kLevels] = {};
  std::atomic<uint64_t> fast_level_bytes_[kLevels] = {};
  // The request count of the last recount (0: never).
  std::atomic<uint64_t> levels_counted_at_{0};
  // The upper levels at the last recount: the deepest level that fits in
  // tier 0 less the headroom together with every level above it (their
  // bytes on every tier); -1 if not even L0 does. Their homes on tier 0 are
  // not demoted for the copies, and their new segments take room the copies
  // hold (Choose). Written at plans, read lock-free. A level counted upper
  // stays so for kUpperLevelsKeep requests: while a compaction runs, its
  // inputs and its output are counted together, and the levels it rewrites
  // look twice their size until it ends.
  std::atomic<int> upper_levels_{-1};
  int upper_peak_ GUARDED_BY(decide_mu_) = -1;
  uint64_t upper_peak_at_ GUARDED_BY(decide_mu_) = 0;  // the request count it was counted at
  // A shrink of the copies for an upper level's segment drops at least this
  // share of tier 0 (1 / kShrinkBatches), so the next segments find room
  // without ranking every copy again.
  static constexpr uint64_t kShrinkBatches = 64;
};

// What a move asks of a segment whose home is tier `home` and whose extra
// copy is on `copy` (-1: none), on a store of `tiers` tiers.
enum class MoveStep : uint8_t {
  kNothing,   // already so: the home is there, or the copy asked for exists
  kInvalid,   // the destination is not a tier
  kDropCopy,  // drop the extra copy, carry nothing
  kCarry,     // drop the extra copy first if there is one (one copy at most,
              // and a home never moves under its copy), then charge `to` and copy
};
MoveStep FirstStep(const Move& move, int tiers, int home, int copy);

}  // namespace tierfs
