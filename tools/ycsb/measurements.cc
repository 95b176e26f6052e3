#include "tools/ycsb/measurements.h"

#include <cmath>
#include <cstdio>

namespace tierfs {
namespace ycsb {

bool OneMeasurement::Used() const {
  for (const auto& r : returns_) {
    if (r.load(std::memory_order_relaxed) != 0) return true;
  }
  return histogram_.Count() != 0;
}

OneMeasurement* Measurements::Get(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (OneMeasurement& m : measurements_) {
    if (m.name() == name) return &m;
  }
  measurements_.emplace_back(name);
  return &measurements_.back();
}

std::vector<const OneMeasurement*> Measurements::Used() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const OneMeasurement*> used;
  for (const OneMeasurement& m : measurements_) {
    if (m.Used()) used.push_back(&m);
  }
  return used;
}

std::string Measurements::IntervalSummary() {
  std::lock_guard<std::mutex> lock(mu_);
  last_summary_.resize(measurements_.size());
  std::string out;
  for (size_t i = 0; i < measurements_.size(); ++i) {
    const OneMeasurement& m = measurements_[i];
    if (!m.Used()) continue;
    LatencyHistogram::Snapshot now = m.Latencies();
    const LatencyHistogram::Snapshot interval = now.Minus(last_summary_[i]);
    last_summary_[i] = std::move(now);
    out += "[" + m.name() + ": Count=" + std::to_string(interval.count) +
           ", Max=" + std::to_string(interval.max) + ", Min=" + std::to_string(interval.min) +
           ", Avg=" + FormatDecimal2(interval.Mean()) +
           ", 90=" + std::to_string(interval.ValueAtPercentile(90)) +
           ", 99=" + std::to_string(interval.ValueAtPercentile(99)) +
           ", 99.9=" + std::to_string(interval.ValueAtPercentile(99.9)) +
           ", 99.99=" + std::to_string(interval.ValueAtPercentile(99.99)) + "] ";
  }
  return out;
}

std::string FormatDecimal2(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "\u221E" : "-\u221E";  // as DecimalFormat
  // Half-even to two decimals: DecimalFormat's default rounding.
  const double scaled = std::nearbyint(value * 100.0);  // default FP rounding is to-nearest-even
  char buf[64];
  snprintf(buf, sizeof(buf), "%.2f", scaled / 100.0);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

}  // namespace ycsb
}  // namespace tierfs
