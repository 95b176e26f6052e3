// cde: Cold Data Eviction (Matsui et al., "Design of Hybrid SSDs with Storage
// Class Memory and NAND Flash Memory", Proc. IEEE 2017), as harmonia.txt
// (section 3.3) describes it: hot or random data goes to the fast tier, cold or
// sequential data to the slow one, hotness judged from past access frequency
// and randomness from the request size; when the fast tier is full, the least
// recently used data is evicted to the next slower tier before the new data is
// placed (the eviction lru uses, lru_eviction.h). A new segment has no past of
// its own (RocksDB never rewrites a file), so its hotness is that of its
// stream: the column family and LSM level (else write-lifetime hint) of its
// file. The first rule that applies places the segment:
//   1. a WAL goes to tier 0 (small synchronous appends on the commit path);
//   2. access hint hot, read- or write-intensive: tier 0; cold or archival:
//      the slowest tier; then temperature hot: tier 0, cold: the slowest tier;
//   3. a write smaller than random_size is random: tier 0;
//   4. a stream whose recent user reads per recently placed byte are at least
//      hot_factor times the average over all streams, with at least min_reads
//      reads, is hot: tier 0;
//   5. anything else is cold and sequential: the slowest tier.
// random_size defaults to 64 KiB because of RocksDB's own I/O sizes: WAL
// records and metadata are appended in pieces of bytes to a few KiB, while
// table and blob files are written through WritableFileWriter's buffer, which
// starts at 64 KiB and grows to writable_file_max_buffer_size (1 MiB), so only
// a file's tail is written in a smaller piece. Reads and placed bytes per
// stream are halved every half_life requests. Parameters: random_size (64K),
// hot_factor (1), min_reads (32), half_life (65536 requests).
#include <algorithm>
#include <atomic>

#include "agents/lru_eviction.h"
#include "agents/policies.h"

namespace tierfs {
namespace {

class Cde : public Policy {
 public:
  explicit Cde(ParamReader& params)
      : random_size_(params.Size("random_size", 64 << 10)),
        hot_factor_(params.Number("hot_factor", 1.0)),
        min_reads_(std::max(0.0, params.Number("min_reads", 32))),
        half_life_(uint64_t(std::max(1.0, params.Number("half_life", 1 << 16)))) {}

  const char* Name() const override { return "cde"; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    const int fast = 0;
    const int slow = view.NumTiers() - 1;
    if (request.kind == FileKind::kWal) return fast;
    const int stream = StreamOf(request.hints);
    MaybeDecay(request.seq);
    files_[Slot(request.file_id)].store(FileKey(request.file_id) | uint64_t(stream + 1),
                                        std::memory_order_relaxed);
    streams_[stream].bytes.fetch_add(request.bytes, std::memory_order_relaxed);
    total_bytes_.fetch_add(request.bytes, std::memory_order_relaxed);

    switch (request.hints.access) {
      case AccessHint::kHot:
      case AccessHint::kReadIntensive:
      case AccessHint::kWriteIntensive: return fast;
      case AccessHint::kCold:
      case AccessHint::kArchival: return slow;
      case AccessHint::kNone: break;
    }
    if (request.hints.temperature == Temperature::kHot) return fast;
    if (request.hints.temperature == Temperature::kCold) return slow;
    if (request.write_size < random_size_) return fast;
    return HotStream(stream) ? fast : slow;
  }

  void OnRequest(const Request& request, uint64_t) override {
    MaybeDecay(request.seq);
    if (request.type != IoType::kUserRead) return;
    const uint64_t entry = files_[Slot(request.file_id)].load(std::memory_order_relaxed);
    if ((entry & ~kStreamMask) != FileKey(request.file_id) || (entry & kStreamMask) == 0) return;
    streams_[(entry & kStreamMask) - 1].reads.fetch_add(1, std::memory_order_relaxed);
    total_reads_.fetch_add(1, std::memory_order_relaxed);
  }

