#include "env/tier_files.h"

#include <cstring>

#include "env/guard.h"
#include "env/posix_util.h"
#include "env/read_gate.h"

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
  // error here surfaces again on the first read of that tier.
  for (int t = 0; t < store_->NumTiers(); ++t) {
    rocksdb::FSRandomAccessFile* f;
    if (mask & (1u << t)) Handle(t, &f).PermitUncheckedError();
  }
}

SegmentReader::~SegmentReader() { store_->DropHandle(entry_); }

IOStatus SegmentReader::Handle(int t, rocksdb::FSRandomAccessFile** file) {
  *file = files_[t].load(std::memory_order_acquire);
  if (*file) return IOStatus::OK();
  std::lock_guard<std::mutex> lock(open_mu_);
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
  std::lock_guard<std::mutex> lock(open_mu_);
  hinted_ = true;
  hint_ = pattern;
  for (auto& f : owned_) {
    if (f) f->Hint(pattern);
  }
}

IOStatus SegmentReader::ReadPiece(uint64_t offset, size_t n, uint64_t file_size,
                                  const IOOptions& options, char* scratch,
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
    start = DeviceModel::NowNanos();
    s = f->Read(offset, n, options, &got, scratch, dbg);
    if (!s.ok()) return s;
    if (got.data() != scratch) memmove(scratch, got.data(), got.size());
  }
  if (got.size() < valid) memset(scratch + got.size(), 0, valid - got.size());
  // Compaction and flush read at IO_LOW/IO_HIGH, the application at IO_USER
  // or IO_TOTAL (the default); recovery reads files sequentially.
  const bool user = !sequential_ && options.rate_limiter_priority >= rocksdb::Env::IO_USER;
  Store& st = *store_;
  int64_t done = st.tier(t).AccountRead(entry_->id, offset, got.size(), start, user);
  st.Observe(*entry_, seg, offset, got.size(), user ? IoType::kUserRead : IoType::kBackgroundRead,
             t, uint64_t(done - start), TracePriority(options.rate_limiter_priority));
  return IOStatus::OK();
}

IOStatus SegmentReader::Read(uint64_t offset, size_t n, const IOOptions& options, Slice* result,
                             char* scratch, IODebugContext* dbg) {
  // After Close another store may own the tiers and have moved the data.
  if (store_->closed()) return store_->ClosedError("read", "");
  const uint64_t size = entry_->size.load(std::memory_order_acquire);
  if (offset >= size || n == 0) {
    *result = Slice(scratch, 0);
    return IOStatus::OK();
  }
  // Pieces cover the requested range (kept whole for direct-I/O alignment);
  // the result stops at the end of the file.
  const uint64_t end = offset + n;
  uint64_t off = offset;
  while (off < end && off < size) {
    uint64_t piece_end = std::min(end, store_->SegmentLimit(store_->SegmentOf(off)));
    IOStatus s = ReadPiece(off, size_t(piece_end - off), size, options, scratch + (off - offset), dbg);
    if (!s.ok()) return s;
    off = piece_end;
  }
  *result = Slice(scratch, size_t(std::min(end, size) - offset));
  return IOStatus::OK();
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
  // one is a no-op then. Otherwise the file is dropped after an error RocksDB
  // already has, and closing backing files only releases descriptors (every
  // write reached the OS; durability is Sync's).
  Guard("close", "", [&] { return Close(); }).PermitUncheckedError();
  store_->DropHandle(entry_);
}

