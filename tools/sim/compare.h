// Comparing policies: many workloads, many configurations, one invocation,
// every policy normalized to fast-only run on the same trace.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/sim/report.h"
#include "tools/sim/simulator.h"

namespace tierfs {
namespace sim {

// The hybrid storage systems of Harmonia's evaluation (harmonia.txt, Table
// 4), on our device models, sized to a trace:
//   perf  optane + sata-ssd       (performance-optimized)
//   cost  optane + hdd            (cost-optimized)
//   tri   optane + sata-ssd + hdd
// The fast tier holds `fast_pct` percent of the trace's footprint; in tri the
// middle tier holds three times that; the slowest holds twice the footprint.
// For fast-only, tier 0 holds everything (all tiers' capacity), which is what
// fast-only means. `name` may also be a tierfs:// URI, used as it is (but for
// fast-only's tier 0). `policy` is a spec (ParsePolicySpec). False and
// *error on an unknown name.
bool MakeConfig(const std::string& name, uint64_t footprint, double fast_pct,
                uint64_t segment_size, const std::string& policy, SimConfig* config,
                std::string* error);

// A policy as the simulator's command line spells it: NAME, or
// NAME:PARAM=VALUE[:PARAM=VALUE...] to set the policy's own parameters (the
// URI's POLICY.PARAM keys), e.g. harmonia:plan_interval=4096. False and
// *error on a malformed parameter.
bool ParsePolicySpec(const std::string& spec, std::string* name, PolicyParams* params,
                     std::string* error);

// Bytes of the distinct segments a trace touches.
uint64_t Footprint(const std::vector<TraceRecord>& trace, uint64_t segment_size);

struct CompareOptions {
  std::vector<std::string> configs{"perf", "cost", "tri"};
  std::vector<std::string> workloads;  // synthetic workload names or trace files
  std::vector<std::string> policies;   // fast-only is added if missing
  uint64_t requests = 100000;          // per synthetic workload
  uint64_t seed = 1;
  uint64_t segment_size = 64 << 10;
  double fast_pct = 10;
  SimConfig::Replay replay = SimConfig::Replay::kClosed;
  int jobs = 1;                        // simulations run at once
  // Ceilings (ceiling.h) of each workload on each configuration's tier 0
  // (none by default); see Compare's `ceilings`.
  std::vector<CeilingSpec> ceilings;
  // Called after each run (from the thread that ran it, serialized).
  std::function<void(const Cell&, size_t done, size_t total)> progress;
};

// Runs every policy on every workload and configuration. Cells come in a
// fixed order (config, workload, policy), whatever `jobs`. With `ceilings`,
// also computes options.ceilings of every workload on every configuration's
// tier 0, in the order (workload, config, ceiling); configurations with the
// same tier 0 capacity and segment size share one computation.
bool Compare(const CompareOptions& options, std::vector<Cell>* cells, std::string* error,
             std::vector<CeilingCell>* ceilings = nullptr);

// Loads a workload: a trace file if `name` names an existing file, else a
// synthetic workload of `requests` records.
bool LoadWorkload(const std::string& name, uint64_t requests, uint64_t seed,
                  std::vector<TraceRecord>* trace, std::string* error);

}  // namespace sim
}  // namespace tierfs
