// The policy interface: placement (which tier a new segment is written to) and
// migration (which placed segments move, or get a copy, where).
//
// A policy knows nothing of RocksDB or of files on disk. It sees
//   - requests: one I/O on one segment (file id, file kind, segment, offset,
//     size, read or write, priority, hints), each with its measured latency;
//   - the storage: capacity and use per tier and, per placed segment, where it
//     is and its access statistics (StorageView).
// The live file system drives it (env/), and the trace simulator drives the
// same code. Capacity is the caller's job: if the tier Place() names has no
// room the segment spills to the next tier with room, and a move whose
// destination has no room is skipped, so a policy never has to be exact about
// free space for I/O to succeed.
//
// Threads: Place() and OnRequest() run on the I/O path, concurrently from many
// threads, and must be cheap and thread-safe. Plan() (from the migration
// thread) and Evict() (from a placing writer) are serialized by the engine
// (engine/placement.h): never two at once, of either, so the state they share
// needs no lock of the policy's own. They may take their time, though a
// writer waits for Evict().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/file_kind.h"
#include "tierfs/hint_types.h"  // AccessHint, DataOp: the public API's enums

namespace tierfs {

// Temperature RocksDB attached to a file (FileOptions::temperature).
enum class Temperature : uint8_t { kUnknown = 0, kHot, kWarm, kCold };

// Everything known about the file a segment belongs to, beyond its kind.
struct Hints {
  int level = -1;        // LSM level of a table file (from the event listener), -1 unknown
  int lifetime = 0;      // RocksDB's WriteLifeTimeHint: 0 unset, 1 none, 2 short .. 5 extreme
  Temperature temperature = Temperature::kUnknown;
  AccessHint access = AccessHint::kNone;  // the file's, else its column family's
  int pinned_tier = -1;  // REDIRECT: an administrator pinned the file here; -1 none
  uint32_t column_family = 0;  // 0 unknown, else a small id per column family name
};

enum class IoType : uint8_t {
  kUserRead = 0,  // a read for the application (env/read_origin.h)
  kBackgroundRead,  // RocksDB's own: compaction or flush input, about to be deleted, not hot
  kWrite,
};

// One I/O on one segment, as a policy sees it.
struct Request {
  uint64_t seq = 0;  // store-wide request sequence number: the policies' clock
  uint64_t file_id = 0;
  FileKind kind = FileKind::kOther;
  uint64_t segment = 0;
  uint64_t offset = 0;  // within the file
  uint64_t size = 0;
  IoType type = IoType::kUserRead;
  int tier = 0;  // the tier that served it
  // A read served by a copy of the segment's data (a hot-page copy on tier 0,
  // engine/page_copies.h, or its extra copy, Move::kReplicate), not by the
  // segment's home: what it took says nothing of where the segment was
  // placed. Set by the live store and the simulator alike.
  bool copy = false;
};

// A request that needs a tier for a segment not yet placed.
struct PlacementRequest {
  uint64_t seq = 0;
  uint64_t file_id = 0;
  FileKind kind = FileKind::kOther;
  uint64_t segment = 0;  // index of the segment within its file
  uint64_t bytes = 0;    // bytes the segment will hold at most
  uint64_t write_size = 0;  // size of the write that needs it
  Hints hints;
  // The tiers the engine will place it on as chosen (bit t: tier t): the
  // room kept for the WAL, for the upper levels and for the copies' claim,
  // and a full tier, mask the others (PlacementEngine::Choose; a choice
  // outside the mask is overruled or spills). A policy may ignore it.
  uint32_t allowed = ~0u;
};

// Access statistics of one segment. Sequence numbers are Request::seq values.
struct SegmentStats {
  uint32_t user_reads = 0;
  uint32_t background_reads = 0;
  uint32_t writes = 0;
  uint32_t migrations = 0;          // moves and copies made of it
  uint64_t last_access = 0;         // seq of the last user read or write (0 never)
  uint64_t access_interval = 0;     // seq between its last two accesses (0 unknown)
  uint64_t last_migration = 0;      // seq of its last move (0 never)
  uint64_t placed = 0;              // seq at which it was placed
  // User reads, each decayed to half every kHeatHalfLife requests, as of
  // last_access (writes make a segment recent, not hot).
  double heat = 0;
  static constexpr uint64_t kHeatHalfLife = 1 << 16;

