// One tier: its directories, its capacity account, its device model and its
// I/O statistics.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "env/device_model.h"
#include "env/histogram.h"
#include "env/tierfs.h"

namespace tierfs {

class Tier {
 public:
  Tier(int index, const TierOptions& options, const DeviceParams& device);

  const int index;
  const std::string root;      // as configured
  const std::string data_dir;  // <root>/data: one backing file per file id
  const uint64_t capacity;
  DeviceModel device;
  const bool emulated;  // device.params().emulated(), kept off the I/O path's string compare

  std::string DataPath(uint64_t id) const;

  // Capacity account. TryCharge fails if the bytes do not fit, or if the
  // device reported itself full since the last Release.
  bool TryCharge(uint64_t bytes);
  void ForceCharge(uint64_t bytes) { used_.fetch_add(bytes); }
  void Release(uint64_t bytes) { used_.fetch_sub(bytes); }
  // Blocks were freed on the device (a file deleted, a segment moved away):
  // a device that said ENOSPC may take data again.
  void NoteSpaceFreed() { device_full_.store(false); }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  // The device returned ENOSPC: place nothing new here until space is freed.
  void MarkDeviceFull() { device_full_.store(true); }
  bool device_full() const { return device_full_.load(); }

  // Counters; relaxed atomics, read by GetTierStats.
  std::atomic<uint64_t> segments{0};
  // Read counters live in per-thread shards (ReadTotals sums them): every
  // RocksDB read counts here, and one shared cache line written by every
  // reading core cost more than the rest of the read path.
  void ReadTotals(uint64_t* count, uint64_t* bytes, LatencyHistogram* latency) const;
  void AddSavedReads(uint64_t count, uint64_t bytes, const LatencyHistogram& latency);
  std::atomic<uint64_t> writes{0}, write_bytes{0};
  std::atomic<uint64_t> syncs{0};
  std::atomic<uint64_t> spills_in{0};
  AtomicHistogram write_latency, sync_latency;

  // Records a read of `bytes` at `offset` of file `stream` that started at
  // `start_ns` (the read itself is done), first waiting out the device model.
  void AccountRead(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t start_ns);

  // Puts a write on the device model. A buffered write occupies the device
  // queue but returns at once, as the page cache would, unless the device is
  // more than kWriteBackNanos behind (dirty-page throttling); a direct write
  // waits for the device. Returns when the device will have completed it and
  // sets *micros to what the writer waited since start_ns. Counts nothing:
  // writers batch their counts into AddWrites.
  int64_t ModelWrite(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t start_ns,
                     bool direct, uint64_t* micros);
  void AddWrites(uint64_t count, uint64_t bytes, const LatencyHistogram& latency);

  // Records a sync of writes that complete on the device at `pending_ns`:
  // queues a cache flush behind them and waits for it.
  void AccountSync(int64_t pending_ns, int64_t start_ns);

  // How far a device may run behind buffered writers before they wait.
  static constexpr int64_t kWriteBackNanos = 100 * 1000 * 1000;

 private:
  static constexpr int kReadShards = 8;
  struct alignas(64) ReadShard {
    std::atomic<uint64_t> count{0}, bytes{0};
    AtomicHistogram latency;
  };
  ReadShard read_shards_[kReadShards];

  std::atomic<uint64_t> used_{0};
  std::atomic<bool> device_full_{false};
};

}  // namespace tierfs
