// The budget and the optimizer registry (optimizer.h).
#include "tools/tune/optimizer.h"

#include "tools/tune/qnet.h"

namespace tierfs {
namespace tune {

Budget::Budget(const Space* space, Objective* objective, size_t evaluations, Progress progress)
    : space_(space), objective_(objective), evaluations_(evaluations), progress_(progress) {}

bool Budget::Done() const {
  return failed() || trials_.size() >= evaluations_ || asks_ >= 100 * evaluations_ + 1000;
}

bool Budget::Evaluate(const Point& p, double* value) {
  ++asks_;
  const std::string uri = space_->Render(p);
  auto it = seen_.find(uri);
  if (it != seen_.end()) {
    *value = trials_[it->second].value;
    return !failed();
  }
  if (Done()) return false;
  Trial t{p, uri, 0};
  if (!objective_->Value(p, &t.value, &error_)) {
    if (error_.empty()) error_ = "the objective failed at " + uri;
    return false;
  }
  seen_[uri] = trials_.size();
  trials_.push_back(t);
  if (t.value < trials_[best_].value) best_ = trials_.size() - 1;
  curve_.push_back(trials_[best_].value);
  if (progress_) progress_(t, trials_.size());
  *value = t.value;
  return true;
}

std::vector<std::string> OptimizerNames() {
  std::vector<std::string> names = {"random", "anneal", "genetic", "bayes", "descent"};
  if (QNetAvailable(nullptr)) names.push_back("dqn");
  return names;
}

std::unique_ptr<Optimizer> NewOptimizer(const std::string& name, std::string* error) {
  if (name == "random") return NewRandomSearch();
  if (name == "anneal") return NewAnnealing();
  if (name == "genetic") return NewGenetic();
  if (name == "bayes") return NewBayesian();
  if (name == "descent") return NewGprDescent();
  if (name == "dqn") {
    if (QNetAvailable(error)) return NewDqn();
    return nullptr;
  }
  std::string known;
  for (const std::string& n : OptimizerNames()) known += (known.empty() ? "" : ", ") + n;
  *error = "unknown optimizer '" + name + "' (known: " + known + ")";
  return nullptr;
}

}  // namespace tune
}  // namespace tierfs
