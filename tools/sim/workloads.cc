// Synthetic workloads (see workloads.h). Every workload shares one model of
// time, request type and size, taken from its Table-5 row:
//   - inter-request times are exponential around the row's mean;
//   - each request is a write with the row's write fraction (YCSB-F pairs
//     reads with writes, see below);
//   - sizes are 4 KiB plus a geometric number of further pages, capped at
//     1 MiB, the geometric's parameter solved so the mean is the row's: many
//     small requests and a long tail of large ones.
// Where requests go is the family's (the classes below say how and why). The
// skewed families share one phase behaviour: every kShiftEvery requests of a
// stream, each of its hottest ranks moves with probability kShiftChance to a
// colder place, so a policy that keeps learning beats one that learned once.
//
// Randomness is std::mt19937_64 (its output is fixed by the standard) with our
// own distributions, so a seed gives the same records on every library.
#include "tools/sim/workloads.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "util/splitmix64.h"
#include "util/zipfian.h"

namespace tierfs {
namespace sim {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr uint64_t kPage = 4 * kKiB;
constexpr uint64_t kMaxRequest = 1 * kMiB;
// Below this the layouts below have no room for a largest request per area.
constexpr uint64_t kMinFootprint = 16 * kMiB;
// The paper's phase-change benchmark switches workload every 5000 requests.
constexpr uint64_t kPhaseChangeRequests = 5000;

// Hot-set movement shared by the skewed families (see the file comment): the
// hottest 1/kHotDivisor of the ranks are the hot set.
constexpr uint64_t kShiftEvery = 10000;
constexpr uint64_t kHotDivisor = 16;
constexpr double kShiftChance = 0.25;

uint64_t AlignDown(uint64_t bytes) { return bytes / kPage * kPage; }

// The seed of constituent `index` of a mix or phase benchmark: distinct
// streams for distinct constituents, all fixed by the benchmark's seed.
uint64_t DeriveSeed(uint64_t seed, uint64_t index) {
  return SplitMix64Hash(seed ^ SplitMix64Hash(index + 1));
}

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(SplitMix64Hash(seed)) {}

  // Uniform in [0, 1), 53 bits.
  double Uniform() { return double(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n), n > 0 (multiply-shift; its bias, below n / 2^64, does
  // not matter here).
  uint64_t Below(uint64_t n) {
    return uint64_t((static_cast<unsigned __int128>(engine_()) * n) >> 64);
  }
  bool Chance(double p) { return Uniform() < p; }
  double Exponential(double mean) { return -mean * std::log1p(-Uniform()); }
  // Failures before the first success when each trial fails with
  // probability q, given log(q) < 0.
  double Geometric(double log_q) { return std::floor(std::log1p(-Uniform()) / log_q); }
  template <typename T>
  void Shuffle(std::vector<T>* v) {
    for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Below(i)]);
  }

 private:
  std::mt19937_64 engine_;
};

// Request sizes: 1 + a geometric number of pages, capped at max_bytes.
class SizeDistribution {
 public:
  SizeDistribution(double mean_bytes, uint64_t max_bytes) : max_pages_(max_bytes / kPage) {
    double target = std::clamp(mean_bytes / kPage, 1.0, 0.99 * double(max_pages_));
    // The capped mean, (1 - q^M) / (1 - q), grows with q: bisect for it.
    double lo = 0, hi = 1;
    for (int i = 0; i < 100; ++i) {
      double q = (lo + hi) / 2;
      double mean = (1 - std::pow(q, double(max_pages_))) / (1 - q);
      (mean < target ? lo : hi) = q;
    }
    log_q_ = lo > 0 ? std::log(lo) : 0;
  }

  uint64_t Sample(Random* rng) const {
    if (log_q_ == 0) return kPage;  // a mean of one page: every request is one page
    double extra = rng->Geometric(log_q_);
    return extra >= double(max_pages_ - 1) ? max_pages_ * kPage : (1 + uint64_t(extra)) * kPage;
  }

