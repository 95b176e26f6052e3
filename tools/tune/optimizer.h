// The optimizers of tierfs-tune behind one interface: each proposes points
// of a space and reads their values through a Budget, until the budget of
// evaluations is spent. Seeded and deterministic: the same space, objective,
// budget and seed give the same trials.
//
//   random   uniform feasible points (the black-box paper's RS)
//   anneal   simulated annealing: one-parameter neighbours, geometric cooling
//   genetic  a genetic algorithm: tournament selection, one-point crossover
//            (the paper's Figure 2), per-gene mutation, one elite kept
//   bayes    Bayesian optimization: a Gaussian process (gp.h) over the
//            encoded space (categoricals one-hot), expected improvement
//   descent  LearnedSSD's GPR-guided discrete descent (§3.6): from one of the
//            top three configurations, the adjacent configurations the
//            Gaussian process predicts best, an exploit factor and an
//            iteration limit
//   dqn      a deep Q-network (dqn.cc): steps one parameter at a time,
//            rewarded by the change in grade; on LibTorch, loaded at run time
//            (qnet.h), so listed only where libtierfs_tune_qnet.so loads
//
// Every optimizer evaluates the space's default first, so no run returns a
// configuration worse than the default.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/tune/objective.h"
#include "tools/tune/space.h"

namespace tierfs {
namespace tune {

struct Trial {
  Point point;
  std::string uri;  // Space::Render(point): what the trial is, and its identity
  double value = 0;
};

// An objective with a budget: counts distinct configurations (by URI);
// asking again for one already evaluated returns its value for free.
class Budget {
 public:
  // Called after each new evaluation with the trial and how many so far.
  using Progress = std::function<void(const Trial&, size_t evaluations)>;
  Budget(const Space* space, Objective* objective, size_t evaluations,
         Progress progress = nullptr);

  // The value at `p`. False when the budget is spent (no evaluation made) or
  // the objective failed (error() says why): the optimizer should stop.
  bool Evaluate(const Point& p, double* value);
  // True if `p`'s configuration has been evaluated.
  bool Seen(const Point& p) const { return seen_.count(space_->Render(p)) > 0; }
  // True once the budget is spent, the objective failed, or the optimizer
  // has asked 100 times the budget without finding a new configuration (a
  // space smaller than the budget).
  bool Done() const;

  // The share of the budget spent, 0 to 1 (an annealing schedule's clock).
  double progress() const { return double(trials_.size()) / double(evaluations_); }
  const std::vector<Trial>& trials() const { return trials_; }
  // The best trial so far (the first of equal ones). REQUIRES: a trial.
  const Trial& best() const { return trials_[best_]; }
  // Best value after each evaluation: the convergence curve.
  const std::vector<double>& curve() const { return curve_; }
  const std::string& error() const { return error_; }
  bool failed() const { return !error_.empty(); }

 private:
  const Space* const space_;
  Objective* const objective_;
  const size_t evaluations_;
  const Progress progress_;
  std::map<std::string, size_t> seen_;  // URI -> trial index
  std::vector<Trial> trials_;
  std::vector<double> curve_;
  size_t best_ = 0;
  size_t asks_ = 0;
  std::string error_;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual std::string Name() const = 0;
  // Searches `space` until budget->Done().
  virtual void Run(const Space& space, uint64_t seed, Budget* budget) = 0;
};

// The optimizer called `name` (random, anneal, genetic, bayes, descent,
// dqn), or nullptr and *error listing the known names (or, for dqn where
// LibTorch's half does not load, why not).
std::unique_ptr<Optimizer> NewOptimizer(const std::string& name, std::string* error);
std::vector<std::string> OptimizerNames();

// The optimizers' constructors, one per file.
std::unique_ptr<Optimizer> NewRandomSearch();
std::unique_ptr<Optimizer> NewAnnealing();
std::unique_ptr<Optimizer> NewGenetic();
std::unique_ptr<Optimizer> NewBayesian();
std::unique_ptr<Optimizer> NewGprDescent();
std::unique_ptr<Optimizer> NewDqn();

}  // namespace tune
}  // namespace tierfs
