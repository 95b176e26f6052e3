#include "env/tier.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "env/thread_index.h"

namespace tierfs {

Tier::Tier(int i, const TierOptions& options, const DeviceParams& dev)
    : CapacityAccount(options.capacity),
      index(i),
      root(options.path),
      data_dir(options.path + "/data"),
      device(dev),
      emulated(dev.emulated()) {}

std::string Tier::DataPath(uint64_t id) const {
  char buf[24];
  snprintf(buf, sizeof(buf), "/%016" PRIx64, id);
  return data_dir + buf;
}

bool Tier::ParseDataName(const std::string& name, uint64_t* id) {
  if (name.size() != 16) return false;
  uint64_t v = 0;
  for (char c : name) {
    int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | uint64_t(d);
  }
  *id = v;
  return true;
}

int64_t Tier::StartIo(bool every) const {
  // Per thread, across tiers: a plain counter, no shared write.
  thread_local uint32_t untimed = 0;
  if (emulated) return DeviceModel::ThreadNanos();
  if (every || untimed++ % kTimedEvery == 0) return DeviceModel::NowNanos();
  return 0;
}

int64_t Tier::AccountRead(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t start_ns,
                          bool user) {
  const bool timed = start_ns != 0;  // StartIo times every I/O of an emulated tier
  int64_t done = 0;
  uint64_t device_ns = 0;  // what the model charged a user read
  if (emulated) {
    // The read takes what the device model says, on the thread's clock: the
    // pread behind it was CPU work on the backing file, not the device (and
    // the clock it ran on may be behind the thread's after a sleep's credit).
    done = device.Schedule(false, stream, offset, bytes, start_ns);
    DeviceModel::WaitUntil(done);
    if (user) device_ns = uint64_t(done - start_ns);
  } else if (timed) {
    done = DeviceModel::NowNanos();
  }
  const uint64_t micros = uint64_t(done - start_ns) / 1000;
  const unsigned i = unsigned(ThreadIndex());  // -1 (a thread exiting): shared
  if (__builtin_expect(i < unsigned(kOwnedReadShards), 1)) {
    ReadShard& rs = read_shards_[i];
    AtomicHistogram::Bump(rs.count, 1);
    AtomicHistogram::Bump(rs.bytes, bytes);
    if (user) {
      AtomicHistogram::Bump(rs.user, 1);
      AtomicHistogram::Bump(rs.user_bytes, bytes);
      if (device_ns) AtomicHistogram::Bump(rs.user_device_ns, device_ns);
    }
    if (timed) rs.latency.RecordOwned(micros);
    return done;
  }
  ReadShard& rs = read_shards_[kOwnedReadShards];
  rs.count.fetch_add(1, std::memory_order_relaxed);
  rs.bytes.fetch_add(bytes, std::memory_order_relaxed);
  if (user) {
    rs.user.fetch_add(1, std::memory_order_relaxed);
    rs.user_bytes.fetch_add(bytes, std::memory_order_relaxed);
    rs.user_device_ns.fetch_add(device_ns, std::memory_order_relaxed);
  }
  if (timed) rs.latency.Record(micros);
  return done;
}

void Tier::ModelBackground(bool write, uint64_t stream, uint64_t offset, uint64_t bytes) {
  if (!emulated) return;
  const int64_t now = DeviceModel::ThreadNanos();
  DeviceModel::WaitUntil(write ? device.ScheduleWriteBack(stream, offset, bytes, now)
                               : device.Schedule(false, stream, offset, bytes, now));
}

bool Tier::Idle(uint64_t max_ops_per_ms) {
  const int64_t now = DeviceModel::NowNanos();
  if (emulated) return device.BusyUntil() <= now;
  uint64_t count, bytes, user;
  ReadTotals(&count, &bytes, &user, nullptr);
  // Reads per millisecond since the last look (at least a millisecond ago).
  const int64_t elapsed = std::max<int64_t>(now - idle_since_ns_, 1000 * 1000);
  const bool idle = double(count - idle_reads_seen_) * 1e6 / double(elapsed) < double(max_ops_per_ms);
  idle_reads_seen_ = count;
  idle_since_ns_ = now;
  return idle;
}

void Tier::ReadTotals(uint64_t* count, uint64_t* bytes, uint64_t* user,
                      LatencyHistogram* latency) const {
  *count = *bytes = *user = 0;
  for (const ReadShard& rs : read_shards_) {
    *count += rs.count.load(std::memory_order_relaxed);
    *bytes += rs.bytes.load(std::memory_order_relaxed);
    *user += rs.user.load(std::memory_order_relaxed);
    if (latency) latency->Add(rs.latency.Snapshot());
  }
}

void Tier::Snapshot(TierStats* out) const {
  for (size_t i = 0; i < kNumTierTickers; ++i) {
    out->tickers[i] = tickers_[i].load(std::memory_order_relaxed);
  }
  for (size_t i = 0; i < kNumTierHistograms; ++i) out->histograms[i] = histograms_[i].Snapshot();
  // The tickers hold what STATS saved; the shards what was read since open.
  uint64_t count, bytes, user;
  LatencyHistogram latency;
  ReadTotals(&count, &bytes, &user, &latency);
  out->tickers[size_t(TierTicker::kReads)] += count;
  out->tickers[size_t(TierTicker::kReadBytes)] += bytes;
  out->tickers[size_t(TierTicker::kUserReads)] += user;
  for (const ReadShard& rs : read_shards_) {
    out->tickers[size_t(TierTicker::kUserReadDeviceNanos)] +=
        rs.user_device_ns.load(std::memory_order_relaxed);
    out->tickers[size_t(TierTicker::kUserReadBytes)] += rs.user_bytes.load(std::memory_order_relaxed);
  }
  out->tickers[size_t(TierTicker::kPageCopyBytes)] = copy_used();
  out->histograms[size_t(TierHistogram::kReadLatency)].Add(latency);
}

int64_t Tier::ModelWrite(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t start_ns,
                         bool direct, uint64_t* micros) {
  if (start_ns == 0) {  // untimed (never on an emulated tier: StartIo)
    *micros = 0;
    return 0;
  }
  int64_t now = DeviceModel::NowNanos();
  int64_t done = now;
  if (emulated) {
    done = direct ? device.Schedule(true, stream, offset, bytes, start_ns)
                  : device.ScheduleWriteBack(stream, offset, bytes, start_ns);
    DeviceModel::WaitUntil(direct ? done : done - kWriteBackNanos);
    now = std::max(now, DeviceModel::NowNanos());
  }
  // start_ns is on the thread's clock, which may run ahead of `now`.
  *micros = uint64_t(std::max<int64_t>(0, (direct ? std::max(now, done) : now) - start_ns)) / 1000;
  return done;
}

void Tier::AddWrites(uint64_t count, uint64_t bytes, const LatencyHistogram& latency) {
  Add(TierTicker::kWrites, count);
  Add(TierTicker::kWriteBytes, bytes);
  Merge(TierHistogram::kWriteLatency, latency);
}

void Tier::AccountSync(int64_t pending_ns, int64_t start_ns) {
  int64_t done = DeviceModel::NowNanos();
  if (emulated) {
    // The flush is a zero-byte write queued behind everything issued so far:
    // it waits for the pending writes and pays the device's write latency.
    int64_t flushed = device.Schedule(true, ~0ull, 0, 0, std::max(start_ns, pending_ns));
    DeviceModel::WaitUntil(flushed);
    done = std::max(done, flushed);
  }
  Add(TierTicker::kSyncs);
  histograms_[size_t(TierHistogram::kSyncLatency)].Record(uint64_t(done - start_ns) / 1000);
}

}  // namespace tierfs