 private:
  uint64_t max_pages_;
  double log_q_;
};

// A zipfian rank in [0, n), rank 0 the most popular: YCSB's generator
// (util/zipfian.h) on this stream's randomness. Its formula can round up to n
// itself for a uniform number within a few ulps of 1: n - 1 then.
uint64_t SampleRank(const Zipfian& zipf, Random* rng) {
  return uint64_t(std::min(zipf.Rank(rng->Uniform()), zipf.items() - 1));
}

// Which place (region, extent, item) holds each popularity rank. It starts as
// a random permutation so that hot places are scattered over the space.
class RankMap {
 public:
  RankMap(uint64_t n, Random* rng) : places_(n) {
    for (uint64_t i = 0; i < n; ++i) places_[i] = uint32_t(i);
    rng->Shuffle(&places_);
  }

  uint64_t Place(uint64_t rank) const { return places_[rank]; }

  // The phase behaviour: each hot rank moves, with probability kShiftChance,
  // to the place of a random colder rank, which takes its place in exchange.
  void ShiftHot(Random* rng) {
    uint64_t n = places_.size();
    uint64_t hot = std::max<uint64_t>(1, n / kHotDivisor);
    if (n <= hot) return;
    for (uint64_t rank = 0; rank < hot; ++rank) {
      if (rng->Chance(kShiftChance)) std::swap(places_[rank], places_[hot + rng->Below(n - hot)]);
    }
  }

  // Gives `rank` the place `place`; returns the place it had.
  uint64_t Replace(uint64_t rank, uint64_t place) {
    uint64_t old = places_[rank];
    places_[rank] = uint32_t(place);
    return old;
  }

 private:
  std::vector<uint32_t> places_;
};

// A page-aligned offset for a request of `size` bytes starting at a random
// page of the region [region_begin, region_begin + region): moved back so the
// request stays in the region if it fits there, else in the area (which ends
// at area_end).
uint64_t OffsetInRegion(uint64_t region_begin, uint64_t region, uint64_t area_end,
                        uint64_t size, Random* rng) {
  uint64_t offset = region_begin + rng->Below(region / kPage) * kPage;
  uint64_t limit = size <= region ? region_begin + region : area_end;
  return std::min(offset, limit - size);
}

// Requests over [begin, end) cut into regions: a zipfian rank picks the
// region (through a RankMap, so the hot regions can move), a uniform page
// within it the offset.
class SkewedArea {
 public:
  SkewedArea(uint64_t begin, uint64_t end, uint64_t region, double theta, Random* rng)
      : begin_(begin),
        end_(end),
        region_(std::min(region, end - begin)),
        zipf_(int64_t((end - begin) / region_), theta),
        ranks_((end - begin) / region_, rng) {}

  uint64_t Offset(uint64_t size, Random* rng) const {
    uint64_t place = ranks_.Place(SampleRank(zipf_, rng));
    return OffsetInRegion(begin_ + place * region_, region_, end_, size, rng);
  }
  void ShiftHot(Random* rng) { ranks_.ShiftHot(rng); }

 private:
  uint64_t begin_;
  uint64_t end_;
  uint64_t region_;
  Zipfian zipf_;
  RankMap ranks_;
};

// A sequential stream over [begin, end): each request starts where the
// previous one ended, and the stream wraps to begin when the next would not fit.
class SequentialArea {
 public:
  SequentialArea(uint64_t begin, uint64_t end) : begin_(begin), end_(end), next_(begin) {}

  uint64_t Offset(uint64_t size) {
    if (next_ + size > end_) next_ = begin_;
    uint64_t offset = next_;
    next_ += size;
    return offset;
  }
  // The end of the latest request (begin before any).
  uint64_t next() const { return next_; }

