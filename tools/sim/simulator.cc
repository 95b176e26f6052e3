#include "tools/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "core/config.h"
#include "core/saved_segments.h"
#include "core/segment_table.h"
#include "engine/copy_read.h"
#include "engine/migration.h"
#include "engine/observe.h"
#include "engine/page_copies.h"
#include "engine/placement.h"
#include "engine/request_clock.h"
#include "tools/sim/oracle.h"

namespace tierfs {
namespace sim {

namespace {

// The bytes of the file at `path`; false if it cannot be read.
bool ReadWholeFile(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream read;
  read << in.rdbuf();
  if (!in) return false;
  *bytes = read.str();
  return true;
}

struct Segment {
  int8_t home = -1;          // tier, -1 not placed yet
  int8_t copy = -1;          // tier of the extra copy, -1 none
  uint32_t writes_seen = 0;  // bumped by every write: a move copying across one aborts
  uint64_t charged = 0;      // bytes charged for the home, and for the copy
  uint64_t copy_charged = 0;
  mutable bool pooled = false;  // in Simulation::read_below_fast_
  SegmentHeat heat;

  Segment() = default;
  Segment(Segment&& o) noexcept
      : home(o.home), copy(o.copy), writes_seen(o.writes_seen), charged(o.charged),
        copy_charged(o.copy_charged), pooled(o.pooled) {
    heat.CopyFrom(o.heat);
  }
};

struct File {
  uint64_t id = 0;
  FileKind kind = FileKind::kOther;
  int level = -1;
  uint64_t size = 0;    // highest byte ever accessed
  uint8_t blocks = 0;   // tiers charged the file's own block (engine/placement.h)
  // Open for writing, as far as the trace tells (from its first write to its
  // settle event): its segments do not move (the store's `busy`).
  bool writing = false;
  uint32_t copies = 0;  // segments with an extra copy
  uint64_t born = UINT64_MAX;  // the I/O record of its first write
  uint32_t generation = 0;     // deletions so far (Simulation::read_below_fast_)
  std::vector<Segment> segments;
};

struct TierState {
  explicit TierState(const SimTier& t) : account(t.capacity), device(t.device) {}
  CapacityAccount account;
  DeviceModel device;
  TierResult result;
};

class Simulation : public StorageView {
 public:
  Simulation(const SimConfig& config, Policy* policy, FutureIndex* future)
      : config_(config),
        policy_(policy),
        placement_(policy, config.migration),
        schedule_(config.migration, 0),
        future_(future),
        seg_size_(config.segment_size) {
    for (const SimTier& t : config.tiers) tiers_.push_back(std::make_unique<TierState>(t));
  }

  bool Run(const std::vector<TraceRecord>& trace, SimResult* result, std::string* error);

