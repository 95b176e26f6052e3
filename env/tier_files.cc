#include "env/tier_files.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "engine/copy_read.h"
#include "env/file_limits.h"
#include "env/guard.h"
#include "env/hot_pages.h"
#include "env/posix_util.h"
#include "env/read_gate.h"
#include "env/read_origin.h"

namespace tierfs {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// ------------------------------------------------------------------ reading

SegmentReader::SegmentReader(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                             const rocksdb::FileOptions& options, bool sequential)
    : store_(std::move(store)), entry_(std::move(entry)), options_(options),
      sequential_(sequential) {
  store_->AddHandle(entry_.get());
  const uint8_t mask = entry_->data_file_mask.load();
  // Open the backing files the file has now, while its name is known live; an
  // error here is dropped because it surfaces again, to the reader, on the
  // first read of that tier.
  for (int t = 0; t < store_->NumTiers(); ++t) {
    rocksdb::FSRandomAccessFile* f;
    if (mask & (1u << t)) Handle(t, &f).PermitUncheckedError();
  }
}

SegmentReader::~SegmentReader() { store_->DropHandle(entry_); }

IOStatus SegmentReader::Handle(int t, rocksdb::FSRandomAccessFile** file) {
  *file = files_[t].load(std::memory_order_acquire);
  if (*file) return IOStatus::OK();
  MutexLock lock(&open_mu_);
  *file = files_[t].load(std::memory_order_acquire);
  if (*file) return IOStatus::OK();
  IOStatus s = store_->base()->NewRandomAccessFile(store_->tier(t).DataPath(entry_->id),
                                                   options_, &owned_[t], nullptr);
  if (!s.ok()) return s;
  *file = owned_[t].get();
  if (hinted_) (*file)->Hint(hint_);
  files_[t].store(*file, std::memory_order_release);
  return IOStatus::OK();
}

void SegmentReader::Hint(rocksdb::FSRandomAccessFile::AccessPattern pattern) {
  MutexLock lock(&open_mu_);
  hinted_ = true;
  hint_ = pattern;
  for (auto& f : owned_) {
    if (f) f->Hint(pattern);
  }
}

IOStatus SegmentReader::ReadPiece(uint64_t offset, size_t n, uint64_t file_size,
                                  const IOOptions& options, bool user, char* scratch,
                                  IODebugContext* dbg) {
  const size_t valid = offset < file_size ? size_t(std::min<uint64_t>(n, file_size - offset)) : 0;
  const uint64_t seg = store_->SegmentOf(offset);
  Slice got;
  int64_t start;
  uint8_t t;
  {
    // While the guard is held, a move of this segment will not punch the
    // copy we look up (read_gate.h). Lock-free: every RocksDB read passes here.
    ReadGuard gate;
    t = entry_->segments.read_tier(seg);
    if (t == kNoTier || !(entry_->data_file_mask.load(std::memory_order_acquire) & (1u << t))) {
      // never written: a hole
      memset(scratch, 0, valid);
      return IOStatus::OK();
    }
    rocksdb::FSRandomAccessFile* f;
    IOStatus s = Handle(t, &f);
    if (!s.ok()) return s;
    start = store_->tier(t).StartIo(store_->TimesEveryIo());
    s = f->Read(offset, n, options, &got, scratch, dbg);
    if (!s.ok()) return s;
    if (got.data() != scratch) memmove(scratch, got.data(), got.size());
  }
  if (got.size() < valid) memset(scratch + got.size(), 0, valid - got.size());
  Store& st = *store_;
  int64_t done = st.tier(t).AccountRead(entry_->id, offset, got.size(), start, user);
  st.Observe(*entry_, seg, offset, got.size(), user ? IoType::kUserRead : IoType::kBackgroundRead,
             t, uint64_t(done - start), TracePriority(options.rate_limiter_priority),
             /*copy=*/t != entry_->segments.tier(seg));  // the segment's extra copy served it
  return IOStatus::OK();
}

// ------------------------------------------------------------------ copies

class SegmentReader::CopyIo final : public CopyReadIo {
 public:
  CopyIo(SegmentReader* reader, HotPages* hot, uint64_t offset, size_t n, uint64_t size,
         const IOOptions& options, char* scratch, IODebugContext* dbg)
      : r_(*reader), hot_(*hot), offset_(offset), n_(n), size_(size), options_(options),
        scratch_(scratch), dbg_(dbg),
        // A writer that opens the file from here on makes a copy stale.
        gen_(r_.entry_->seal_gen.load(std::memory_order_acquire)) {}

