// What the model-based optimizers (bayes, descent) share: a Gaussian
// process fitted to the trials so far over the encoded space.
#pragma once

#include <vector>

#include "tools/tune/gp.h"
#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {

// The trials a model starts from: the default configuration, then random
// feasible points until there are kInitialTrials (or the budget ends).
// False if the budget would not take the default.
constexpr size_t kInitialTrials = 5;
bool EvaluateInitialTrials(const Space& space, Rng* rng, Budget* budget);

// Fits `gp` to `trials` (Space::Encode of each point, its value). False if
// the process cannot be fitted.
bool FitSurrogate(const Space& space, const std::vector<Trial>& trials, GaussianProcess* gp);

// The points of `space` the model-based optimizers choose among:
// `random` uniform feasible points, and the points adjacent to the best
// `best` trials (Space::Adjacent), leaving out configurations the budget has
// already evaluated.
std::vector<Point> Candidates(const Space& space, const Budget& budget, size_t random, size_t best,
                              Rng* rng);

}  // namespace tune
}  // namespace tierfs
