// Store: namespace operations and segment placement. Open, recovery and close
// are in store_recovery.cc, what the store shows of itself in store_view.cc;
// its other parts are listed at the top of store.h.
#include "env/store.h"
#include "env/hot_pages.h"

#include <ctime>

#include "core/config.h"
#include "env/admin_channel.h"
#include "env/file_limits.h"
#include "env/file_name.h"
#include "env/migrator.h"
#include "env/posix_util.h"
#include "env/read_gate.h"

namespace tierfs {

using rocksdb::IOOptions;
using rocksdb::IOStatus;

namespace {

// Bytes a whole-file segment reserves at a time. A file that outgrows its
// tier is moved whole to a tier with room (RelocateSegment).
constexpr uint64_t kWholeFileChunk = 64 << 10;

// A journal this long is rotated (a new generation from a snapshot); after a
// failed rotation, the next try comes this many records later.
constexpr uint64_t kRecordsPerGeneration = 1 << 16;
constexpr uint64_t kRotationRetryRecords = 1 << 12;

IOStatus ReadOnlyError(const std::string& op) {
  return IOStatus::NotSupported(op + " on a TierFS store opened read-only");
}

}  // namespace

namespace {
std::atomic<uint64_t> store_instances{0};
}  // namespace

Store::Store(const Options& options)
    : options_(options),
      seg_size_(options.segment_size),
      seg_shift_(seg_size_ && (seg_size_ & (seg_size_ - 1)) == 0 ? __builtin_ctzll(seg_size_) : -1),
      moves_(*this),
      instance_(store_instances.fetch_add(1) + 1),
      hints_(options),
      rotate_at_(kRecordsPerGeneration),
      ns_(MaxSegmentsPerFile(seg_size_)) {
  base_ = options.base ? options.base : rocksdb::FileSystem::Default();
}

IOStatus Store::Log(const JournalRecord& record, FileEntry* entry, uint64_t* lsn_out) {
  if (closed()) return ClosedError("journal", "");  // Close has made its final sync
  uint64_t lsn = 0;
  IOStatus s = journal_->Append(record, &lsn);
  if (lsn_out) *lsn_out = lsn;
  if (s.ok() && entry) {
    uint64_t cur = entry->lsn.load();
    while (cur < lsn && !entry->lsn.compare_exchange_weak(cur, lsn)) {
    }
  }
  return s;
}

void Store::MaybeRotate() {
  if (read_only() || journal_->records_since_snapshot() < rotate_at_.load()) return;
  WriterLock state(&state_mu_);
  const uint64_t records = journal_->records_since_snapshot();
  if (closed() || records < rotate_at_.load()) return;
  std::vector<JournalRecord> snapshot;
  {
    MutexLock lock(&ns_mu_);
    snapshot = ns_.SnapshotRecords();
  }
  const uint64_t generation = journal_->generation() + 1;
  IOStatus s = journal_->Rotate(snapshot);
  if (s.ok()) {
    rotate_at_ = kRecordsPerGeneration;
    return;
  }
  // The old generation stays in use (journal.h) and the journal grows on.
  // Each try writes and syncs a whole snapshot under the exclusive state
  // lock: the next comes a few thousand records later, not at every change.
  rotate_at_ = records + kRotationRetryRecords;
  ReportError(StoreError::kJournalRotation,
              "journal rotation to generation " + std::to_string(generation) + " after " +
                  std::to_string(records) + " records failed; generation " +
                  std::to_string(generation - 1) + " stays in use",
              s);
}

void Store::ReportError(StoreError kind, const std::string& what, const rocksdb::Status& status) {
  if (status.ok()) return;
  errors_.Add(kind);
  const bool logged = info_log_ && info_log_->Log("ERROR %s: %s: %s", kStoreErrors[size_t(kind)].name,
                                                  what.c_str(), status.ToString().c_str());
  if (!logged) errors_.Add(StoreError::kInfoLog);
}

void Store::PunchGarbage(int t, uint64_t id, uint64_t offset, uint64_t len,
                         const std::string& whose) {
  IOStatus s = PunchHole(tier(t).DataPath(id), offset, len);
  if (!s.ok()) {
    ReportError(StoreError::kSpaceNotFreed,
                "freeing [" + std::to_string(offset) + ", +" + std::to_string(len) + ") of file " +
                    std::to_string(id) + " on tier " + std::to_string(t) + ", " + whose +
                    " (allocated until the next open)",
                s);
  }
}

void Store::LogInfo(const std::string& line) {
  if (!info_log_ || !info_log_->Log("%s", line.c_str())) errors_.Add(StoreError::kInfoLog);
}

// ---------------------------------------------------------------- namespace

IOStatus Store::CreateFile(const std::string& path, std::shared_ptr<FileEntry>* entry) {
  if (read_only()) return ReadOnlyError("create " + path);
  std::shared_ptr<FileEntry> replaced;
  {
    ReaderLock state(&state_mu_);
    MutexLock lock(&ns_mu_);
    uint64_t id = ns_.NewId();
    FileKind kind = ClassifyFileName(path);
    uint64_t lsn = 0;
    IOStatus s = Log(JournalRecord::Bind(id, kind, path), nullptr, &lsn);
    if (!s.ok()) return s;
    replaced = ns_.Bind(path, id, kind);
    *entry = ns_.Find(path);
    AddHandle(entry->get());  // the caller's pin: see OpenFile
    (*entry)->ctime = uint64_t(time(nullptr));
    hints_.ApplyPending(path, entry->get());
    hints_.PinByPath(path, entry->get());
    (*entry)->lsn = lsn;  // a Sync of the new file makes its name durable too
  }
  if (replaced) Retire(replaced);
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::OpenFile(const std::string& path, bool create_if_missing,
                         std::shared_ptr<FileEntry>* entry) {
  {
    MutexLock lock(&ns_mu_);
    *entry = ns_.Find(path);
    if (*entry) {
      // Taken while the name still holds the file: a DeleteFile that follows
      // sees a handle and leaves the data for the caller.
      AddHandle(entry->get());
      hints_.PinByPath(path, entry->get());  // again after a restart: pins live in memory
      return IOStatus::OK();
    }
    if (ns_.IsDir(path)) return IOStatus::IOError(path + ": is a directory");
  }
  if (!create_if_missing) return IOStatus::PathNotFound(path + ": no such file in TierFS");
  return CreateFile(path, entry);
}

std::shared_ptr<FileEntry> Store::Find(const std::string& path) {
  MutexLock lock(&ns_mu_);
  return ns_.Find(path);
}

int Store::NumLinks(const std::shared_ptr<FileEntry>& entry) {
  MutexLock lock(&ns_mu_);
  return entry->links;
}

IOStatus Store::Exists(const std::string& path, bool* is_dir) {
  MutexLock lock(&ns_mu_);
  *is_dir = ns_.IsDir(path);
  if (*is_dir || ns_.Find(path)) return IOStatus::OK();
  return IOStatus::NotFound(path);
}

IOStatus Store::DeleteFile(const std::string& path) {
  if (read_only()) return ReadOnlyError("delete " + path);
  std::shared_ptr<FileEntry> gone;
  {
    ReaderLock state(&state_mu_);
    MutexLock lock(&ns_mu_);
    if (!ns_.Find(path)) return IOStatus::PathNotFound(path + ": no such file in TierFS");
    IOStatus s = Log(JournalRecord::Unbind(path), nullptr);
    if (!s.ok()) return s;
    gone = ns_.Unbind(path);
  }
  if (gone) Retire(gone);
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::RenameFile(const std::string& src, const std::string& dst) {
  if (read_only()) return ReadOnlyError("rename " + src);
  std::shared_ptr<FileEntry> gone;
  {
    ReaderLock state(&state_mu_);
    MutexLock lock(&ns_mu_);
    if (ns_.IsDir(src)) return IOStatus::NotSupported("renaming directory " + src + " in TierFS");
    if (!ns_.Find(src)) return IOStatus::PathNotFound(src + ": no such file in TierFS");
    if (ns_.IsDir(dst)) return IOStatus::IOError("rename to " + dst + ": is a directory");
    IOStatus s = Log(JournalRecord::Rename(src, dst), nullptr);
    if (!s.ok()) return s;
    gone = ns_.Rename(src, dst);
  }
  if (gone) Retire(gone);
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::LinkFile(const std::string& src, const std::string& dst) {
  if (read_only()) return ReadOnlyError("link " + src);
  {
    ReaderLock state(&state_mu_);
    MutexLock lock(&ns_mu_);
    std::shared_ptr<FileEntry> e = ns_.Find(src);
    if (!e) return IOStatus::PathNotFound(src + ": no such file in TierFS");
    if (ns_.Find(dst) || ns_.IsDir(dst)) return IOStatus::IOError("link " + dst + ": file exists");
    IOStatus s = Log(JournalRecord::Bind(e->id, e->kind, dst), e.get());
    if (!s.ok()) return s;
    ns_.Bind(dst, e->id, e->kind);
  }
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::CreateDir(const std::string& path, bool error_if_exists) {
  {
    ReaderLock state(&state_mu_);
    MutexLock lock(&ns_mu_);
    if (ns_.IsDir(path)) {
      return error_if_exists ? IOStatus::IOError(path + ": directory exists") : IOStatus::OK();
    }
    if (ns_.Find(path)) return IOStatus::IOError(path + ": a file of that name exists");
    if (read_only()) return ReadOnlyError("mkdir " + path);
    IOStatus s = Log(JournalRecord::Mkdir(path), nullptr);
    if (!s.ok()) return s;
    ns_.Mkdir(path);
  }
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::DeleteDir(const std::string& path) {
  if (read_only()) return ReadOnlyError("rmdir " + path);
  ReaderLock state(&state_mu_);
  MutexLock lock(&ns_mu_);
  if (!ns_.IsDir(path)) return IOStatus::PathNotFound(path + ": no such directory in TierFS");
  if (ns_.HasChildren(path)) return IOStatus::IOError(path + ": directory not empty");
  IOStatus s = Log(JournalRecord::Rmdir(path), nullptr);
  if (s.ok()) ns_.Rmdir(path);
  return s;
}

IOStatus Store::GetChildren(const std::string& dir, std::vector<std::string>* names) {
  MutexLock lock(&ns_mu_);
  if (!ns_.IsDir(dir)) return IOStatus::PathNotFound(dir + ": no such directory in TierFS");
  *names = ns_.Children(dir);
  return IOStatus::OK();
}

IOStatus Store::SyncNamespace() {
  if (read_only()) return IOStatus::OK();
  IOStatus s = journal_->SyncAll();
  if (s.ok()) s = SyncDataDirs();
  return s;
}

IOStatus Store::SyncDataDirs() {
  // One at a time: a caller whose bit another caller took must not return
  // before that caller's fsync is done. So the lock-free way out needs both
  // no bit left and no fsync running: with the bits alone, a caller could
  // return between another's exchange and its fsync, and commit a segment to
  // a backing file whose directory entry a power cut then takes away (found
  // by power_loss_test: a home with no data after a cut).
  if (dirty_data_dirs_.load() == 0 && dir_syncs_running_.load() == 0) return IOStatus::OK();
  MutexLock lock(&dir_sync_mu_);
  dir_syncs_running_.fetch_add(1);  // before the exchange: seen by whoever then sees no bit
  uint8_t dirty = dirty_data_dirs_.exchange(0);
  IOStatus s;
  for (int t = 0; t < NumTiers() && s.ok(); ++t) {
    if (!(dirty & (1u << t))) continue;
    s = data_dirs_[t]->Fsync(IOOptions(), nullptr);
    if (!s.ok()) dirty_data_dirs_.fetch_or(dirty);
    // The base says only "While fsync: a directory": name the tier and the directory (a plain
    // IOError keeps its code; another code, such as NoSpace, is passed on as it is).
    if (s.IsIOError() && s.subcode() == rocksdb::Status::kNone) {
      s = IOStatus::IOError("TierFS: cannot sync tier " + std::to_string(t) + "'s data directory " +
                            tiers_[t]->data_dir + ": " + s.ToString());
    }
  }
  dir_syncs_running_.fetch_sub(1);
  return s;
}

IOStatus Store::SyncMetadataFor(const FileEntry& entry) {
  IOStatus s = journal_->SyncTo(entry.lsn.load());
  if (s.ok()) s = SyncDataDirs();
  return s;
}

// ------------------------------------------------------------------ lifetime

void Store::AddHandle(FileEntry* entry) {
  WriterLock lock(&entry->mu);
  entry->open_handles++;
}

std::shared_ptr<FileEntry> Store::PinFile(uint64_t id) {
  MutexLock lock(&ns_mu_);
  std::shared_ptr<FileEntry> entry = ns_.FindId(id);
  if (entry) AddHandle(entry.get());
  return entry;
}

void Store::DropHandle(const std::shared_ptr<FileEntry>& entry) {
  bool free_now;
  {
    WriterLock lock(&entry->mu);
    free_now = --entry->open_handles == 0 && entry->unlinked && !entry->freed;
    if (free_now) entry->freed = true;
  }
  if (free_now) FreeData(entry);
}

void Store::Retire(const std::shared_ptr<FileEntry>& entry) {
  bool free_now;
  {
    WriterLock lock(&entry->mu);
    entry->unlinked = true;
    free_now = entry->open_handles == 0 && !entry->freed;
    if (free_now) entry->freed = true;
  }
  if (free_now) FreeData(entry);
}

void Store::FreeData(const std::shared_ptr<FileEntry>& entry) {
  // After Close another store may own the tiers: the data stays, an orphan
  // that the next open removes.
  if (closed()) return;
  // The backing files go only once the record that unbound the file (Unbind,
  // or the Rename over it, journaled before we are called) is durable. A
  // deletion can reach the device before it (a data-directory sync for
  // another file, or the file system's own commit), and a power cut would
  // then bring the file back with homes that hold no data (found by
  // power_loss_test). If the sync fails, the data stays: an orphan the next
  // open removes, or the whole file again if its unbinding was lost.
  const bool unbound_for_good = journal_ && journal_->SyncAll().ok();
  // No handle is left, so no reader: the copies' slots are free at once.
  if (hot_pages_) hot_pages_->copies().Invalidate(entry->id, /*readers_possible=*/false);
  WriterLock lock(&entry->mu);
  NoteEvent(TraceEvent::kDelete, entry->id, entry->kind, 0, 0);
  SegmentTable& segs = entry->segments;
  for (uint64_t s = 0; s < segs.size(); ++s) {
    if (segs.tier(s) == kNoTier) continue;
    Tier& t = tier(segs.tier(s));
    t.Release(segs.charged(s));
    t.Sub(TierTicker::kSegments);
    if (segs.copy(s) != kNoTier) {
      Tier& c = tier(segs.copy(s));
      c.Release(RoundUp(ContentEnd(*entry, s) - SegmentStart(s)));
      c.Sub(TierTicker::kCopies);
    }
  }
  entry->copies = 0;
  for (int t = 0; t < NumTiers(); ++t) {
    if (entry->allowance_mask & (1u << t)) tier(t).Release(kBlockSize);
    if (unbound_for_good && (entry->data_file_mask & (1u << t))) {
      // An orphan left by a failure here is removed at the next open.
      IOStatus s = base_->DeleteFile(tier(t).DataPath(entry->id), IOOptions(), nullptr);
      if (!s.ok()) {
        ReportError(StoreError::kSpaceNotFreed,
                    "removing the backing file of deleted file " + std::to_string(entry->id) +
                        " on tier " + std::to_string(t) + " (allocated until the next open)",
                    s);
      }
      tier(t).NoteSpaceFreed();
    }
  }
  segs.Clear();
  entry->allowance_mask = 0;
  entry->data_file_mask = 0;
}

// ----------------------------------------------------------------- placement

std::string Store::FullMessage() const {
  std::string msg = "TierFS: no tier has room for a new segment:";
  for (const auto& t : tiers_) {
    msg += " tier " + std::to_string(t->index) + " (" + t->root + ") " +
           FormatSize(t->used()) + " of " + FormatSize(t->capacity()) +
           (t->device_full() ? ", device full" : "") + ";";
  }
  return msg;
}

bool Store::DropPageCopiesForData(uint64_t bytes) {
  if (!hot_pages_ || tier(0).copy_used() == 0) return false;
  const uint64_t freed = hot_pages_->copies().Shrink(bytes);
  LogInfo("every tier is full: dropped " + FormatSize(freed) + " of hot-page copies on tier 0 "
          "for data");
  return freed > 0;
}

int Store::ChargeSomeTier(FileEntry* entry, int want, int exclude, uint64_t bytes) {
  const int t = SpillOrder(want, NumTiers(), exclude, [&](int t) {
    if (meta_reserve_.Low(t, 0)) {
      // Its device is down to the room meta/ needs: full for data until
      // space is freed on it.
      tier(t).MarkDeviceFull();
      return false;
    }
    return ChargeForFile(tier(t), t, &entry->allowance_mask, bytes);
  });
  if (t >= 0 && t != want) tier(t).Add(TierTicker::kSpillsIn);
  return t;
}

IOStatus Store::PlaceSegment(FileEntry* entry, uint64_t seg, const PlacementRequest& hint_req,
                             int* tier_out) {
  uint8_t known = entry->TierOf(seg);  // lock-free: the common case
  if (known != kNoTier) {
    *tier_out = known;
    return IOStatus::OK();
  }
  if (read_only()) return ReadOnlyError("write");
  const uint64_t bytes = seg_size_ ? seg_size_ : kWholeFileChunk;
  // The policy decides outside the locks: an evicting policy moves segments
  // (of other files) before this one is placed.
  PlacementRequest req = hint_req;
  req.seq = Now();
  req.file_id = entry->id;
  req.kind = entry->kind;
  req.segment = seg;
  req.bytes = bytes;
  {
    WriterLock lock(&entry->mu);
    if (req.hints.lifetime) entry->hints.lifetime = req.hints.lifetime;
    req.hints = entry->hints;
  }
  // An eviction that cannot be made is no reason to fail the write: the
  // segment spills instead. Busy (the file is being written) and NoSpace (no
  // room below) are what evictions meet in normal running; any other failure
  // is an error of the store's that no caller sees.
  const int want = placement_->Choose(req, IsBulkKind(entry->kind), bytes + kFileBlock, *this,
                                      [this](const Move& m) {
                                        uint64_t moved;
                                        IOStatus s =
                                            ExecuteMove(m, MoveCause::kEviction, nullptr, &moved);
                                        if (!s.ok() && !s.IsBusy() && !s.IsNoSpace()) {
                                          ReportError(StoreError::kEvictionMove,
                                                      "eviction " + DescribeMove(m), s);
                                        }
                                      });
  {
    ReaderLock state(&state_mu_);
    WriterLock lock(&entry->mu);
    uint8_t placed = entry->TierOf(seg);
    if (placed != kNoTier) {
      *tier_out = placed;
      return IOStatus::OK();
    }
    int t = ChargeSomeTier(entry, want, -1, bytes);
    if (t < 0 && DropPageCopiesForData(bytes + kFileBlock)) t = ChargeSomeTier(entry, want, -1, bytes);
    if (t < 0) return IOStatus::NoSpace(FullMessage());
    IOStatus s = Log(JournalRecord::Segment(entry->id, seg, uint8_t(t)), entry);
    if (!s.ok()) {
      tier(t).Release(bytes);
      return s;
    }
    entry->segments.Set(seg, uint8_t(t), bytes);
    entry->segments.heat(seg)->Reset(req.seq);
    tier(t).Add(TierTicker::kSegments);
    NoteEvent(TraceEvent::kPlace, entry->id, entry->kind, seg, req.write_size, t,
              entry->level.load(std::memory_order_relaxed));
    *tier_out = t;
  }
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::ChargeUpTo(FileEntry* entry, uint64_t seg, uint64_t end) {
  uint64_t need = RoundUp(std::min(end, SegmentLimit(seg)) - SegmentStart(seg));
  if (need <= entry->segments.charged(seg)) return IOStatus::OK();  // lock-free
  WriterLock lock(&entry->mu);
  uint64_t have = entry->segments.charged(seg);
  if (need <= have) return IOStatus::OK();
  Tier& t = tier(entry->segments.tier(seg));
  uint64_t more = seg_size_ ? need - have : std::max(need - have, kWholeFileChunk);
  if (!t.TryCharge(more)) {
    return IOStatus::NoSpace("TierFS tier " + std::to_string(t.index) + " (" + t.root +
                             ") is full");
  }
  entry->segments.SetCharged(seg, have + more);
  return IOStatus::OK();
}

void Store::AddWriter(FileEntry* entry) {
  {
    WriterLock lock(&entry->mu);
    entry->writers++;
    entry->writer_opens++;  // a move copying this file now will not commit
    // A page copy begun before this will not be published (tier_files.cc).
    entry->sealed.store(false, std::memory_order_release);
    entry->seal_gen.fetch_add(1, std::memory_order_acq_rel);
  }
  if (hot_pages_) {
    // Its copies would go stale: readers stop finding them now, and their
    // slots are freed once the reads already under way are done.
    hot_pages_->copies().Invalidate(entry->id, /*readers_possible=*/true);
    hot_pages_->copies().Reclaim();
  }
}

void Store::DropWriter(FileEntry* entry) {
  WriterLock lock(&entry->mu);
  if (--entry->writers > 0) return;  // another writer still appends into its reservation
  entry->sealed.store(entry->kind == FileKind::kSst || entry->kind == FileKind::kBlob,
                      std::memory_order_release);
  uint64_t size = entry->size.load();
  NoteEvent(TraceEvent::kSettle, entry->id, entry->kind, 0, size);
  SegmentTable& segs = entry->segments;
  for (uint64_t s = 0; s < segs.size(); ++s) {
    if (segs.tier(s) == kNoTier) continue;
    const uint64_t used = SegmentBytes(size, SegmentStart(s), SegmentLimit(s));
    if (segs.charged(s) > used) {
      tier(segs.tier(s)).Release(segs.charged(s) - used);
      segs.SetCharged(s, used);
    }
  }
}

IOStatus Store::EnsureDataFile(FileEntry* entry, int t) {
  if (entry->data_file_mask.load() & (1u << t)) return IOStatus::OK();
  WriterLock lock(&entry->mu);
  if (entry->data_file_mask & (1u << t)) return IOStatus::OK();
  // Created with POSIX calls (as the punches and extents of backing files
  // are): the base file system's writable file would be opened and closed
  // only for this, and its Close reaches RocksDB statics (a sync point in
  // Debian's build), which may be gone if this runs at exit.
  const std::string path = tier(t).DataPath(entry->id);
  IOStatus s = CreateFileIfMissing(path);
  if (!s.ok()) return s;
  // The directory's bit first: whoever sees the file (the mask, read without
  // the lock above) and syncs must find its entry still to be synced.
  dirty_data_dirs_.fetch_or(uint8_t(1u << t));
  entry->data_file_mask.fetch_or(uint8_t(1u << t));
  return IOStatus::OK();
}

IOStatus Store::RelocateSegment(FileEntry* entry, uint64_t seg, uint64_t valid_end,
                                uint64_t need_end, int* new_tier) {
  MutexLock mover(&entry->move_mu);
  ReaderLock state(&state_mu_);
  const uint64_t start = SegmentStart(seg);
  int from;
  int to;
  uint64_t bytes;
  bool has_data;
  IOStatus s;
  std::string refused;  // destinations whose device said ENOSPC to the copy
  WriterLock lock(&entry->mu, std::defer_lock);
  for (int attempt = 0;; ++attempt) {
    {
      WriterLock charge_lock(&entry->mu);
      from = entry->segments.tier(seg);
      if (from == kNoTier) return IOStatus::NoSpace(FullMessage());  // nothing to move
      bytes = seg_size_ ? seg_size_ : RoundUp(need_end - start) + kWholeFileChunk;
      to = ChargeSomeTier(entry, from + 1 < NumTiers() ? from + 1 : 0, from, bytes);
      if (to < 0) return IOStatus::NoSpace(FullMessage() + refused);
    }
    // Copy what the segment holds so far, make it durable, then commit. A
    // segment placed but never written (its first write did not fit) has no
    // backing file on its tier yet, and nothing to copy.
    has_data = valid_end > start && (entry->data_file_mask.load() & (1u << from));
    IOStatus copied = has_data ? moves_.CopyRange(entry, from, to, start, valid_end, nullptr,
                                                  /*sync=*/true)
                               : EnsureDataFile(entry, to);
    s = copied;
    if (s.ok()) s = SyncDataDirs();
    if (s.ok()) s = Log(JournalRecord::Segment(entry->id, seg, uint8_t(to)), entry);
    lock.Lock();
    if (s.ok()) break;
    // Not committed: the segment stays where it was; drop the partial copy
    // (best effort: recovery punches data on a tier that is not its home).
    if (has_data) {
      PunchGarbage(to, entry->id, start, RoundUp(valid_end - start),
                   "a relocation's copy not committed");
    }
    tier(to).Release(bytes);
    moves_.ReleaseUnusedAllowance(entry, to);
    if (!copied.IsNoSpace() || attempt + 1 >= NumTiers()) return s;
    // The destination's device is full before its account: mark it so
    // (ChargeSomeTier skips it now) and try the next tier with room.
    tier(to).MarkDeviceFull();
    refused += " tier " + std::to_string(to) + " refused the copy: " + copied.ToString() + ";";
    lock.Unlock();
  }
  // The record is in the journal: the new home is the home, durable or not.
  moves_.MoveHome(entry, seg, from, to, bytes);
  lock.Unlock();
  // The old copy is garbage once the commit is durable (until then a crash
  // may come back to it; recovery punches whichever copy is not the home) and
  // no reader of the file can still be on it. Whole blocks: a partial block
  // at the end would only be zeroed, not freed. The source tier keeps its
  // device-full mark (if it has one): this segment may be leaving it
  // precisely because the device said ENOSPC.
  s = journal_->SyncTo(entry->lsn.load());
  if (!s.ok()) return s;
  ReadGate::WaitForReaders();
  if (has_data) {
    // Best effort, as every punch of a copy that is no longer home: if it
    // fails, the next open's recovery punches it.
    PunchGarbage(from, entry->id, start, RoundUp(valid_end - start),
                 "the old home after a relocation to tier " + std::to_string(to));
  }
  *new_tier = to;
  return IOStatus::OK();
}

}  // namespace tierfs