  const IOStatus& status() const { return status_; }

  bool ReadFromTierZero(uint64_t offset, uint64_t end) const override {
    return r_.ReadFromTierZero(offset, end);
  }
  // The store places a segment when it is first written.
  bool Placed(uint64_t, uint64_t) const override { return true; }
  void EnterGate() override { ReadGate::Enter(); }
  void LeaveGate() override { ReadGate::Exit(); }

  bool ReadCopies(const int64_t* slots, int n, uint64_t first, uint64_t unit, uint64_t offset,
                  uint64_t end) override {
    start_ = hot_.tier().StartIo(r_.store_->TimesEveryIo());
    for (int i = 0; i < n; ++i) {
      const uint64_t from = first + uint64_t(i) * unit;
      const uint64_t lo = std::max(offset, from), hi = std::min(end, from + unit);
      status_ = hot_.ReadSlot(slots[i], lo - from, size_t(hi - lo), scratch_ + (lo - offset));
      if (!status_.ok()) return false;
    }
    done_ = hot_.tier().AccountRead(PageCopies::kStream, hot_.copies().Where(slots[0]),
                                    end - offset, start_, /*user=*/true);
    return true;
  }

  void Served(uint64_t offset, uint64_t end, const uint64_t* keys, int n) override {
    r_.ObserveCopyHit(offset, end, options_, start_, done_);
    hot_.NoteHits(keys, n);
  }

  void WaitForReaders() override { ReadGate::WaitForReaders(); }

  bool ReadHomes(uint64_t lo, uint64_t hi) override {
    if (lo == offset_ && hi - lo <= n_) {
      // The caller's own range holds it all: read straight into its buffer.
      data_ = scratch_;
      data_lo_ = lo;
      status_ = r_.ReadRange(offset_, n_, size_, options_, /*user=*/true, scratch_, dbg_);
      return status_.ok();
    }
    // Whole pages, aligned for direct reads; the caller's bytes copied out.
    buf_.reset(static_cast<char*>(aligned_alloc(kBlockAlignment, hi - lo)));
    if (!buf_) {
      status_ = IOStatus::NoSpace("TierFS: no memory for a page copy");
      return false;
    }
    status_ = r_.ReadRange(lo, size_t(hi - lo), size_, options_, /*user=*/true, buf_.get(), dbg_);
    if (!status_.ok()) return false;
    memcpy(scratch_, buf_.get() + (offset_ - lo), std::min<uint64_t>(offset_ + n_, size_) - offset_);
    data_ = buf_.get();
    data_lo_ = lo;
    return true;
  }

  bool WriteCopy(const PageCopies::Fill& fill, uint64_t start, uint64_t length) override {
    // Not after a writer opened the file, nor into the room kept for meta/
    // on tier 0's device.
    return r_.entry_->seal_gen.load(std::memory_order_acquire) == gen_ &&
           !r_.store_->meta_reserve().Low(0, length) &&
           hot_.WriteSlot(fill, data_ + (start - data_lo_), size_t(length)).ok();
  }

  void Copied(uint64_t index) override {
    r_.store_->NoteEvent(TraceEvent::kMove, r_.entry_->id, r_.entry_->kind, index,
                         EncodeMoveOutcome(Move::kReplicate, true, MoveCause::kPageCopy), 0);
  }

  PageCopies::Reader* reader() override { return hot_.ThisThread(); }
  bool blocking() const override { return false; }

 private:
  struct Free {
    void operator()(char* p) const { free(p); }
  };

