// Simulated annealing (blackbox-autotuning.txt §2): "a state corresponds to
// one configuration. Neighbors of a state refer to new configurations
// achieved by altering only one parameter value of the current state" (here
// Space::Neighbor). A worse neighbour is accepted with probability
// exp(-delta / T); T cools geometrically from kStart to kEnd over the budget
// (the paper implements linear and geometric schedules). The temperatures are
// in grade units: a grade is a log ratio, so 0.1 is about a 10% change.
#include <cmath>

#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {
namespace {

constexpr double kStart = 0.1;
constexpr double kEnd = 0.001;

class Annealing : public Optimizer {
 public:
  std::string Name() const override { return "anneal"; }
  void Run(const Space& space, uint64_t seed, Budget* budget) override {
    Rng rng(seed);
    Point current = space.Default();
    double current_value;
    if (!budget->Evaluate(current, &current_value)) return;
    while (!budget->Done()) {
      const Point next = space.Neighbor(current, &rng);
      double value;
      if (!budget->Evaluate(next, &value)) break;
      const double t = kStart * std::pow(kEnd / kStart, budget->progress());
      if (value <= current_value || rng.Uniform() < std::exp(-(value - current_value) / t)) {
        current = next;
        current_value = value;
      }
    }
  }
};

}  // namespace

std::unique_ptr<Optimizer> NewAnnealing() { return std::make_unique<Annealing>(); }

}  // namespace tune
}  // namespace tierfs
