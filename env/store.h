// The TierFS store: the tiers, the segment map and its journal, capacity
// accounting and placement. The FileSystem facade (tier_fs.h) and the file
// classes (tier_files.h) are thin layers over it.
//
// Its parts, each with its header and lock contract:
//   Tier (env/tier.h)                  a tier's capacity account (engine/capacity.h,
//                                      lock-free), statistics and device model
//   HintTable (env/hint_table.h)       hints waiting for their file, per column
//                                      family, pins by path; its own mutex
//   MoveExecutor (env/move_executor.h) MIGRATE, REPLICATE, PREFETCH, drop-copy;
//                                      FileEntry::move_mu across each move
//   StatsFile (env/stats_file.h)       the STATS file, loaded at open, saved at close
//   AdminServer (env/admin_channel.h)  the admin channel's thread, with or without
//                                      migration; its mutex guards its stop flag only
//   Migrator (env/migrator.h)          the migration thread; its own mutex, never
//                                      held while calling into the store
//   StatsLog (env/stats_log.h)         the statistics log's threads (stats_log,
//                                      metrics_file); its
//                                      mutexes guard its stop flag and its file only
// The store's own code: namespace and placement (store.cc), open and
// recovery (store_recovery.cc), close and the save points (store_close.cc),
// the hint calls that need the namespace
// (store_hints.cc), StorageView and inspection (store_view.cc), trace capture
// and the statistics log (store_trace.cc), the policy's saved state
// (store_policy_state.cc), the state STATS keeps (store_saved_stats.cc).
//
// Lock order, outermost first: the one list (DESIGN.md points here). A lock
// is taken only while holding locks above it. The ACQUIRED_BEFORE/AFTER
// annotations on the declarations say the same wherever both locks can be
// named (util/thread_annotations.h), and clang checks them in every function
// that takes both (tests/thread_safety.sh).
//   1. the registrar's Registry::mu (env/registrar.cc): a store opens and
//      closes under it;
//   2. the exit hook's LiveStores::mu (env/exit_hook.cc): its handler saves
//      every store under it;
//   3. close_mu_: Close and the saves; Close stops the admin server, the
//      migrator and the statistics logs under it (their own locks, below),
//      then takes state_mu_ exclusive, then trace_mu_;
//   4. TierWritableFile::mu_ (env/tier_files.h): one call of a writable file,
//      held from Append through placement, eviction moves and relocation;
//   5. the placement engine's decide_mu_ (engine/placement.h): held across a
//      policy's Evict() and the eviction moves it names, and across Plan();
//   6. FileEntry::move_mu: the moves of one file, one at a time;
//   7. state_mu_: shared for every journaled change, exclusive for a journal
//      rotation and at close;
//   8. ns_mu_: the namespace;
//   9. HintTable::mu_ (env/hint_table.h), only inside the table's own calls;
//  10. FileEntry::mu: the placement and lifetime of one file;
//  11. PageCopies::mu_ (engine/page_copies.h): the hot-page copies, under
//      state_mu_ and a file's mu; the saved state's write and removal
//      (env/hot_pages.h) run under it, with POSIX calls and no lock;
//  12. the journal's Journal::sync_mu_, then Journal::append_mu_ (Log: under
//      state_mu_, with ns_mu_ or a file's mu);
//  13. trace_mu_ (starts and stops a capture), then TraceCapture::mu_.
// Leaves, taken under any of the above and holding nothing else while held:
// dir_sync_mu_ (SyncDataDirs, under move_mu and state_mu_ in a relocation),
// MetaReserve::mu_, ThreadIndex's and ReadGate's registries, InfoLog::mu_,
// DeviceModel::mu_, the Migrator's mu_ (its governor runs under move_mu),
// the policies' own locks (a learning agent's, then its learner's; the
// copies' ReusePredictor's, under PageCopies::mu_), the
// statistics logs' and the admin server's.
// Reads take no lock: a read looks its tier up in the SegmentTable with two
// atomic loads inside a ReadGate epoch (env/read_gate.h), which a move waits
// out before punching the old copy.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/file_system.h>