 private:
  uint64_t begin_;
  uint64_t end_;
  uint64_t next_;
};

enum class Family {
  kSystorLun,
  kRocksDb,
  kYcsbZipfian,
  kYcsbLatest,
  kYcsbScan,
  kYcsbReadModifyWrite,
  kMlperf,
};

struct Spec {
  WorkloadProfile profile;
  Family family;
  // Mean write size over mean read size (the mix of both keeps the row's mean).
  double write_size_ratio;
  // MLPerf: bytes of one dataset file. Unused by the others.
  uint64_t file_bytes;
};

// Table 5 in its order, then YCSB-A. Every YCSB row is about half reads: the
// traces are block I/O under the KV store, where the WAL, flushes and
// compactions add writes even to read-only YCSB-C; we reproduce the rows as
// published.
const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = {
      {{"LUN0", "SYSTOR17", 0.2, 31.7, 1163.9}, Family::kSystorLun, 1, 0},
      {{"LUN1", "SYSTOR17", 0.3, 34.2, 1864.1}, Family::kSystorLun, 1, 0},
      {{"LUN2", "SYSTOR17", 7.6, 31.1, 1418.9}, Family::kSystorLun, 1, 0},
      {{"LUN3", "SYSTOR17", 3.5, 42.7, 734.5}, Family::kSystorLun, 1, 0},
      {{"LUN4", "SYSTOR17", 0.5, 26.3, 823.1}, Family::kSystorLun, 1, 0},
      // Compaction and flush writes are larger than point-lookup reads.
      {{"ssd-00", "RocksDB", 79.9, 108.9, 66.4}, Family::kRocksDb, 2, 0},
      {{"ssd-01", "RocksDB", 73.5, 75.1, 40.7}, Family::kRocksDb, 2, 0},
      {{"ssd-02", "RocksDB", 79.9, 7.5, 3.3}, Family::kRocksDb, 2, 0},
      {{"ssd-03", "RocksDB", 79.9, 9.5, 3.5}, Family::kRocksDb, 2, 0},
      {{"ssd-04", "RocksDB", 79.9, 7.8, 3.6}, Family::kRocksDb, 2, 0},
      {{"YCSB-B", "YCSB", 51.3, 45.9, 9.3}, Family::kYcsbZipfian, 1, 0},
      {{"YCSB-C", "YCSB", 47.6, 54.6, 6.5}, Family::kYcsbZipfian, 1, 0},
      {{"YCSB-D", "YCSB", 55.9, 36.1, 8.5}, Family::kYcsbLatest, 1, 0},
      {{"YCSB-E", "YCSB", 52.1, 46.6, 9.6}, Family::kYcsbScan, 1, 0},
      // Equal sizes: the write of a read-modify-write repeats its read's.
      {{"YCSB-F", "YCSB", 49.5, 53.1, 6.6}, Family::kYcsbReadModifyWrite, 1, 0},
      // MLPerf Storage's ResNet50 reads TFRecord shards (~140 MB, scaled down
      // to 32 MiB so the default dataset has 56 of them); CosmoFlow one
      // 2,828,486-byte sample per file (rounded up to pages).
      {{"ResNet50", "MLPerf", 80.0, 172.6, 500.1}, Family::kMlperf, 1, 32 * kMiB},
      {{"CosmoFlow", "MLPerf", 83.4, 180.1, 1023.8}, Family::kMlperf, 1, 691 * kPage},
      // Not in Table 5 (mix4 uses it). Our assumption: YCSB-A's 50% reads with
      // YCSB-B's request size and inter-request time.
      {{"YCSB-A", "YCSB", 50.0, 45.9, 9.3}, Family::kYcsbZipfian, 1, 0},
  };
  return specs;
}

const Spec* FindSpec(const std::string& name) {
  for (const Spec& spec : Specs()) {
    if (spec.profile.name == name) return &spec;
  }
  return nullptr;
}

