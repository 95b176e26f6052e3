// LearnedSSD's Goal and Grade (grade.h).
#include "tools/tune/grade.h"

#include <cmath>

namespace tierfs {
namespace tune {

double Goal(const Measurement& conf, const Measurement& refer, double alpha) {
  return (1 - alpha) * std::log(conf.mean_us / refer.mean_us) -
         alpha * std::log(conf.throughput / refer.throughput);
}

double Grade(double target_goal, const std::vector<double>& other_goals, double beta) {
  if (other_goals.empty()) return target_goal;
  double sum = 0;
  for (double g : other_goals) sum += g;
  return (1 - beta) * target_goal + beta * sum / double(other_goals.size());
}

}  // namespace tune
}  // namespace tierfs
