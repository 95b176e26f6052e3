// Store: HintStor's data operations on placed segments — MIGRATE (move the
// home), REPLICATE and PREFETCH (an extra copy that serves reads), and
// dropping a copy — plus eviction and the policies' view of the segments.
//
// The move protocol, for a segment of a file nobody is writing:
//   1. charge the destination; copy the segment's bytes there, chunk by chunk,
//      paced by the governor and paid on both device models;
//   2. fsync the destination (not for PREFETCH, which is never durable);
//   3. under the file's mutex, check nothing changed (no writer opened, the
//      file still has a name, the segment is where it was) and commit: journal
//      the new home (Segment) or copy (Copy), publish it in the segment table;
//   4. make the journal record durable;
//   5. wait until no reader can still be on the old copy (ReadGate);
//   6. punch the old copy and return its charge.
// A crash before 4 leaves the old home recorded and intact, and recovery
// punches the half-done copy; after 4, recovery punches the old copy. A
// dropped copy is punched only after its Copy(none) record is durable.
#include <algorithm>

#include "engine/migration.h"
#include "env/config.h"
#include "env/posix_util.h"
#include "env/read_gate.h"
#include "env/store.h"

namespace tierfs {

using rocksdb::IOOptions;
using rocksdb::IOStatus;

// What ForEachSegment says of segment `s` of `e`. REQUIRES: e->mu held.
void Store::DescribeSegment(const FileEntry& e, uint64_t s, SegmentInfo* info) const {
  info->ref.file_id = e.id;
  info->ref.segment = s;
  info->kind = e.kind;
  info->hints = e.hints;
  info->file_bytes = e.size.load();
  info->busy = e.writers > 0;
  info->tier = e.segments.tier(s);
  const uint8_t c = e.segments.copy(s);
  info->copy_tier = c == kNoTier ? -1 : c;
  info->bytes = RoundUp(ContentEnd(e, s) - SegmentStart(s));
  info->stats = e.segments.heat(s)->Snapshot();
}

bool Store::Lookup(const SegmentRef& ref, SegmentInfo* info) const {
  std::shared_ptr<FileEntry> e;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    auto it = ns_.files().find(ref.file_id);
    if (it == ns_.files().end() || !IsBulkKind(it->second->kind)) return false;
    e = it->second;
  }
  std::shared_lock<std::shared_mutex> lock(e->mu);
  if (e->freed || e->unlinked || e->segments.tier(ref.segment) == kNoTier) return false;
  DescribeSegment(*e, ref.segment, info);
  return true;
}

void Store::ForEachSegment(const std::function<void(const SegmentInfo&)>& fn) const {
  std::vector<std::shared_ptr<FileEntry>> files;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    files.reserve(ns_.files().size());
    for (const auto& kv : ns_.files()) {
      if (IsBulkKind(kv.second->kind)) files.push_back(kv.second);
    }
  }
  SegmentInfo info;
  for (const auto& e : files) {
    std::shared_lock<std::shared_mutex> lock(e->mu);
    if (e->freed || e->unlinked) continue;
    const SegmentTable& segs = e->segments;
    for (uint64_t s = 0; s < segs.size(); ++s) {
      if (segs.tier(s) == kNoTier) continue;
      DescribeSegment(*e, s, &info);
      fn(info);
    }
  }
}

void Store::ReleaseUnusedAllowance(FileEntry* e, int t) {
  if (!(e->allowance_mask & (1u << t))) return;
  const SegmentTable& segs = e->segments;
  bool still_there = false;
  for (uint64_t s = 0; s < segs.size() && !still_there; ++s) {
    still_there = segs.tier(s) == t || segs.copy(s) == t;
  }
  ReleaseFileBlock(tier(t), t, &e->allowance_mask, still_there);
}

void Store::MoveHome(FileEntry* e, uint64_t seg, int from, int to, uint64_t charge) {
  tier(from).Release(e->segments.charged(seg));
  tier(from).Sub(TierTicker::kSegments);
  tier(to).Add(TierTicker::kSegments);
  e->segments.Set(seg, uint8_t(to), charge);
  ReleaseUnusedAllowance(e, from);
}

bool Store::ChargeExactly(FileEntry* entry, int t, uint64_t bytes) {
  // The per-file block of a tier is charged with its first segment and
  // released with the file (FreeData), or once moves left no segment or copy
  // of the file there (ReleaseUnusedAllowance).
  return ChargeForFile(tier(t), t, &entry->allowance_mask, bytes);
}