// Table 6 (mix2 is "LUN1 and ssd-04": its description's "LUN0" is a typo).
const std::vector<std::pair<std::string, std::vector<std::string>>>& Mixes() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> mixes = {
      {"mix1", {"ssd-02", "LUN4"}},
      {"mix2", {"LUN1", "ssd-04"}},
      {"mix3", {"YCSB-C", "YCSB-F"}},
      {"mix4", {"ssd-00", "ssd-04", "YCSB-A", "LUN0"}},
      {"mix5", {"ssd-00", "LUN0", "YCSB-C", "YCSB-F"}},
      {"mix6", {"YCSB-B", "YCSB-D", "LUN0", "LUN1", "LUN4", "ssd-00", "ssd-02", "ssd-03"}},
  };
  return mixes;
}

// The address space a family touches by default: room for its structure
// (hundreds of hot regions, thousands of items, dozens of SSTs, an MLPerf
// dataset that takes about 10,000 requests an epoch).
uint64_t DefaultFootprint(Family family) {
  switch (family) {
    case Family::kRocksDb:
    case Family::kMlperf:
      return 2 * kGiB;
    default:
      return 1 * kGiB;
  }
}

// One request of a stream, its time relative to the stream's previous one.
struct Request {
  uint64_t gap_ns = 0;
  bool write = false;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// One stream of one workload. The base class draws the times, types and
// sizes; the family places the requests.
class Workload {
 public:
  Workload(const Spec& spec, uint64_t footprint, uint64_t seed)
      : rng_(seed),
        footprint_(footprint),
        write_fraction_(1 - spec.profile.read_percent / 100),
        interval_ns_(spec.profile.avg_interval_us * 1000),
        read_sizes_(MeanReadBytes(spec), kMaxRequest),
        write_sizes_(MeanReadBytes(spec) * spec.write_size_ratio, kMaxRequest) {}
  virtual ~Workload() = default;

  Request Next() {
    if (count_ > 0 && count_ % kShiftEvery == 0) Shift();
    ++count_;
    Request r = NextAccess();
    r.gap_ns = uint64_t(std::llround(rng_.Exponential(interval_ns_)));
    return r;
  }

 protected:
  // Type, offset and size of the next request.
  virtual Request NextAccess() = 0;
  // The phase behaviour, every kShiftEvery requests.
  virtual void Shift() {}

  bool DrawWrite() { return rng_.Chance(write_fraction_); }
  uint64_t DrawSize(bool write) { return (write ? write_sizes_ : read_sizes_).Sample(&rng_); }
  double write_fraction() const { return write_fraction_; }

  Random rng_;
  const uint64_t footprint_;

 private:
  // The read mean that, with writes write_size_ratio times larger, gives the
  // row's mean.
  static double MeanReadBytes(const Spec& spec) {
    double reads = spec.profile.read_percent / 100;
    return spec.profile.avg_request_kib * kKiB / (reads + (1 - reads) * spec.write_size_ratio);
  }

  const double write_fraction_;
  const double interval_ns_;
  const SizeDistribution read_sizes_;
  const SizeDistribution write_sizes_;
  uint64_t count_ = 0;
};

// SYSTOR'17 LUNs: enterprise VDI volumes, nearly all writes. Layout of the
// footprint (default 1 GiB):
//   [0, 1/16)    read set: a golden image read with zipfian skew over 1 MiB
//                regions; it does not move
//   [1/16, 7/8)  hot write regions: zipfian over 1 MiB regions, the hot ones
//                moving every kShiftEvery requests
//   [7/8, 1)     a log: sequential writes, wrapping
// 70% of writes go to the hot regions, 30% to the log.
class SystorLun : public Workload {
 public:
  SystorLun(const Spec& spec, uint64_t footprint, uint64_t seed)
      : Workload(spec, footprint, seed),
        reads_(0, AlignDown(footprint / 16), kMiB, 0.9, &rng_),
        hot_writes_(AlignDown(footprint / 16), AlignDown(footprint / 8 * 7), kMiB, 0.9, &rng_),
        log_(AlignDown(footprint / 8 * 7), footprint) {}

