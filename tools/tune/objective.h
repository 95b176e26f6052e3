// What a tuner minimizes: a function of a point of the space. The graded
// objective is LearnedSSD's Grade (grade.h) of the configuration the point
// renders, measured by an evaluator on the target workload and the others,
// each relative to the space's default configuration on that workload.
#pragma once

#include <string>
#include <vector>

#include "tools/tune/evaluator.h"
#include "tools/tune/space.h"

namespace tierfs {
namespace tune {

class Objective {
 public:
  virtual ~Objective() = default;
  // The value at `p` (lower is better). False and *error on failure.
  virtual bool Value(const Point& p, double* value, std::string* error) = 0;
};

struct GradeOptions {
  double alpha = 0.9;  // Goal: latency against throughput (grade.h)
  double beta = 0.9;   // Grade: the target against the other workloads
};

class GradedObjective : public Objective {
 public:
  // `space` and `evaluator` must outlive this. `others` may be empty.
  GradedObjective(const Space* space, Evaluator* evaluator, std::string target,
                  std::vector<std::string> others, GradeOptions options = GradeOptions());

  // Grade(Render(p)): the reference (the space's default) is measured on
  // each workload at the first call. The default's grade is 0.
  bool Value(const Point& p, double* value, std::string* error) override;
  // The target's measurement at the last Value.
  const Measurement& last_target() const { return last_target_; }
  // The reference's measurement on the target (after the first Value).
  const Measurement& reference_target() const { return reference_[0]; }

 private:
  const Space* const space_;
  Evaluator* const evaluator_;
  std::vector<std::string> workloads_;  // the target first
  const GradeOptions options_;
  std::vector<Measurement> reference_;  // per workload, once measured
  Measurement last_target_;
};

}  // namespace tune
}  // namespace tierfs