#include "agents/policy.h"
#include "core/saved_segments.h"
#include "engine/observe.h"
#include "engine/placement.h"
#include "engine/request_clock.h"
#include "env/hint_table.h"
#include "env/info_log.h"
#include "env/journal.h"
#include "env/meta_reserve.h"
#include "env/move_executor.h"
#include "env/namespace.h"
#include "env/stats_file.h"
#include "env/stats_log.h"
#include "env/store_errors.h"
#include "env/tier.h"
#include "env/trace_capture.h"
#include "tierfs/file_system.h"
#include "tierfs/statistics.h"
#include "util/mutex.h"

namespace tierfs {

class AdminServer;
class HotPages;
class Migrator;

class Store : public StorageView {
 public:
  // Opens the store, creating it on empty tiers or recovering it: replays the
  // journal, removes orphan backing files and half-copied segments, rebuilds
  // the capacity account, and starts a new journal generation.
  static rocksdb::IOStatus Open(const Options& options, std::shared_ptr<Store>* store);
  // Close(); its status is lost (its failures are still logged and counted).
  ~Store() override;

  // Closes the store (tierfs::Close in tierfs/file_system.h): stops the admin
  // server and the migration thread, waits for the namespace and placement
  // changes in progress, refuses every later one, stops the trace capture,
  // saves the policy state, syncs the journal, saves STATS and releases the
  // lock. Every step is tried; each failure is logged and counted
  // (StoreError::kFinalSave), and the first is returned, naming the step and
  // its file. A later call returns the first call's status and does nothing.
  // While the process is exiting (env/exit_hook.h) the saves use POSIX calls
  // alone and the base file system's objects (journal file, lock,
  // directories) are let go without calling into them.
  rocksdb::IOStatus Close() EXCLUDES(close_mu_);
  // The exit handler's call (env/exit_hook.h), on a store still open when the
  // process exits: stops the admin and migration threads and saves as Close
  // does, with POSIX calls alone, under SavePoint::kExit. The store stays
  // usable (a thread may still be writing); Close or the destructor, if they
  // come, save again. Once; nothing after Close.
  void SaveAtExit() EXCLUDES(close_mu_);
  // A database lock taken or given back through the store's file system
  // (TierFileSystem::LockFile, UnlockFile). When the last is given back the
  // store saves (SavePoint::kLastDatabaseClosed) while RocksDB is surely
  // alive; a failure is logged and counted, as at close.
  void NoteDatabaseLocked() { db_locks_.fetch_add(1); }
  void NoteDatabaseUnlocked() EXCLUDES(close_mu_);
  // True once Close has begun. Every entry point (the facade, the file
  // classes, the public API) checks it and returns ClosedError; Log checks
  // it under state_mu_, so no journal record follows Close's final sync.
  bool closed() const { return closed_.load(std::memory_order_relaxed); }
  // "TierFS <op> <path>: the store at <tier 0> is closed" (path may be "").
  rocksdb::IOStatus ClosedError(const char* op, const std::string& path) const;