  bool EvictsOnPlacement() const override { return true; }
  void Evict(int tier, uint64_t bytes, const StorageView& view,
             std::vector<Move>* moves) override {
    eviction_.Evict(tier, bytes, view, moves);
  }

 private:
  // A stream is (column family mod kFamilies) x (level 0..7, else lifetime
  // hint 2..5, else unknown).
  static constexpr int kLevelClasses = 8 + 4 + 1;
  static constexpr int kFamilies = 8;
  static constexpr int kStreams = kLevelClasses * kFamilies;
  // Files remembered (their stream, for OnRequest): a direct-mapped table, so
  // memory is fixed; a file whose slot another took loses its later reads.
  static constexpr int kFileSlotBits = 12;
  static constexpr uint64_t kStreamMask = 0xff;  // low byte: stream + 1, 0 empty

  struct Stream {
    std::atomic<uint64_t> reads{0};  // user reads of its files, decayed
    std::atomic<uint64_t> bytes{0};  // bytes placed for its files, decayed
  };

  static int StreamOf(const Hints& hints) {
    int level_class = kLevelClasses - 1;
    if (hints.level >= 0) {
      level_class = std::min(hints.level, 7);
    } else if (hints.lifetime >= 2 && hints.lifetime <= 5) {
      level_class = 8 + hints.lifetime - 2;
    }
    return int(hints.column_family % kFamilies) * kLevelClasses + level_class;
  }
  static size_t Slot(uint64_t file_id) {
    return size_t((file_id * 0x9E3779B97F4A7C15ull) >> (64 - kFileSlotBits));
  }
  static uint64_t FileKey(uint64_t file_id) { return file_id << 8; }

  bool HotStream(int stream) const {
    const double reads = double(streams_[stream].reads.load(std::memory_order_relaxed));
    if (reads < min_reads_ || reads == 0) return false;
    const double bytes = double(streams_[stream].bytes.load(std::memory_order_relaxed));
    const double all_reads = double(total_reads_.load(std::memory_order_relaxed));
    const double all_bytes = double(total_bytes_.load(std::memory_order_relaxed));
    // reads / bytes >= hot_factor * all_reads / all_bytes, without dividing by 0.
    return reads * all_bytes >= hot_factor_ * all_reads * bytes;
  }

  // Halves every counter once per half_life requests crossed. One thread wins
  // the epoch; increments racing with the halving are kept (CAS).
  void MaybeDecay(uint64_t seq) {
    const uint64_t epoch = seq / half_life_;
    uint64_t seen = epoch_.load(std::memory_order_relaxed);
    if (epoch <= seen) return;
    if (!epoch_.compare_exchange_strong(seen, epoch, std::memory_order_relaxed)) return;
    const unsigned shift = unsigned(std::min<uint64_t>(epoch - seen, 63));
    for (Stream& s : streams_) {
      Halve(&s.reads, shift);
      Halve(&s.bytes, shift);
    }
    Halve(&total_reads_, shift);
    Halve(&total_bytes_, shift);
  }
  static void Halve(std::atomic<uint64_t>* v, unsigned shift) {
    uint64_t old = v->load(std::memory_order_relaxed);
    while (!v->compare_exchange_weak(old, old >> shift, std::memory_order_relaxed)) {
    }
  }

  // Constant after construction.
  const uint64_t random_size_;
  const double hot_factor_;
  const double min_reads_;
  const uint64_t half_life_;

  // Shared by Place and OnRequest: atomics, relaxed (statistics).
  Stream streams_[kStreams];
  std::atomic<uint64_t> total_reads_{0};
  std::atomic<uint64_t> total_bytes_{0};
  std::atomic<uint64_t> epoch_{0};
  std::atomic<uint64_t> files_[size_t(1) << kFileSlotBits] = {};

  LruEviction eviction_;  // Evict runs one at a time
};

}  // namespace

std::unique_ptr<Policy> NewCdePolicy(ParamReader& params) { return std::make_unique<Cde>(params); }

}  // namespace tierfs
