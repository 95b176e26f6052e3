// The simulator's reference points across the whole synthetic suite: on
// every workload and configuration, fast-only is never slower than any
// policy, and the oracle is never beaten by more than noise.
//
// "Noise": the same policy's average latency on the same workload differs by
// 3 to 7 percent from one seed to another (measured over seeds 1-6: lru on
// CosmoFlow/tri 2311-2473 us, on mix6/cost 25991-26723 us). The oracle is
// held to 2 percent. It is a rule with future knowledge, not a proven
// optimum: on CosmoFlow it stays 1-2 percent behind fast-first and lru
// (docs/simulator.md, "Oracle"; figures: docs/lab-notebook.md, "Building the
// oracle").
#include <gtest/gtest.h>

#include <map>

#include "agents/policy.h"
#include "tools/sim/compare.h"
#include "tools/sim/oracle.h"
#include "tools/sim/workloads.h"

namespace tierfs {
namespace sim {
namespace {

constexpr double kOracleTolerance = 1.02;

TEST(SimSuiteTest, FastOnlyBoundsEveryPolicyAndTheOracleLeadsTheHeuristics) {
  CompareOptions o;
  o.configs = {"perf", "cost", "tri"};
  o.workloads = WorkloadNames();
  // The heuristics (issue 4's criterion) and k-svm; the learning agents,
  // and rnn-hss (an LSTM trained at every plan: 20x the suite's time), are
  // measured by benchmarks/learning.sh.
  for (const std::string& p : PolicyNames()) {
    if (!PolicyLearns(p) && p != "rnn-hss") o.policies.push_back(p);
  }
  o.policies.push_back(kOracleName);
  o.requests = 50000;
  o.jobs = 2;
  std::vector<Cell> cells;
  std::string error;
  ASSERT_TRUE(Compare(o, &cells, &error)) << error;
  ASSERT_EQ(o.configs.size() * o.workloads.size() * o.policies.size(), cells.size());

  std::map<std::pair<std::string, std::string>, std::map<std::string, const SimResult*>> runs;
  for (const Cell& c : cells) runs[{c.config, c.workload}][c.result.policy] = &c.result;
  int oracle_leads = 0;
  for (const auto& [key, by_policy] : runs) {
    const std::string where = key.second + " on " + key.first;
    const SimResult* fast = by_policy.at("fast-only");
    const SimResult* oracle = by_policy.at(kOracleName);
    for (const auto& [policy, r] : by_policy) {
      EXPECT_LE(fast->avg_latency_us, r->avg_latency_us) << policy << " beats fast-only, " << where;
      EXPECT_GE(fast->throughput, r->throughput * 0.999) << policy << " outruns fast-only, " << where;
      if (policy == kOracleName || policy == "fast-only") continue;
      EXPECT_LE(oracle->avg_latency_us, r->avg_latency_us * kOracleTolerance)
          << policy << " beats the oracle by " << (oracle->avg_latency_us / r->avg_latency_us - 1) * 100
          << "%, " << where;
    }
    bool leads = true;
    for (const auto& [policy, r] : by_policy) {
      if (policy != kOracleName && policy != "fast-only") leads &= oracle->avg_latency_us <= r->avg_latency_us;
    }
    oracle_leads += leads;
  }
  // Not only within tolerance: ahead of every heuristic on most of the suite.
  EXPECT_GE(oracle_leads, int(runs.size()) * 3 / 4);
}

}  // namespace
}  // namespace sim
}  // namespace tierfs