  // StorageView.
  int NumTiers() const override { return int(tiers_.size()); }
  uint64_t Capacity(int t) const override { return tiers_[t]->capacity(); }
  uint64_t Used(int t) const override { return tiers_[t]->used(); }
  uint64_t Now() const override { return clock_.Now(); }
  uint64_t SegmentSize() const override { return seg_size_; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const override;
  bool Lookup(const SegmentRef& ref, SegmentInfo* info) const override;

  Policy& policy() { return *policy_; }
  // The placement and eviction rules, which serialize the policy's Evict()
  // and Plan() (engine/placement.h).
  PlacementEngine& placement() { return *placement_; }
  // The hot-page copies on tier 0 (env/hot_pages.h); nullptr if off (one
  // tier, copies:off, a policy that keeps none, read-only).
  HotPages* hot_pages() { return hot_pages_.get(); }
  // The migration thread; nullptr if migration is off or the store read-only.
  Migrator* migrator() { return migrator_.get(); }
  // Numbers a request: the clock of the segment statistics and the policies
  // (engine/request_clock.h), one block per thread.
  // The block is the thread's for this store instance: keyed by the
  // instance's number, not its address, which a store opened after another
  // closed may reuse (the thread would go on numbering from the old store's
  // block, far ahead of the new clock).
  uint64_t NextSeq() {
    struct ThreadBlock {
      uint64_t instance = 0;
      RequestClock::Block block;
    };
    thread_local ThreadBlock b;
    if (__builtin_expect(b.instance != instance_, 0)) b = ThreadBlock{instance_, {}};
    return clock_.Next(&b.block);
  }
  // A completed I/O on segment `seg` of `entry`, served by tier `t` (`copy`:
  // by a copy, not the segment's home: Request::copy): counts it in the
  // segment's statistics and tells the policy.
  void Observe(const FileEntry& entry, uint64_t seg, uint64_t offset, uint64_t size, IoType type,
               int t, uint64_t latency_ns, TracePriority priority = TracePriority::kUnknown,
               bool copy = false) {
    if (TraceCapture* trace = trace_.load(std::memory_order_acquire)) {
      trace->Record(entry.id, entry.kind, entry.level.load(std::memory_order_relaxed), offset,
                    size, type, priority, t, latency_ns);
    }
    ObserveRequest(*policy_, entry.segments.heat(seg), NextSeq(), type, entry.id, entry.kind, seg,
                   offset, size, t, latency_ns, copy);
  }

  // True if every read and write must be timed (Tier::StartIo): the policy
  // learns from latencies, or a trace records them.
  bool TimesEveryIo() const {
    return policy_learns_latency_ || trace_.load(std::memory_order_relaxed) != nullptr;
  }

  // Records an event (what the store did besides I/O, or a decision) in the
  // running trace capture, if any (core/trace_format.h).
  void NoteEvent(TraceEvent event, uint64_t file_id, FileKind kind, uint64_t offset,
                 uint64_t size, int tier = -1, int level = -1) {
    if (TraceCapture* trace = trace_.load(std::memory_order_acquire)) {
      trace->RecordEvent(event, file_id, kind, offset, size, tier, level);
    }
  }

  const Options& options() const { return options_; }
  rocksdb::FileSystem* base() const { return base_.get(); }
  // The options for opening backing files through base(), built at open.
  // Every call uses this copy: a FileOptions built anew runs EnvOptions(),
  // which reaches RocksDB statics, and the I/O path may run during static
  // destruction (a host thread still writing at exit: env/exit_hook.h).
  const rocksdb::FileOptions& backing_options() const { return backing_options_; }
  const std::string& meta_dir() const { return meta_dir_; }
  Tier& tier(int t) { return *tiers_[t]; }
  // The room kept for meta/ on tier 0's device (env/meta_reserve.h): a data
  // write or placement on a tier for which it says Low is refused as NoSpace.
  MetaReserve& meta_reserve() { return meta_reserve_; }
  bool read_only() const { return options_.read_only; }

  // Segment geometry. Segment size 0 ("whole file") makes every file one
  // segment.
  uint64_t SegmentOf(uint64_t offset) const {
    if (seg_shift_ >= 0) return offset >> seg_shift_;  // every read: no division
    return seg_size_ ? offset / seg_size_ : 0;
  }
  uint64_t SegmentStart(uint64_t seg) const { return seg * seg_size_; }
  uint64_t SegmentLimit(uint64_t seg) const {
    return seg_size_ ? (seg + 1) * seg_size_ : ~0ull;
  }
  // The end of the bytes segment `seg` of `entry` holds so far (its start if
  // none): what a move must carry.
  uint64_t ContentEnd(const FileEntry& entry, uint64_t seg) const {
    return std::max(SegmentStart(seg), std::min(entry.size.load(), SegmentLimit(seg)));
  }

  // ---- namespace; paths are normalized absolute paths ----
  // OpenFile and CreateFile return with a handle held on *entry (AddHandle),
  // which the caller drops once its file object holds its own.
  //
  // Binds `path` to a new empty file (an existing file of that name loses the
  // name, as with O_TRUNC on a fresh inode).
  rocksdb::IOStatus CreateFile(const std::string& path, std::shared_ptr<FileEntry>* entry)
      EXCLUDES(state_mu_, ns_mu_);
  // Finds `path`; with create_if_missing makes an empty file if absent.
  rocksdb::IOStatus OpenFile(const std::string& path, bool create_if_missing,
                             std::shared_ptr<FileEntry>* entry) EXCLUDES(state_mu_, ns_mu_);
  rocksdb::IOStatus DeleteFile(const std::string& path) EXCLUDES(state_mu_, ns_mu_);
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& dst)
      EXCLUDES(state_mu_, ns_mu_);
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& dst)
      EXCLUDES(state_mu_, ns_mu_);
  rocksdb::IOStatus CreateDir(const std::string& path, bool error_if_exists)
      EXCLUDES(state_mu_, ns_mu_);
  rocksdb::IOStatus DeleteDir(const std::string& path) EXCLUDES(state_mu_, ns_mu_);
  rocksdb::IOStatus GetChildren(const std::string& dir, std::vector<std::string>* names)
      EXCLUDES(ns_mu_);
  // NotFound if neither a file nor a directory.
  rocksdb::IOStatus Exists(const std::string& path, bool* is_dir) EXCLUDES(ns_mu_);
  std::shared_ptr<FileEntry> Find(const std::string& path) EXCLUDES(ns_mu_);
  int NumLinks(const std::shared_ptr<FileEntry>& entry) EXCLUDES(ns_mu_);
  // Makes every namespace change so far durable (a directory fsync).
  rocksdb::IOStatus SyncNamespace();