  // StorageView.
  int NumTiers() const override { return int(tiers_.size()); }
  uint64_t Capacity(int t) const override { return tiers_[size_t(t)]->account.capacity(); }
  uint64_t Used(int t) const override { return tiers_[size_t(t)]->account.used(); }
  uint64_t Now() const override { return clock_.Now(); }
  uint64_t SegmentSize() const override { return seg_size_; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override;
  bool Lookup(const SegmentRef& ref, SegmentInfo* info) const override;
  void ForEachSegmentThat(bool tables, bool read_below_fast,
                          const std::function<void(const SegmentInfo&)>& fn) const override;

 private:
  void Describe(const File& f, uint64_t segment, SegmentInfo* info) const;
  // Serves one request issued at t; returns when it completes (false and
  // *error if it cannot be placed).
  bool Serve(const TraceRecord& r, int64_t t, int64_t* completion, std::string* error);
  // What the policy hears an I/O of `r` took: the replay's `simulated`
  // nanoseconds, or the capture's when following its timing.
  uint64_t Latency(const TraceRecord& r, int64_t simulated) const {
    return config_.follow_trace_timing ? r.latency_ns : uint64_t(simulated);
  }
  // One piece of a request, within segment `seg` of `file`.
  bool ServePiece(const TraceRecord& r, File& file, uint64_t seg, uint64_t offset,
                  uint64_t size, int64_t t, int64_t* completion, std::string* error);
  bool Place(const TraceRecord& r, File& file, uint64_t seg, uint64_t size, int64_t t,
             int64_t* ready, std::string* error);
  // The simulator's side of a user read through the hot-page copies
  // (engine/copy_read.h): virtual time on the device models.
  class CopyIo;
  // A read served by a copy (tier 0) that `done` completes: as the store,
  // the statistics and the policy see tier 0 serve each piece.
  void CountCopyHit(const TraceRecord& r, File& file, int64_t t, int64_t done);
  // As SegmentReader::ReadFromTierZero: a segment of [offset, end) is read
  // from tier 0 (its home or its copy), so those bytes need no copy.
  bool ReadFromTierZero(const File& file, uint64_t offset, uint64_t end) const;
  // Every segment of [offset, end) has been placed (has a home).
  bool Placed(const File& file, uint64_t offset, uint64_t end) const;
  // Hot-page copies for a trace of RocksDB files (SST, blob), as the store.
  // With SimConfig::copies_state_file, starts them from it; false and
  // *error if it cannot.
  bool SetUpCopies(const std::vector<TraceRecord>& trace, std::string* error);
  bool ServeRange(const TraceRecord& r, File& file, uint64_t offset, uint64_t end, int64_t t,
                  int64_t* completion, std::string* error);

  File& FileOf(const TraceRecord& r);
  File* FindFile(uint64_t id);
  Segment* Find(const SegmentRef& ref);
  // The capacity account, as the store keeps it: each file is charged its
  // own block on every tier it has data on (engine/placement.h).
  bool Charge(File& f, int t, uint64_t bytes);
  void Release(File& f, int t, uint64_t bytes);
  void DropCopy(File& f, Segment& s);
  // What segment `seg` of `f` holds, in whole blocks: what a move charges.
  uint64_t ContentBytes(const File& f, uint64_t seg) const;

  // Moves. Start() checks a move as the live store does (engine FirstStep)
  // and charges its destination; false if there is nothing to do or no room.
  struct Active {
    Move move;
    int from = 0;
    uint64_t done = 0, bytes = 0, charge = 0;
    uint32_t writes_seen = 0;
  };
  bool Start(const Move& move, Active* active);
  bool Commit(const Active& a);  // false: the copy was thrown away
  // Critical-path eviction of one victim, at once; returns when it completes.
  int64_t EvictNow(const Move& move, int64_t t);
  // Background migration up to virtual time t (the next request's issue).
  void Migrate(int64_t t);
  void MaybePlan(int64_t t);
  // Asks the policy for at most `room` moves and queues them.
  void PlanNow(size_t room, int64_t t, bool policy_due);
  // A planned move ended: the policy hears of it, and it is recorded.
  void EndPlannedMove(const Move& m, bool made);
  // Follows the trace's move events (SimConfig::follow_trace_timing).
  void FollowMove(const TraceRecord& r, int64_t t);
  // Runs the active move's copy from `t` on the devices and commits it.
  bool FinishNow(int64_t t);

  // Events that change state besides I/O (core/trace_format.h), as the store
  // handles them.
  bool ApplyEvent(const TraceRecord& r, int64_t t, std::string* error);
  // A segment the store held as the capture began (a `held` event): homed
  // where it was, charged what it holds, before any other record.
  bool Hold(const TraceRecord& r, std::string* error);
  // The held segments' saved statistics (SimConfig::stats_state_file), as
  // Store::RestoreSaved gives them at the store's open.
  bool RestoreStats(std::string* error);
  // Homes segment `seg` of `file` on `want`, or the tier it spills to,
  // charged `bytes`: the tier, or -1 and *error if no tier has room.
  int Home(File& file, uint64_t seg, int want, uint64_t bytes, std::string* error);
  void Delete(File& f);
  void Settle(File& f, uint64_t size);
  // A decision, for SimResult::decisions.
  void Decide(TraceEvent event, uint64_t file_id, FileKind kind, uint64_t offset, uint64_t size,
              int tier);

  const SimConfig& config_;
  Policy* const policy_;
  PlacementEngine placement_;
  MoveScheduler schedule_;
  FutureIndex* const future_;
  const uint64_t seg_size_;
  std::vector<std::unique_ptr<TierState>> tiers_;
  std::vector<File> files_;
  std::unordered_map<uint64_t, size_t> file_index_;
  // Segments read by users while homed below tier 0, or moved there after
  // such reads (and some no longer so, dropped as ForEachSegmentThat meets
  // them): the fill's candidates, without a scan of every segment. By index
  // in files_ and the file's generation (an entry of a deleted file's
  // segment is stale); Segment::pooled keeps one entry a segment.
  struct Pooled {
    uint32_t file, generation;
    uint64_t segment;
  };
  mutable std::vector<Pooled> read_below_fast_;
  mutable size_t pool_sorted_ = 0;  // its first entries, in memory order
  void Pool(File& file, uint64_t segment) {
    Segment& s = file.segments[segment];
    if (s.pooled) return;
    s.pooled = true;
    read_below_fast_.push_back({uint32_t(&file - files_.data()), file.generation, segment});
  }
  // The request clock (one tick per piece of I/O), a block per stream as
  // the store keeps one per thread.
  RequestClock clock_;
  std::unordered_map<uint32_t, RequestClock::Block> blocks_;

  // The trace says when writers close (settle events): files being written
  // are known, and do not move. Without such events nothing is "writing".
  bool tracks_writers_ = false;
  // The migration engine's state beyond schedule_.
  bool active_valid_ = false;
  Active active_;
  int64_t mig_free_ = 0;      // the migration thread is free from then
  std::vector<Move> scratch_;
  std::vector<double> used_sum_;  // per tier: bytes charged, summed at each request
  std::unique_ptr<PageCopies> copies_;  // nullptr: no hot-page copies
  PageCopies::FileSizes restored_files_;  // the files of the copies restored at the start
  // Copies of `r`'s file restored at the start hold every byte `r` reads
  // (as engine/copy_read.cc's ReadHit finds them).
  bool RestoredCopyHolds(const File& file, const TraceRecord& r) const {
    if (!copies_ || r.size == 0 || restored_files_.count(file.id) == 0) return false;
    if (copies_->blocks()) {
      return copies_->FindBlock(PageCopies::Key(file.id, r.offset / PageCopies::kBlockUnit),
                                r.offset, r.size) >= 0;
    }
    const uint64_t page = copies_->page();
    for (uint64_t p = r.offset / page; p <= (r.offset + r.size - 1) / page; ++p) {
      if (copies_->Find(PageCopies::Key(file.id, p)) < 0) return false;
    }
    return true;
  }
  std::unordered_map<uint32_t, PageCopies::Reader> readers_;  // per stream, as per thread
  uint64_t ios_ = 0;  // I/O records served so far

  // Counts a piece of a user read of `bytes` served by `tier`, and apart if
  // its file is young (SimConfig::young_records).
  void CountUserRead(const File& file, uint64_t bytes, TierResult* tier) {
    tier->user_reads++;
    tier->user_read_bytes += bytes;
    if (config_.young_records > 0 && file.born != UINT64_MAX &&
        ios_ - file.born < config_.young_records) {
      tier->young_user_reads++;
    }
  }

  SimResult stats_;
};

File& Simulation::FileOf(const TraceRecord& r) {
  auto [it, added] = file_index_.try_emplace(r.file_id, files_.size());  // no node per lookup
  if (added) {
    files_.emplace_back();
    files_.back().id = r.file_id;
    files_.back().kind = r.kind;
  }
  File& f = files_[it->second];
  if (r.level >= 0) f.level = r.level;
  return f;
}

File* Simulation::FindFile(uint64_t id) {
  auto it = file_index_.find(id);
  return it == file_index_.end() ? nullptr : &files_[it->second];
}

Segment* Simulation::Find(const SegmentRef& ref) {
  File* f = FindFile(ref.file_id);
  if (!f || ref.segment >= f->segments.size() || f->segments[ref.segment].home < 0) return nullptr;
  return &f->segments[ref.segment];
}

bool Simulation::Charge(File& f, int t, uint64_t bytes) {
  TierState& tier = *tiers_[size_t(t)];
  if (!ChargeForFile(tier.account, t, &f.blocks, bytes)) return false;
  tier.result.peak_used = std::max(tier.result.peak_used, tier.account.used());
  return true;
}

void Simulation::Release(File& f, int t, uint64_t bytes) {
  tiers_[size_t(t)]->account.Release(bytes);
  bool still_there = false;
  for (const Segment& s : f.segments) {
    if (s.home == t || s.copy == t) {
      still_there = true;
      break;
    }
  }
  ReleaseFileBlock(tiers_[size_t(t)]->account, t, &f.blocks, still_there);
}

void Simulation::DropCopy(File& f, Segment& s) {
  if (s.copy < 0) return;
  const int t = s.copy;
  s.copy = -1;
  f.copies--;
  Release(f, t, s.copy_charged);
  s.copy_charged = 0;
}

uint64_t Simulation::ContentBytes(const File& f, uint64_t seg) const {
  return SegmentBytes(f.size, seg * seg_size_, (seg + 1) * seg_size_);
}

void Simulation::Decide(TraceEvent event, uint64_t file_id, FileKind kind, uint64_t offset,
                        uint64_t size, int tier) {
  if (config_.record_decisions) {
    stats_.decisions.push_back(MakeEvent(event, file_id, kind, offset, size, tier));
  }
}

void Simulation::Delete(File& f) {
  // As Store::FreeData: every charge of the file goes, its blocks too.
  if (copies_) copies_->Invalidate(f.id, /*readers_possible=*/false);
  for (Segment& s : f.segments) {
    if (s.home >= 0) tiers_[size_t(s.home)]->account.Release(s.charged);
    if (s.copy >= 0) tiers_[size_t(s.copy)]->account.Release(s.copy_charged);
  }
  for (int t = 0; t < NumTiers(); ++t) {
    ReleaseFileBlock(tiers_[size_t(t)]->account, t, &f.blocks, /*still_there=*/false);
  }
  f.segments.clear();
  f.generation++;  // its entries in read_below_fast_ are stale
  f.size = 0;
  f.copies = 0;
}

void Simulation::Settle(File& f, uint64_t size) {
  // As Store::DropWriter: the reservation beyond what each segment holds
  // goes back.
  f.size = size;
  for (uint64_t i = 0; i < f.segments.size(); ++i) {
    Segment& s = f.segments[i];
    if (s.home < 0) continue;
    const uint64_t used = ContentBytes(f, i);
    if (s.charged > used) {
      tiers_[size_t(s.home)]->account.Release(s.charged - used);
      s.charged = used;
    }
  }
}

bool Simulation::ApplyEvent(const TraceRecord& r, int64_t t, std::string* error) {
  switch (r.event) {
    case TraceEvent::kPlace: {
      // Following the capture, a segment is placed where the store placed
      // it in the order of events, not at its first I/O's completion
      // (another thread's I/O may complete in between).
      if (!config_.follow_trace_timing) return true;
      File& f = FileOf(r);
      if (r.offset >= f.segments.size()) f.segments.resize(r.offset + 1);
      if (f.segments[r.offset].home >= 0) return true;
      TraceRecord write = r;
      write.event = TraceEvent::kNone;
      write.type = IoType::kWrite;
      int64_t ready = t;
      return Place(write, f, r.offset, r.size, t, &ready, error);
    }
    case TraceEvent::kDelete:
      if (File* f = FindFile(r.file_id)) Delete(*f);
      return true;
    case TraceEvent::kSettle: {
      File& f = FileOf(r);
      Settle(f, r.size);
      f.writing = false;
      return true;
    }
    case TraceEvent::kTruncate: {
      // As SegmentWriter::Truncate: copies go first; the charge follows at
      // the writer's close (settle).
      File& f = FileOf(r);
      for (Segment& s : f.segments) DropCopy(f, s);
      f.size = r.size;
      return true;
    }
    case TraceEvent::kPlan:
      if (config_.follow_trace_timing) PlanNow(size_t(r.offset), t, r.tier != kFillOnlyPlan);
      return true;
    case TraceEvent::kMove:
      if (config_.follow_trace_timing) FollowMove(r, t);
      return true;
    case TraceEvent::kSync:    // the device models' flush is not replayed
    case TraceEvent::kQueued:  // a decision: the replay makes its own
    case TraceEvent::kHeld:    // the start state: before any record (Run)
    case TraceEvent::kStart:
    case TraceEvent::kNone:
      return true;
  }
  return true;
}

bool Simulation::Hold(const TraceRecord& r, std::string* error) {
  File& f = FileOf(r);
  f.size = std::max(f.size, r.size);
  if (r.offset >= f.segments.size()) f.segments.resize(r.offset + 1);
  Segment& s = f.segments[r.offset];
  if (s.home >= 0) return true;
  // As the store has it at its open: settled, charged in whole blocks.
  const int want = r.tier >= 0 && r.tier < NumTiers() ? r.tier : NumTiers() - 1;
  return Home(f, r.offset, want, ContentBytes(f, r.offset), error) >= 0;
}

bool Simulation::RestoreStats(std::string* error) {
  const std::string& path = config_.stats_state_file;
  if (path.empty()) return true;
  std::string text, why;
  if (!ReadWholeFile(path, &text)) {
    *error = "cannot read the saved statistics " + path;
    return false;
  }
  std::vector<SavedSegment> rows;
  uint64_t skipped = 0;
  if (!ReadSavedSegments(text, &rows, &skipped, &why)) {
    *error = path + " is not a TierFS statistics file";
    return false;
  }
  if (skipped > 0) {
    why += (why.empty() ? "" : "; ") + std::to_string(skipped) + " malformed rows skipped";
  }
  stats_.stats_refused = why;
  for (const SavedSegment& row : rows) {
    File* f = FindFile(row.id);
    // A segment the capture did not hold (deleted, or not placed) is left
    // alone, as the store leaves it.
    if (!f || row.segment >= f->segments.size() || f->segments[row.segment].home < 0) continue;
    f->segments[row.segment].heat.Restore(row.stats, row.times);
    stats_.stats_restored++;
  }
  return true;
}

int Simulation::Home(File& file, uint64_t seg, int want, uint64_t bytes, std::string* error) {
  const int placed = SpillOrder(want, NumTiers(), -1, [&](int i) { return Charge(file, i, bytes); });
  if (placed < 0) {
    *error = "the trace does not fit the tiers: no room for segment " + std::to_string(seg) +
             " of file " + std::to_string(file.id) + " (" + DescribeTiers(config_) + ")";
    return -1;
  }
  Segment& s = file.segments[seg];
  s.home = int8_t(placed);
  s.charged = bytes;
  s.heat.Reset(Now());
  return placed;
}

void Simulation::Describe(const File& f, uint64_t segment, SegmentInfo* info) const {
  const Segment& s = f.segments[segment];
  info->ref.file_id = f.id;
  info->ref.segment = segment;
  info->kind = f.kind;
  info->hints = Hints();
  info->hints.level = f.level;
  info->file_bytes = f.size;
  info->bytes = ContentBytes(f, segment);
  info->tier = s.home;
  info->copy_tier = s.copy;
  info->busy = f.writing;
  info->stats = s.heat.Snapshot();
}

void Simulation::ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const {
  SegmentInfo info;
  for (const File& f : files_) {
    if (!IsBulkKind(f.kind)) continue;
    for (uint64_t i = 0; i < f.segments.size(); ++i) {
      if (f.segments[i].home < 0) continue;
      Describe(f, i, &info);
      fn(info);
    }
  }
}

void Simulation::ForEachSegmentThat(bool tables, bool read_below_fast,
                                    const std::function<void(const SegmentInfo&)>& fn) const {
  SegmentInfo info;
  if (tables) {
    for (const File& f : files_) {
      if (f.kind != FileKind::kSst) continue;
      for (uint64_t i = 0; i < f.segments.size(); ++i) {
        if (f.segments[i].home < 0) continue;
        Describe(f, i, &info);
        fn(info);
      }
    }
  }
  if (!read_below_fast) return;
  // The pool holds every segment read below tier 0 since it got there, and
  // some no longer so: those are dropped here. It is walked in memory order
  // (by file, then segment: entries added since the last walk are sorted and
  // merged in, and the walk compacts in place), for a pool of tens of
  // thousands of segments walked in the order they were read missed the
  // cache at every entry (a hintstor replay of mix6 spent half its time so).
  const auto by_place = [](const Pooled& a, const Pooled& b) {
    return a.file != b.file ? a.file < b.file : a.segment < b.segment;
  };
  const auto merged = read_below_fast_.begin() + long(pool_sorted_);
  std::sort(merged, read_below_fast_.end(), by_place);
  std::inplace_merge(read_below_fast_.begin(), merged, read_below_fast_.end(), by_place);
  size_t kept = 0;
  for (size_t i = 0; i < read_below_fast_.size(); ++i) {
    const Pooled p = read_below_fast_[i];
    const File& file = files_[p.file];
    const bool stale = file.generation != p.generation || p.segment >= file.segments.size();
    if (stale || file.segments[p.segment].home <= 0 || !IsBulkKind(file.kind)) {
      if (!stale) file.segments[p.segment].pooled = false;
      continue;
    }
    read_below_fast_[kept++] = p;
    if (!(tables && file.kind == FileKind::kSst)) {  // else given above
      Describe(file, p.segment, &info);
      fn(info);
    }
  }
  read_below_fast_.resize(kept);
  pool_sorted_ = kept;
}

bool Simulation::Lookup(const SegmentRef& ref, SegmentInfo* info) const {
  auto it = file_index_.find(ref.file_id);
  if (it == file_index_.end()) return false;
  const File& f = files_[it->second];
  if (!IsBulkKind(f.kind) || ref.segment >= f.segments.size() || f.segments[ref.segment].home < 0) {
    return false;
  }
  Describe(f, ref.segment, info);
  return true;
}

bool Simulation::Place(const TraceRecord& r, File& file, uint64_t seg, uint64_t size, int64_t t,
                       int64_t* ready, std::string* error) {
  // As Store::PlaceSegment, through the same engine: metadata files go to
  // tier 0, the policy places bulk data (evicting first if it wants), a full
  // tier spills.
  PlacementRequest req;
  req.seq = Now();
  req.file_id = file.id;
  req.kind = file.kind;
  req.segment = seg;
  req.bytes = seg_size_;
  req.write_size = r.is_write() ? size : 0;
  req.hints.level = file.level;
  // A segment first met by a read existed before the trace began (a live
  // capture starts on a store that holds data already): it is where the
  // capture found it, on the tier that served the read, not where the policy
  // would put a new segment. That tier is its home, unless a copy the store
  // took back at its open holds the bytes read: the trace says tier 0 either
  // way, and copies are made of bytes tier 0 does not serve, so the home is
  // below it (tier 1, as far as the replay can tell). A trace that does not
  // say (synthetic ones) leaves it to the policy.
  const bool found = !r.is_write() && r.tier >= 0 && r.tier < NumTiers();
  int want = found ? r.tier
                   : placement_.Choose(req, IsBulkKind(file.kind), seg_size_ + kFileBlock, *this,
                                       [&](const Move& m) { *ready = EvictNow(m, *ready); });
  if (found && want == 0 && NumTiers() > 1 && RestoredCopyHolds(file, r)) want = 1;
  const int placed = Home(file, seg, want, seg_size_, error);
  if (placed < 0) return false;
  // A segment found in place was placed before the capture began: no
  // decision of this replay's, and none in the trace to compare with.
  if (!found) Decide(TraceEvent::kPlace, file.id, file.kind, seg, req.write_size, placed);
  return true;
}

bool Simulation::ServePiece(const TraceRecord& r, File& file, uint64_t seg, uint64_t offset,
                            uint64_t size, int64_t t, int64_t* completion, std::string* error) {
  if (seg >= file.segments.size()) file.segments.resize(seg + 1);
  int64_t start = t;
  if (file.segments[seg].home < 0 && !Place(r, file, seg, size, t, &start, error)) return false;
  Segment& s = file.segments[seg];
  const bool write = r.is_write();
  if (write) {
    // As the store (SegmentWriter::Write): a write to a file with copies
    // drops all of them first, so a copy is never stale.
    if (file.copies > 0) {
      for (Segment& other : file.segments) DropCopy(file, other);
    }
    s.writes_seen++;
    file.writing = tracks_writers_;
  }
  const int tier = !write && s.copy >= 0 ? s.copy : s.home;
  TierState& ts = *tiers_[size_t(tier)];
  int64_t done;
  if (write && file.kind != FileKind::kVolume) {
    // A RocksDB file's write, buffered as in the file system (Tier::ModelWrite):
    // the file's appends are written back together, and the writer waits
    // only while the device is more than kWriteBackNanos behind.
    const int64_t written = ts.device.ScheduleWriteBack(file.id, offset, size, start);
    done = std::max(start, written - DeviceModel::kWriteBackNanos);
  } else {
    done = ts.device.Schedule(write, file.id, offset, size, start);
  }
  *completion = std::max(*completion, done);
  if (r.type != IoType::kBackgroundRead) ts.result.served++;
  if (r.type == IoType::kUserRead) CountUserRead(file, size, &ts.result);
  (write ? ts.result.write_bytes : ts.result.read_bytes) += size;
  if (write) stats_.user_write_bytes += size;

  ObserveRequest(*policy_, &s.heat, clock_.Next(&blocks_[r.stream]), r.type, file.id, file.kind,
                 seg, offset, size, tier, Latency(r, done - t), /*copy=*/tier != s.home);
  if (r.type == IoType::kUserRead && s.home > 0) Pool(file, seg);
  stats_.pieces++;
  return true;
}

class Simulation::CopyIo final : public CopyReadIo {
 public:
  CopyIo(Simulation* sim, const TraceRecord& r, File& file, int64_t t, int64_t* completion,
         std::string* error)
      : sim_(*sim), r_(r), file_(file), t_(t), completion_(completion), error_(error) {}

