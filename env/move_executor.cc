// The move executor (move_executor.h, which gives the protocol and its locks).
#include "env/move_executor.h"

#include <algorithm>

#include "core/config.h"
#include "engine/migration.h"
#include "env/read_gate.h"
#include "env/store.h"

namespace tierfs {

using rocksdb::IOOptions;
using rocksdb::IOStatus;

void MoveExecutor::ReleaseUnusedAllowance(FileEntry* e, int t) {
  if (!(e->allowance_mask & (1u << t))) return;
  const SegmentTable& segs = e->segments;
  bool still_there = false;
  for (uint64_t s = 0; s < segs.size() && !still_there; ++s) {
    still_there = segs.tier(s) == t || segs.copy(s) == t;
  }
  ReleaseFileBlock(store_.tier(t), t, &e->allowance_mask, still_there);
}

void MoveExecutor::MoveHome(FileEntry* e, uint64_t seg, int from, int to, uint64_t charge) {
  store_.tier(from).Release(e->segments.charged(seg));
  store_.tier(from).Sub(TierTicker::kSegments);
  store_.tier(to).Add(TierTicker::kSegments);
  e->segments.Set(seg, uint8_t(to), charge);
  ReleaseUnusedAllowance(e, from);
}

bool MoveExecutor::ChargeExactly(FileEntry* entry, int t, uint64_t bytes) {
  // The per-file block of a tier is charged with its first segment and
  // released with the file (FreeData), or once moves left no segment or copy
  // of the file there (ReleaseUnusedAllowance).
  // A move's copy writes `bytes` to t: not into the room kept for meta/.
  if (store_.meta_reserve().Low(t, bytes)) return false;
  return ChargeForFile(store_.tier(t), t, &entry->allowance_mask, bytes);
}

IOStatus MoveExecutor::CopyRange(FileEntry* entry, int from, int to, uint64_t start,
                                 uint64_t end, Governor* governor, bool sync) {
  IOStatus s = store_.EnsureDataFile(entry, to);
  std::unique_ptr<rocksdb::FSRandomRWFile> src, dst;
  if (s.ok()) {
    s = store_.base()->NewRandomRWFile(store_.tier(from).DataPath(entry->id),
                                       store_.backing_options(), &src, nullptr);
  }
  if (s.ok()) {
    s = store_.base()->NewRandomRWFile(store_.tier(to).DataPath(entry->id),
                                       store_.backing_options(), &dst, nullptr);
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
    store_.tier(from).ModelBackground(false, entry->id, off, got.size());
    s = dst->Write(off, got, IOOptions(), nullptr);
    if (s.ok()) store_.tier(to).ModelBackground(true, entry->id, off, got.size());
    if (governor) governor->AfterChunk(DeviceModel::NowNanos() - begin);
    off += got.size();
  }
  if (s.ok() && sync) s = dst->Fsync(IOOptions(), nullptr);
  if (s.ok()) s = dst->Close(IOOptions(), nullptr);
  return s;
}

MoveInfo MoveExecutor::Info(const Move& m, bool manual) {
  MoveInfo info;
  info.manual = manual;
  info.op = m.op;
  info.file_id = m.ref.file_id;
  info.segment = m.ref.segment;
  info.to = m.op == Move::kDropCopy ? -1 : m.to;
  return info;
}

std::string MoveExecutor::Describe(const Move& m) { return DescribeMove(Info(m, false)); }

std::string DescribeMove(const MoveInfo& m) {
  std::string s = std::string(DataOpName(m.op)) + " " + std::to_string(m.file_id) + ":" +
                  std::to_string(m.segment);
  if (m.op != DataOp::kDropCopy) s += " -> tier " + std::to_string(m.to);
  return s;
}

IOStatus MoveExecutor::Execute(const Move& move, MoveCause cause, Governor* governor,
                               uint64_t* bytes) {
  IOStatus s = Run(move, cause, governor, bytes);
  const bool made = s.ok() && *bytes > 0;
  store_.NoteEvent(TraceEvent::kMove, move.ref.file_id, FileKind::kOther, move.ref.segment,
                   EncodeMoveOutcome(move.op, made, cause), move.to);
  if (cause == MoveCause::kPlanned) store_.policy().OnMoveDone(move, made);
  return s;
}

IOStatus MoveExecutor::Run(const Move& move, MoveCause cause, Governor* governor,
                           uint64_t* bytes_out) {
  *bytes_out = 0;
  if (store_.read_only()) return IOStatus::NotSupported("moves on a TierFS store opened read-only");
  // The data outlives a delete until we are done.
  std::shared_ptr<FileEntry> entry = store_.PinFile(move.ref.file_id);
  if (!entry) return IOStatus::OK();  // deleted since it was chosen: nothing to do
  struct Unpin {
    Store& store;
    std::shared_ptr<FileEntry>& e;
    ~Unpin() { store.DropHandle(e); }
  } unpin{store_, entry};

  FileEntry* e = entry.get();
  MutexLock mover(&e->move_mu);
  const uint64_t seg = move.ref.segment;
  if (move.op == Move::kDropCopy) return DropCopy(e, seg);
  if (move.to < 0 || move.to >= store_.NumTiers()) {
    return IOStatus::InvalidArgument("move to tier " + std::to_string(move.to) + ": only " +
                                     std::to_string(store_.NumTiers()) + " tiers");
  }
  const int to = move.to;
  const bool copy = move.op != Move::kMigrate;
  const bool durable = move.op != Move::kPrefetch;
  const uint64_t start = store_.SegmentStart(seg);
  int from;
  uint64_t end, charge, writer_opens;
  {
    WriterLock lock(&e->mu);
    if (e->writers > 0) return IOStatus::Busy("file open for writing");
    from = e->segments.tier(seg);
    end = store_.ContentEnd(*e, seg);
    if (from == kNoTier || e->unlinked || end == start) return IOStatus::OK();
    const uint8_t has_copy = e->segments.copy(seg);
    if (FirstStep(move, store_.NumTiers(), from, has_copy == kNoTier ? -1 : has_copy) ==
        MoveStep::kNothing) {
      return IOStatus::OK();
    }
    if (has_copy != kNoTier) {
      // One extra copy at most, and a home never moves under its copy.
      lock.Unlock();
      IOStatus s = DropCopy(e, seg);
      if (!s.ok()) return s;
      lock.Lock();
      if (e->writers > 0) return IOStatus::Busy("file open for writing");
      end = store_.ContentEnd(*e, seg);
    }
    charge = RoundUp(end - start);
    if (!ChargeExactly(e, to, charge)) {
      return IOStatus::NoSpace("TierFS tier " + std::to_string(to) + " has no room for the move");
    }
    store_.NoteEvent(TraceEvent::kMove, e->id, FileKind::kOther, seg,
                     EncodeMoveOutcome(move.op, false, cause, /*started=*/true), to);
    writer_opens = e->writer_opens;
  }

  IOStatus s = CopyRange(e, from, to, start, end, governor, /*sync=*/durable);
  if (s.ok() && durable) s = store_.SyncDataDirs();
  uint64_t lsn = 0;
  {
    Store::JournalLock journal(&store_);
    WriterLock lock(&e->mu);
    if (s.ok() && (e->writers > 0 || e->writer_opens != writer_opens || e->unlinked ||
                   e->segments.tier(seg) != from || store_.ContentEnd(*e, seg) != end)) {
      s = IOStatus::Busy("file changed during the move");
    }
    if (s.ok() && durable) {
      s = journal.Log(copy ? JournalRecord::Copy(e->id, seg, uint8_t(to))
                           : JournalRecord::Segment(e->id, seg, uint8_t(to)),
                      e, &lsn);
    }
    if (!s.ok()) {
      // Not committed: the home stays; the partial copy goes (best effort:
      // recovery punches data that is neither home nor recorded copy).
      store_.PunchGarbage(to, e->id, start, charge, Describe(move) + ": its copy, not committed");
      store_.tier(to).Release(charge);
      ReleaseUnusedAllowance(e, to);
      return s;
    }
    if (copy) {
      e->segments.SetCopy(seg, uint8_t(to), !durable);
      e->copies.fetch_add(1);
      store_.tier(to).Add(TierTicker::kCopies);
      store_.tier(to).Add(TierTicker::kCopiesIn);
      store_.tier(to).Add(TierTicker::kCopyBytesIn, end - start);
    } else {
      MoveHome(e, seg, from, to, charge);
      store_.tier(from).Add(TierTicker::kMovesOut);
      store_.tier(from).Add(TierTicker::kMovedBytesOut, end - start);
      store_.tier(to).Add(TierTicker::kMovesIn);
      store_.tier(to).Add(TierTicker::kMovedBytesIn, end - start);
    }
    e->segments.heat(seg)->Moved(store_.Now());
  }
  *bytes_out = end - start;
  if (copy) return IOStatus::OK();
  // The old home is garbage once the commit is durable and no reader can be
  // on it. A failed sync leaves it for recovery to punch.
  s = store_.SyncJournalTo(lsn);
  if (!s.ok()) return s;
  ReadGate::WaitForReaders();
  // Best effort: if the punch fails, recovery punches the old home.
  store_.PunchGarbage(from, e->id, start, charge, Describe(move) + ": the old home");
  store_.tier(from).NoteSpaceFreed();
  store_.MaybeRotate();
  return IOStatus::OK();
}

IOStatus MoveExecutor::DropCopy(FileEntry* e, uint64_t seg) {
  uint8_t c;
  bool is_volatile;
  uint64_t lsn = 0;
  uint64_t charge;
  {
    Store::JournalLock journal(&store_);
    WriterLock lock(&e->mu);
    c = e->segments.copy(seg);
    if (c == kNoTier) return IOStatus::OK();
    is_volatile = e->segments.copy_is_volatile(seg);
    if (!is_volatile) {
      IOStatus s = journal.Log(JournalRecord::Copy(e->id, seg, kNoTier), e, &lsn);
      if (!s.ok()) return s;
    }
    e->segments.SetCopy(seg, kNoTier, false);
    e->copies.fetch_sub(1);
    charge = RoundUp(store_.ContentEnd(*e, seg) - store_.SegmentStart(seg));
    ReleaseUnusedAllowance(e, c);
  }
  Tier& t = store_.tier(c);
  t.Sub(TierTicker::kCopies);
  t.Add(TierTicker::kCopiesDropped);
  // A durable copy is punched only once its drop is durable: recovery must
  // never find a recorded copy full of holes.
  if (!is_volatile) {
    IOStatus s = store_.SyncJournalTo(lsn);
    if (!s.ok()) {
      t.Release(charge);  // the bytes stay until the next open punches them
      return s;
    }
  }
  ReadGate::WaitForReaders();
  // Best effort: the copy is no longer recorded, so recovery punches it.
  store_.PunchGarbage(c, e->id, store_.SegmentStart(seg), charge,
                      "the dropped copy of segment " + std::to_string(seg));
  t.Release(charge);
  t.NoteSpaceFreed();
  return IOStatus::OK();
}

IOStatus MoveExecutor::DropCopies(FileEntry* e) {
  if (e->copies.load() == 0) return IOStatus::OK();
  MutexLock mover(&e->move_mu);
  for (uint64_t seg = 0; seg < e->segments.size() && e->copies.load() > 0; ++seg) {
    IOStatus s = DropCopy(e, seg);
    if (!s.ok()) return s;
  }
  return IOStatus::OK();
}

}  // namespace tierfs
