// A genetic algorithm (blackbox-autotuning.txt §2, Figure 2): each parameter
// is a gene, a configuration a chromosome. A population of kPopulation (the
// default and random points at first); each generation keeps the best
// (elitism) and breeds the rest: two parents each chosen as the better of
// two at random (tournament), cut at one crossover point and the tails
// exchanged, then every gene mutated (redrawn uniformly) with probability
// 1/genes. A child that breaks a constraint is bred again (10 tries, then a
// random point).
#include <algorithm>

#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {
namespace {

constexpr size_t kPopulation = 8;
constexpr double kCrossover = 0.9;

struct Member {
  Point point;
  double value;
};

class Genetic : public Optimizer {
 public:
  std::string Name() const override { return "genetic"; }
  void Run(const Space& space, uint64_t seed, Budget* budget) override {
    Rng rng(seed);
    std::vector<Member> population;
    for (size_t i = 0; i < kPopulation && !budget->Done(); ++i) {
      Member m{i == 0 ? space.Default() : space.Random(&rng), 0};
      if (!budget->Evaluate(m.point, &m.value)) return;
      population.push_back(m);
    }
    while (!budget->Done() && !population.empty()) {
      std::vector<Member> next;
      next.push_back(*std::min_element(
          population.begin(), population.end(),
          [](const Member& a, const Member& b) { return a.value < b.value; }));
      while (next.size() < population.size() && !budget->Done()) {
        Member child{Breed(space, population, &rng), 0};
        if (!budget->Evaluate(child.point, &child.value)) return;
        next.push_back(child);
      }
      if (next.size() < population.size()) return;
      population = std::move(next);
    }
  }

 private:
  static const Point& Tournament(const std::vector<Member>& population, Rng* rng) {
    const Member& a = population[rng->Below(population.size())];
    const Member& b = population[rng->Below(population.size())];
    return a.value <= b.value ? a.point : b.point;
  }

  static Point Breed(const Space& space, const std::vector<Member>& population, Rng* rng) {
    const size_t genes = space.size();
    for (int tries = 0; tries < 10; ++tries) {
      Point child = Tournament(population, rng);
      const Point& other = Tournament(population, rng);
      if (genes > 1 && rng->Uniform() < kCrossover) {
        const size_t cut = 1 + rng->Below(genes - 1);
        std::copy(other.begin() + long(cut), other.end(), child.begin() + long(cut));
      }
      for (size_t i = 0; i < genes; ++i) {
        if (rng->Uniform() < 1.0 / double(genes)) space.Resample(&child, i, rng);
      }
      if (space.Feasible(child)) return child;
    }
    return space.Random(rng);
  }
};

}  // namespace

std::unique_ptr<Optimizer> NewGenetic() { return std::make_unique<Genetic>(); }

}  // namespace tune
}  // namespace tierfs