IOStatus Store::CopyRange(FileEntry* entry, int from, int to, uint64_t start, uint64_t end,
                          Governor* governor, bool sync) {
  IOStatus s = EnsureDataFile(entry, to);
  std::unique_ptr<rocksdb::FSRandomRWFile> src, dst;
  if (s.ok()) {
    s = base_->NewRandomRWFile(tier(from).DataPath(entry->id), rocksdb::FileOptions(), &src,
                               nullptr);
  }
  if (s.ok()) {
    s = base_->NewRandomRWFile(tier(to).DataPath(entry->id), rocksdb::FileOptions(), &dst,
                               nullptr);
  }
  std::string buf(std::min<uint64_t>(kMoveChunk, end - start), '\0');
  for (uint64_t off = start; s.ok() && off < end;) {
    size_t n = size_t(std::min<uint64_t>(buf.size(), end - off));
    if (governor && !governor->BeforeChunk(from, to, n)) {
      return IOStatus::Aborted("TierFS move of file " + std::to_string(entry->id) +
                               " given up (devices busy or shutting down)");
    }
    const int64_t begin = DeviceModel::NowNanos();
    rocksdb::Slice got;
    s = src->Read(off, n, IOOptions(), &got, &buf[0], nullptr);
    if (!s.ok() || got.size() == 0) break;  // the rest is a hole
    tier(from).ModelBackground(false, entry->id, off, got.size());
    s = dst->Write(off, got, IOOptions(), nullptr);
    if (s.ok()) tier(to).ModelBackground(true, entry->id, off, got.size());
    if (governor) governor->AfterChunk(DeviceModel::NowNanos() - begin);
    off += got.size();
  }
  if (s.ok() && sync) s = dst->Fsync(IOOptions(), nullptr);
  if (s.ok()) s = dst->Close(IOOptions(), nullptr);
  return s;
}

std::string Store::DescribeMove(const Move& m) {
  std::string s = std::string(DataOpName(m.op)) + " " + std::to_string(m.ref.file_id) + ":" +
                  std::to_string(m.ref.segment);
  if (m.op != Move::kDropCopy) s += " -> tier " + std::to_string(m.to);
  return s;
}

IOStatus Store::ExecuteMove(const Move& move, MoveCause cause, Governor* governor,
                            uint64_t* bytes) {
  IOStatus s = RunMove(move, cause, governor, bytes);
  const bool made = s.ok() && *bytes > 0;
  NoteEvent(TraceEvent::kMove, move.ref.file_id, FileKind::kOther, move.ref.segment,
            EncodeMoveOutcome(move.op, made, cause), move.to);
  if (cause == MoveCause::kPlanned) policy_->OnMoveDone(move, made);
  return s;
}

