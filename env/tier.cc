#include "env/tier.h"

#include <cinttypes>
#include <cstdio>

namespace tierfs {

Tier::Tier(int i, const TierOptions& options, const DeviceParams& dev)
    : index(i),
      root(options.path),
      data_dir(options.path + "/data"),
      capacity(options.capacity),
      device(dev),
      emulated(dev.emulated()) {}

std::string Tier::DataPath(uint64_t id) const {
  char buf[24];
  snprintf(buf, sizeof(buf), "/%016" PRIx64, id);
  return data_dir + buf;
}

bool Tier::TryCharge(uint64_t bytes) {
  if (device_full_.load(std::memory_order_relaxed)) return false;
  uint64_t cur = used_.load(std::memory_order_relaxed);
  do {
    if (cur + bytes > capacity) return false;
  } while (!used_.compare_exchange_weak(cur, cur + bytes));
  return true;
}

void Tier::Account(bool write, uint64_t stream, uint64_t offset, uint64_t bytes,
                   int64_t start_ns) {
  int64_t now = DeviceModel::NowNanos();
  int64_t done = now;
  if (emulated) {
    done = device.Schedule(write, stream, offset, bytes, start_ns);
    DeviceModel::WaitUntil(done);
    if (done < now) done = now;  // the real I/O took longer than the model
  }
  uint64_t micros = uint64_t(done - start_ns) / 1000;
  if (write) {
    writes.fetch_add(1, std::memory_order_relaxed);
    write_bytes.fetch_add(bytes, std::memory_order_relaxed);
    write_latency.Record(micros);
  } else {
    reads.fetch_add(1, std::memory_order_relaxed);
    read_bytes.fetch_add(bytes, std::memory_order_relaxed);
    read_latency.Record(micros);
  }
}

}  // namespace tierfs