  // Whether a miss read the homes for copies.
  bool filled() const { return filled_; }

  bool ReadFromTierZero(uint64_t offset, uint64_t end) const override {
    return sim_.ReadFromTierZero(file_, offset, end);
  }
  bool Placed(uint64_t offset, uint64_t end) const override {
    return sim_.Placed(file_, offset, end);
  }
  // One thread: no reader to keep a slot for.
  void EnterGate() override {}
  void LeaveGate() override {}

  bool ReadCopies(const int64_t* slots, int, uint64_t, uint64_t, uint64_t offset,
                  uint64_t end) override {
    done_ = sim_.tiers_[0]->device.Schedule(false, PageCopies::kStream,
                                            sim_.copies_->Where(slots[0]), end - offset, t_);
    *completion_ = std::max(*completion_, done_);
    return true;
  }

  void Served(uint64_t, uint64_t, const uint64_t* keys, int n) override {
    sim_.CountCopyHit(r_, file_, t_, done_);
    for (int i = 0; i < n; ++i) sim_.copies_->NoteHit(reader(), keys[i]);
  }

  void WaitForReaders() override {}

  bool ReadHomes(uint64_t lo, uint64_t hi) override {
    file_.size = std::max(file_.size, r_.offset + r_.size);
    if (!sim_.ServeRange(r_, file_, lo, std::min(hi, file_.size), t_, completion_, error_)) {
      return false;
    }
    filled_ = true;
    return true;
  }