IOStatus Store::RunMove(const Move& move, MoveCause cause, Governor* governor,
                        uint64_t* bytes_out) {
  *bytes_out = 0;
  if (read_only()) return IOStatus::NotSupported("moves on a TierFS store opened read-only");
  std::shared_ptr<FileEntry> entry;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    entry = ns_.FindId(move.ref.file_id);
    if (entry) AddHandle(entry.get());  // the data outlives a delete until we are done
  }
  if (!entry) return IOStatus::OK();  // deleted since it was chosen: nothing to do
  struct Unpin {
    Store* store;
    std::shared_ptr<FileEntry>& e;
    ~Unpin() { store->DropHandle(e); }
  } unpin{this, entry};

  std::lock_guard<std::mutex> mover(entry->move_mu);
  FileEntry* e = entry.get();
  const uint64_t seg = move.ref.segment;
  if (move.op == Move::kDropCopy) return DropCopy(e, seg);
  if (move.to < 0 || move.to >= NumTiers()) {
    return IOStatus::InvalidArgument("move to tier " + std::to_string(move.to) + ": only " +
                                     std::to_string(NumTiers()) + " tiers");
  }
  const int to = move.to;
  const bool copy = move.op != Move::kMigrate;
  const bool durable = move.op != Move::kPrefetch;
  const uint64_t start = SegmentStart(seg);
  int from;
  uint64_t end, charge, writer_opens;
  {
    std::unique_lock<std::shared_mutex> lock(e->mu);
    if (e->writers > 0) return IOStatus::Busy("file open for writing");
    from = e->segments.tier(seg);
    end = ContentEnd(*e, seg);
    if (from == kNoTier || e->unlinked || end == start) return IOStatus::OK();
    const uint8_t has_copy = e->segments.copy(seg);
    if (FirstStep(move, NumTiers(), from, has_copy == kNoTier ? -1 : has_copy) ==
        MoveStep::kNothing) {
      return IOStatus::OK();
    }
    if (has_copy != kNoTier) {
      // One extra copy at most, and a home never moves under its copy.
      lock.unlock();
      IOStatus s = DropCopy(e, seg);
      if (!s.ok()) return s;
      lock.lock();
      if (e->writers > 0) return IOStatus::Busy("file open for writing");
      end = ContentEnd(*e, seg);
    }
    charge = RoundUp(end - start);
    if (!ChargeExactly(e, to, charge)) {
      return IOStatus::NoSpace("TierFS tier " + std::to_string(to) + " has no room for the move");
    }
    NoteEvent(TraceEvent::kMove, e->id, FileKind::kOther, seg,
              EncodeMoveOutcome(move.op, false, cause, /*started=*/true), to);
    writer_opens = e->writer_opens;
  }

  IOStatus s = CopyRange(e, from, to, start, end, governor, /*sync=*/durable);
  if (s.ok() && durable) s = SyncDataDirs();
  uint64_t lsn = 0;
  {
    std::shared_lock<std::shared_mutex> state(state_mu_);
    std::unique_lock<std::shared_mutex> lock(e->mu);
    if (s.ok() && (e->writers > 0 || e->writer_opens != writer_opens || e->unlinked ||
                   e->segments.tier(seg) != from || ContentEnd(*e, seg) != end)) {
      s = IOStatus::Busy("file changed during the move");
    }
    if (s.ok() && durable) {
      s = Log(copy ? JournalRecord::Copy(e->id, seg, uint8_t(to))
                   : JournalRecord::Segment(e->id, seg, uint8_t(to)),
              e, &lsn);
    }
    if (!s.ok()) {
      // Not committed: the home stays; the partial copy goes (best effort:
      // recovery punches data that is neither home nor recorded copy).
      PunchHole(tier(to).DataPath(e->id), start, charge).PermitUncheckedError();
      tier(to).Release(charge);
      ReleaseUnusedAllowance(e, to);
      return s;
    }
    if (copy) {
      e->segments.SetCopy(seg, uint8_t(to), !durable);
      e->copies.fetch_add(1);
      tier(to).Add(TierTicker::kCopies);
      tier(to).Add(TierTicker::kCopiesIn);
      tier(to).Add(TierTicker::kCopyBytesIn, end - start);
    } else {
      MoveHome(e, seg, from, to, charge);
      tier(from).Add(TierTicker::kMovesOut);
      tier(from).Add(TierTicker::kMovedBytesOut, end - start);
      tier(to).Add(TierTicker::kMovesIn);
      tier(to).Add(TierTicker::kMovedBytesIn, end - start);
    }
    e->segments.heat(seg)->Moved(Now());
  }
  *bytes_out = end - start;
  if (copy) return IOStatus::OK();
  // The old home is garbage once the commit is durable and no reader can be
  // on it. A failed sync leaves it for recovery to punch.
  s = journal_->SyncTo(lsn);
  if (!s.ok()) return s;
  ReadGate::WaitForReaders();
  // Best effort: if the punch fails, recovery punches the old home.
  PunchHole(tier(from).DataPath(e->id), start, charge).PermitUncheckedError();
  tier(from).NoteSpaceFreed();
  MaybeRotate();
  return IOStatus::OK();
}

IOStatus Store::DropCopy(FileEntry* e, uint64_t seg) {
  uint8_t c;
  bool is_volatile;
  uint64_t lsn = 0;
  uint64_t charge;
  {
    std::shared_lock<std::shared_mutex> state(state_mu_);
    std::unique_lock<std::shared_mutex> lock(e->mu);
    c = e->segments.copy(seg);
    if (c == kNoTier) return IOStatus::OK();
    is_volatile = e->segments.copy_is_volatile(seg);
    if (!is_volatile) {
      IOStatus s = Log(JournalRecord::Copy(e->id, seg, kNoTier), e, &lsn);
      if (!s.ok()) return s;
    }
    e->segments.SetCopy(seg, kNoTier, false);
    e->copies.fetch_sub(1);
    charge = RoundUp(ContentEnd(*e, seg) - SegmentStart(seg));
    ReleaseUnusedAllowance(e, c);
  }
  Tier& t = tier(c);
  t.Sub(TierTicker::kCopies);
  t.Add(TierTicker::kCopiesDropped);
  // A durable copy is punched only once its drop is durable: recovery must
  // never find a recorded copy full of holes.
  if (!is_volatile) {
    IOStatus s = journal_->SyncTo(lsn);
    if (!s.ok()) {
      t.Release(charge);  // the bytes stay until the next open punches them
      return s;
    }
  }
  ReadGate::WaitForReaders();
  // Best effort: the copy is no longer recorded, so recovery punches it.
  PunchHole(t.DataPath(e->id), SegmentStart(seg), charge).PermitUncheckedError();
  t.Release(charge);
  t.NoteSpaceFreed();
  return IOStatus::OK();
}

IOStatus Store::DropCopies(FileEntry* e) {
  if (e->copies.load() == 0) return IOStatus::OK();
  std::lock_guard<std::mutex> mover(e->move_mu);
  for (uint64_t seg = 0; seg < e->segments.size() && e->copies.load() > 0; ++seg) {
    IOStatus s = DropCopy(e, seg);
    if (!s.ok()) return s;
  }
  return IOStatus::OK();
}

}  // namespace tierfs