  // ---- handles: every open file holds one, so data outlives its last name
  // until the last handle closes ----
  void AddHandle(FileEntry* entry) EXCLUDES(entry->mu);
  void DropHandle(const std::shared_ptr<FileEntry>& entry) EXCLUDES(entry->mu);

  // ---- data placement ----
  // The tier of `seg`, placing it (policy, then capacity) if new. Placement
  // reserves the whole segment on that tier and is journaled before return.
  // `request` carries what the writer knows (write size, lifetime hint);
  // the store fills in the rest.
  rocksdb::IOStatus PlaceSegment(FileEntry* entry, uint64_t seg, const PlacementRequest& request,
                                 int* tier);
  // Makes the charge of `seg` cover file bytes up to `end`. NoSpace if the
  // segment's tier cannot take them (the caller relocates the segment).
  rocksdb::IOStatus ChargeUpTo(FileEntry* entry, uint64_t seg, uint64_t end);
  // Moves the bytes [start of seg, valid_end) of a segment being written to
  // another tier with room, durably, and returns the new tier. Used when the
  // segment's tier is full (its account or its device).
  rocksdb::IOStatus RelocateSegment(FileEntry* entry, uint64_t seg, uint64_t valid_end,
                                    uint64_t need_end, int* new_tier);
  // Writers of a file: when the last one closes, the headroom reserved for
  // its segments and not used is returned (Settle).
  void AddWriter(FileEntry* entry);
  void DropWriter(FileEntry* entry);
  // Creates the backing file of `entry` on `tier` if it does not exist yet.
  rocksdb::IOStatus EnsureDataFile(FileEntry* entry, int tier);
  // Makes the journal records about `entry`, and the directory entries of new
  // backing files, durable. Called by file Sync before syncing data.
  rocksdb::IOStatus SyncMetadataFor(const FileEntry& entry);