  // The heat as of request `now`.
  double HeatAt(uint64_t now) const;
};

// Names a segment.
struct SegmentRef {
  uint64_t file_id = 0;
  uint64_t segment = 0;
  bool operator==(const SegmentRef& o) const { return file_id == o.file_id && segment == o.segment; }
};
struct SegmentRefHash {
  size_t operator()(const SegmentRef& r) const { return r.file_id * 0x9E3779B97F4A7C15ull ^ r.segment; }
};

// One placed segment, for Plan() and Evict().
struct SegmentInfo {
  SegmentRef ref;
  FileKind kind = FileKind::kOther;
  Hints hints;
  uint64_t bytes = 0;         // bytes it holds (whole blocks)
  uint64_t file_bytes = 0;    // size of its file
  int tier = 0;               // its home
  int copy_tier = -1;         // tier of its extra copy (REPLICATE/PREFETCH), -1 none
  bool busy = false;          // its file is open for writing: it cannot move now
  SegmentStats stats;
};

// What the storage looks like to a policy. Tier 0 is the fastest.
class StorageView {
 public:
  virtual ~StorageView() = default;
  virtual int NumTiers() const = 0;
  // Bytes the tier may hold, and bytes charged to it now (resident + reserved).
  virtual uint64_t Capacity(int tier) const = 0;
  virtual uint64_t Used(int tier) const = 0;
  uint64_t Free(int tier) const {
    return Used(tier) < Capacity(tier) ? Capacity(tier) - Used(tier) : 0;
  }
  // The current request sequence number.
  virtual uint64_t Now() const = 0;
  virtual uint64_t SegmentSize() const = 0;
  // Calls fn for every placed segment of a bulk file (SST, WAL, blob). Slow:
  // for Plan() and Evict() only.
  virtual void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const = 0;
  // One placed segment of a bulk file, as ForEachSegment would give it; false
  // if it is not placed. The default scans; the file system and the
  // simulator answer from their tables.
  virtual bool Lookup(const SegmentRef& ref, SegmentInfo* info) const;
  // The placement engine's scans at every plan: calls fn, as ForEachSegment
  // would, for every placed segment of a table file (SST) if `tables`, and
  // for every one homed below tier 0 that users have read if
  // `read_below_fast`; each once, in no particular order. It may also call
  // fn for other segments (the caller checks what it needs). The default
  // filters ForEachSegment; a view that keeps the sets answers in
  // proportion to them (the simulator: a block trace has no table file and
  // few segments read below tier 0, while a scan of all took most of a
  // replay).
  virtual void ForEachSegmentThat(bool tables, bool read_below_fast,
                                  const std::function<void(const SegmentInfo&)>& fn) const;
};

// The four atomic operations of HintStor, on one segment. REDIRECT is
// placement (Place(), or a pin); the others are moves.
struct Move {
  // The public API's DataOp (tierfs/hint_types.h), under the names the
  // policies use.
  using Op = DataOp;
  static constexpr Op kMigrate = DataOp::kMigrate;      // move the segment's home to `to`
  static constexpr Op kReplicate = DataOp::kReplicate;  // durable extra copy on `to`; the home stays
  static constexpr Op kPrefetch = DataOp::kPrefetch;    // the same copy, not durable
  static constexpr Op kDropCopy = DataOp::kDropCopy;    // drop the extra copy (no data write)
  Op op = kMigrate;
  SegmentRef ref;
  int to = 0;  // destination tier (ignored by kDropCopy)
};

class Policy {
 public:
  virtual ~Policy() = default;
  // The name users type in the URI ("fast-first", ...).
  virtual const char* Name() const = 0;

  // The preferred tier for a new segment, in [0, view.NumTiers()).
  virtual int Place(const PlacementRequest& request, const StorageView& view) = 0;

  // A completed request and what it took, in nanoseconds (device model
  // included). latency_ns is 0 for a request the store did not time: on a
  // tier without a device model only a sample of reads and writes is timed
  // (Tier::StartIo) unless LearnsFromLatency() or a trace runs.
  // Default: nothing.
  virtual void OnRequest(const Request& request, uint64_t latency_ns) {
    (void)request;
    (void)latency_ns;
  }

