// The optimizers (tools/tune/optimizer.h) on a function with a known optimum
// over a mixed space (categorical, discrete, numeric on linear and log
// scales, a policy parameter active under one policy, a constraint): each
// gets close to the optimum within its budget, every seed the same search,
// and the budget counts distinct configurations.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/tune/gp.h"
#include "tools/tune/optimizer.h"

namespace tierfs {
namespace tune {
namespace {

const char kSpace[] =
    "tiers /fast:128M:optane,/slow:8G:sata-ssd\n"
    "policy categorical fast-first lru cde hintstor mutant\n"
    "segment_size discrete 64K 128K 256K 512K 1M 2M 4M\n"
    "migration_queue numeric 1..64 log\n"
    "migration_busy_share numeric 1..100\n"
    "copies categorical on off\n"
    "copy_page discrete 4K 8K 16K 32K 64K\n"
    "hintstor.interval numeric 256..262144 log default=16384\n"
    "constraint copy_page <= segment_size\n";

// 0 at policy hintstor, segment 256K, queue 16, busy share 40, copies on,
// copy page 16K, interval 4096; up to about 3.5 elsewhere.
class KnownFunction : public Objective {
 public:
  explicit KnownFunction(const Space* space) : space_(space) {}
  int calls = 0;

  bool Value(const Point& p, double* value, std::string* error) override {
    (void)error;
    ++calls;
    const Space& s = *space_;
    auto at = [&](const char* key) { return p[size_t(s.Find(key))]; };
    const std::string policy = s.params()[size_t(s.Find("policy"))].values[size_t(at("policy"))];
    double f = policy == "hintstor" ? 0 : policy == "mutant" ? 0.6 : 1.0;
    f += 0.1 * std::pow(at("segment_size") - 2, 2);                     // index of 256K
    f += std::pow(std::log2(at("migration_queue") / 16) / 6, 2);
    f += std::pow((at("migration_busy_share") - 40) / 60, 2);
    f += at("copies") == 0 ? 0 : 0.3;
    f += 0.05 * std::pow(at("copy_page") - 2, 2);                       // index of 16K
    if (policy == "hintstor") f += std::pow(std::log2(at("hintstor.interval") / 4096) / 10, 2);
    *value = f;
    return true;
  }