  // ---- moves (env/move_executor.h) ----
  // Paces a move's copy; the migrator is one.
  using Governor = MoveExecutor::Governor;
  // Runs one HintStor operation on one segment: MoveExecutor::Execute, whose
  // header gives the protocol, its results and its locks. `governor` nullptr:
  // at once, as an eviction on the critical path does.
  rocksdb::IOStatus ExecuteMove(const Move& move, MoveCause cause, Governor* governor,
                                uint64_t* bytes) {
    return moves_.Execute(move, cause, governor, bytes);
  }
  // "migrate 12:3 -> tier 1", as `tierfs queue` and the info log show a move.
  static std::string DescribeMove(const Move& move) { return MoveExecutor::Describe(move); }
  // What a move does to the store as its own changes do (the executor's
  // calls): the file with id `id`, a handle held on it (DropHandle lets go),
  // nullptr if there is none; ...
  std::shared_ptr<FileEntry> PinFile(uint64_t id) EXCLUDES(ns_mu_);
  // ... state_mu_ shared to the end of the scope, the lock every journaled
  // change holds (a file's mu or ns_mu_ is taken after it), with Log to
  // journal a record about `entry` under it (ClosedError once Close began) ...
  class SCOPED_CAPABILITY JournalLock {
   public:
    explicit JournalLock(Store* store) ACQUIRE_SHARED(store->state_mu_) : store_(store) {
      store_->state_mu_.LockShared();
    }
    ~JournalLock() RELEASE() { store_->state_mu_.UnlockShared(); }
    JournalLock(const JournalLock&) = delete;
    JournalLock& operator=(const JournalLock&) = delete;
    rocksdb::IOStatus Log(const JournalRecord& record, FileEntry* entry, uint64_t* lsn) {
      store_->state_mu_.AssertReaderHeld();
      return store_->Log(record, entry, lsn);
    }

   private:
    Store* const store_;
  };
  // ... the journal durable up to record `lsn` (Log's) ...
  rocksdb::IOStatus SyncJournalTo(uint64_t lsn) { return journal_->SyncTo(lsn); }
  // ... the directory entries of new backing files durable ...
  rocksdb::IOStatus SyncDataDirs() EXCLUDES(dir_sync_mu_);
  // ... and a new journal generation if the journal grew long.
  void MaybeRotate() EXCLUDES(state_mu_, ns_mu_);

  // Trace capture (env/trace_capture.h): records every I/O into `path`
  // until StopTrace or close. One capture at a time: Busy if one runs.
  rocksdb::IOStatus StartTrace(const std::string& path) EXCLUDES(trace_mu_);
  // Stops the capture; *records (if given) says how many it wrote.
  rocksdb::IOStatus StopTrace(uint64_t* records) EXCLUDES(trace_mu_);
  // The statistics log (env/stats_log.h): GetStats into `path` every
  // `interval_ms`, and at close, as JSON lines (URI key stats_log) or
  // Prometheus text (metrics_file). Started at open; `path` must lie outside
  // the tiers.
  rocksdb::IOStatus StartStatsLog(const std::string& path, uint64_t interval_ms,
                                  StatsLog::Format format, std::unique_ptr<StatsLog>* log);

  const std::string& policy_state() const { return policy_state_; }
  // Drops every extra copy of `entry` (before it is written again).
  rocksdb::IOStatus DropCopies(FileEntry* entry) { return moves_.DropCopies(entry); }

