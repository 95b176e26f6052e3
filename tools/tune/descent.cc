// LearnedSSD's GPR-guided discrete descent (learnedssd.txt §3.6, "Search
// optimal configurations"): "LearnedSSD first identifies the top three best
// configurations ... and randomly selects one as the search root. ... [it]
// expands the search space from the root by checking all the adjacent
// configurations under configuration constraints ... [and] will use the
// GPR model to identify the configuration with the best predicted
// performance grade. If its performance grade is better than the search
// root, LearnedSSD will set this configuration as the new search root".
// "we introduce a heuristic exploit factor, which is the minimum Manhattan
// distance between the configuration being exploited and the existing
// learned configurations. We also set a threshold for the number of search
// iterations (20 iterations by default)." A descent ends when the model
// predicts no adjacent configuration better than the root, or after
// kIterations; the root is then retired and, while budget remains, one
// random configuration is learned and a new descent starts from the top
// three roots not yet retired.
//
// Here: adjacent = one parameter one step (Space::Adjacent; the paper also
// moves two parameters together under a capacity constraint, which this
// space does not have); the exploit factor (kExploit, normalized Manhattan
// units, Space::Manhattan) keeps candidates at least that far from every
// configuration learned; the model's "best predicted" is its mean, and a
// candidate counts as possibly better than the root while its mean less one
// standard deviation is below the root's grade.
#include <algorithm>
#include <numeric>
#include <set>

#include "tools/tune/surrogate.h"

namespace tierfs {
namespace tune {
namespace {

constexpr int kIterations = 20;
constexpr double kExploit = 0.05;

class GprDescent : public Optimizer {
 public:
  std::string Name() const override { return "descent"; }
  void Run(const Space& space, uint64_t seed, Budget* budget) override {
    Rng rng(seed);
    if (!EvaluateInitialTrials(space, &rng, budget)) return;
    double value;
    std::set<std::string> retired;
    GaussianProcess gp;
    while (!budget->Done()) {
      Trial root;
      if (!PickRoot(*budget, retired, &rng, &root)) {
        budget->Evaluate(space.Random(&rng), &value);
        continue;
      }
      for (int iteration = 0; iteration < kIterations && !budget->Done(); ++iteration) {
        std::vector<Point> candidates;
        for (const Point& p : space.Adjacent(root.point)) {
          if (Exploitable(space, *budget, p)) candidates.push_back(p);
        }
        if (candidates.empty() || !FitSurrogate(space, budget->trials(), &gp)) break;
        // The best predicted, among those the model does not rule out: a
        // candidate whose mean less one standard deviation is no better than
        // the root cannot be expected to beat it.
        size_t pick = candidates.size();
        double pick_mean = 0;
        for (size_t i = 0; i < candidates.size(); ++i) {
          double mean, sd;
          gp.Predict(space.Encode(candidates[i]), &mean, &sd);
          if (mean - sd >= root.value) continue;
          if (pick == candidates.size() || mean < pick_mean) {
            pick = i;
            pick_mean = mean;
          }
        }
        if (pick == candidates.size()) break;  // no configuration predicted better than the root
        if (!budget->Evaluate(candidates[pick], &value)) break;
        if (value < root.value) root = budget->trials().back();
      }
      retired.insert(root.uri);
      if (!budget->Done()) budget->Evaluate(space.Random(&rng), &value);
    }
  }

 private:
  // A random one of the best three trials not retired.
  static bool PickRoot(const Budget& budget, const std::set<std::string>& retired, Rng* rng,
                       Trial* root) {
    const std::vector<Trial>& trials = budget.trials();
    std::vector<size_t> order(trials.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return trials[a].value < trials[b].value; });
    std::vector<size_t> top;
    for (size_t i : order) {
      if (retired.count(trials[i].uri) == 0) top.push_back(i);
      if (top.size() == 3) break;
    }
    if (top.empty()) return false;
    *root = trials[top[rng->Below(top.size())]];
    return true;
  }

  // The exploit factor: at least kExploit from every configuration learned.
  static bool Exploitable(const Space& space, const Budget& budget, const Point& p) {
    for (const Trial& t : budget.trials()) {
      if (space.Manhattan(p, t.point) < kExploit) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Optimizer> NewGprDescent() { return std::make_unique<GprDescent>(); }

}  // namespace tune
}  // namespace tierfs
