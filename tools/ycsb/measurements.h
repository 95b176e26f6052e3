// YCSB's Measurements: one latency histogram and one return-code tally per
// measurement name ("READ", "READ-FAILED", "READ-MODIFY-WRITE", "CLEANUP"),
// filled by all client threads, read by the status thread and the report.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "tools/ycsb/db.h"
#include "tools/ycsb/histogram.h"

namespace tierfs {
namespace ycsb {

// One measured metric. Thread safe.
class OneMeasurement {
 public:
  explicit OneMeasurement(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void Measure(int64_t micros) { histogram_.Record(micros); }
  void ReportStatus(DbStatus status) {
    returns_[int(status)].fetch_add(1, std::memory_order_relaxed);
  }

  LatencyHistogram::Snapshot Latencies() const { return histogram_.Take(); }
  uint64_t Operations() const { return histogram_.Count(); }
  uint64_t Returns(DbStatus status) const {
    return returns_[int(status)].load(std::memory_order_relaxed);
  }
  // Anything measured or reported: YCSB creates a measurement on first use,
  // so only these appear in its output.
  bool Used() const;

 private:
  const std::string name_;
  LatencyHistogram histogram_;
  std::atomic<uint64_t> returns_[kDbStatusCount] = {};
};

class Measurements {
 public:
  // The measurement named `name`, created on first call. The pointer stays
  // valid for the life of this object: callers look names up once, not per
  // operation. Thread safe.
  OneMeasurement* Get(const std::string& name);

  // Every measurement in use, in creation order. Thread safe.
  std::vector<const OneMeasurement*> Used() const;

  // YCSB's status-line summary of the samples since the previous call:
  // "[READ: Count=.., Max=.., Min=.., Avg=.., 90=.., 99=.., 99.9=.., 99.99=..] "
  // per measurement in use. For the one status thread.
  std::string IntervalSummary();

 private:
  mutable std::mutex mu_;
  std::deque<OneMeasurement> measurements_;                 // guarded by mu_; deque: stable addresses
  std::vector<LatencyHistogram::Snapshot> last_summary_;    // guarded by mu_; per measurement
};

// Java's DecimalFormat("#.##"): at most two decimals, half-even, no trailing
// zeros ("12.5", "3", "0.07").
std::string FormatDecimal2(double value);

}  // namespace ycsb
}  // namespace tierfs
