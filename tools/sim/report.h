// Simulator output: one run as text or JSON, and the comparison of policies
// across workloads as markdown and CSV, normalized to fast-only.
#pragma once

#include <string>
#include <vector>

#include "tools/sim/ceiling.h"
#include "tools/sim/simulator.h"

namespace tierfs {
namespace sim {

// One run, human-readable, and as a JSON object. Both are functions of the
// simulation alone (no wall-clock time), so equal runs print equal bytes.
// The JSON has the trace's ceilings (ceiling.h) under "ceilings" if given.
std::string FormatResult(const SimResult& r, const SimConfig& config);
std::string ResultJson(const SimResult& r, const SimConfig& config,
                       const std::vector<CeilingResult>& ceilings = {});

// A trace's ceilings as a table (`segment_size`: the pieces' unit), and as
// a JSON array.
std::string FormatCeilings(const std::vector<CeilingResult>& ceilings, uint64_t segment_size);
std::string CeilingsJson(const std::vector<CeilingResult>& ceilings);

// One cell of a comparison: a policy's run of a workload on a configuration.
struct Cell {
  std::string config;    // "perf", "cost", "tri", or a URI
  std::string workload;
  SimResult result;
};

// A ceiling of a workload's trace, of a configuration's tier 0.
struct CeilingCell {
  std::string config;
  std::string workload;
  CeilingResult result;
};

// Performance relative to fast-only from the same comparison: fast-only's
// average latency over the policy's (1 = as fast as fast-only).
double Normalized(const SimResult& r, const SimResult& fast_only);

// The comparison tables, one per configuration: a row per workload, a column
// per policy, cells normalized to fast-only, and a row of the geometric mean.
// Cells without a fast-only run of the same workload and configuration are
// left out.
std::string ComparisonMarkdown(const std::vector<Cell>& cells,
                               const std::vector<std::string>& policies);
// Every metric of every cell, one row each, with the normalized value.
std::string ComparisonCsv(const std::vector<Cell>& cells);

// Tier 0's share of user reads (TierResult::user_read_share), one table per
// configuration: a row per workload, a column per policy (fast-only, always
// 100%, left out) and per ceiling (its `share`), and a row of the means.
std::string UserReadShareMarkdown(const std::vector<Cell>& cells,
                                  const std::vector<std::string>& policies,
                                  const std::vector<CeilingCell>& ceilings);
// Every ceiling, one row each.
std::string CeilingsCsv(const std::vector<CeilingCell>& ceilings);

}  // namespace sim
}  // namespace tierfs