IOStatus SegmentWriter::Handle(int t, rocksdb::FSRandomRWFile** file) {
  if (!files_[t]) {
    IOStatus s = store_->EnsureDataFile(entry_.get(), t);
    // Buffered writes: direct-I/O writers hand us aligned buffers, but the
    // backing files are shared with the relocation path, which is buffered.
    rocksdb::FileOptions fo;
    if (s.ok()) s = store_->base()->NewRandomRWFile(store_->tier(t).DataPath(entry_->id), fo,
                                                    &files_[t], nullptr);
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
  for (int attempt = 0; s.ok(); ++attempt) {
    const int t = cur_tier_;
    int64_t start = DeviceModel::NowNanos();
    s = cur_file_->Write(offset, piece, IOOptions(), nullptr);
    if (s.ok()) {
      uint64_t micros;
      int64_t done = st.tier(t).ModelWrite(entry_->id, offset, piece.size(), start,
                                           options_.use_direct_writes, &micros);
      pending_[t] = std::max(pending_[t], done);
      dirty_ |= uint8_t(1u << t);
      PendingStats& ps = stats_[t];
      ps.writes++;
      ps.bytes += piece.size();
      RecordLatency(&ps.latency, micros);
      stats_mask_ |= uint8_t(1u << t);
      if (++unflushed_ >= 256) FlushStats();
      st.Observe(*entry_, seg, offset, piece.size(), IoType::kWrite, t, micros * 1000);
      break;
    }
    if (!s.IsNoSpace() || attempt > 0) break;
    // The device is full before our account says so (tiers sharing a disk,
    // or a smaller device): stop placing there and move this segment.
    st.tier(t).MarkDeviceFull();
    int moved_to;
    s = st.RelocateSegment(entry_.get(), seg, st.ContentEnd(*entry_, seg), end, &moved_to);
    if (s.ok()) s = Prepare(seg, end, write_size_, hint);
  }
  return s;
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
  if (entry_->copies.load(std::memory_order_relaxed) != 0) {
    // Extra copies would go stale: the home alone takes writes.
    IOStatus s = store_->DropCopies(entry_.get());
    if (!s.ok()) return s;
  }
  uint64_t off = offset;
  const char* p = data.data();
  size_t left = data.size();
  write_size_ = data.size();  // the policies judge randomness by the whole write
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
  if (store_->closed()) return store_->ClosedError("sync", "");
  FlushStats();
  store_->NoteEvent(TraceEvent::kSync, entry_->id, entry_->kind, 0, entry_->size.load());
  // The map first: synced data must be findable after a crash.
  IOStatus s = store_->SyncMetadataFor(*entry_);
  for (int t = 0; s.ok() && t < store_->NumTiers(); ++t) {
    if (!(dirty_ & (1u << t))) continue;
    int64_t start = DeviceModel::NowNanos();
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
  // file again after the cut, and recovery takes a file's size from its
  // longest backing file: cut while no move runs (it then sees the new size).
  std::lock_guard<std::mutex> no_moves(entry_->move_mu);
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
  IOStatus s = Guard("append", "", [&] { return writer_.Write(size_, data, int(write_hint_)); });
  if (s.ok()) size_ += data.size();
  return s;
}

IOStatus TierWritableFile::PositionedAppend(const Slice& data, uint64_t offset, const IOOptions&,
                                            IODebugContext*) {
  IOStatus s = Guard("write", "", [&] { return writer_.Write(offset, data, int(write_hint_)); });
  if (s.ok()) size_ = offset + data.size();
  return s;
}

IOStatus TierWritableFile::Truncate(uint64_t size, const IOOptions&, IODebugContext*) {
  IOStatus s = Guard("truncate", "", [&] { return writer_.Truncate(size); });
  if (s.ok()) size_ = size;
  return s;
}

IOStatus TierWritableFile::Close(const IOOptions&, IODebugContext*) {
  return Guard("close", "", [&] { return writer_.Close(); });
}

IOStatus TierWritableFile::Sync(const IOOptions&, IODebugContext*) {
  return Guard("sync", "", [&] { return writer_.Sync(false); });
}

IOStatus TierWritableFile::Fsync(const IOOptions&, IODebugContext*) {
  return Guard("sync", "", [&] { return writer_.Sync(true); });
}

}  // namespace tierfs
