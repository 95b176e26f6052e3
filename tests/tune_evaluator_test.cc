// The simulator evaluator (tools/tune/evaluator.h): its measurements are the
// simulator's own for the same trace and configuration, warm-up included; a
// second ask is answered from the cache; bad workloads and configurations
// are refused by name; and one end-to-end search on a small synthetic
// workload through the default space.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/sim/compare.h"
#include "tools/sim/simulator.h"
#include "tools/tune/evaluator.h"
#include "tools/tune/objective.h"
#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {
namespace {

const char kUri[] = "tierfs:///fast:32M:optane,/slow:8G:sata-ssd;policy:lru;segment_size:256K";

sim::SimResult Direct(const std::string& workload, uint64_t requests, const std::string& uri,
                      double warmup) {
  std::vector<TraceRecord> trace;
  sim::SimConfig config;
  std::string error;
  EXPECT_TRUE(sim::LoadWorkload(workload, requests, 1, &trace, &error)) << error;
  EXPECT_TRUE(sim::ParseSimConfig(uri, &config, &error)) << error;
  const uint64_t ios = uint64_t(
      std::count_if(trace.begin(), trace.end(), [](const TraceRecord& r) { return r.is_io(); }));
  config.measure_after = uint64_t(warmup * double(ios));
  sim::SimResult result;
  EXPECT_TRUE(sim::RunPolicy(trace, config, &result, &error)) << error;
  return result;
}

TEST(TuneEvaluator, MeasuresWhatTheSimulatorMeasuresAndCaches) {
  for (double warmup : {0.0, 0.5}) {
    SimEvaluatorOptions options;
    options.requests = 5000;
    options.warmup = warmup;
    SimEvaluator eval(options);
    Measurement m;
    std::string error;
    ASSERT_TRUE(eval.Evaluate("YCSB-B", kUri, &m, &error)) << error;
    const sim::SimResult direct = Direct("YCSB-B", 5000, kUri, warmup);
    EXPECT_EQ(m.mean_us, direct.avg_latency_us);
    EXPECT_EQ(m.p99_us, direct.p99_us);
    EXPECT_EQ(m.throughput, direct.throughput);
    EXPECT_GT(m.mean_us, 0);
    EXPECT_EQ(eval.runs(), 1u);
    Measurement again;
    ASSERT_TRUE(eval.Evaluate("YCSB-B", kUri, &again, &error)) << error;
    EXPECT_EQ(eval.runs(), 1u);
    EXPECT_EQ(eval.hits(), 1u);
    EXPECT_EQ(again.mean_us, m.mean_us);
    // Another configuration is another run.
    ASSERT_TRUE(eval.Evaluate("YCSB-B", std::string(kUri) + ";migration_queue:3", &again, &error));
    EXPECT_EQ(eval.runs(), 2u);
  }
  // The warm-up changes what is measured.
  EXPECT_NE(Direct("YCSB-B", 5000, kUri, 0).avg_latency_us,
            Direct("YCSB-B", 5000, kUri, 0.5).avg_latency_us);
}

TEST(TuneEvaluator, RefusesBadWorkloadsAndConfigurationsByName) {
  SimEvaluator eval(SimEvaluatorOptions{});
  Measurement m;
  std::string error;
  EXPECT_FALSE(eval.Evaluate("no-such-workload", kUri, &m, &error));
  EXPECT_NE(error.find("workload 'no-such-workload'"), std::string::npos) << error;
  EXPECT_FALSE(eval.Evaluate("LUN0", "tierfs:///f:1G:optane;copy_page:3K", &m, &error));
  EXPECT_NE(error.find("configuration 'tierfs:///f:1G:optane;copy_page:3K'"), std::string::npos)
      << error;
  SimEvaluatorOptions bad;
  bad.warmup = 1;
  SimEvaluator eval2(bad);
  EXPECT_FALSE(eval2.Evaluate("LUN0", kUri, &m, &error));
  EXPECT_NE(error.find("warm-up"), std::string::npos) << error;
}

TEST(TuneEvaluator, EndToEndSearchOfTheDefaultSpace) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Load(std::string(TIERFS_SOURCE_DIR) + "/tools/tune/space.txt", &space,
                          &error))
      << error;
  space = space.WithoutLive();  // as tierfs-tune does for the simulator
  SimEvaluatorOptions options;
  options.requests = 4000;
  SimEvaluator eval(options);
  GradedObjective objective(&space, &eval, "YCSB-B", {"LUN0"});
  Budget budget(&space, &objective, 12);
  NewOptimizer("bayes", &error)->Run(space, 1, &budget);
  ASSERT_FALSE(budget.failed()) << budget.error();
  ASSERT_EQ(budget.trials().size(), 12u);
  // The default grades 0 against itself; the best is no worse; 2 workloads
  // per configuration, the default's measured once as the reference.
  EXPECT_EQ(budget.trials()[0].value, 0.0);
  EXPECT_LE(budget.best().value, 0.0);
  EXPECT_EQ(eval.runs(), 2u * 12);
  // The best configuration's URI runs in the simulator as it is.
  sim::SimConfig config;
  EXPECT_TRUE(sim::ParseSimConfig(budget.best().uri, &config, &error)) << error;
  // The same search again is answered from the cache.
  Budget again(&space, &objective, 12);
  NewOptimizer("bayes", &error)->Run(space, 1, &again);
  EXPECT_EQ(eval.runs(), 2u * 12);
  EXPECT_EQ(again.best().uri, budget.best().uri);
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
