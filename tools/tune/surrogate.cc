// The model-based optimizers' shared pieces (surrogate.h).
#include "tools/tune/surrogate.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace tierfs {
namespace tune {

bool EvaluateInitialTrials(const Space& space, Rng* rng, Budget* budget) {
  double value;
  if (!budget->Evaluate(space.Default(), &value)) return false;
  while (budget->trials().size() < kInitialTrials && !budget->Done()) {
    budget->Evaluate(space.Random(rng), &value);
  }
  return true;
}

bool FitSurrogate(const Space& space, const std::vector<Trial>& trials, GaussianProcess* gp) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const Trial& t : trials) {
    x.push_back(space.Encode(t.point));
    y.push_back(t.value);
  }
  return gp->Fit(x, y);
}

std::vector<Point> Candidates(const Space& space, const Budget& budget, size_t random, size_t best,
                              Rng* rng) {
  std::vector<Point> out;
  std::set<std::string> uris;
  auto add = [&](const Point& p) {
    const std::string uri = space.Render(p);
    if (!budget.Seen(p) && uris.insert(uri).second) out.push_back(p);
  };
  const std::vector<Trial>& trials = budget.trials();
  std::vector<size_t> order(trials.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return trials[a].value < trials[b].value; });
  for (size_t i = 0; i < std::min(best, order.size()); ++i) {
    for (const Point& p : space.Adjacent(trials[order[i]].point)) add(p);
  }
  for (size_t i = 0; i < random; ++i) add(space.Random(rng));
  return out;
}

}  // namespace tune
}  // namespace tierfs