  SegmentReader& r_;
  HotPages& hot_;
  const uint64_t offset_;
  const size_t n_;
  const uint64_t size_;
  const IOOptions& options_;
  char* const scratch_;
  IODebugContext* const dbg_;
  const uint64_t gen_;
  IOStatus status_;
  int64_t start_ = 0, done_ = 0;     // a hit's time on tier 0
  const char* data_ = nullptr;       // the homes' bytes from data_lo_
  uint64_t data_lo_ = 0;
  std::unique_ptr<char, Free> buf_;
};

IOStatus SegmentReader::Read(uint64_t offset, size_t n, const IOOptions& options, Slice* result,
                             char* scratch, IODebugContext* dbg) {
  // After Close another store may own the tiers and have moved the data.
  if (store_->closed()) return store_->ClosedError("read", "");
  const uint64_t size = entry_->size.load(std::memory_order_acquire);
  if (offset >= size || n == 0) {
    *result = Slice(scratch, 0);
    return IOStatus::OK();
  }
  const size_t valid = size_t(std::min<uint64_t>(offset + n, size) - offset);
  HotPages* hot = store_->hot_pages();
  // The application's reads, not RocksDB's own (read_origin.h): asked once
  // per read, every piece gets the answer.
  const bool user = IsUserRead(options, sequential_);
  if (hot && user && entry_->sealed.load(std::memory_order_acquire)) {
    CopyIo io(this, hot, offset, n, size, options, scratch, dbg);
    Policy::CopyCandidate file;
    file.file_id = entry_->id;
    file.kind = entry_->kind;
    file.level = entry_->level.load(std::memory_order_relaxed);
    switch (ReadThroughCopies(hot->copies(), file, offset, offset + valid, size, io)) {
      case CopyRead::kFailed:
        return io.status();
      case CopyRead::kServed:
        *result = Slice(scratch, valid);
        return IOStatus::OK();
      case CopyRead::kLeft:
        break;
    }
  }
  IOStatus s = ReadRange(offset, n, size, options, user, scratch, dbg);
  if (!s.ok()) return s;
  *result = Slice(scratch, valid);
  if (hot && hot->inherit() && entry_->kind == FileKind::kSst && !user && !sequential_) {
    // Compaction input: its heat goes to the output this thread writes next.
    hot->copies().NoteInput(hot->ThisThread(), entry_->id, offset, valid);
  }
  return IOStatus::OK();
}

IOStatus SegmentReader::ReadRange(uint64_t offset, size_t n, uint64_t size,
                                  const IOOptions& options, bool user, char* scratch,
                                  IODebugContext* dbg) {
  // Pieces cover the requested range (kept whole for direct-I/O alignment);
  // the caller's result stops at the end of the file.
  const uint64_t end = offset + n;
  uint64_t off = offset;
  while (off < end && off < size) {
    uint64_t piece_end = std::min(end, store_->SegmentLimit(store_->SegmentOf(off)));
    IOStatus s = ReadPiece(off, size_t(piece_end - off), size, options, user,
                           scratch + (off - offset), dbg);
    if (!s.ok()) return s;
    off = piece_end;
  }
  return IOStatus::OK();
}

bool SegmentReader::ReadFromTierZero(uint64_t offset, uint64_t end) const {
  for (uint64_t seg = store_->SegmentOf(offset); seg <= store_->SegmentOf(end - 1); ++seg) {
    if (entry_->segments.read_tier(seg) == 0) return true;
  }
  return false;
}

void SegmentReader::ObserveCopyHit(uint64_t offset, uint64_t end, const IOOptions& options,
                                   int64_t start, int64_t done) {
  for (uint64_t off = offset; off < end;) {
    const uint64_t seg = store_->SegmentOf(off);
    const uint64_t piece_end = std::min(end, store_->SegmentLimit(seg));
    store_->Observe(*entry_, seg, off, piece_end - off, IoType::kUserRead, 0,
                    uint64_t(done - start), TracePriority(options.rate_limiter_priority),
                    /*copy=*/true);
    off = piece_end;
  }
}

IOStatus SegmentReader::Prefetch(uint64_t offset, size_t n, const IOOptions& options,
                                 IODebugContext* dbg) {
  if (store_->closed()) return store_->ClosedError("prefetch", "");
  const uint64_t end = offset + n;
  for (uint64_t off = offset; off < end;) {
    uint64_t piece_end = std::min(end, store_->SegmentLimit(store_->SegmentOf(off)));
    uint8_t t = entry_->segments.read_tier(store_->SegmentOf(off));
    if (t != kNoTier && !(entry_->data_file_mask.load() & (1u << t))) t = kNoTier;
    rocksdb::FSRandomAccessFile* f;
    // Advisory, as RocksDB's own Prefetch: a failure costs only the read-ahead.
    if (t != kNoTier && Handle(t, &f).ok()) {
      f->Prefetch(off, size_t(piece_end - off), options, dbg).PermitUncheckedError();
    }
    off = piece_end;
  }
  return IOStatus::OK();
}

IOStatus SegmentReader::InvalidateCache(size_t offset, size_t length) {
  // Advisory (posix_fadvise DONTNEED): a failure costs only page cache.
  for (auto& f : files_) {
    rocksdb::FSRandomAccessFile* file = f.load(std::memory_order_acquire);
    if (file) file->InvalidateCache(offset, length).PermitUncheckedError();
  }
  return IOStatus::OK();
}

IOStatus TierRandomAccessFile::Read(uint64_t offset, size_t n, const IOOptions& options,
                                    Slice* result, char* scratch, IODebugContext* dbg) const {
  return Guard("read", "", [&] { return reader_.Read(offset, n, options, result, scratch, dbg); });
}

IOStatus TierRandomAccessFile::MultiRead(rocksdb::FSReadRequest* reqs, size_t num_reqs,
                                         const IOOptions& options, IODebugContext* dbg) {
  for (size_t i = 0; i < num_reqs; ++i) {
    reqs[i].status = Guard("read", "", [&] {
      return reader_.Read(reqs[i].offset, reqs[i].len, options, &reqs[i].result, reqs[i].scratch,
                          dbg);
    });
  }
  return IOStatus::OK();
}

IOStatus TierRandomAccessFile::Prefetch(uint64_t offset, size_t n, const IOOptions& options,
                                        IODebugContext* dbg) {
  return Guard("prefetch", "", [&] { return reader_.Prefetch(offset, n, options, dbg); });
}

IOStatus TierSequentialFile::Read(size_t n, const IOOptions& options, Slice* result,
                                  char* scratch, IODebugContext* dbg) {
  IOStatus s = Guard("read", "", [&] { return reader_.Read(pos_, n, options, result, scratch, dbg); });
  if (s.ok()) pos_ += result->size();
  return s;
}

IOStatus TierSequentialFile::PositionedRead(uint64_t offset, size_t n, const IOOptions& options,
                                            Slice* result, char* scratch, IODebugContext* dbg) {
  return Guard("read", "", [&] { return reader_.Read(offset, n, options, result, scratch, dbg); });
}

IOStatus TierSequentialFile::Skip(uint64_t n) {
  pos_ += n;
  return IOStatus::OK();
}

// ------------------------------------------------------------------ writing

SegmentWriter::SegmentWriter(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                             const rocksdb::FileOptions& options)
    : store_(std::move(store)), entry_(std::move(entry)), options_(options) {
  store_->AddHandle(entry_.get());
  store_->AddWriter(entry_.get());
}

SegmentWriter::~SegmentWriter() {
  // RocksDB closes a file before dropping it and gets Close's status; this
  // one is a no-op then. A file dropped unclosed (after an error RocksDB
  // already has, or by a host program that never closes) has no caller left
  // to hear that its backing files would not close: reported.
  IOStatus s = Guard("close", "", [&] { return Close(); });
  if (!s.ok()) {
    store_->ReportError(StoreError::kDroppedFileClose,
                        "closing file " + std::to_string(entry_->id) + ", dropped without Close", s);
  }
  store_->DropHandle(entry_);
}

IOStatus SegmentWriter::Handle(int t, rocksdb::FSRandomRWFile** file) {
  if (!files_[t]) {
    IOStatus s = store_->EnsureDataFile(entry_.get(), t);
    // Buffered writes: direct-I/O writers hand us aligned buffers, but the
    // backing files are shared with the relocation path, which is buffered.
    if (s.ok()) {
      s = store_->base()->NewRandomRWFile(store_->tier(t).DataPath(entry_->id),
                                          store_->backing_options(), &files_[t], nullptr);
    }
    if (!s.ok()) return s;
  }
  *file = files_[t].get();
  return IOStatus::OK();
}

IOStatus SegmentWriter::Prepare(uint64_t seg, uint64_t end, uint64_t write_size, int hint) {
  Store& st = *store_;
  int t;
  PlacementRequest req;
  req.write_size = write_size;
  req.hints.lifetime = hint;
  IOStatus s = st.PlaceSegment(entry_.get(), seg, req, &t);
  if (s.ok()) s = st.ChargeUpTo(entry_.get(), seg, end);
  if (s.IsNoSpace()) {
    // The tier cannot grow this segment: move what it holds so far.
    s = st.RelocateSegment(entry_.get(), seg, st.ContentEnd(*entry_, seg), end, &t);
  }
  rocksdb::FSRandomRWFile* f = nullptr;
  if (s.ok()) s = Handle(t, &f);
  if (!s.ok()) {
    cur_seg_ = ~0ull;
    return s;
  }
  cur_seg_ = seg;
  cur_tier_ = t;
  cur_file_ = f;
  cur_charged_end_ = st.SegmentStart(seg) + entry_->segments.charged(seg);
  return IOStatus::OK();
}

IOStatus SegmentWriter::WritePiece(uint64_t offset, const Slice& piece, int hint) {
  Store& st = *store_;
  const uint64_t seg = st.SegmentOf(offset);
  const uint64_t end = offset + piece.size();
  IOStatus s;
  if (seg != cur_seg_ || end > cur_charged_end_) s = Prepare(seg, end, write_size_, hint);
  // A device may be full before our account says so (tiers sharing a disk, a
  // device smaller than configured): each tier that says ENOSPC is marked
  // full and the segment moves to the next tier with room. Relocation never
  // picks a tier marked full, so this ends after at most one try per tier.
  std::string tried;  // the tiers that said no, with what they said
  bool every_tier_tried = false;
  for (int attempt = 0; s.ok(); ++attempt) {
    const int t = cur_tier_;
    const int64_t start = st.tier(t).StartIo(st.TimesEveryIo());
    if (ReserveLow(t, piece.size())) {
      // Not ours to take: the rest of its device is meta/'s (meta_reserve.h).
      s = IOStatus::NoSpace("TierFS tier " + std::to_string(t) + " (" + st.tier(t).root +
                            "): the device's free space is down to the " +
                            std::to_string(MetaReserve::kMetaReserve >> 20) +
                            " MiB kept for meta/");
    } else {
      s = cur_file_->Write(offset, piece, IOOptions(), nullptr);
    }
    if (s.ok()) {
      uint64_t micros;
      int64_t done = st.tier(t).ModelWrite(entry_->id, offset, piece.size(), start,
                                           options_.use_direct_writes, &micros);
      pending_[t] = std::max(pending_[t], done);
      dirty_ |= uint8_t(1u << t);
      PendingStats& ps = stats_[t];
      ps.writes++;
      ps.bytes += piece.size();
      if (start != 0) RecordLatency(&ps.latency, micros);
      stats_mask_ |= uint8_t(1u << t);
      if (++unflushed_ >= 256) FlushStats();
      st.Observe(*entry_, seg, offset, piece.size(), IoType::kWrite, t, micros * 1000);
      return s;
    }
    if (!s.IsNoSpace()) break;
    st.tier(t).MarkDeviceFull();
    tried += (tried.empty() ? "tier " : "; tier ") + std::to_string(t) + ": " + s.ToString();
    if (attempt + 1 >= st.NumTiers()) {
      every_tier_tried = true;
      break;
    }
    int moved_to;
    s = st.RelocateSegment(entry_.get(), seg, st.ContentEnd(*entry_, seg), end, &moved_to);
    if (s.ok()) s = Prepare(seg, end, write_size_, hint);
  }
  // The segment stays where it is (its data intact, as the map says); the
  // next write places it again.
  cur_seg_ = ~0ull;
  if (!tried.empty() && s.IsNoSpace()) {
    // One error naming every tier tried and what each said, then why no
    // other was tried (the relocation's "no tier has room", with each
    // tier's account) unless every tier was.
    s = IOStatus::NoSpace("TierFS: no tier could take segment " + std::to_string(seg) +
                          " of file id " + std::to_string(entry_->id) + "; tried: " + tried +
                          (every_tier_tried ? std::string() : "; then: " + s.ToString()));
  }
  return s;
}

bool SegmentWriter::ReserveLow(int t, uint64_t bytes) {
  MetaReserve& reserve = store_->meta_reserve();
  if (!reserve.Watches(t)) return false;
  uint64_t& credit = reserve_credit_[t];
  if (credit < bytes) {
    const uint64_t take = std::max(bytes, kReserveCredit);
    if (!reserve.Low(t, take)) {
      credit += take;
    } else if (take == bytes || reserve.Low(t, bytes)) {
      return true;
    } else {
      credit += bytes;  // within a credit of the reserve: this write alone fits
    }
  }
  credit -= bytes;
  return false;
}

void SegmentWriter::FlushStats() {
  for (int t = 0; t < store_->NumTiers(); ++t) {
    if (!(stats_mask_ & (1u << t))) continue;
    store_->tier(t).AddWrites(stats_[t].writes, stats_[t].bytes, stats_[t].latency);
    stats_[t] = PendingStats();
  }
  stats_mask_ = 0;
  unflushed_ = 0;
}

IOStatus SegmentWriter::Write(uint64_t offset, const Slice& data, int hint) {
  if (closed_) return IOStatus::IOError("TierFS: write after close");
  if (store_->closed()) return store_->ClosedError("write", "");
  if (offset > kMaxFileSize || data.size() > kMaxFileSize - offset) {
    // Its segments would be beyond what recovery accepts (env/file_limits.h).
    return IOStatus::IOError("TierFS: a write of " + std::to_string(data.size()) +
                             " bytes at offset " + std::to_string(offset) + " to file id " +
                             std::to_string(entry_->id) + " passes the largest file TierFS holds (" +
                             std::to_string(kMaxFileSize >> 40) + " TiB)");
  }
  if (entry_->copies.load(std::memory_order_relaxed) != 0) {
    // Extra copies would go stale: the home alone takes writes.
    IOStatus s = store_->DropCopies(entry_.get());
    if (!s.ok()) return s;
  }
  uint64_t off = offset;
  const char* p = data.data();
  size_t left = data.size();
  write_size_ = data.size();  // the policies judge randomness by the whole write
  if (HotPages* hot = store_->hot_pages(); hot && hot->inherit() && entry_->kind == FileKind::kSst) {
    // A compaction's output inherits the heat of the input it just read.
    hot->copies().NoteOutput(hot->ThisThread(), entry_->id, offset, data.size());
  }
  while (left > 0) {
    size_t piece = size_t(std::min<uint64_t>(left, store_->SegmentLimit(store_->SegmentOf(off)) - off));
    IOStatus s = WritePiece(off, Slice(p, piece), hint);
    if (!s.ok()) return s;
    off += piece;
    p += piece;
    left -= piece;
    uint64_t cur = entry_->size.load();
    while (cur < off && !entry_->size.compare_exchange_weak(cur, off)) {
    }
  }
  return IOStatus::OK();
}

IOStatus SegmentWriter::Sync(bool full) {
  if (closed_) return IOStatus::IOError("TierFS: sync after close");
  if (store_->closed()) return store_->ClosedError("sync", "");
  FlushStats();
  store_->NoteEvent(TraceEvent::kSync, entry_->id, entry_->kind, 0, entry_->size.load());
  // The map first: synced data must be findable after a crash.
  IOStatus s = store_->SyncMetadataFor(*entry_);
  for (int t = 0; s.ok() && t < store_->NumTiers(); ++t) {
    if (!(dirty_ & (1u << t))) continue;
    const int64_t start = store_->tier(t).StartIo(/*every=*/true);
    s = full ? files_[t]->Fsync(IOOptions(), nullptr) : files_[t]->Sync(IOOptions(), nullptr);
    if (s.ok()) {
      store_->tier(t).AccountSync(pending_[t], start);
      dirty_ &= uint8_t(~(1u << t));
    }
  }
  return s;
}

IOStatus SegmentWriter::Truncate(uint64_t size) {
  if (store_->closed()) return store_->ClosedError("truncate", "");
  cur_seg_ = ~0ull;
  IOStatus dropped = store_->DropCopies(entry_.get());
  if (!dropped.ok()) return dropped;
  // A move copying the tail now would lengthen its destination's backing
  // file again after the cut, and once the move commits, recovery takes the
  // file's size from that home: cut while no move runs (it then sees the new
  // size).
  MutexLock no_moves(&entry_->move_mu);
  const uint8_t mask = entry_->data_file_mask.load();
  for (int t = 0; t < store_->NumTiers(); ++t) {
    if (!(mask & (1u << t))) continue;
    std::string path = store_->tier(t).DataPath(entry_->id);
    uint64_t cur = 0;
    IOStatus s = store_->base()->GetFileSize(path, IOOptions(), &cur, nullptr);
    if (s.ok() && cur > size) s = TruncatePath(path, size);
    if (!s.ok()) return s;
  }
  entry_->size = size;
  store_->NoteEvent(TraceEvent::kTruncate, entry_->id, entry_->kind, 0, size);
  return IOStatus::OK();
}

IOStatus SegmentWriter::Close() {
  if (closed_) return IOStatus::OK();
  closed_ = true;
  FlushStats();
  cur_seg_ = ~0ull;
  store_->DropWriter(entry_.get());
  IOStatus result;
  for (auto& f : files_) {
    if (!f) continue;
    IOStatus s = f->Close(IOOptions(), nullptr);
    if (result.ok()) result = s;
    f.reset();
  }
  return result;
}

IOStatus TierWritableFile::Append(const Slice& data, const IOOptions&, IODebugContext*) {
  MutexLock lock(&mu_);
  const uint64_t at = size_.load(std::memory_order_relaxed);
  IOStatus s = Guard("append", "", [&] {
    mu_.AssertHeld();  // Guard runs the call here, under mu_
    return writer_.Write(at, data, int(write_hint_));
  });
  if (s.ok()) size_.store(at + data.size(), std::memory_order_release);
  return s;
}

IOStatus TierWritableFile::PositionedAppend(const Slice& data, uint64_t offset, const IOOptions&,
                                            IODebugContext*) {
  MutexLock lock(&mu_);
  IOStatus s = Guard("write", "", [&] {
    mu_.AssertHeld();
    return writer_.Write(offset, data, int(write_hint_));
  });
  if (s.ok()) size_.store(offset + data.size(), std::memory_order_release);
  return s;
}

IOStatus TierWritableFile::Truncate(uint64_t size, const IOOptions&, IODebugContext*) {
  MutexLock lock(&mu_);
  IOStatus s = Guard("truncate", "", [&] {
    mu_.AssertHeld();
    return writer_.Truncate(size);
  });
  if (s.ok()) size_.store(size, std::memory_order_release);
  return s;
}

IOStatus TierWritableFile::Close(const IOOptions&, IODebugContext*) {
  MutexLock lock(&mu_);
  return Guard("close", "", [&] {
    mu_.AssertHeld();
    return writer_.Close();
  });
}

IOStatus TierWritableFile::Sync(const IOOptions&, IODebugContext*) {
  MutexLock lock(&mu_);
  return Guard("sync", "", [&] {
    mu_.AssertHeld();
    return writer_.Sync(false);
  });
}

IOStatus TierWritableFile::Fsync(const IOOptions&, IODebugContext*) {
  MutexLock lock(&mu_);
  return Guard("sync", "", [&] {
    mu_.AssertHeld();
    return writer_.Sync(true);
  });
}

}  // namespace tierfs
