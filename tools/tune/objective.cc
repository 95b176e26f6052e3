// The graded objective (objective.h).
#include "tools/tune/objective.h"

#include "tools/tune/grade.h"

namespace tierfs {
namespace tune {

GradedObjective::GradedObjective(const Space* space, Evaluator* evaluator, std::string target,
                                 std::vector<std::string> others, GradeOptions options)
    : space_(space), evaluator_(evaluator), options_(options) {
  workloads_.push_back(std::move(target));
  for (std::string& w : others) workloads_.push_back(std::move(w));
}

bool GradedObjective::Value(const Point& p, double* value, std::string* error) {
  if (reference_.empty()) {
    const std::string uri = space_->Render(space_->Default());
    for (const std::string& w : workloads_) {
      Measurement m;
      if (!evaluator_->Evaluate(w, uri, &m, error)) return false;
      reference_.push_back(m);
    }
  }
  const std::string uri = space_->Render(p);
  double target_goal = 0;
  std::vector<double> others;
  for (size_t i = 0; i < workloads_.size(); ++i) {
    Measurement m;
    if (!evaluator_->Evaluate(workloads_[i], uri, &m, error)) return false;
    const double goal = Goal(m, reference_[i], options_.alpha);
    if (i == 0) {
      target_goal = goal;
      last_target_ = m;
    } else {
      others.push_back(goal);
    }
  }
  *value = Grade(target_goal, others, options_.beta);
  return true;
}

}  // namespace tune
}  // namespace tierfs