  // ---- hints (store_hints.cc) ----
  // What the event listener knows of a table file about to be created (or
  // just created): its level and column family.
  void NoteTableFile(const std::string& path, int level, const std::string& column_family)
      EXCLUDES(ns_mu_);
  // An application's access hint for a file or a column family ("hot", ...).
  rocksdb::IOStatus SetAccessHint(const std::string& path, const std::string& column_family,
                                  AccessHint hint) EXCLUDES(ns_mu_);
  // REDIRECT: new segments of the file (or column family) go to `tier`, and
  // its existing segments are queued to move there; tier -1 unpins.
  rocksdb::IOStatus Pin(const std::string& path, const std::string& column_family, int tier,
                        std::vector<Move>* moves) EXCLUDES(ns_mu_);
  void NoteTemperature(FileEntry* entry, Temperature temperature);
  // The moves of kind `op` that segments [first, last] of `path` need to
  // have their home (kMigrate) or a copy (kReplicate, kPrefetch) on `tier`,
  // or to lose their copy (kDropCopy).
  rocksdb::IOStatus SegmentsToMove(const std::string& path, Move::Op op, int tier,
                                   uint64_t first, uint64_t last, std::vector<Move>* moves)
      EXCLUDES(ns_mu_);

  // ---- errors no caller hears of (env/store_errors.h, env/info_log.h) ----
  // Logs "<kind's name>: <what>: <status>" to <tier0>/meta/LOG and counts
  // it. For errors at open, at close, on background threads and in
  // best-effort work; an error a caller receives is the caller's to report.
  // An OK status is no error: nothing is logged or counted. Thread-safe.
  void ReportError(StoreError kind, const std::string& what, const rocksdb::Status& status);
  // Punches [offset, offset+len) of tier `t`'s backing file of file `id`:
  // data no longer needed (`whose`: "migrate 5:0 -> tier 1: the old home").
  // Best effort: a failure is reported (kSpaceNotFreed), and the space
  // stays allocated until the next open's recovery punches data that is
  // neither a segment's home nor its recorded copy.
  void PunchGarbage(int t, uint64_t id, uint64_t offset, uint64_t len, const std::string& whose);
  // A line of context in the LOG (open, close, a refused policy state): not
  // an error, not counted.
  void LogInfo(const std::string& line);
  // Errors by kind over the store's life: those saved in STATS at the last
  // clean close, plus this open's.
  StoreErrorCounts errors() const { return errors_.Snapshot(); }
  std::string info_log_path() const { return meta_dir_ + "/LOG"; }

  // ---- inspection ----
  void GetStats(std::vector<TierStats>* stats);
  void ListFiles(const std::string& dir, std::vector<FileInfo>* files) EXCLUDES(ns_mu_);
  void ListSegments(const std::string& dir, std::vector<SegmentReport>* segments) EXCLUDES(ns_mu_);
  // The policy's learned state (env/store_policy_state.cc).
  void LoadPolicyState();
  // Writes AGENTS (through the base file system, or with POSIX calls alone:
  // WriteMetaFile). The policy's SaveState calls no other library
  // (agents/rl/learner.h: Snapshot), so this is safe at process exit.
  rocksdb::IOStatus SavePolicyState(bool posix);
  // Replaces <meta>/`name` by `bytes` durably: .tmp, sync, rename; through
  // the base file system, or (`posix`, at process exit) WriteFileDurably.
  rocksdb::IOStatus WriteMetaFile(const std::string& name, const std::string& bytes, bool posix);

