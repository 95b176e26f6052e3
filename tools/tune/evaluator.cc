// The simulator evaluator (evaluator.h).
#include "tools/tune/evaluator.h"

#include <algorithm>
#include <chrono>

#include "tools/sim/compare.h"
#include "tools/sim/simulator.h"
#include "tools/tune/rocksdb_options.h"

namespace tierfs {
namespace tune {

bool SimEvaluator::Evaluate(const std::string& workload, const std::string& uri,
                            Measurement* out, std::string* error) {
  const auto key = std::make_pair(workload, uri);
  auto cached = cache_.find(key);
  if (cached != cache_.end()) {
    ++hits_;
    *out = cached->second;
    return true;
  }
  // Refused, not ignored: a measurement cached under a configuration whose
  // RocksDB options the simulator never saw would tell the optimizer those
  // options make no difference.
  std::map<std::string, std::string> live;
  SplitConfiguration(uri, nullptr, &live);
  if (!live.empty()) {
    *error = "configuration '" + uri + "': " + kRocksDbPrefix + live.begin()->first +
             " is a live-only key: the simulator replays TierFS's I/O and runs no RocksDB, so "
             "it cannot measure it (evaluate live, or search the space without it)";
    return false;
  }
  if (!(options_.warmup >= 0 && options_.warmup < 1)) {
    *error = "bad warm-up share " + std::to_string(options_.warmup) + " (from 0 to below 1)";
    return false;
  }
  auto trace = traces_.find(workload);
  if (trace == traces_.end()) {
    std::vector<TraceRecord> records;
    if (!sim::LoadWorkload(workload, options_.requests, options_.seed, &records, error)) {
      *error = "workload '" + workload + "': " + *error;
      return false;
    }
    trace = traces_.emplace(workload, std::move(records)).first;
  }
  sim::SimConfig config;
  if (!sim::ParseSimConfig(uri, &config, error)) {
    *error = "configuration '" + uri + "': " + *error;
    return false;
  }
  const std::vector<TraceRecord>& records = trace->second;
  const uint64_t ios = uint64_t(std::count_if(records.begin(), records.end(),
                                              [](const TraceRecord& r) { return r.is_io(); }));
  config.measure_after = uint64_t(options_.warmup * double(ios));
  const auto start = std::chrono::steady_clock::now();
  sim::SimResult result;
  if (!sim::RunPolicy(records, config, &result, error)) {
    *error = "workload '" + workload + "' under '" + uri + "': " + *error;
    return false;
  }
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++runs_;
  if (result.requests == 0 || result.throughput <= 0 || result.avg_latency_us <= 0) {
    *error = "workload '" + workload + "' under '" + uri + "' measured no request";
    return false;
  }
  Measurement m;
  m.mean_us = result.avg_latency_us;
  m.p99_us = result.p99_us;
  m.throughput = result.throughput;
  cache_[key] = m;
  *out = m;
  return true;
}

}  // namespace tune
}  // namespace tierfs