 protected:
  Request NextAccess() override {
    Request r;
    r.write = DrawWrite();
    r.size = DrawSize(r.write);
    if (!r.write) {
      r.offset = reads_.Offset(r.size, &rng_);
    } else if (rng_.Chance(kLogShare)) {
      r.offset = log_.Offset(r.size);
    } else {
      r.offset = hot_writes_.Offset(r.size, &rng_);
    }
    return r;
  }
  void Shift() override { hot_writes_.ShiftHot(&rng_); }

 private:
  static constexpr double kLogShare = 0.3;
  SkewedArea reads_;
  SkewedArea hot_writes_;
  SequentialArea log_;
};

// RocksDB ssd-xx: a KV store's SSD, mostly reads. The footprint (default
// 2 GiB) is cut into SST-sized extents (32 MiB, or 1/8 of a small footprint).
// Reads pick a live extent by zipfian rank (theta 0.99) and a uniform page in
// it. Writes are sequential runs, as flushes and compactions write, filling
// the one free extent; once full it takes over the data, and so the rank, of
// a random live extent (a compaction rewrote that table), which becomes the
// free one. On top, the hot ranks shift every kShiftEvery requests.
class RocksDbSsd : public Workload {
 public:
  RocksDbSsd(const Spec& spec, uint64_t footprint, uint64_t seed)
      : Workload(spec, footprint, seed),
        extent_(std::min<uint64_t>(32 * kMiB, AlignDown(footprint / 8))),
        live_(footprint / extent_ - 1),
        zipf_(int64_t(live_), 0.99),
        ranks_(live_, &rng_),
        free_(live_),
        write_next_(free_ * extent_) {}

 protected:
  Request NextAccess() override {
    Request r;
    r.write = DrawWrite();
    r.size = DrawSize(r.write);
    r.offset = r.write ? WriteOffset(r.size) : ReadOffset(r.size);
    return r;
  }
  void Shift() override { ranks_.ShiftHot(&rng_); }

 private:
  uint64_t ReadOffset(uint64_t size) {
    uint64_t begin = ranks_.Place(SampleRank(zipf_, &rng_)) * extent_;
    return OffsetInRegion(begin, extent_, begin + extent_, size, &rng_);
  }

  uint64_t WriteOffset(uint64_t size) {
    if (write_next_ + size > (free_ + 1) * extent_) {
      free_ = ranks_.Replace(rng_.Below(live_), free_);
      write_next_ = free_ * extent_;
    }
    uint64_t offset = write_next_;
    write_next_ += size;
    return offset;
  }

  const uint64_t extent_;
  const uint64_t live_;  // extents holding data; one more is free
  const Zipfian zipf_;
  RankMap ranks_;
  uint64_t free_;        // the extent being written
  uint64_t write_next_;  // where the next write in it goes
};

// YCSB item size: the footprint (default 1 GiB) is 64 KiB items, zipfian
// (theta 0.99, YCSB's) over them, scattered by a RankMap as YCSB scrambles
// its keys.
constexpr uint64_t kYcsbItem = 64 * kKiB;
constexpr double kYcsbTheta = Zipfian::kYcsbTheta;

// YCSB-A, B and C: reads and writes zipfian over the same items; the hot
// items shift every kShiftEvery requests.
class YcsbZipfian : public Workload {
 public:
  YcsbZipfian(const Spec& spec, uint64_t footprint, uint64_t seed)
      : Workload(spec, footprint, seed), items_(0, footprint, kYcsbItem, kYcsbTheta, &rng_) {}

 protected:
  Request NextAccess() override {
    Request r;
    r.write = DrawWrite();
    r.size = DrawSize(r.write);
    r.offset = items_.Offset(r.size, &rng_);
    return r;
  }
  void Shift() override { items_.ShiftHot(&rng_); }

  SkewedArea items_;
};

// YCSB-D ("latest"): writes insert new items, appended sequentially through
// the footprint (wrapping); reads are zipfian over how recently an item was
// inserted, the newest the most popular. The hot set follows the inserts, so
// it needs no extra shifting.
class YcsbLatest : public Workload {
 public:
  YcsbLatest(const Spec& spec, uint64_t footprint, uint64_t seed)
      : Workload(spec, footprint, seed),
        items_(footprint / kYcsbItem),
        zipf_(int64_t(items_), kYcsbTheta),
        inserts_(0, items_ * kYcsbItem) {}

