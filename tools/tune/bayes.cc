// Bayesian optimization (blackbox-autotuning.txt §2; Scikit-Optimize's
// gp_minimize is what the paper ran): kInitialTrials points (the default and
// random ones), then at each step a Gaussian process (gp.h) fitted to every
// trial, and the candidate (surrogate.h: random points and the neighbours
// of the best three) of largest expected improvement evaluated next.
// Categorical parameters enter the process one-hot (Space::Encode), so two
// names differ by a Hamming distance.
#include "tools/tune/surrogate.h"

namespace tierfs {
namespace tune {
namespace {

constexpr size_t kRandomCandidates = 500;
constexpr size_t kBestNeighbourhoods = 3;

class Bayesian : public Optimizer {
 public:
  std::string Name() const override { return "bayes"; }
  void Run(const Space& space, uint64_t seed, Budget* budget) override {
    Rng rng(seed);
    if (!EvaluateInitialTrials(space, &rng, budget)) return;
    double value;
    GaussianProcess gp;
    while (!budget->Done()) {
      const std::vector<Point> candidates =
          Candidates(space, *budget, kRandomCandidates, kBestNeighbourhoods, &rng);
      if (candidates.empty() || !FitSurrogate(space, budget->trials(), &gp)) {
        budget->Evaluate(space.Random(&rng), &value);
        continue;
      }
      const double best = budget->best().value;
      size_t pick = 0;
      double pick_ei = -1;
      for (size_t i = 0; i < candidates.size(); ++i) {
        double mean, sd;
        gp.Predict(space.Encode(candidates[i]), &mean, &sd);
        const double ei = ExpectedImprovement(mean, sd, best);
        if (ei > pick_ei) {
          pick_ei = ei;
          pick = i;
        }
      }
      budget->Evaluate(candidates[pick], &value);
    }
  }
};

}  // namespace

std::unique_ptr<Optimizer> NewBayesian() { return std::make_unique<Bayesian>(); }

}  // namespace tune
}  // namespace tierfs
