// Random search: the default, then uniform feasible points (Space::Random).
// The black-box paper's baseline, and the reference best of a large budget.
#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {
namespace {

class RandomSearch : public Optimizer {
 public:
  std::string Name() const override { return "random"; }
  void Run(const Space& space, uint64_t seed, Budget* budget) override {
    Rng rng(seed);
    double value;
    budget->Evaluate(space.Default(), &value);
    while (!budget->Done()) budget->Evaluate(space.Random(&rng), &value);
  }
};

}  // namespace

std::unique_ptr<Optimizer> NewRandomSearch() { return std::make_unique<RandomSearch>(); }

}  // namespace tune
}  // namespace tierfs