 protected:
  Request NextAccess() override {
    Request r;
    r.write = DrawWrite();
    r.size = DrawSize(r.write);
    r.offset = r.write ? inserts_.Offset(r.size) : ReadOffset(r.size);
    return r;
  }

 private:
  uint64_t ReadOffset(uint64_t size) {
    // The newest item is the one holding the last inserted byte (before any
    // insert: the last item, as if the space had been filled once).
    uint64_t next = inserts_.next();
    uint64_t newest = next == 0 ? items_ - 1 : (next - 1) / kYcsbItem;
    uint64_t item = (newest + items_ - SampleRank(zipf_, &rng_)) % items_;
    return OffsetInRegion(item * kYcsbItem, kYcsbItem, items_ * kYcsbItem, size, &rng_);
  }

  const uint64_t items_;
  const Zipfian zipf_;
  SequentialArea inserts_;
};

// YCSB-E: reads are scans, runs of sequential reads (8 requests on average)
// starting at a zipfian item; writes are zipfian like YCSB-B's.
class YcsbScan : public YcsbZipfian {
 public:
  using YcsbZipfian::YcsbZipfian;

 protected:
  Request NextAccess() override {
    Request r;
    r.write = DrawWrite();
    r.size = DrawSize(r.write);
    r.offset = r.write ? items_.Offset(r.size, &rng_) : ScanOffset(r.size);
    return r;
  }

 private:
  static constexpr double kMeanScanRequests = 8;

  uint64_t ScanOffset(uint64_t size) {
    if (scan_left_ == 0 || scan_next_ + size > footprint_) {
      scan_next_ = items_.Offset(size, &rng_);
      scan_left_ = 1 + uint64_t(rng_.Geometric(std::log(1 - 1 / kMeanScanRequests)));
    }
    --scan_left_;
    uint64_t offset = scan_next_;
    scan_next_ += size;
    return offset;
  }

  uint64_t scan_left_ = 0;  // reads left in the current scan
  uint64_t scan_next_ = 0;  // where its next read starts
};

// YCSB-F: half the operations are read-modify-writes, a read then a write of
// the same bytes; the rest plain reads and writes in the proportion that
// gives the row's read fraction. All zipfian like YCSB-B.
class YcsbReadModifyWrite : public YcsbZipfian {
 public:
  YcsbReadModifyWrite(const Spec& spec, uint64_t footprint, uint64_t seed)
      : YcsbZipfian(spec, footprint, seed),
        // Per operation: a RMW (two records, one a read) with probability
        // kRmwShare, a plain read with probability plain_read_; the read
        // fraction of records is (kRmwShare + plain_read_) / (1 + kRmwShare).
        plain_read_(std::clamp((1 - write_fraction()) * (1 + kRmwShare) - kRmwShare, 0.0,
                               1 - kRmwShare)) {}

 protected:
  Request NextAccess() override {
    if (pending_write_) {
      pending_write_ = false;
      Request w = last_read_;
      w.write = true;
      return w;
    }
    double u = rng_.Uniform();
    Request r;
    r.write = u >= kRmwShare + plain_read_;
    r.size = DrawSize(r.write);
    r.offset = items_.Offset(r.size, &rng_);
    if (u < kRmwShare) {
      pending_write_ = true;
      last_read_ = r;
    }
    return r;
  }

