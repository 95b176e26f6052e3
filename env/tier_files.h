// The file classes RocksDB gets from TierFS. Each I/O is split at segment
// boundaries and each piece goes to the backing file of the tier that holds
// that segment, at the same offset.
#pragma once

#include <atomic>
#include <memory>

#include <rocksdb/file_system.h>

#include "core/config.h"
#include "env/guard.h"
#include "env/store.h"
#include "util/mutex.h"

namespace tierfs {

// Reads of one file, shared by the random-access and sequential classes.
// Backing files are opened on first use per tier (the file's current tiers at
// once), so the read path never opens or stats anything afterwards.
class HotPages;

class SegmentReader {
 public:
  // `sequential`: a sequential file (WAL and MANIFEST replay): its reads are
  // not the application's.
  SegmentReader(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                const rocksdb::FileOptions& options, bool sequential = false);
  ~SegmentReader();

  // Reads up to n bytes at offset; fewer at the end of the file. Bytes of a
  // segment never written read as zeros.
  rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                         rocksdb::Slice* result, char* scratch, rocksdb::IODebugContext* dbg);
  rocksdb::IOStatus Prefetch(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg);
  bool use_direct_io() const { return options_.use_direct_reads; }
  size_t GetRequiredBufferAlignment() const { return kBlockAlignment; }
  rocksdb::IOStatus InvalidateCache(size_t offset, size_t length);
  // RocksDB's access-pattern advice (RANDOM for table files turns off the
  // kernel's readahead), passed to every backing file, now and when opened.
  void Hint(rocksdb::FSRandomAccessFile::AccessPattern pattern);

  static constexpr size_t kBlockAlignment = 4096;

 private:
  rocksdb::IOStatus Handle(int tier, rocksdb::FSRandomAccessFile** file);
  // Reads [offset, min(offset + n, size)) from the homes (and segment
  // copies), piece by piece, into scratch. `user`: the read's origin, as
  // Read classified it once (read_origin.h).
  rocksdb::IOStatus ReadRange(uint64_t offset, size_t n, uint64_t size,
                              const rocksdb::IOOptions& options, bool user, char* scratch,
                              rocksdb::IODebugContext* dbg);
  // The store's side of a user read through the hot-page copies
  // (engine/copy_read.h): its bytes, time and bookkeeping.
  class CopyIo;
  // Whether a segment of [offset, end) is read from tier 0: such bytes need
  // no copy (and a copy made before the home moved up goes cold and is
  // dropped).
  bool ReadFromTierZero(uint64_t offset, uint64_t end) const;
  // A read of [offset, end) served by copies, from `start` to `done`: the
  // statistics and the policy see tier 0 serve it, piece by piece.
  void ObserveCopyHit(uint64_t offset, uint64_t end, const rocksdb::IOOptions& options,
                      int64_t start, int64_t done);
  // Reads one piece that lies within a single segment into scratch.
  rocksdb::IOStatus ReadPiece(uint64_t offset, size_t n, uint64_t file_size,
                              const rocksdb::IOOptions& options, bool user, char* scratch,
                              rocksdb::IODebugContext* dbg);

  const std::shared_ptr<Store> store_;
  const std::shared_ptr<FileEntry> entry_;
  const rocksdb::FileOptions options_;
  const bool sequential_;
  Mutex open_mu_;
  std::atomic<rocksdb::FSRandomAccessFile*> files_[kMaxTiers] = {};
  std::unique_ptr<rocksdb::FSRandomAccessFile> owned_[kMaxTiers] GUARDED_BY(open_mu_);
  bool hinted_ GUARDED_BY(open_mu_) = false;
  rocksdb::FSRandomAccessFile::AccessPattern hint_ GUARDED_BY(open_mu_) =
      rocksdb::FSRandomAccessFile::kNormal;
};

class TierRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  TierRandomAccessFile(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                       const rocksdb::FileOptions& options)
      : reader_(std::move(store), std::move(entry), options) {}

  rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                         rocksdb::Slice* result, char* scratch,
                         rocksdb::IODebugContext* dbg) const override;
  rocksdb::IOStatus MultiRead(rocksdb::FSReadRequest* reqs, size_t num_reqs,
                              const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Prefetch(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  bool use_direct_io() const override { return reader_.use_direct_io(); }
  size_t GetRequiredBufferAlignment() const override {
    return reader_.GetRequiredBufferAlignment();
  }
  rocksdb::IOStatus InvalidateCache(size_t offset, size_t length) override {
    return reader_.InvalidateCache(offset, length);
  }
  void Hint(AccessPattern pattern) override { reader_.Hint(pattern); }

 private:
  mutable SegmentReader reader_;
};

class TierSequentialFile : public rocksdb::FSSequentialFile {
 public:
  TierSequentialFile(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                     const rocksdb::FileOptions& options)
      : reader_(std::move(store), std::move(entry), options, /*sequential=*/true) {}

  rocksdb::IOStatus Read(size_t n, const rocksdb::IOOptions& options, rocksdb::Slice* result,
                         char* scratch, rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus PositionedRead(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                                   rocksdb::Slice* result, char* scratch,
                                   rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Skip(uint64_t n) override;
  bool use_direct_io() const override { return reader_.use_direct_io(); }
  size_t GetRequiredBufferAlignment() const override {
    return reader_.GetRequiredBufferAlignment();
  }
  rocksdb::IOStatus InvalidateCache(size_t offset, size_t length) override {
    return reader_.InvalidateCache(offset, length);
  }

 private:
  SegmentReader reader_;
  uint64_t pos_ = 0;
};

// Writes of one file: appends, positioned writes (direct I/O and RandomRW),
// truncation, and syncs that make the segment map durable before the data.
class SegmentWriter {
 public:
  SegmentWriter(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                const rocksdb::FileOptions& options);
  // Closes the file if no one did; a failure then is reported
  // (StoreError::kDroppedFileClose), there being no caller to hear it.
  ~SegmentWriter();

  rocksdb::IOStatus Write(uint64_t offset, const rocksdb::Slice& data, int lifetime_hint);
  rocksdb::IOStatus Sync(bool full);
  rocksdb::IOStatus Truncate(uint64_t size);
  rocksdb::IOStatus Close();
  FileEntry* entry() const { return entry_.get(); }
  Store* store() const { return store_.get(); }

 private:
  rocksdb::IOStatus Handle(int tier, rocksdb::FSRandomRWFile** file);
  rocksdb::IOStatus WritePiece(uint64_t offset, const rocksdb::Slice& piece, int lifetime_hint);
  // The slow path of WritePiece: placement, charge, relocation, handle.
  rocksdb::IOStatus Prepare(uint64_t seg, uint64_t end, uint64_t write_size, int lifetime_hint);
  // Moves this writer's counts into the tiers' statistics.
  void FlushStats();
  // MetaReserve::Low for a write of `bytes` to tier t, asked once per
  // kReserveCredit: the room is taken from the reserve's account in credits
  // that the writer spends without an atomic add per write.
  bool ReserveLow(int t, uint64_t bytes);
  static constexpr uint64_t kReserveCredit = 64 << 10;

  const std::shared_ptr<Store> store_;
  const std::shared_ptr<FileEntry> entry_;
  const rocksdb::FileOptions options_;
  std::unique_ptr<rocksdb::FSRandomRWFile> files_[kMaxTiers];
  uint8_t dirty_ = 0;  // tiers written since the last sync
  int64_t pending_[kMaxTiers] = {};  // per tier: when the emulated device completes our writes

  // The segment written last, so appends inside it skip placement: its tier,
  // backing file, and the file offset its charge reaches. Only this writer
  // changes a segment of a file it writes (a migration must not move it).
  uint64_t cur_seg_ = ~0ull;
  int cur_tier_ = -1;
  rocksdb::FSRandomRWFile* cur_file_ = nullptr;
  uint64_t cur_charged_end_ = 0;
  uint64_t write_size_ = 0;  // of the Write() in progress
  uint64_t reserve_credit_[kMaxTiers] = {};  // bytes taken from MetaReserve, not yet written

  // Counts not yet in the tiers' statistics (one atomic merge per batch).
  struct PendingStats {
    uint64_t writes = 0, bytes = 0;
    LatencyHistogram latency;
  };
  PendingStats stats_[kMaxTiers];
  uint8_t stats_mask_ = 0;
  uint32_t unflushed_ = 0;
  bool closed_ = false;
};

class TierWritableFile : public rocksdb::FSWritableFile {
 public:
  TierWritableFile(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                   const rocksdb::FileOptions& options, uint64_t initial_size)
      : rocksdb::FSWritableFile(options),
        writer_(std::move(store), std::move(entry), options),
        direct_(options.use_direct_writes),
        size_(initial_size) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo&,
                           rocksdb::IODebugContext* dbg) override {
    return Append(data, options, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo&,
                                     rocksdb::IODebugContext* dbg) override {
    return PositionedAppend(data, offset, options, dbg);
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Close(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Flush(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();  // every Append is already in the backing file
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options,
                         rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override;
  // RocksDB's SyncWAL and FlushWAL(true) sync a WAL from another thread while
  // its writer appends, and refuse a file that is not thread-safe here. The
  // calls of this file are serialized (mu_): a Sync waits for the Append in
  // progress, and the next Append waits for the Sync to return.
  bool IsSyncThreadSafe() const override { return true; }
  bool use_direct_io() const override { return direct_; }
  size_t GetRequiredBufferAlignment() const override {
    return SegmentReader::kBlockAlignment;
  }
  uint64_t GetFileSize(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return size_.load(std::memory_order_acquire);
  }
  // Preallocation is dropped: forwarded to a backing file it would allocate
  // blocks on a tier that may never hold the segment, breaking the account.
  rocksdb::IOStatus Allocate(uint64_t, uint64_t, const rocksdb::IOOptions&,
                             rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }

 private:
  // Serializes every call that writes, syncs or closes; held from Append
  // through placement and eviction moves: the outermost of the store's locks
  // (env/store.h).
  Mutex mu_ ACQUIRED_BEFORE(FileEntry::move_mu);
  SegmentWriter writer_ GUARDED_BY(mu_);
  const bool direct_;
  std::atomic<uint64_t> size_;  // written under mu_
};

class TierRandomRWFile : public rocksdb::FSRandomRWFile {
 public:
  TierRandomRWFile(std::shared_ptr<Store> store, std::shared_ptr<FileEntry> entry,
                   const rocksdb::FileOptions& options)
      : writer_(store, entry, options), reader_(store, entry, options),
        direct_(options.use_direct_reads) {}

  bool use_direct_io() const override { return direct_; }
  size_t GetRequiredBufferAlignment() const override {
    return SegmentReader::kBlockAlignment;
  }
  rocksdb::IOStatus Write(uint64_t offset, const rocksdb::Slice& data,
                          const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Guard("write", "", [&] { return writer_.Write(offset, data, 0); });
  }
  rocksdb::IOStatus Read(uint64_t offset, size_t n, const rocksdb::IOOptions& options,
                         rocksdb::Slice* result, char* scratch,
                         rocksdb::IODebugContext* dbg) const override {
    return Guard("read", "", [&] { return reader_.Read(offset, n, options, result, scratch, dbg); });
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return Guard("sync", "", [&] { return writer_.Sync(false); });
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return Guard("sync", "", [&] { return writer_.Sync(true); });
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return Guard("close", "", [&] { return writer_.Close(); });
  }

 private:
  SegmentWriter writer_;
  mutable SegmentReader reader_;
  const bool direct_;
};

}  // namespace tierfs
