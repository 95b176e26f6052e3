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
  std::atomic<uint64_t> reads{0}, read_bytes{0};
  std::atomic<uint64_t> writes{0}, write_bytes{0};
  std::atomic<uint64_t> syncs{0};
  std::atomic<uint64_t> spills_in{0};
  AtomicHistogram read_latency, write_latency;

  // Records one I/O of `bytes` that started at `start_ns` on this tier,
  // waiting out the device model first. Returns nothing; the I/O itself was
  // already done by the caller.
  void Account(bool write, uint64_t stream, uint64_t offset, uint64_t bytes,
               int64_t start_ns);

 private:
  std::atomic<uint64_t> used_{0};
  std::atomic<bool> device_full_{false};
};

}  // namespace tierfs