  // ---- the state STATS keeps (env/stats_file.h; store_saved_stats.cc) ----
  // What the event listener said of a table file; a placed segment's
  // statistics.
  struct SavedFile {
    uint64_t id = 0;
    int8_t level = -1;
    std::string column_family;  // "" unknown
  };
  // Every file with a level or a column family, and every placed segment.
  // Takes the hint table's lock alone, then ns_mu_ -> each file's mu shared.
  void CollectSaved(std::vector<SavedFile>* files, std::vector<SavedSegment>* segments)
      EXCLUDES(ns_mu_);
  // At open (StatsFile::Load): gives a file its saved level and, if named, its
  // column family; a placed segment its saved counts and heat, and with
  // its times (SavedSegment::times) its last access, placement and last
  // migration. A file deleted or a segment unplaced since is left alone.
  void RestoreSaved(const SavedFile& file) EXCLUDES(ns_mu_);
  void RestoreSaved(const SavedSegment& segment) EXCLUDES(ns_mu_);
  // The request clock goes on from `seq`; the error counters add `counts`.
  void RestoreClock(uint64_t seq) { clock_.Restore(seq); }
  void AddSavedErrors(const StoreErrorCounts& counts) { errors_.AddAll(counts); }
  // The journal's generation; 0 if the store has no journal (read-only).
  uint64_t journal_generation() const { return journal_ ? journal_->generation() : 0; }

 private:
  // InvalidArgument naming `what` and `path` unless `path`'s directory
  // exists and lies outside every tier (a trace file, the stats log).
  rocksdb::IOStatus CheckOutsideTiers(const std::string& path, const std::string& what);
  explicit Store(const Options& options);
  rocksdb::IOStatus Recover();
  // The namespace without ns_mu_, for Recover: no other thread can reach
  // the store yet (the one escape from the analysis in the store).
  Namespace& NamespaceAtOpen() NO_THREAD_SAFETY_ANALYSIS { return ns_; }
  // The saves of a SavePoint: AGENTS, the journal's sync, STATS; with POSIX
  // calls alone if `posix`. Each failure is reported (NoteFinalSave); the
  // first is also left in *first.
  void SaveAt(SavePoint point, bool posix, rocksdb::IOStatus* first) REQUIRES(close_mu_);
  // A save that failed (unless `s` is OK): logged and counted (ReportError,
  // kFinalSave) as "<what> at <point>", and if it is the first, "TierFS
  // <point>: <what>: <s>" in *first.
  void NoteFinalSave(SavePoint point, const std::string& what, const rocksdb::IOStatus& s,
                     rocksdb::IOStatus* first);
  // Stops the statistics log and the metrics file, which write their last
  // line; a failure is a NoteFinalSave at `point`.
  void StopStatsLogs(SavePoint point, rocksdb::IOStatus* first);
  // At process exit: lets go of the journal file, the data directories and
  // the store's lock without calling into the base file system.
  void AbandonBaseObjects();
  void DescribeSegment(const FileEntry& e, uint64_t s, SegmentInfo* info) const
      REQUIRES_SHARED(e.mu);
  // Every placed segment of every live file (ForEachSegment: of the bulk
  // kinds alone, those the policies move), each file under its mu shared.
  void ForEachPlacedSegment(bool bulk_only,
                            const std::function<void(const SegmentInfo&)>& fn) const
      EXCLUDES(ns_mu_);
  rocksdb::IOStatus OpenTiers();
  // Appends `record`, updating `entry`'s lsn.
  rocksdb::IOStatus Log(const JournalRecord& record, FileEntry* entry, uint64_t* lsn = nullptr)
      REQUIRES_SHARED(state_mu_);
  // Frees the data of a file with no names and no handles.
  void FreeData(const std::shared_ptr<FileEntry>& entry);
  // Called with a file that lost its last name.
  void Retire(const std::shared_ptr<FileEntry>& entry);
  // Sets up meta_reserve_: which tiers share tier 0's device, and how to ask
  // it for its free space. Called by OpenTiers of a writable store.
  void WatchMetaDevice();
  std::string FullMessage() const;
  // The last resort when every tier is full: drops hot-page copies (free to
  // drop) so that data has room. False if there were none to drop.
  bool DropPageCopiesForData(uint64_t bytes);
  // Tries tiers in the order want, slower ones, faster ones; charges `bytes`.
  int ChargeSomeTier(FileEntry* entry, int want, int exclude, uint64_t bytes) REQUIRES(entry->mu);

