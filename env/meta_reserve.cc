// The reserve for tier 0's metadata: see meta_reserve.h.
#include "env/meta_reserve.h"

#include <limits>

namespace tierfs {

void MetaReserve::Init(uint8_t watched, std::function<bool(int, uint64_t*)> probe) {
  probe_ = std::move(probe);
  watched_ = watched;
}

bool MetaReserve::Low(int t, uint64_t bytes) {
  if (!Watches(t)) return false;
  Estimate& e = estimates_[t];
  const uint64_t written = e.written_since.load(std::memory_order_relaxed);
  const uint64_t free = e.free_at_probe.load(std::memory_order_relaxed);
  const uint64_t spent = written + bytes;
  if (spent >= kProbeBytes || free <= spent || free - spent < kMetaReserve) {
    // Time to ask the device: kProbeBytes written since the last look, or the
    // estimate is within this write of the reserve.
    MutexLock lock(&mu_);
    uint64_t now = 0;
    if (!probe_ || !probe_(t, &now)) now = std::numeric_limits<uint64_t>::max();
    probes_.fetch_add(1, std::memory_order_relaxed);
    e.free_at_probe.store(now, std::memory_order_relaxed);
    e.written_since.store(0, std::memory_order_relaxed);
    if (now < kMetaReserve || now - kMetaReserve < bytes) return true;
  }
  // The write goes ahead: it spends the one device all watched tiers share.
  for (size_t u = 0; u < kMaxTiers; ++u) {
    if (Watches(int(u))) estimates_[u].written_since.fetch_add(bytes, std::memory_order_relaxed);
  }
  return false;
}

}  // namespace tierfs
