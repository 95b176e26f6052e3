#include "core/device_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <thread>

namespace tierfs {

namespace {

// Public specifications (the founding design's evaluation method, DESIGN.md's
// "Device emulation").
DeviceParams Preset(const std::string& name, double rlat, double wlat,
                    double rmbps, double wmbps, bool seq_free) {
  DeviceParams p;
  p.name = name;
  p.read_latency_us = rlat;
  p.write_latency_us = wlat;
  p.read_mbps = rmbps;
  p.write_mbps = wmbps;
  p.sequential_is_free = seq_free;
  return p;
}

bool ParsePositive(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !(v >= 0) || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

}  // namespace

ParseStatus ParseDeviceParams(const std::string& spec, DeviceParams* out) {
  // Intel Optane P4800X: ~10 us, 2.4 / 2.0 GB/s.
  if (spec == "optane") { *out = Preset(spec, 10, 10, 2400, 2000, false); return ParseStatus::OK(); }
  // A flash NVMe drive: ~80 us read, ~20 us write (buffered), 3.0 / 2.0 GB/s.
  if (spec == "nvme") { *out = Preset(spec, 80, 20, 3000, 2000, false); return ParseStatus::OK(); }
  // A SATA SSD: ~110 us read / 50 us write for 4 KiB, ~500 MB/s.
  if (spec == "sata-ssd") { *out = Preset(spec, 110, 50, 500, 500, false); return ParseStatus::OK(); }
  // A 7200 rpm HDD: 12.2 ms per random I/O, ~190 MB/s (0.005215 us per byte,
  // as RocksDB's simulated HDD), sequential continuation without a seek.
  if (spec == "hdd") { *out = Preset(spec, 12200, 12200, 191.75, 191.75, true); return ParseStatus::OK(); }
  if (spec == "none") { *out = DeviceParams(); return ParseStatus::OK(); }
  const std::string prefix = "custom-";
  if (spec.compare(0, prefix.size(), prefix) == 0) {
    std::string rest = spec.substr(prefix.size());
    size_t a = rest.find('-');
    size_t b = a == std::string::npos ? a : rest.find('-', a + 1);
    double r, w, mbps;
    // Bounds a device could have (a latency under 1,000 s, at least 1 kB/s
    // and at most 1 TB/s), so service times stay far inside 64 bits.
    if (b != std::string::npos && ParsePositive(rest.substr(0, a), &r) &&
        ParsePositive(rest.substr(a + 1, b - a - 1), &w) &&
        ParsePositive(rest.substr(b + 1), &mbps) && r <= 1e9 && w <= 1e9 && mbps >= 1e-3 &&
        mbps <= 1e6) {
      *out = Preset(spec, r, w, mbps, mbps, false);
      return ParseStatus::OK();
    }
    return ParseStatus::InvalidArgument(
        "device model '" + spec +
        "': expected custom-READ_US-WRITE_US-MBPS, e.g. custom-100-50-500 (latencies up to 1e9 "
        "us, 0.001 to 1e6 MB/s)");
  }
  return ParseStatus::InvalidArgument(
      "unknown device model '" + spec +
      "' (known: none, optane, nvme, sata-ssd, hdd, custom-READ_US-WRITE_US-MBPS)");
}

int64_t DeviceModel::ServiceNanos(bool write, bool sequential,
                                  uint64_t bytes) const {
  double lat_us = write ? params_.write_latency_us : params_.read_latency_us;
  if (sequential && params_.sequential_is_free) lat_us = 0;
  double mbps = write ? params_.write_mbps : params_.read_mbps;
  double transfer_us = mbps > 0 ? double(bytes) / mbps : 0;  // bytes / (10^6 B/s) = us
  // Saturates: no request takes 292 years, but its size is the caller's.
  const double ns = (lat_us + transfer_us) * 1000.0;
  return ns < 9.2e18 ? int64_t(ns) : INT64_MAX;
}

int64_t DeviceModel::Schedule(bool write, uint64_t stream, uint64_t offset,
                              uint64_t bytes, int64_t now_ns) {
  MutexLock lock(&mu_);
  bool sequential = stream == last_stream_ && offset == last_end_;
  last_stream_ = stream;
  last_end_ = offset + bytes;
  const int64_t service = ServiceNanos(write, sequential, bytes);
  if (write) {
    const int64_t start = std::max(now_ns, busy_until_);
    busy_until_ = fg_until_ = start + service;
    return busy_until_;
  }
  // Write-back queued ahead of the read: it waits for the request in flight
  // (none if the read queues behind another read: they go as one batch) and
  // for what is overdue, and passes the rest, which then ends later by the
  // read's service time.
  const int64_t free = std::max(now_ns, fg_until_);
  const int64_t backlog = std::max<int64_t>(0, busy_until_ - free);
  const int64_t in_flight =
      now_ns >= fg_until_ ? ServiceNanos(true, true, kWriteBackRequestBytes) : 0;
  const int64_t wait = std::min(backlog, in_flight) + std::max<int64_t>(0, backlog - kWriteExpireNanos);
  fg_until_ = free + wait + service;
  busy_until_ = std::max(busy_until_, free) + service;
  return fg_until_;
}

int64_t DeviceModel::ScheduleWriteBack(uint64_t stream, uint64_t offset, uint64_t bytes,
                                       int64_t now_ns) {
  MutexLock lock(&mu_);
  auto it = write_ends_.find(stream);
  bool sequential = it != write_ends_.end() && it->second == offset;
  if (write_ends_.size() >= kMaxWriteStreams && it == write_ends_.end()) write_ends_.clear();
  write_ends_[stream] = offset + bytes;
  int64_t start = std::max(now_ns, busy_until_);
  busy_until_ = start + ServiceNanos(true, sequential, bytes);
  return busy_until_;
}

int64_t DeviceModel::NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {
// What the calling thread owes the device models: positive, waits not yet
// slept; negative, a sleep's overshoot (at most kSlackNanos of it) that pays
// the next waits.
thread_local int64_t t_owed = 0;
}  // namespace

int64_t DeviceModel::ThreadNanos() { return NowNanos() + t_owed; }

void DeviceModel::WaitUntil(int64_t deadline_ns) {
  const int64_t now = NowNanos();
  // The deadline is on the thread's clock, which already counts what it
  // owed: the account is the deadline's lead, never less than it was.
  t_owed = std::max(t_owed, deadline_ns - now);
  if (t_owed < kSlackNanos) return;
  const int64_t until = now + t_owed;
  std::this_thread::sleep_until(std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(until)));
  t_owed = std::max(until - NowNanos(), -kSlackNanos);
}

}  // namespace tierfs