  // The engine is done with a Place() call: Place() answered `chosen`, and
  // the segment's home is `placed`, after the engine's rules (the room for
  // the WAL, the upper levels and the copies: engine/placement.h) and the
  // spill to a tier with room. Called once per Place() call, on the
  // same thread, after any Evict() it caused; thread-safe and cheap as
  // Place(). `placed` is where the caller's charge goes, as the view shows
  // the tiers' room when the call is made. A learning policy records it as
  // the action taken. Default: nothing.
  virtual void OnPlaced(const PlacementRequest& request, int chosen, int placed) {
    (void)request;
    (void)chosen;
    (void)placed;
  }

  // True if OnRequest uses latency_ns: the store then times every request.
  // Asked once, when the store opens. Default: false.
  virtual bool LearnsFromLatency() const { return false; }

  // Background migration: the moves wanted now, most wanted first, at most
  // `max` (the free slots of the migration queue). Called by the migration
  // thread every PlanIntervalRequests() requests; 0 means never (placement-only
  // policies).
  virtual uint64_t PlanIntervalRequests() const { return 0; }
  virtual void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) {
    (void)view;
    (void)max;
    (void)moves;
  }

  // The migration engine is done with a move Plan() asked for: `made` if it
  // moved, else it was skipped (no room, the file busy, nothing to do) or
  // failed. Moves the queue did not take, or still held at close, are not
  // reported. Called from the migration thread. Default: nothing.
  virtual void OnMoveDone(const Move& move, bool made) {
    (void)move;
    (void)made;
  }

  // What a policy learned, kept with the database so that a restart warm-
  // starts (the learning policies' weights; the store writes it at close and
  // hands it back at open). "" if nothing. LoadState gets the tier count of
  // the store it runs on and refuses, with *error naming the mismatch, state
  // it cannot use; the policy then starts cold.
  virtual std::string SaveState() const { return ""; }
  // Stops the policy's background learning for good (its training threads
  // joined); it goes on deciding with what it learned. The store calls it
  // when the process exits with the store open (env/exit_hook.h), before
  // the statics of the libraries training uses (LibTorch) are destroyed,
  // and then saves the state. Heuristics have nothing to stop.
  virtual void StopLearning() {}
  virtual bool LoadState(const std::string& state, int tiers, std::string* error) {
    (void)state;
    (void)tiers;
    (void)error;
    return true;
  }

  // A learning policy's training loss so far, per agent: (transitions the
  // agent had seen, loss after that training step). Empty for heuristics.
  struct LossCurve {
    std::string agent;
    std::vector<std::pair<uint64_t, float>> points;
  };
  virtual std::vector<LossCurve> LossCurves() const { return {}; }

  // Eviction on the critical path: when the tier Place() chose has no room
  // for `bytes`, the moves that make room there, most wanted first (executed
  // at once by the writer that needs the space, until there is room; a
  // victim that cannot move is skipped). Default: none, the segment spills.
  // No idle fast capacity (engine/placement.h): when tier 0 has free space
  // beyond its headroom, every plan also promotes segments of slower tiers
  // that were read, highest rank first. The rank of `segment` at request
  // `now`; 0 or less: do not promote it. Default: its heat (decayed user
  // reads). A policy may rank; a reference that must stay where it is
  // (slow-only, rocksdb-levels) does not fill (Fills).
  virtual double FillRank(const SegmentInfo& segment, uint64_t now) const {
    return segment.stats.HeatAt(now);
  }
  // Whether the fill promotes for this policy at all. A reference that must
  // stay where it put its data (slow-only, RocksDB's own tiering) says no:
  // the engine then neither walks the segments for it nor asks FillRank.
  virtual bool Fills() const { return true; }

  // The share of tier 0 (0 to 1) this policy's own plans keep free, for a
  // policy that demotes whenever tier 0 is fuller than that (sibyl's `fill`).
  // The engine's headroom is at least this, so that the fill and the copies
  // leave free what the policy's next plan would free again: a fill above it
  // had the two move the same segments up and down at every plan. Default 0.
  virtual double FastHeadroomShare() const { return 0; }

