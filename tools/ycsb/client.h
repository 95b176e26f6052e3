// YCSB's Client and ClientThread: runs one phase (load or run) of a workload
// on N threads, each doing its share of the operations, throttled to a target
// throughput over all threads, with the optional status thread that prints
// progress every status.interval seconds.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "tools/ycsb/core_workload.h"
#include "tools/ycsb/db.h"
#include "tools/ycsb/measurements.h"
#include "tools/ycsb/properties.h"

namespace tierfs {
namespace ycsb {

struct ClientOptions {
  // The run phase (transactions) or the load phase (inserts). Property
  // dotransactions; -load / -run. Default: true.
  bool do_transactions = true;
  // Client threads. Property threadcount; -threads. Default: 1.
  int64_t threads = 1;
  // Operations per second over all threads, 0 for as fast as possible.
  // Property target; -target. Default: 0.
  int64_t target = 0;
  // Operations over all threads: operationcount for the run phase,
  // insertcount (or else recordcount) for the load phase. 0: no limit (stop
  // on maxexecutiontime). Default: 0.
  int64_t operation_count = 0;
  // Stop after this many seconds, 0 for no limit. Property maxexecutiontime.
  int64_t max_execution_time_s = 0;
  // Run phase only: seconds of operations before the measured run, in the
  // same process (caches, and TierFS's placement and hot-page copies, stay
  // warm), measured apart and left out of the report. The tool runs them;
  // RunClient ignores it. Property warmuptime (not YCSB's). Default: 0.
  int64_t warmup_s = 0;
  // With a persistent read cache (rocksdb.persistent_cache_path): after the
  // warmup_s seconds, the warm-up goes on in steps of warmup_step_s seconds
  // and ends after the first step in which the cache's files grew by less
  // than 1%, or once it has run warmup_max_s seconds in all, so the measured
  // run starts with a cache that has stopped filling. Properties
  // warmupuntilstable, warmupstep, warmupmax (not YCSB's). Defaults: false,
  // 5, 10 x warmup_s.
  bool warmup_until_stable = false;
  int64_t warmup_step_s = 5;
  int64_t warmup_max_s = 0;
  // Print status lines. Property status; -s. Default: false.
  bool status = false;
  // Seconds between status lines. Property status.interval. Default: 10.
  int64_t status_interval_s = 10;
  // Prefix of every status line. Property label; -l. Default: "".
  std::string label;
};

// Reads the options from the properties; InvalidArgument names a bad one.
rocksdb::Status ClientOptionsFromProperties(const Properties& props, ClientOptions* options);

struct ClientResult {
  int64_t operations = 0;  // done, over all threads
  int64_t runtime_ms = 0;  // from starting the threads to the last one's cleanup
  // Why threads stopped before their share was done, or a cleanup failed;
  // empty when the phase completed.
  std::vector<std::string> errors;
};

// Runs the phase. `db` is shared by the threads: Init is called once per
// thread before any thread starts, Cleanup by each thread after its last
// operation. Status lines go to *status_out.
ClientResult RunClient(const ClientOptions& options, CoreWorkload* workload, DB* db,
                       Measurements* measurements, std::ostream* status_out);

}  // namespace ycsb
}  // namespace tierfs