 private:
  static constexpr double kRmwShare = 0.5;
  const double plain_read_;
  bool pending_write_ = false;
  Request last_read_;
};

// MLPerf Storage training (ResNet50, CosmoFlow): the footprint (default
// 2 GiB) is a dataset of files in its first 7/8 and a checkpoint area in the
// rest. Every epoch reads all files, in an order shuffled per epoch, each one
// sequentially with the row's request sizes; a read that would pass its
// file's end starts the next file instead (the tail is left unread, so
// every read stays in its file). Writes are checkpoints, written
// sequentially through the checkpoint area, wrapping over older ones. The
// phase behaviour is the epochs: no hot set to shift.
class MlperfTraining : public Workload {
 public:
  MlperfTraining(const Spec& spec, uint64_t footprint, uint64_t seed)
      : Workload(spec, footprint, seed),
        file_bytes_(std::min(spec.file_bytes, AlignDown(footprint / 8 * 7))),
        order_(AlignDown(footprint / 8 * 7) / file_bytes_),
        checkpoints_(order_.size() * file_bytes_, footprint) {
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = uint32_t(i);
    StartEpoch();
  }

 protected:
  Request NextAccess() override {
    Request r;
    r.write = DrawWrite();
    r.size = DrawSize(r.write);
    r.offset = r.write ? checkpoints_.Offset(r.size) : ReadOffset(r.size);
    return r;
  }

 private:
  void StartEpoch() {
    rng_.Shuffle(&order_);
    position_ = 0;
    OpenFile();
  }

  void OpenFile() {
    cursor_ = uint64_t(order_[position_]) * file_bytes_;
    file_end_ = cursor_ + file_bytes_;
  }

  uint64_t ReadOffset(uint64_t size) {
    if (cursor_ + size > file_end_) {
      if (++position_ == order_.size()) {
        StartEpoch();
      } else {
        OpenFile();
      }
    }
    uint64_t offset = cursor_;
    cursor_ += size;
    return offset;
  }

  const uint64_t file_bytes_;
  std::vector<uint32_t> order_;  // this epoch's file order
  size_t position_ = 0;          // the file being read, in order_
  uint64_t cursor_ = 0;          // where its next read starts
  uint64_t file_end_ = 0;        // and where it ends
  SequentialArea checkpoints_;
};

std::unique_ptr<Workload> MakeWorkload(const Spec& spec, uint64_t footprint, uint64_t seed) {
  if (footprint == 0) footprint = DefaultFootprint(spec.family);
  footprint = AlignDown(footprint);
  switch (spec.family) {
    case Family::kSystorLun:
      return std::make_unique<SystorLun>(spec, footprint, seed);
    case Family::kRocksDb:
      return std::make_unique<RocksDbSsd>(spec, footprint, seed);
    case Family::kYcsbZipfian:
      return std::make_unique<YcsbZipfian>(spec, footprint, seed);
    case Family::kYcsbLatest:
      return std::make_unique<YcsbLatest>(spec, footprint, seed);
    case Family::kYcsbScan:
      return std::make_unique<YcsbScan>(spec, footprint, seed);
    case Family::kYcsbReadModifyWrite:
      return std::make_unique<YcsbReadModifyWrite>(spec, footprint, seed);
    case Family::kMlperf:
      return std::make_unique<MlperfTraining>(spec, footprint, seed);
  }
  return nullptr;
}

TraceRecord ToRecord(uint64_t time_ns, uint32_t stream, const Request& r) {
  TraceRecord record;
  record.time_ns = time_ns;
  record.stream = stream;
  record.file_id = stream;
  record.offset = r.offset;
  record.size = r.size;
  record.type = r.write ? IoType::kWrite : IoType::kUserRead;
  record.priority = TracePriority::kUnknown;
  record.kind = FileKind::kVolume;
  return record;
}

void GenerateSingle(const Spec& spec, const WorkloadOptions& options,
                    std::vector<TraceRecord>* records) {
  std::unique_ptr<Workload> workload = MakeWorkload(spec, options.footprint, options.seed);
  uint64_t time = 0;
  for (uint64_t i = 0; i < options.requests; ++i) {
    Request r = workload->Next();
    time += r.gap_ns;
    records->push_back(ToRecord(time, 0, r));
  }
}

// The paper's adaptability benchmark: LUN0 and ResNet50 taking turns every
// kPhaseChangeRequests requests, as one stream on one volume (file 0), so a
// policy sees one address space whose pattern changes. Each keeps its state
// across its turns; time runs on from the previous record. With the default
// footprint each uses its own (LUN0 the first 1 GiB of ResNet50's 2 GiB).
void GeneratePhaseChange(const WorkloadOptions& options, std::vector<TraceRecord>* records) {
  std::unique_ptr<Workload> phases[] = {
      MakeWorkload(*FindSpec("LUN0"), options.footprint, DeriveSeed(options.seed, 0)),
      MakeWorkload(*FindSpec("ResNet50"), options.footprint, DeriveSeed(options.seed, 1))};
  uint64_t time = 0;
  for (uint64_t i = 0; i < options.requests; ++i) {
    Request r = phases[(i / kPhaseChangeRequests) % 2]->Next();
    time += r.gap_ns;
    records->push_back(ToRecord(time, 0, r));
  }
}

// A mix runs its constituents concurrently, each at its own pace, as the
// paper's threads do: the records are all constituents' merged by time (ties
// to the lower stream), cut after options.requests. Each constituent so gets
// a share in proportion to its request rate.
void GenerateMix(const std::vector<std::string>& constituents, const WorkloadOptions& options,
                 std::vector<TraceRecord>* records) {
  struct Pending {
    std::unique_ptr<Workload> workload;
    uint64_t time = 0;
    Request next;
  };
  std::vector<Pending> streams(constituents.size());
  for (size_t i = 0; i < streams.size(); ++i) {
    streams[i].workload =
        MakeWorkload(*FindSpec(constituents[i]), options.footprint, DeriveSeed(options.seed, i));
    streams[i].next = streams[i].workload->Next();
    streams[i].time = streams[i].next.gap_ns;
  }
  for (uint64_t n = 0; n < options.requests; ++n) {
    size_t first = 0;
    for (size_t i = 1; i < streams.size(); ++i) {
      if (streams[i].time < streams[first].time) first = i;
    }
    Pending& s = streams[first];
    records->push_back(ToRecord(s.time, uint32_t(first), s.next));
    s.next = s.workload->Next();
    s.time += s.next.gap_ns;
  }
}

}  // namespace

