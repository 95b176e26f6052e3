// Room kept on tier 0's device for what cannot move to another tier: the
// journal (meta/JOURNAL-n), its snapshots, STATS, the info log and the
// hot-page copy file. Data segments relocate when a device says ENOSPC; a
// journal append has nowhere else to go, and a failed one fails the user's
// write although another tier has room. So a tier whose device is tier 0's
// (tier 0 itself, and any tier on the same file system) is treated as full
// for data while the device's real free space (statvfs, through the base
// file system's GetFreeSpace) is below kMetaReserve: its segments spill to
// the next tier with room, and journal appends find the reserve untouched.
//
// Thread-safe. The free space is probed once per kProbeBytes of data
// written to the watched tiers while it is well above the reserve, and at
// every check once it is within one write of the reserve. A writer asks
// for room in credits of 64 KiB (SegmentWriter::ReserveLow) and spends them
// without asking, so the common write costs no atomic operation, and data
// can take at most kProbeBytes plus a credit per open writer of the reserve.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "core/config.h"
#include "util/mutex.h"

namespace tierfs {

class MetaReserve {
 public:
  // Bytes kept free on tier 0's device: a journal grown to its rotation
  // length (65,536 records of at most a few dozen bytes: about 2 MiB), the
  // snapshot and empty journal a rotation writes beside it, STATS written
  // through a temporary file, and the info log's growth to its 1 MiB
  // rotation. 4 MiB covers these for a map of tens of thousands of segments.
  static constexpr uint64_t kMetaReserve = 4ull << 20;
  // Data written between two probes while the device is far from the
  // reserve. What else fills the device (meta/ itself, another process) is
  // seen at the next probe, so data can take at most this much of the
  // reserve (and a credit per open writer, see above); a statvfs per 256 KiB
  // written costs nothing next to the writes.
  static constexpr uint64_t kProbeBytes = 256ull << 10;

  // `probe(t, &free)` reports the free bytes of tier t's device; false if
  // it cannot tell (the tier is then not held back until a later probe
  // can). `watched` has bit t set for each tier on tier 0's device. Called
  // once, before any check; until then no tier is watched.
  void Init(uint8_t watched, std::function<bool(int, uint64_t*)> probe);

  // True if tier t shares tier 0's device.
  bool Watches(int t) const { return (watched_ & (1u << t)) != 0; }

  // True if writing `bytes` more of data to tier t would leave its device
  // with less than the reserve (or if it already has less). Counts `bytes`
  // as written when it answers false. Tiers not on tier 0's device: false.
  bool Low(int t, uint64_t bytes);

  // Probes of the device made so far (for tests and the stats' curious).
  uint64_t probes() const { return probes_.load(std::memory_order_relaxed); }

 private:
  // Per watched tier, though they share one device: each asks the device
  // through its own root, and a write to any of them counts against all.
  struct alignas(64) Estimate {
    // Free bytes at the last probe (UINT64_MAX: unknown), and data bytes
    // written to watched tiers since.
    std::atomic<uint64_t> free_at_probe{0};
    std::atomic<uint64_t> written_since{kProbeBytes};  // the first check probes
  };
  uint8_t watched_ = 0;
  std::function<bool(int, uint64_t*)> probe_;
  Mutex mu_;  // one probe at a time
  Estimate estimates_[kMaxTiers];
  std::atomic<uint64_t> probes_{0};
};

}  // namespace tierfs
