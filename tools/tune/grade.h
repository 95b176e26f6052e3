// LearnedSSD's grading (learnedssd.txt §3.4, §3.6): one number per
// configuration that weighs latency against throughput, relative to a
// reference configuration, and the target workload against the others, so
// that a configuration that wins one workload and loses the rest is not
// chosen. Lower is better: both formulas are logs of ratios to the
// reference, negative when the configuration improves on it.
#pragma once

#include <vector>

#include "tools/tune/evaluator.h"

namespace tierfs {
namespace tune {

// Formula (1):
//   Goal(conf) = (1 - alpha) x log(Latency_conf / Latency_refer)
//                - alpha x log(Throughput_conf / Throughput_refer)
// "where alpha is a tunable coefficient factor for balancing the latency and
// throughput at a proper scale. We set alpha = 0.9 by default". The latency
// is the mean request latency; log is the natural logarithm (the paper does
// not say; the base only scales the grade). The reference is the
// reference configuration's measurement on the same workload.
double Goal(const Measurement& conf, const Measurement& refer, double alpha = 0.9);

// Formula (2):
//   Grade(conf) = (1 - beta) x Goal(conf)
//                 + beta x (sum over conf' in non-target of Goal(conf')) / (NumClusters - 1)
// where Goal(conf) is the configuration's goal on the target workload and
// the Goal(conf')s are its goals on the NumClusters - 1 other workloads
// (clusters); "beta = 0.9 by default". With no other workload (NumClusters =
// 1) the sum is empty and the grade is the target's goal alone: a grade
// that is (1 - beta) x goal would only rescale it.
double Grade(double target_goal, const std::vector<double>& other_goals, double beta = 0.9);

}  // namespace tune
}  // namespace tierfs