  const Options options_;
  const uint64_t seg_size_;
  const int seg_shift_;  // log2(seg_size_) if a power of two, else -1
  // Set once, by Close, under state_mu_ exclusive; read on every I/O, beside
  // the segment geometry the I/O reads anyway.
  std::atomic<bool> closed_{false};
  Mutex close_mu_ ACQUIRED_BEFORE(state_mu_, trace_mu_);  // serializes Close and the saves (SaveAt)
  rocksdb::IOStatus close_status_ GUARDED_BY(close_mu_);  // what Close returned
  bool exit_saved_ GUARDED_BY(close_mu_) = false;         // SaveAtExit ran
  std::atomic<int> db_locks_{0};    // database locks held through the store
  std::shared_ptr<rocksdb::FileSystem> base_;
  const rocksdb::FileOptions backing_options_;  // defaults: buffered, no mmap
  std::vector<std::unique_ptr<Tier>> tiers_;
  std::unique_ptr<Policy> policy_;
  bool policy_learns_latency_ = false;  // policy_->LearnsFromLatency(); constant after open
  std::unique_ptr<PlacementEngine> placement_;  // over policy_
  MoveExecutor moves_;  // over this store; no state of its own
  std::unique_ptr<HotPages> hot_pages_;  // over tiers_[0] and policy_; set at open
  RequestClock clock_;
  const uint64_t instance_;  // unique per Store in this process, from 1
  std::unique_ptr<AdminServer> admin_;  // stopped first at close: it may queue moves
  std::unique_ptr<Migrator> migrator_;  // stopped next
  // The running trace capture, read lock-free by Observe. A stopped capture
  // stays allocated (in traces_) until the store closes, so a thread that
  // loaded the pointer just before the stop still records into valid memory
  // (its record is dropped).
  std::atomic<TraceCapture*> trace_{nullptr};
  // What became of the saved policy state at open ("loaded from ...",
  // "none saved", "refused ...: why"). Constant after open.
  std::string policy_state_;
  Mutex trace_mu_;
  std::vector<std::unique_ptr<TraceCapture>> traces_ GUARDED_BY(trace_mu_);
  // Set at open (stats_log), stopped at close before the saves; its thread
  // reads GetStats, which takes no store lock.
  std::unique_ptr<StatsLog> stats_log_;
  std::unique_ptr<StatsLog> metrics_file_;  // the same, metrics_file

  // Hints waiting for their file, per column family, and the emulation-only
  // mode's pins by path. Its own mutex (HintTable::mu_).
  HintTable hints_;
  std::string meta_dir_;
  rocksdb::FileLock* meta_lock_ = nullptr;
  std::unique_ptr<InfoLog> info_log_;  // <meta_dir_>/LOG; set by OpenTiers
  MetaReserve meta_reserve_;           // set up by OpenTiers (writable stores)
  StoreErrorCounters errors_;
  // The journal length at which MaybeRotate next tries a rotation: raised
  // after a failed one, so a rotation that keeps failing is retried (and
  // logged) every few thousand records, not at every change.
  std::atomic<uint64_t> rotate_at_;

  SharedMutex state_mu_ ACQUIRED_AFTER(FileEntry::move_mu) ACQUIRED_BEFORE(ns_mu_);
  mutable Mutex ns_mu_ ACQUIRED_BEFORE(FileEntry::mu);
  Namespace ns_ GUARDED_BY(ns_mu_);
  std::unique_ptr<Journal> journal_;
  std::atomic<uint8_t> dirty_data_dirs_{0};  // tiers with unsynced new backing files
  Mutex dir_sync_mu_ ACQUIRED_AFTER(state_mu_);  // serializes SyncDataDirs
  std::atomic<int> dir_syncs_running_{0};    // SyncDataDirs calls past the lock-free check
  std::vector<std::unique_ptr<rocksdb::FSDirectory>> data_dirs_;
};

}  // namespace tierfs
