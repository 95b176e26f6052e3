// The warm start LearnedSSD's ConfDB exists for (learnedssd.txt §3.6: "use
// the configurations stored in the ConfDB as the initial configuration
// set"): the stored configurations are evaluated through the budget before
// the optimizer runs, so they count as evaluations, appear first in the
// convergence curve, and the model-based optimizers (bayes, descent) fit
// their Gaussian process to them from the start.
#pragma once

#include <string>
#include <vector>

#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {

// Evaluates each URI of `uris` in order that is a configuration of `space`
// (Space::PointOf), while the budget lasts. `skipped` (optional) gets the
// URIs the space does not hold. False if an evaluation failed (the budget's
// error says why).
bool WarmStart(const Space& space, const std::vector<std::string>& uris, Budget* budget,
               std::vector<std::string>* skipped = nullptr);

// Runs `optimizer` after the warm start: the optimizer sees the budget with
// the stored configurations already in it.
bool RunWarm(Optimizer* optimizer, const Space& space, uint64_t seed,
             const std::vector<std::string>& uris, Budget* budget,
             std::vector<std::string>* skipped = nullptr);

}  // namespace tune
}  // namespace tierfs