  bool WriteCopy(const PageCopies::Fill& fill, uint64_t, uint64_t length) override {
    sim_.tiers_[0]->device.ScheduleWriteBack(PageCopies::kStream, fill.where, length,
                                             *completion_);
    return true;
  }

  void Copied(uint64_t index) override {
    sim_.tiers_[0]->result.pages_copied++;
    sim_.Decide(TraceEvent::kMove, file_.id, file_.kind, index,
                EncodeMoveOutcome(Move::kReplicate, true, MoveCause::kPageCopy), 0);
  }

  PageCopies::Reader* reader() override { return &sim_.readers_[r_.stream]; }
  bool blocking() const override { return true; }

 private:
  Simulation& sim_;
  const TraceRecord& r_;
  File& file_;
  const int64_t t_;
  int64_t* const completion_;
  std::string* const error_;
  int64_t done_ = 0;  // a hit's completion on tier 0
  bool filled_ = false;
};

bool Simulation::Serve(const TraceRecord& r, int64_t t, int64_t* completion, std::string* error) {
  File& file = FileOf(r);
  const uint64_t end = r.offset + std::max<uint64_t>(r.size, 1);
  *completion = t;
  if (r.is_write() && file.born == UINT64_MAX) file.born = ios_;
  if (r.is_write() && copies_) {
    // As Store::AddWriter: a file written again loses its copies.
    copies_->Invalidate(file.id, /*readers_possible=*/true);
    copies_->Reclaim();
  }
  if (copies_ && config_.copies.inherit && file.kind == FileKind::kSst && r.size > 0) {
    // As the store (tier_files.cc): compaction input's heat goes to the
    // output the same thread writes next.
    if (r.type == IoType::kBackgroundRead) {
      copies_->NoteInput(&readers_[r.stream], file.id, r.offset, r.size);
    } else if (r.is_write()) {
      copies_->NoteOutput(&readers_[r.stream], file.id, r.offset, r.size);
    }
  }
  if (copies_ && r.type == IoType::kUserRead && r.size > 0 && !file.writing &&
      (file.kind == FileKind::kSst || file.kind == FileKind::kBlob)) {
    CopyIo io(this, r, file, t, completion, error);
    Policy::CopyCandidate c;
    c.file_id = file.id;
    c.kind = file.kind;
    c.level = file.level;
    // Data the capture began with (a first read that says where it was
    // found) is placed before the read looks at the copies, as the store had
    // it placed at its open: bytes on tier 0 are no copy's. Found in place,
    // it evicts nothing and the read starts at t.
    const bool found = r.tier >= 0 && r.tier < NumTiers();
    for (uint64_t seg = r.offset / seg_size_; found && seg <= (end - 1) / seg_size_; ++seg) {
      if (seg >= file.segments.size()) file.segments.resize(seg + 1);
      int64_t ready = t;
      if (file.segments[seg].home < 0 && !Place(r, file, seg, r.size, t, &ready, error)) return false;
    }
    // The file's end as far as the trace knows it: the highest byte seen.
    switch (ReadThroughCopies(*copies_, c, r.offset, end, std::max(file.size, end), io)) {
      case CopyRead::kFailed:
        return false;
      case CopyRead::kServed:
        if (io.filled()) {
          TierResult& fast = tiers_[0]->result;
          fast.peak_copy_bytes = std::max(fast.peak_copy_bytes, tiers_[0]->account.copy_used());
        }
        return true;
      case CopyRead::kLeft:
        break;
    }
  }
  file.size = std::max(file.size, end);
  return ServeRange(r, file, r.offset, end, t, completion, error);
}

bool Simulation::ServeRange(const TraceRecord& r, File& file, uint64_t offset, uint64_t end,
                            int64_t t, int64_t* completion, std::string* error) {
  for (uint64_t off = offset; off < end;) {
    const uint64_t seg = off / seg_size_;
    const uint64_t piece_end = std::min(end, (seg + 1) * seg_size_);
    if (!ServePiece(r, file, seg, off, piece_end - off, t, completion, error)) return false;
    off = piece_end;
  }
  return true;
}

bool Simulation::ReadFromTierZero(const File& file, uint64_t offset, uint64_t end) const {
  for (uint64_t seg = offset / seg_size_; seg <= (end - 1) / seg_size_; ++seg) {
    if (seg < file.segments.size() && file.segments[seg].home >= 0 &&
        (file.segments[seg].copy >= 0 ? file.segments[seg].copy : file.segments[seg].home) == 0) {
      return true;
    }
  }
  return false;
}

bool Simulation::Placed(const File& file, uint64_t offset, uint64_t end) const {
  for (uint64_t seg = offset / seg_size_; seg <= (end - 1) / seg_size_; ++seg) {
    if (seg >= file.segments.size() || file.segments[seg].home < 0) return false;
  }
  return true;
}

void Simulation::CountCopyHit(const TraceRecord& r, File& file, int64_t t, int64_t done) {
  TierState& fast = *tiers_[0];
  const uint64_t end = r.offset + r.size;
  for (uint64_t off = r.offset; off < end;) {
    const uint64_t seg = off / seg_size_;
    const uint64_t piece_end = std::min(end, (seg + 1) * seg_size_);
    fast.result.served++;
    CountUserRead(file, piece_end - off, &fast.result);
    fast.result.page_hits++;
    fast.result.read_bytes += piece_end - off;
    ObserveRequest(*policy_, &file.segments[seg].heat, clock_.Next(&blocks_[r.stream]), r.type,
                   file.id, file.kind, seg, off, piece_end - off, 0, Latency(r, done - t),
                   /*copy=*/true);
    if (file.segments[seg].home > 0) Pool(file, seg);
    stats_.pieces++;
    off = piece_end;
  }
}

bool Simulation::Start(const Move& m, Active* a) {
  File* f = FindFile(m.ref.file_id);
  Segment* s = Find(m.ref);
  if (!s || f->writing) return false;  // as the store: a file open for writing does not move
  switch (FirstStep(m, NumTiers(), s->home, s->copy)) {
    case MoveStep::kNothing:
    case MoveStep::kInvalid:
      return false;
    case MoveStep::kDropCopy:
      DropCopy(*f, *s);
      return false;  // done: no data to carry
    case MoveStep::kCarry:
      break;
  }
  DropCopy(*f, *s);  // one extra copy at most, and a home never moves under its copy
  const uint64_t charge = ContentBytes(*f, m.ref.segment);
  if (charge == 0 || !Charge(*f, m.to, charge)) return false;
  a->move = m;
  a->from = s->home;
  a->done = 0;
  a->charge = charge;
  a->bytes = std::min(f->size, (m.ref.segment + 1) * seg_size_) - m.ref.segment * seg_size_;
  a->writes_seen = s->writes_seen;
  return true;
}

bool Simulation::Commit(const Active& a) {
  File* f = FindFile(a.move.ref.file_id);
  Segment* s = Find(a.move.ref);
  if (!s || s->writes_seen != a.writes_seen || s->home != a.from || s->copy >= 0) {
    // A write came while copying (the live store refuses a file opened for
    // writing) or a copy was made meanwhile: the copy is thrown away.
    if (f) Release(*f, a.move.to, a.charge);
    stats_.moves_skipped++;
    return false;
  }
  if (a.move.op == Move::kMigrate) {
    const int from = s->home;
    s->home = int8_t(a.move.to);
    if (a.move.to > 0 && s->heat.user_reads.load(std::memory_order_relaxed) > 0) {
      Pool(*f, a.move.ref.segment);
    }
    Release(*f, from, s->charged);
    s->charged = a.charge;
  } else {
    s->copy = int8_t(a.move.to);
    f->copies++;
    s->copy_charged = a.charge;
  }
  s->heat.Moved(Now());
  stats_.moves++;
  return true;
}

int64_t Simulation::EvictNow(const Move& m, int64_t t) {
  Active a;
  if (!Start(m, &a)) {
    Decide(TraceEvent::kMove, m.ref.file_id, FileKind::kOther, m.ref.segment,
           EncodeMoveOutcome(m.op, false, MoveCause::kEviction), m.to);
    return t;
  }
  int64_t at = t;
  for (uint64_t off = 0; off < a.bytes; off += kMoveChunk) {
    const uint64_t n = std::min(kMoveChunk, a.bytes - off);
    const uint64_t where = m.ref.segment * seg_size_ + off;
    const int64_t read = tiers_[size_t(a.from)]->device.Schedule(false, m.ref.file_id, where, n, at);
    at = tiers_[size_t(m.to)]->device.Schedule(true, m.ref.file_id, where, n, read);
  }
  tiers_[size_t(a.from)]->result.migrated_out += a.bytes;
  tiers_[size_t(m.to)]->result.migrated_in += a.bytes;
  stats_.evicted_bytes += a.bytes;
  const bool made = Commit(a);
  Decide(TraceEvent::kMove, m.ref.file_id, FileKind::kOther, m.ref.segment,
         EncodeMoveOutcome(m.op, made, MoveCause::kEviction), m.to);
  return at;
}

void Simulation::MaybePlan(int64_t t) {
  bool policy_due;
  const size_t room = schedule_.PlanRoom(placement_.PlanIntervalRequests(), Now(), t, &policy_due);
  if (room > 0) PlanNow(room, t, policy_due);
}

void Simulation::PlanNow(size_t room, int64_t t, bool policy_due) {
  scratch_.clear();
  const bool more = placement_.Plan(*this, room, &scratch_, policy_due);
  schedule_.Planned(Now(), t, policy_due, more);
  Decide(TraceEvent::kPlan, 0, FileKind::kOther, room, scratch_.size(),
         policy_due ? -1 : kFillOnlyPlan);
  for (const Move& m : scratch_) {
    Decide(TraceEvent::kQueued, m.ref.file_id, FileKind::kOther, m.ref.segment, uint64_t(m.op),
           m.to);
  }
  schedule_.Enqueue(scratch_);
}

void Simulation::EndPlannedMove(const Move& m, bool made) {
  Decide(TraceEvent::kMove, m.ref.file_id, FileKind::kOther, m.ref.segment,
         EncodeMoveOutcome(m.op, made, MoveCause::kPlanned), m.to);
  policy_->OnMoveDone(m, made);
}

bool Simulation::FinishNow(int64_t t) {
  int64_t at = t;
  DeviceModel& from = tiers_[size_t(active_.from)]->device;
  DeviceModel& to = tiers_[size_t(active_.move.to)]->device;
  for (; active_.done < active_.bytes;) {
    const uint64_t n = std::min(kMoveChunk, active_.bytes - active_.done);
    const uint64_t where = active_.move.ref.segment * seg_size_ + active_.done;
    const int64_t read = from.Schedule(false, active_.move.ref.file_id, where, n, at);
    at = to.Schedule(true, active_.move.ref.file_id, where, n, read);
    tiers_[size_t(active_.from)]->result.migrated_out += n;
    tiers_[size_t(active_.move.to)]->result.migrated_in += n;
    stats_.migrated_bytes += n;
    active_.done += n;
  }
  mig_free_ = at;
  active_valid_ = false;
  return Commit(active_);
}

void Simulation::FollowMove(const TraceRecord& r, int64_t t) {
  Move::Op op;
  bool made, started;
  MoveCause cause;
  DecodeMoveOutcome(r.size, &op, &made, &cause, &started);
  // Evictions run inline and page copies on reads, both decided here.
  if (cause == MoveCause::kEviction || cause == MoveCause::kPageCopy) return;
  const bool planned = cause == MoveCause::kPlanned;
  if (started) {
    // The store's migration thread took its next move and charged the
    // destination: a planned one from our queue, a manual one as recorded.
    Move m;
    bool manual;
    if (active_valid_) return;
    if (planned) {
      if (!schedule_.Next(&m, &manual)) return;
    } else {
      m.op = op;
      m.ref = SegmentRef{r.file_id, r.offset};
      m.to = r.tier;
    }
    active_valid_ = Start(m, &active_);
    if (!active_valid_ && planned) EndPlannedMove(m, false);  // the store started it; we could not
    return;
  }
  if (active_valid_) {
    const Move m = active_.move;
    const bool ours = FinishNow(t);
    if (planned) EndPlannedMove(m, ours);
    return;
  }
  if (!planned) return;  // a manual move that never started
  // The store ended a move it never started (nothing to do, no room, busy):
  // take ours, which may start where the store's did not.
  Move m;
  bool manual;
  if (!schedule_.Next(&m, &manual)) return;
  if (!Start(m, &active_)) {
    if (m.op != Move::kDropCopy) stats_.moves_skipped++;
    EndPlannedMove(m, false);
    return;
  }
  active_valid_ = true;
  EndPlannedMove(m, FinishNow(t));
}

void Simulation::Migrate(int64_t t) {
  for (;;) {
    if (!active_valid_) {
      // The migration thread between moves: plan, then take the next.
      if (mig_free_ >= t) return;
      MaybePlan(t);
      Move m;
      bool manual;
      if (!schedule_.Next(&m, &manual)) {
        mig_free_ = t + kIdleLookNanos;  // as the store's thread: a nap
        return;
      }
      active_valid_ = Start(m, &active_);
      if (!active_valid_) {
        if (m.op != Move::kDropCopy) stats_.moves_skipped++;
        EndPlannedMove(m, false);  // as the store: a drop-copy carries nothing
      }
      continue;
    }
    // The next chunk: wanted from `want`; starts when both devices idle, or
    // is forced through once it has waited long enough.
    DeviceModel& from = tiers_[size_t(active_.from)]->device;
    DeviceModel& to = tiers_[size_t(active_.move.to)]->device;
    const int64_t want = schedule_.EarliestStart(mig_free_);
    const int64_t idle = std::max({want, from.BusyUntil(), to.BusyUntil()});
    bool forced = false;
    int64_t start;
    if (idle < t) {
      start = idle;
    } else if (schedule_.ForcedStart(want) < t) {
      start = schedule_.ForcedStart(want);
      forced = true;
      stats_.forced_chunks++;
    } else {
      return;  // wait: the next request comes first
    }
    const uint64_t n = std::min(kMoveChunk, active_.bytes - active_.done);
    const uint64_t where = active_.move.ref.segment * seg_size_ + active_.done;
    const uint64_t file = active_.move.ref.file_id;
    const int64_t read = from.Schedule(false, file, where, n, start);
    const int64_t written = to.Schedule(true, file, where, n, read);
    schedule_.ChunkDone(start, written, n, forced);
    mig_free_ = written;
    tiers_[size_t(active_.from)]->result.migrated_out += n;
    tiers_[size_t(active_.move.to)]->result.migrated_in += n;
    stats_.migrated_bytes += n;
    active_.done += n;
    if (active_.done >= active_.bytes) {
      active_valid_ = false;
      EndPlannedMove(active_.move, Commit(active_));
    }
  }
}

bool Simulation::SetUpCopies(const std::vector<TraceRecord>& trace, std::string* error) {
  // As Store::Open (env/hot_pages.cc), for a trace of RocksDB files: a block
  // trace (kVolume) has no immutable file to copy, and tier 0 keeps no
  // reserve it could not use.
  const bool tables = std::any_of(trace.begin(), trace.end(), [](const TraceRecord& r) {
    return r.kind == FileKind::kSst || r.kind == FileKind::kBlob;
  });
  const int own = policy_->CopySharePct();
  const uint64_t share = own >= 0 ? uint64_t(own) : config_.copies.share_pct;
  const uint64_t page = config_.copies.page;
  // As HotPages::Open, a state the copies cannot take is forgotten (the
  // replay starts with none, SimResult::copies_refused says why); one that
  // cannot be read is an error.
  const std::string& saved = config_.copies_state_file;
  std::string bytes;
  if (!saved.empty() && !ReadWholeFile(saved, &bytes)) {
    *error = "cannot read the saved copies " + saved;
    return false;
  }
  auto none = [&] {
    if (!saved.empty()) stats_.copies_refused = "this replay keeps no hot-page copies";
    return true;
  };
  if (!config_.copies.enabled || !tables || tiers_.size() < 2 || page == 0) return none();
  CapacityAccount& fast = tiers_[0]->account;
  const uint64_t reserve = fast.capacity() / 100 * share / page * page;
  if (reserve == 0) return none();
  fast.SetCopyReserve(reserve);
  PageCopies::Config c;
  c.page = page;
  c.slots = reserve / page;
  c.headroom = placement_.Headroom(fast.capacity());
  c.blocks = config_.copies.blocks;
  c.policy = config_.copies.policy;
  // One thread: no reader to wait for, no file to punch.
  copies_ = std::make_unique<PageCopies>(c, policy_, &fast, [] {}, [](uint64_t, uint64_t) {});
  placement_.AttachCopies(copies_.get());
  if (saved.empty()) return true;
  // The copies of the files the state names, at the sizes it names (the
  // store checked them against its files; the replay has no other word for
  // a file's size before the trace touches it). A malformed file list is
  // RestoreState's to name.
  std::string state, why;
  PageCopies::FileSizes files;
  uint64_t restored = 0;
  if (PageCopies::StateFromFileBytes(bytes, &state, &why)) {
    PageCopies::SavedFiles(state, &files);
    copies_->RestoreState(state, files, &restored, &why);
  }
  if (!why.empty()) {
    stats_.copies_refused = why;
    return true;
  }
  stats_.copies_restored = restored;
  restored_files_ = std::move(files);
  return true;
}

// The counts of a warm-up taken out of the run's (SimConfig::measure_after).
void SubtractCounts(const TierResult& w, TierResult* r) {
  r->served -= w.served;
  r->read_bytes -= w.read_bytes;
  r->write_bytes -= w.write_bytes;
  r->migrated_in -= w.migrated_in;
  r->migrated_out -= w.migrated_out;
  r->user_reads -= w.user_reads;
  r->user_read_bytes -= w.user_read_bytes;
  r->page_hits -= w.page_hits;
  r->young_user_reads -= w.young_user_reads;
  r->pages_copied -= w.pages_copied;
}

void SubtractCounts(const PageCopies::Counters& w, PageCopies::Counters* c) {
  c->hits -= w.hits;
  c->misses -= w.misses;
  c->admitted -= w.admitted;
  c->rejected -= w.rejected;
  c->evicted -= w.evicted;
  c->invalidated -= w.invalidated;
  c->no_room -= w.no_room;
  c->shrunk -= w.shrunk;
  c->inherited -= w.inherited;
}

bool Simulation::Run(const std::vector<TraceRecord>& trace, SimResult* result,
                     std::string* error) {
  const auto wall_start = std::chrono::steady_clock::now();
  stats_ = SimResult();
  stats_.policy = policy_->Name();
  std::vector<int64_t> latencies, user_read_latencies;
  latencies.reserve(trace.size());
  int64_t first_issue = INT64_MAX, last_done = 0;

  const bool follow = config_.follow_trace_timing;
  used_sum_.assign(tiers_.size(), 0);
  tracks_writers_ = std::any_of(trace.begin(), trace.end(),
                                [](const TraceRecord& r) { return r.event == TraceEvent::kSettle; });
  // The store as the capture began: its request clock (a store reopened
  // goes on from its last process's, and plans at once), the data it held
  // where it held it, then the copies it took back at its open (as the store
  // restores them). Those records come first (core/trace_format.h).
  for (const TraceRecord& r : trace) {
    if (!r.is_start_state()) break;
    if (r.event == TraceEvent::kStart) clock_.Restore(std::max(clock_.Now(), r.offset));
    if (r.event == TraceEvent::kHeld && !Hold(r, error)) return false;
  }
  if (!RestoreStats(error) || !SetUpCopies(trace, error)) return false;
  // The warm-up's counts, subtracted at the end.
  uint64_t& ios = ios_;
  SimResult warm;
  std::vector<TierResult> warm_tiers(tiers_.size());
  auto serve = [&](size_t i, int64_t t, int64_t* done) {
    if (future_) future_->set_now(i);
    if (!trace[i].is_io()) {
      *done = t;
      return ApplyEvent(trace[i], t, error);
    }
    if (ios++ == config_.measure_after && config_.measure_after > 0) {
      warm = stats_;
      warm.plans = schedule_.plans();
      if (copies_) warm.copies = copies_->counters();
      for (size_t k = 0; k < tiers_.size(); ++k) warm_tiers[k] = tiers_[k]->result;
      used_sum_.assign(tiers_.size(), 0);
      latencies.clear();
      user_read_latencies.clear();
      first_issue = INT64_MAX;
    }
    if (config_.migration.enabled && !follow) Migrate(t);
    if (!Serve(trace[i], t, done, error)) return false;
    for (size_t k = 0; k < tiers_.size(); ++k) used_sum_[k] += double(tiers_[k]->account.used());
    latencies.push_back(*done - t);
    if (trace[i].type == IoType::kUserRead) user_read_latencies.push_back(*done - t);
    if (config_.record_timings) stats_.timings.push_back({i, t, *done});
    first_issue = std::min(first_issue, t);
    last_done = std::max(last_done, *done);
    return true;
  };

  if (config_.replay == SimConfig::Replay::kOpen || follow) {
    for (size_t i = 0; i < trace.size(); ++i) {
      int64_t done;
      if (!serve(i, int64_t(trace[i].time_ns), &done)) return false;
    }
  } else {
    // Each stream a synchronous client: a heap of (issue time, stream).
    std::unordered_map<uint32_t, size_t> stream_index;
    std::vector<std::vector<uint32_t>> streams;
    for (size_t i = 0; i < trace.size(); ++i) {
      // The replay makes its own decisions; the start state is taken already.
      if (IsDecision(trace[i]) || trace[i].is_start_state()) continue;
      auto [it, added] = stream_index.try_emplace(trace[i].stream, streams.size());
      if (added) streams.emplace_back();
      streams[it->second].push_back(uint32_t(i));
    }
    // A record waits for the last write of its file by another stream that
    // the trace puts before it. A stream the replay serves faster than the
    // capture did runs ahead of the trace's time: a client read a flush's
    // new table before the flush had written it, and the replay took the
    // table for data the capture began with, placed where the read was
    // served, past the placement rules (lab notebook, "The replay read
    // tables before their flush"). Every wait is for an earlier record, so
    // the earliest record not yet served can always be.
    const std::vector<uint32_t> after = WritesBefore(trace);
    std::vector<uint8_t> served(trace.size(), 0);
    std::vector<size_t> cursor(streams.size(), 0);
    using Event = std::pair<int64_t, size_t>;  // (issue time, stream): ties go to the lower stream
    std::unordered_map<uint32_t, std::vector<Event>> waiting;  // record -> streams parked on it
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> ready;
    for (size_t s = 0; s < streams.size(); ++s) ready.push({int64_t(trace[streams[s][0]].time_ns), s});
    while (!ready.empty()) {
      auto [t, s] = ready.top();
      ready.pop();
      const size_t i = streams[s][cursor[s]];
      if (after[i] != kNoRecord && !served[after[i]]) {
        waiting[after[i]].push_back({t, s});
        continue;
      }
      cursor[s]++;
      int64_t done;
      if (!serve(i, t, &done)) return false;
      served[i] = 1;
      if (auto w = waiting.find(uint32_t(i)); w != waiting.end()) {
        for (const auto& [wanted, stream] : w->second) ready.push({std::max(wanted, done), stream});
        waiting.erase(w);
      }
      if (cursor[s] < streams[s].size()) {
        const TraceRecord& r = trace[i];
        const uint64_t gap = trace[streams[s][cursor[s]]].time_ns - r.time_ns;
        const uint64_t think = gap - std::min(gap, r.latency_ns);
        ready.push({done + int64_t(think), s});
      }
    }
  }

  stats_.requests = latencies.size();
  stats_.plans = schedule_.plans() - warm.plans;
  stats_.pieces -= warm.pieces;
  stats_.user_write_bytes -= warm.user_write_bytes;
  stats_.migrated_bytes -= warm.migrated_bytes;
  stats_.evicted_bytes -= warm.evicted_bytes;
  stats_.moves -= warm.moves;
  stats_.moves_skipped -= warm.moves_skipped;
  stats_.forced_chunks -= warm.forced_chunks;
  for (size_t k = 0; k < tiers_.size(); ++k) SubtractCounts(warm_tiers[k], &tiers_[k]->result);
  auto mean_us = [](const std::vector<int64_t>& v) {
    long double sum = 0;
    for (int64_t l : v) sum += l;
    return double(sum / v.size()) / 1000.0;
  };
  auto percentile_us = [](std::vector<int64_t>* v, double p) {
    size_t k = std::min(v->size() - 1, size_t(double(v->size()) * p / 100.0));
    std::nth_element(v->begin(), v->begin() + long(k), v->end());
    return double((*v)[k]) / 1000.0;
  };
  if (!user_read_latencies.empty()) {
    stats_.user_read_latency_us = mean_us(user_read_latencies);
    stats_.user_read_p99_us = percentile_us(&user_read_latencies, 99);
  }
  if (!latencies.empty()) {
    stats_.avg_latency_us = mean_us(latencies);
    stats_.p99_us = percentile_us(&latencies, 99);
    stats_.p9999_us = percentile_us(&latencies, 99.99);
    stats_.virtual_seconds = double(last_done - first_issue) / 1e9;
    stats_.throughput =
        stats_.virtual_seconds > 0 ? double(stats_.requests) / stats_.virtual_seconds : 0;
  }
  uint64_t served = 0, device_writes = 0, user_reads = 0, user_read_bytes = 0, young_reads = 0;
  for (const auto& t : tiers_) {
    served += t->result.served;
    user_reads += t->result.user_reads;
    user_read_bytes += t->result.user_read_bytes;
    young_reads += t->result.young_user_reads;
    device_writes += t->result.write_bytes + t->result.migrated_in;
  }
  for (size_t i = 0; i < tiers_.size(); ++i) {
    TierResult tr = tiers_[i]->result;
    tr.capacity = tiers_[i]->account.capacity();
    tr.device = config_.tiers[i].device.name;
    tr.hit_ratio = served ? double(tr.served) / double(served) : 0;
    tr.user_read_share = user_reads ? double(tr.user_reads) / double(user_reads) : 0;
    tr.user_read_byte_share =
        user_read_bytes ? double(tr.user_read_bytes) / double(user_read_bytes) : 0;
    tr.young_read_share = young_reads ? double(tr.young_user_reads) / double(young_reads) : 0;
    tr.mean_used = stats_.requests ? used_sum_[i] / double(stats_.requests) : 0;
    stats_.tiers.push_back(tr);
  }
  if (copies_) {
    stats_.copies = copies_->counters();
    SubtractCounts(warm.copies, &stats_.copies);
  }
  stats_.device_write_bytes = device_writes;
  stats_.write_amplification =
      stats_.user_write_bytes ? double(device_writes) / double(stats_.user_write_bytes) : 0;
  stats_.losses = policy_->LossCurves();
  policy_->StopLearning();
  stats_.policy_state = policy_->SaveState();
  stats_.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  *result = stats_;
  return true;
}

}  // namespace

bool IsDecision(const TraceRecord& r) {
  switch (r.event) {
    case TraceEvent::kPlace:
    case TraceEvent::kMove:
    case TraceEvent::kPlan:
    case TraceEvent::kQueued:
      return true;
    default:
      return false;
  }
}

std::vector<uint32_t> WritesBefore(const std::vector<TraceRecord>& trace) {
  std::vector<uint32_t> after(trace.size(), kNoRecord);
  std::unordered_map<uint64_t, uint32_t> last_write;  // file -> its last write so far
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceRecord& r = trace[i];
    if (IsDecision(r)) continue;  // not replayed: nothing waits for one
    auto w = last_write.find(r.file_id);
    if (w != last_write.end() && trace[w->second].stream != r.stream) after[i] = w->second;
    if (r.is_io() && r.is_write()) last_write[r.file_id] = uint32_t(i);
  }
  return after;
}

namespace {

// The files, offered to `policy` in turn until it takes one.
bool OfferStates(const std::vector<std::string>& files, int tiers, Policy* policy,
                 std::string* error) {
  std::string refusals;
  for (const std::string& file : files) {
    std::string bytes;
    if (!ReadWholeFile(file, &bytes)) {
      *error = "cannot read the policy state " + file;
      return false;
    }
    std::string why;
    if (policy->LoadState(bytes, tiers, &why)) return true;
    refusals += (refusals.empty() ? "" : "; ") + file + ": " + why;
  }
  *error = std::string(policy->Name()) + " took none of the states offered: " + refusals;
  return false;
}

// The policy's own parameters: without the simulator's.
PolicyParams OwnParams(const SimConfig& config) {
  PolicyParams params = config.policy_params;
  params.erase(kStateParam);
  return params;
}

}  // namespace

std::unique_ptr<Policy> MakeSimPolicy(const SimConfig& config, const FutureIndex* future,
                                      std::string* error) {
  const PolicyParams own = OwnParams(config);
  if (config.policy == kOracleName) {
    ParamReader params(own);
    std::vector<DeviceParams> devices;
    for (const SimTier& t : config.tiers) devices.push_back(t.device);
    auto oracle = NewOraclePolicy(future, devices, params);
    if (!params.Finish(kOracleName, error)) return nullptr;
    return oracle;
  }
  // A learning policy trains in the replay's own thread, on the replay's
  // schedule: the same inputs give the same output.
  PolicyParams params = own;
  if (PolicyLearns(config.policy)) params.emplace("inline", "1");
  return NewPolicy(config.policy, params, error);
}

bool Simulate(const std::vector<TraceRecord>& trace, const SimConfig& config, Policy* policy,
              FutureIndex* future, SimResult* result, std::string* error) {
  if (config.tiers.empty()) {
    *error = "the simulator needs at least one tier";
    return false;
  }
  if (config.segment_size == 0 || config.segment_size % kBlockSize != 0) {
    *error = "the simulator needs a segment size that is a positive multiple of 4096, got " +
             std::to_string(config.segment_size);
    return false;
  }
  Simulation sim(config, policy, future);
  return sim.Run(trace, result, error);
}

bool RunPolicy(const std::vector<TraceRecord>& trace, const SimConfig& config, SimResult* result,
               std::string* error) {
  std::unique_ptr<FutureIndex> future;
  if (config.policy == kOracleName && config.segment_size > 0) {
    future = std::make_unique<FutureIndex>(trace, config.segment_size);
  }
  std::unique_ptr<Policy> policy = MakeSimPolicy(config, future.get(), error);
  if (!policy) return false;
  std::vector<std::string> files = config.policy_state_files;
  auto states = config.policy_params.find(kStateParam);
  if (states != config.policy_params.end()) {
    for (size_t start = 0; start <= states->second.size();) {
      size_t end = states->second.find('+', start);
      if (end == std::string::npos) end = states->second.size();
      files.push_back(states->second.substr(start, end - start));
      start = end + 1;
    }
  }
  if (!files.empty() && !OfferStates(files, int(config.tiers.size()), policy.get(), error)) {
    return false;
  }
  return Simulate(trace, config, policy.get(), future.get(), result, error);
}

}  // namespace sim
}  // namespace tierfs