  // Hot-page copies (engine/page_copies.h). A user read of a page of an
  // immutable file missed tier 0: copy the page there? `victim` is the copy
  // it would replace (nullptr: a free slot). Frequencies are the admission
  // sketch's recent access counts. Default (TinyLFU): the page was read
  // before, and more often than the victim.
  struct CopyCandidate {
    uint64_t file_id = 0;
    FileKind kind = FileKind::kOther;
    int level = -1;
    uint64_t page = 0;
    uint32_t frequency = 0;
  };
  // Not const: a learned admission learns from the questions it is asked.
  virtual bool AdmitCopy(const CopyCandidate& page, const CopyCandidate* victim) {
    return page.frequency >= 2 && (!victim || page.frequency > victim->frequency);
  }
  // A policy that ranks the copies itself (a learned admission, issue 33):
  // the copies tell it of every counted user read of a candidate page, hit or
  // miss (NoteCopyAccess, before the miss's AdmitCopy), and choose victims
  // by CopyValue, lowest first, instead of by the sketch's frequency. Used
  // with the TinyLFU copy policy only (copy_policy:w-tinylfu and s3-fifo
  // keep their own order). The copies, under their lock, make every call.
  virtual bool RanksCopies() const { return false; }
  // The copies hold about `objects` pages (blocks) at most; told at open.
  virtual void SetCopyCapacity(uint64_t objects) { (void)objects; }
  virtual void NoteCopyAccess(const CopyCandidate& page) { (void)page; }
  // The value of keeping `page` now; any scale, higher kept.
  virtual double CopyValue(const CopyCandidate& page) { return page.frequency; }
  // The percentage of tier 0 copies may hold (its split with homes); -1 for
  // the configured share (PageCopyOptions::share_pct). References that must
  // keep RocksDB's or a fixed placement return 0.
  virtual int CopySharePct() const { return -1; }

  // A reference that must place exactly as it says (RocksDB's own tiering,
  // emulated; the fast-only and slow-only bounds): the engine's room for the
  // upper levels (engine/placement.h) leaves its choices alone.
  virtual bool KeepsItsPlacement() const { return false; }

  virtual bool EvictsOnPlacement() const { return false; }
  virtual void Evict(int tier, uint64_t bytes, const StorageView& view, std::vector<Move>* moves) {
    (void)tier;
    (void)bytes;
    (void)view;
    (void)moves;
  }
};

// A policy's tunables, from the URI or config file: "mutant.min_age:50000"
// gives the policy mutant the parameter min_age = "50000".
using PolicyParams = std::map<std::string, std::string>;

// Reads a policy's parameters, remembering malformed and unused ones so a
// mistyped tunable is an error, not a silent default.
class ParamReader {
 public:
  explicit ParamReader(const PolicyParams& params) : params_(params) {}
  // The value of `key` as a number (a plain number of magnitude at most 2^53,
  // or a size with a K, M, G or T suffix for Size), or `fallback` if it is
  // not given.
  double Number(const std::string& key, double fallback);
  uint64_t Size(const std::string& key, uint64_t fallback);
  // True if every parameter was read and well formed; else sets *error,
  // naming the policy and the parameter.
  bool Finish(const std::string& policy, std::string* error) const;
  // Makes Finish fail with `message` (a policy that cannot run here).
  void Fail(const std::string& message) { failed_ = message; }

 private:
  const PolicyParams& params_;
  std::map<std::string, bool> used_;
  std::string bad_;  // first malformed "key:value"
  std::string failed_;
};

// Creates the policy called `name` with `params`. On an unknown name or
// parameter returns nullptr and sets *error to a message naming it (and
// listing the known policy names).
std::unique_ptr<Policy> NewPolicy(const std::string& name, const PolicyParams& params,
                                  std::string* error);

// Names of the policies that decide placement, in the order the docs list
// them: what comparisons run. NewPolicy also accepts rocksdb-temperature,
// which follows RocksDB's temperatures (agents/rocksdb_temperature.cc).
std::vector<std::string> PolicyNames();

// True for the learning policies (agents/rl/): they train a network while
// they run, on a thread of their own unless given `inline:1`.
bool PolicyLearns(const std::string& name);

}  // namespace tierfs