 private:
  const Space* space_;
};

Space MakeSpace() {
  Space space;
  std::string error;
  EXPECT_TRUE(Space::Parse(kSpace, "known", &space, &error)) << error;
  return space;
}

struct Outcome {
  double best;
  std::string best_uri;
  std::vector<std::string> uris;
  int calls;
};

Outcome Search(const std::string& name, size_t budget_size, uint64_t seed) {
  const Space space = MakeSpace();
  KnownFunction f(&space);
  Budget budget(&space, &f, budget_size);
  std::string error;
  std::unique_ptr<Optimizer> optimizer = NewOptimizer(name, &error);
  EXPECT_NE(optimizer, nullptr) << error;
  optimizer->Run(space, seed, &budget);
  Outcome out{budget.best().value, budget.best().uri, {}, f.calls};
  for (const Trial& t : budget.trials()) out.uris.push_back(t.uri);
  // The budget: spent exactly, one objective call per distinct configuration,
  // the default first, the curve never rising.
  EXPECT_EQ(budget.trials().size(), budget_size) << name;
  EXPECT_EQ(size_t(f.calls), budget.trials().size()) << name;
  std::set<std::string> distinct(out.uris.begin(), out.uris.end());
  EXPECT_EQ(distinct.size(), out.uris.size()) << name;
  EXPECT_EQ(out.uris[0], space.Render(space.Default())) << name;
  for (size_t i = 1; i < budget.curve().size(); ++i) {
    EXPECT_LE(budget.curve()[i], budget.curve()[i - 1]) << name;
  }
  for (const Trial& t : budget.trials()) EXPECT_TRUE(space.Feasible(t.point)) << t.uri;
  return out;
}

// Budgets and how close each must get (the function's range is about 0 to
// 3.5; the default scores 1.0 + 0.1 x 4 + 0.19 + 0.25 + 0 + 0.05 = 1.89).
struct Case {
  const char* optimizer;
  size_t budget;
  double within;
};

const Case kCases[] = {
    {"random", 400, 0.25}, {"anneal", 150, 0.1}, {"genetic", 150, 0.1},
    {"bayes", 60, 0.05},   {"descent", 60, 0.05},
};

TEST(TuneOptimizer, EachGetsNearTheKnownOptimumWithinItsBudget) {
  for (const Case& c : kCases) {
    for (uint64_t seed : {1, 2, 3}) {
      const Outcome o = Search(c.optimizer, c.budget, seed);
      EXPECT_LE(o.best, c.within) << c.optimizer << " seed " << seed << ": " << o.best_uri;
      if (std::string(c.optimizer) != "random") {
        EXPECT_NE(o.best_uri.find("policy:hintstor"), std::string::npos)
            << c.optimizer << " seed " << seed << ": " << o.best_uri;
      }
    }
  }
}

TEST(TuneOptimizer, SameSeedSameSearchOtherSeedOtherSearch) {
  for (const std::string& name : OptimizerNames()) {
    const Outcome a = Search(name, 30, 5), b = Search(name, 30, 5), c = Search(name, 30, 6);
    EXPECT_EQ(a.uris, b.uris) << name;
    EXPECT_NE(a.uris, c.uris) << name;
  }
}

TEST(TuneOptimizer, ASpaceSmallerThanTheBudgetEndsTheSearch) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse("tiers /f:1G:optane,/s:8G:hdd\npolicy categorical fast-first lru cde\n"
                           "copies categorical on off\n",
                           "small", &space, &error))
      << error;
  for (const std::string& name : OptimizerNames()) {
    int calls = 0;
    struct Count : Objective {
      int* calls;
      bool Value(const Point& p, double* v, std::string*) override {
        ++*calls;
        *v = p[0] + p[1];
        return true;
      }
    } f;
    f.calls = &calls;
    Budget budget(&space, &f, 50);
    NewOptimizer(name, &error)->Run(space, 1, &budget);
    EXPECT_LE(calls, 6) << name;
    EXPECT_EQ(budget.best().value, 0) << name;
  }
}

TEST(TuneOptimizer, UnknownNameIsRefusedListingTheKnown) {
  std::string error;
  EXPECT_EQ(NewOptimizer("ppo", &error), nullptr);
  EXPECT_NE(error.find("unknown optimizer 'ppo' (known: random, anneal, genetic, bayes, descent"),
            std::string::npos)
      << error;
}

TEST(TuneOptimizer, GaussianProcessInterpolatesAndExpectedImprovementByHand) {
  GaussianProcess gp;
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i <= 10; ++i) {
    x.push_back({i / 10.0});
    y.push_back(std::sin(3 * i / 10.0));
  }
  ASSERT_TRUE(gp.Fit(x, y));
  double mean, sd;
  gp.Predict({0.35}, &mean, &sd);
  EXPECT_NEAR(mean, std::sin(1.05), 0.02);
  gp.Predict({0.5}, &mean, &sd);
  EXPECT_NEAR(mean, std::sin(1.5), 0.01);
  double far_sd;
  gp.Predict({3.0}, &mean, &far_sd);
  EXPECT_GT(far_sd, 10 * sd);
  // EI: sd 0 is the plain improvement; mean = best gives sd / sqrt(2 pi).
  EXPECT_DOUBLE_EQ(ExpectedImprovement(1.0, 0, 3.0), 2.0);
  EXPECT_DOUBLE_EQ(ExpectedImprovement(4.0, 0, 3.0), 0.0);
  EXPECT_NEAR(ExpectedImprovement(3.0, 2.0, 3.0), 2.0 / std::sqrt(2 * M_PI), 1e-12);
  // (best - mean) Phi(1) + sd phi(1) with best - mean = sd = 1.
  EXPECT_NEAR(ExpectedImprovement(2.0, 1.0, 3.0), 0.8413447460685429 + 0.24197072451914337,
              1e-12);
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
