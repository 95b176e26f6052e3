// LearnedSSD's Goal and Grade (tools/tune/grade.h) on numbers worked out by
// hand, and the graded objective's use of the reference configuration.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/tune/grade.h"
#include "tools/tune/objective.h"

namespace tierfs {
namespace tune {
namespace {

const double kLn2 = std::log(2.0);

Measurement M(double mean_us, double throughput) {
  Measurement m;
  m.mean_us = mean_us;
  m.p99_us = 4 * mean_us;
  m.throughput = throughput;
  return m;
}

TEST(TuneGrade, GoalByHand) {
  // Half the latency, twice the throughput: 0.1 ln(1/2) - 0.9 ln 2 = -ln 2.
  EXPECT_NEAR(Goal(M(50, 200), M(100, 100)), -kLn2, 1e-12);
  // alpha 0.5, twice the latency, half the throughput: 0.5 ln 2 - 0.5 ln(1/2) = ln 2.
  EXPECT_NEAR(Goal(M(200, 50), M(100, 100), 0.5), kLn2, 1e-12);
  // Latency alone (alpha 0): 1.0 x ln(300/100).
  EXPECT_NEAR(Goal(M(300, 100), M(100, 100), 0.0), std::log(3.0), 1e-12);
  // Throughput alone (alpha 1): -ln(150/100).
  EXPECT_NEAR(Goal(M(300, 150), M(100, 100), 1.0), -std::log(1.5), 1e-12);
  // The reference against itself.
  EXPECT_EQ(Goal(M(123, 456), M(123, 456)), 0.0);
  // alpha 0.9: 10% better latency and 10% worse throughput is worse than the reference.
  EXPECT_NEAR(Goal(M(90, 90), M(100, 100)), 0.1 * std::log(0.9) - 0.9 * std::log(0.9), 1e-12);
  EXPECT_GT(Goal(M(90, 90), M(100, 100)), 0);
}

TEST(TuneGrade, GradeByHand) {
  // 0.1 x -0.5 + 0.9 x (0.1 + 0.3) / 2 = 0.13.
  EXPECT_NEAR(Grade(-0.5, {0.1, 0.3}), 0.13, 1e-12);
  // beta 0.5: 0.5 x -0.5 + 0.5 x 0.2 = -0.15.
  EXPECT_NEAR(Grade(-0.5, {0.1, 0.3}, 0.5), -0.15, 1e-12);
  // beta 0: the target alone; beta 1: the others alone.
  EXPECT_NEAR(Grade(-0.5, {0.1, 0.3}, 0.0), -0.5, 1e-12);
  EXPECT_NEAR(Grade(-0.5, {0.1, 0.3}, 1.0), 0.2, 1e-12);
  // No other workload: the target's goal.
  EXPECT_EQ(Grade(-0.25, {}), -0.25);
  // What beta is for: winning the target by a lot and losing the others
  // grades worse than a small win everywhere.
  EXPECT_GT(Grade(-0.5, {0.3, 0.3}), Grade(-0.1, {-0.1, -0.1}));
}

// An evaluator that answers from a table (workload, URI) and counts calls.
class TableEvaluator : public Evaluator {
 public:
  std::map<std::pair<std::string, std::string>, Measurement> table;
  int calls = 0;
  bool Evaluate(const std::string& workload, const std::string& uri, Measurement* out,
                std::string* error) override {
    ++calls;
    auto it = table.find({workload, uri});
    if (it == table.end()) {
      *error = "no entry for " + workload + " " + uri;
      return false;
    }
    *out = it->second;
    return true;
  }
};

TEST(TuneGrade, ObjectiveGradesAgainstTheDefaultOnEachWorkload) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse("tiers /f:1G:optane,/s:8G:hdd\npolicy categorical fast-first lru\n",
                           "t", &space, &error))
      << error;
  const std::string def = space.Render({0}), lru = space.Render({1});
  TableEvaluator eval;
  eval.table[{"A", def}] = M(100, 1000);
  eval.table[{"B", def}] = M(10, 50);
  eval.table[{"A", lru}] = M(50, 2000);   // goal -ln 2
  eval.table[{"B", lru}] = M(20, 25);     // goal +ln 2
  GradedObjective objective(&space, &eval, "A", {"B"}, GradeOptions{0.9, 0.75});
  double value;
  ASSERT_TRUE(objective.Value({0}, &value, &error)) << error;
  EXPECT_EQ(value, 0.0);
  ASSERT_TRUE(objective.Value({1}, &value, &error)) << error;
  // 0.25 x -ln 2 + 0.75 x ln 2 = 0.5 ln 2.
  EXPECT_NEAR(value, 0.5 * kLn2, 1e-12);
  EXPECT_EQ(objective.last_target().mean_us, 50);
  EXPECT_EQ(objective.reference_target().mean_us, 100);
  // The reference is measured once: 2 (reference) + 2 + 2.
  EXPECT_EQ(eval.calls, 6);
  // A failing evaluation is the objective's failure, with the evaluator's message.
  eval.table.erase({"B", lru});
  EXPECT_FALSE(objective.Value({1}, &value, &error));
  EXPECT_NE(error.find("no entry for B"), std::string::npos) << error;
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
