// The live evaluator: measures a configuration by running db_bench through
// the TierFS plugin on a fresh store with the configuration's keys, on the
// emulated devices its tier part names (the way benchmarks/lib.sh's
// tfs_store and tfs_db_bench do). Slow (seconds a run) and noisy, so a few
// evaluations confirm what the simulator found rather than replace it.
//
// One run, for (workload, configuration):
//   1. a fresh directory WORK/run-N with one subdirectory per tier (tier0,
//      tier1, ...); the configuration's tier paths (a space's /fast, /slow)
//      are re-rooted there, capacities and device models kept, so the store
//      is `tierfs://WORK/run-N/tier0:CAP:DEV,...;KEY:VALUE...` with every
//      TierFS key of the configuration;
//   2. WORK/run-N/OPTIONS.ini from the configuration's rocksdb.NAME keys
//      (rocksdb_options.h; options not given keep RocksDB's defaults);
//   3. db_bench --fs_uri=THAT --db=/db --options_file=OPTIONS.ini
//      --benchmarks=WORKLOAD --num --value_size --seed --threads=1
//      --histogram=1 --cache_size=THE BLOCK CACHE (db_bench replaces an
//      OPTIONS file's block cache with its own of --cache_size bytes), with
//      the plugin preloaded, output in WORK/run-N/db_bench.log;
//   4. the last benchmark of WORKLOAD is the measurement: micros/op as the
//      mean latency (one thread), ops/sec as the throughput, the P99 of its
//      histogram.
//
// Determinism: the keys, values and operation order are fixed by --seed and
// one thread, and every run starts from an empty store, so two runs do the
// same RocksDB work; the times are the machine's and are not repeatable
// (background compaction and flush timing, the emulated devices' queues, other
// processes). `repeats` runs a configuration several times on fresh stores and
// keeps the median of each figure; spread() says how far apart they were.
// Measurements are cached by (workload, configuration) like the simulator's,
// so one configuration is run once per workload and evaluator.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tools/tune/evaluator.h"

namespace tierfs {
namespace tune {

struct LiveEvaluatorOptions {
  std::string db_bench = "/usr/bin/db_bench";  // Debian's db_bench 7.8.3
  std::string plugin;      // libtierfs.so, preloaded (LD_PRELOAD); required
  std::string work_dir;    // where runs are made (must exist); required
  uint64_t num = 100000;   // --num: keys written and (readrandom) read
  uint64_t value_size = 400;
  uint64_t seed = 42;      // --seed
  int repeats = 1;         // fresh-store runs per configuration; the median is kept
  std::vector<std::string> flags;  // more db_bench flags, each "--name=value"
  bool keep_runs = false;  // keep WORK/run-N after a successful run (a failed one is kept)
};

// Workload: a db_bench --benchmarks list ("fillrandom,readrandom"); the last
// one is measured. Not thread-safe: one caller at a time.
class LiveEvaluator : public Evaluator {
 public:
  explicit LiveEvaluator(const LiveEvaluatorOptions& options) : options_(options) {}

  // False and *error naming the workload and the configuration when the
  // configuration is not a tierfs:// URI, its OPTIONS file cannot be made,
  // db_bench fails (its exit status and the log's last lines, the run
  // directory kept) or prints no result for the measured benchmark.
  bool Evaluate(const std::string& workload, const std::string& configuration, Measurement* out,
                std::string* error) override;

  // Runs of db_bench so far, answers from the cache, wall seconds running.
  uint64_t runs() const { return runs_; }
  uint64_t hits() const { return hits_; }
  double seconds() const { return seconds_; }
  // The last run's directory, store URI and OPTIONS file.
  const std::string& last_dir() const { return last_dir_; }
  const std::string& last_uri() const { return last_uri_; }
  // The largest over smallest throughput among the repeats of the last
  // configuration measured (1 with one repeat).
  double spread() const { return spread_; }

 private:
  // One db_bench run on a fresh store into *out.
  bool RunOnce(const std::string& workload, const std::string& configuration, Measurement* out,
               std::string* error);

  const LiveEvaluatorOptions options_;
  std::map<std::pair<std::string, std::string>, Measurement> cache_;
  uint64_t runs_ = 0, hits_ = 0;
  double seconds_ = 0;
  std::string last_dir_, last_uri_;
  double spread_ = 1;
};

// Parses db_bench's report of `benchmark` in `log` (its text): micros/op,
// ops/sec and the P99 of the histogram that follows. False and *error if the
// benchmark's line is missing.
bool ParseDbBenchResult(const std::string& log, const std::string& benchmark, Measurement* out,
                        std::string* error);

}  // namespace tune
}  // namespace tierfs