const std::vector<WorkloadProfile>& WorkloadProfiles() {
  static const std::vector<WorkloadProfile> profiles = [] {
    std::vector<WorkloadProfile> v;
    for (const Spec& spec : Specs()) v.push_back(spec.profile);
    return v;
  }();
  return profiles;
}

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names;
  for (const Spec& spec : Specs()) names.push_back(spec.profile.name);
  names.push_back("phase-change");
  for (const auto& mix : Mixes()) names.push_back(mix.first);
  return names;
}

bool Generate(const std::string& name, const WorkloadOptions& options,
              std::vector<TraceRecord>* records, std::string* error) {
  if (options.footprint != 0 && options.footprint < kMinFootprint) {
    *error = "workload " + name + ": footprint " + std::to_string(options.footprint) +
             " bytes is below the minimum of " + std::to_string(kMinFootprint) + " (16 MiB)";
    return false;
  }
  records->clear();
  records->reserve(options.requests);
  if (const Spec* spec = FindSpec(name)) {
    GenerateSingle(*spec, options, records);
    return true;
  }
  if (name == "phase-change") {
    GeneratePhaseChange(options, records);
    return true;
  }
  for (const auto& mix : Mixes()) {
    if (mix.first == name) {
      GenerateMix(mix.second, options, records);
      return true;
    }
  }
  std::string known;
  for (const std::string& n : WorkloadNames()) known += (known.empty() ? "" : ", ") + n;
  *error = "unknown workload '" + name + "'; known workloads: " + known;
  return false;
}

TraceHeader SyntheticHeader(const std::string& name) {
  TraceHeader header;
  header.source = "synthetic:" + name;
  return header;
}

}  // namespace sim
}  // namespace tierfs
