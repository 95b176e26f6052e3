// Evaluating a configuration on a workload: what the tuner measures. The
// simulator evaluator replays the workload through the tierfs_sim library in
// this process (no child process, no disk I/O): deterministic, so one result
// per (workload, configuration) is kept and asked again for free.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace tune {

// What a configuration gave on a workload.
struct Measurement {
  double mean_us = 0;     // mean request latency, microseconds
  double p99_us = 0;      // 99th percentile request latency, microseconds
  double throughput = 0;  // requests per (virtual) second
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Measures configuration `uri` (a tierfs:// URI) on `workload`. False and
  // *error naming the workload or configuration on failure.
  virtual bool Evaluate(const std::string& workload, const std::string& uri, Measurement* out,
                        std::string* error) = 0;
};

struct SimEvaluatorOptions {
  uint64_t requests = 20000;  // records of a synthetic workload (a trace file is read whole)
  uint64_t seed = 1;          // of a synthetic workload
  // The share of the trace's I/O records replayed before measuring, as
  // `tierfs-sim run --warmup` (SimConfig::measure_after). In [0, 1).
  double warmup = 0;
};

// Replays in-process (tools/sim). A configuration with a live-only
// rocksdb.NAME key (rocksdb_options.h) is refused by name: the simulator runs
// no RocksDB. Workload: a synthetic suite name or a
// trace file, as `tierfs-sim run --workload` takes (sim::LoadWorkload); each
// loaded once. Not thread-safe: one caller at a time.
class SimEvaluator : public Evaluator {
 public:
  explicit SimEvaluator(const SimEvaluatorOptions& options) : options_(options) {}

  bool Evaluate(const std::string& workload, const std::string& uri, Measurement* out,
                std::string* error) override;

  // Replays run so far (cache misses) and answers from the cache.
  uint64_t runs() const { return runs_; }
  uint64_t hits() const { return hits_; }
  // Wall seconds spent replaying.
  double seconds() const { return seconds_; }

 private:
  const SimEvaluatorOptions options_;
  std::map<std::string, std::vector<TraceRecord>> traces_;
  std::map<std::pair<std::string, std::string>, Measurement> cache_;
  uint64_t runs_ = 0, hits_ = 0;
  double seconds_ = 0;
};

}  // namespace tune
}  // namespace tierfs
