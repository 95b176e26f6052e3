// Device emulation: makes a directory on any disk behave, in time, like an NVMe
// drive, a SATA SSD or an HDD, so hybrid storage systems are reproducible on one
// machine.
//
// Each emulated device serves one I/O at a time. An I/O occupies the device
// for its service time:
//   service = latency (skipped for an HDD I/O that continues the previous one)
//           + bytes / bandwidth
// so concurrent I/Os wait for each other as on a real device, and the device
// never exceeds its bandwidth. Buffered write-back queues behind everything;
// a read passes the write-back queued ahead of it, as a kernel I/O scheduler
// lets it (mq-deadline dispatches reads first), within two bounds: it waits
// for the write-back request in flight (kWriteBackRequestBytes; none when it
// queues behind another read, as reads go in batches), and for
// write-back queued longer than kWriteExpireNanos (mq-deadline's write
// deadline), which it may not starve. The write-back it passes completes
// later by the read's service time. Direct writes and flushes queue behind
// everything. The caller then waits for its deadline; because
// a sleep here costs ~80 us whatever is asked, each thread keeps an account of
// what it owes the models: its own time on them (ThreadNanos) runs that far
// ahead of the clock, its I/Os are issued at that time, and a wait moves it to
// the I/O's completion; once the account passes kSlackNanos the thread sleeps
// it off in one sleep, whose overshoot is credited to the next waits. So a
// thread pays for every I/O the model charged it, once: I/Os back to back
// queue behind each other as on the device (not behind their own unpaid
// debt), and CPU work between them does not cancel the debt (until 2026-12
// the account was the device's busy_until, which forgets a debt the moment the
// device idles: 10 us optane reads between 19 us of CPU were never paid).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/parse_status.h"
#include "util/mutex.h"

namespace tierfs {

struct DeviceParams {
  std::string name = "none";
  double read_latency_us = 0;   // per random read
  double write_latency_us = 0;  // per random write
  double read_mbps = 0;         // MB/s, 10^6 bytes; 0 = unlimited
  double write_mbps = 0;
  // An I/O starting where the previous one on this device ended (same file)
  // pays no latency: a disk head that need not seek.
  bool sequential_is_free = false;

  bool emulated() const { return name != "none"; }
};

// Parses a device name: none, optane, nvme, sata-ssd, hdd, or
// custom-READUS-WRITEUS-MBPS. Errors name the bad spec.
ParseStatus ParseDeviceParams(const std::string& spec, DeviceParams* out);

class DeviceModel {
 public:
  static constexpr int64_t kSlackNanos = 200 * 1000;
  // A read waits for one write-back request in flight (the kernel's largest
  // request, 512 KiB) ...
  static constexpr uint64_t kWriteBackRequestBytes = 512 << 10;
  // ... and for write-back queued longer than this (mq-deadline's write_expire).
  static constexpr int64_t kWriteExpireNanos = 5000LL * 1000 * 1000;
  // How far a device may run behind buffered writers before they wait
  // (dirty-page throttling): a buffered write returns when its write-back
  // is no more than this behind.
  static constexpr int64_t kWriteBackNanos = 100 * 1000 * 1000;

  explicit DeviceModel(const DeviceParams& params) : params_(params) {}

  const DeviceParams& params() const { return params_; }

  // Reserves the device for one I/O of `bytes` at `offset` of stream `stream`
  // (a file id) issued at `now_ns`, and returns the time it completes: a read
  // ahead of queued write-back (bounded, see above), a write behind
  // everything. Thread-safe.
  int64_t Schedule(bool write, uint64_t stream, uint64_t offset,
                   uint64_t bytes, int64_t now_ns) EXCLUDES(mu_);
  // The same for a buffered write, which reaches the device through the page
  // cache: appends to a file are written back together, so a write that
  // continues the previous buffered write of its file is sequential even if
  // other I/O came between them (an HDD pays one seek per file's run of
  // appends, not one per append).
  int64_t ScheduleWriteBack(uint64_t stream, uint64_t offset, uint64_t bytes, int64_t now_ns)
      EXCLUDES(mu_);

  // When the device will have completed everything queued so far.
  int64_t BusyUntil() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return busy_until_;
  }

  // Service time of one I/O, in nanoseconds, ignoring the queue.
  int64_t ServiceNanos(bool write, bool sequential, uint64_t bytes) const;

  // Makes the calling thread wait until `deadline_ns`, a time on its own
  // clock (ThreadNanos): its account becomes at least the deadline's lead on
  // the clock, and is slept off once it reaches kSlackNanos (see the top of
  // this file). The thread returns no earlier than kSlackNanos before the
  // deadline, and over many calls it spends in here what it owes, within
  // kSlackNanos.
  static void WaitUntil(int64_t deadline_ns);

  // The clock (steady, nanoseconds).
  static int64_t NowNanos();
  // The calling thread's time on the device models: the clock plus what the
  // thread owes them, at most kSlackNanos ahead (or behind, after a sleep
  // that overshot). An I/O on an emulated device starts at this time.
  static int64_t ThreadNanos();

 private:
  const DeviceParams params_;
  Mutex mu_;
  int64_t busy_until_ GUARDED_BY(mu_) = 0;  // all queued work done
  int64_t fg_until_ GUARDED_BY(mu_) = 0;    // reads, direct writes and flushes done
  uint64_t last_stream_ GUARDED_BY(mu_) = ~0ull;
  uint64_t last_end_ GUARDED_BY(mu_) = 0;
  // Per stream, where its last buffered write ended (bounded: cleared when
  // it holds kMaxWriteStreams streams).
  std::unordered_map<uint64_t, uint64_t> write_ends_ GUARDED_BY(mu_);
  static constexpr size_t kMaxWriteStreams = 1024;
};

}  // namespace tierfs
