// One tier: its directories, its capacity account, its device model and its
// I/O statistics.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "core/device_model.h"
#include "engine/capacity.h"
#include "env/histogram.h"
#include "tierfs/file_system.h"
#include "tierfs/statistics.h"

namespace tierfs {

// The capacity account is the engine's (engine/capacity.h), shared with the
// simulator.
class Tier : public CapacityAccount {
 public:
  Tier(int index, const TierOptions& options, const DeviceParams& device);

  const int index;
  const std::string root;      // as configured
  const std::string data_dir;  // <root>/data: one backing file per file id
  DeviceModel device;
  const bool emulated;  // device.params().emulated(), kept off the I/O path's string compare

  // <data_dir>/<id as 16 hex digits>: the backing file of file `id`.
  std::string DataPath(uint64_t id) const;
  // Parses a name in data/ ("<16 lower-case hex digits>") into *id; false for
  // a name TierFS does not write there.
  static bool ParseDataName(const std::string& name, uint64_t* id);

  // Statistics, one per row of kTierTickers and kTierHistograms (tierfs/statistics.h):
  // relaxed atomics. Reads count in per-thread shards instead (AccountRead):
  // every RocksDB read counts here, and one shared cache line written by every
  // reading core cost more than the rest of the read path; so did locked adds
  // on a line only one thread writes.
  void Add(TierTicker t, uint64_t n = 1) {
    tickers_[size_t(t)].fetch_add(n, std::memory_order_relaxed);
  }
  void Sub(TierTicker t, uint64_t n = 1) {
    tickers_[size_t(t)].fetch_sub(n, std::memory_order_relaxed);
  }
  // Adds samples recorded elsewhere (a writer's batch, the STATS file).
  void Merge(TierHistogram h, const LatencyHistogram& samples) {
    histograms_[size_t(h)].Merge(samples);
  }
  // Every ticker and histogram, the read shards summed in.
  void Snapshot(TierStats* out) const;

  // When a read or write is about to start: the clock (on a tier with a device
  // model, the thread's time on the models, DeviceModel::ThreadNanos), or 0 to
  // leave it untimed (counted, not timed). A tier with a device model times
  // every I/O (the model queues it at its start), and so does any tier when `every` (a
  // trace runs, or the policy learns from latencies: Store::TimesEveryIo);
  // otherwise one I/O in kTimedEvery per thread is timed, for the latency
  // histograms. On one tier without a device model the two clock reads of a
  // read were a third of TierFS's CPU per read.
  int64_t StartIo(bool every) const;
  static constexpr uint32_t kTimedEvery = 16;

  // Records a read of `bytes` at `offset` of file `stream` that started at
  // `start_ns` (the read itself is done), first waiting out the device model:
  // on an emulated tier the read completes when the model says, whatever the
  // pread took, and a user read adds what the model charged it (its
  // completion less start_ns) to kUserReadDeviceNanos.
  // Returns when the read completed (device model included), or 0 for an
  // untimed read (start_ns 0, from StartIo), which is counted but not put in
  // the latency histogram.
  int64_t AccountRead(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t start_ns,
                      bool user);

  // A background copy's I/O on this device: occupies the device model's queue
  // (foreground I/O waits behind it) and waits for it. Counts nothing.
  void ModelBackground(bool write, uint64_t stream, uint64_t offset, uint64_t bytes);
  // True if no foreground I/O is in the device's queue now (emulated
  // devices), or if fewer than `max_ops_per_ms` reads per millisecond were
  // served since the last call (real devices, whose queue TierFS cannot
  // see). Called by the migration thread only.
  bool Idle(uint64_t max_ops_per_ms);

  // Puts a write on the device model. A buffered write occupies the device
  // queue but returns at once, as the page cache would, unless the device is
  // more than kWriteBackNanos behind (dirty-page throttling); a direct write
  // waits for the device. Returns when the device will have completed it and
  // sets *micros to what the writer waited since start_ns; an untimed write
  // (start_ns 0, from StartIo) returns 0 and reads no clock. Counts nothing: writers batch their counts into AddWrites.
  int64_t ModelWrite(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t start_ns,
                     bool direct, uint64_t* micros);
  void AddWrites(uint64_t count, uint64_t bytes, const LatencyHistogram& latency);

  // Records a sync of writes that complete on the device at `pending_ns`:
  // queues a cache flush behind them and waits for it.
  void AccountSync(int64_t pending_ns, int64_t start_ns);

  static constexpr int64_t kWriteBackNanos = DeviceModel::kWriteBackNanos;

 private:
  // Shard i is written only by the thread whose ThreadIndex() is i (plain
  // stores: a locked add per counter cost as much as the rest of the
  // counting); threads numbered past them share the last, with atomic adds.
  static constexpr int kOwnedReadShards = 16;
  static constexpr int kReadShards = kOwnedReadShards + 1;
  struct alignas(64) ReadShard {
    std::atomic<uint64_t> count{0}, bytes{0}, user{0};
    std::atomic<uint64_t> user_device_ns{0};  // kUserReadDeviceNanos
    std::atomic<uint64_t> user_bytes{0};      // kUserReadBytes
    AtomicHistogram latency;
  };
  ReadShard read_shards_[kReadShards];
  // Reads made since open, summed over the shards.
  void ReadTotals(uint64_t* count, uint64_t* bytes, uint64_t* user,
                  LatencyHistogram* latency) const;

  std::atomic<uint64_t> tickers_[kNumTierTickers] = {};
  AtomicHistogram histograms_[kNumTierHistograms];

  uint64_t idle_reads_seen_ = 0;  // Idle(): reads counted at the last call, and when
  int64_t idle_since_ns_ = 0;
};

}  // namespace tierfs
