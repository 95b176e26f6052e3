// The dqn optimizer (tools/tune/dqn.cc) through the optimizer interface: it
// spends exactly its budget (one objective call per new configuration, the
// default first), the same seed gives the same search, every configuration
// it asks for is feasible, and on a quadratic bowl over four discrete
// parameters it gets near the bottom within a small budget on more seeds
// than random search does. Skipped where LibTorch's half of the tuner
// (libtierfs_tune_qnet.so) is not built.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/tune/optimizer.h"
#include "tools/tune/qnet.h"

namespace tierfs {
namespace tune {
namespace {

#define SKIP_WITHOUT_LIBTORCH()                                     \
  do {                                                              \
    std::string why;                                                \
    if (!QNetAvailable(&why)) GTEST_SKIP() << why;                  \
  } while (0)

// A mixed space with constraints that bite: a policy parameter active under
// one policy, categorical, discrete, numeric on linear and log scales.
const char kMixed[] =
    "tiers /fast:128M:optane,/slow:8G:sata-ssd\n"
    "policy categorical fast-first lru cde hintstor mutant\n"
    "segment_size discrete 64K 128K 256K 512K 1M 2M 4M\n"
    "migration_queue numeric 1..64 log\n"
    "migration_busy_share numeric 1..100\n"
    "copies categorical on off\n"
    "copy_page discrete 4K 8K 16K 32K 64K\n"
    "hintstor.interval numeric 256..262144 log default=16384\n"
    "constraint copy_page <= segment_size\n"
    "constraint migration_queue <= migration_busy_share\n"
    "constraint segment_size <= 2M\n";

Space Parse(const char* text) {
  Space space;
  std::string error;
  EXPECT_TRUE(Space::Parse(text, "test", &space, &error)) << error;
  return space;
}

// A smooth function of the mixed space that also checks every point it is
// asked for: feasible, integers in range, indices valid.
class Checked : public Objective {
 public:
  explicit Checked(const Space* space) : space_(space) {}
  int calls = 0;
  int invalid = 0;

  bool Value(const Point& p, double* value, std::string*) override {
    ++calls;
    const Space& s = *space_;
    bool ok = p.size() == s.size() && s.Feasible(p);
    double f = 0;
    for (size_t i = 0; ok && i < s.size(); ++i) {
      const Param& q = s.params()[i];
      if (q.kind == ParamKind::kNumeric) {
        ok = p[i] == std::round(p[i]) && p[i] >= q.low && p[i] <= q.high;
        f += std::pow((p[i] - q.low) / (q.high - q.low) - 0.3, 2);
      } else {
        ok = p[i] == std::round(p[i]) && p[i] >= 0 && p[i] < double(q.values.size());
        f += p[i] == 1 ? 0 : 0.2;
      }
    }
    if (!ok) ++invalid;
    *value = f;
    return true;
  }

 private:
  const Space* space_;
};

std::vector<std::string> Uris(const Budget& budget) {
  std::vector<std::string> uris;
  for (const Trial& t : budget.trials()) uris.push_back(t.uri);
  return uris;
}

TEST(TuneDqn, SpendsExactlyItsBudgetOnFeasibleNewConfigurations) {
  SKIP_WITHOUT_LIBTORCH();
  const Space space = Parse(kMixed);
  for (uint64_t seed : {1, 2, 3}) {
    for (size_t evaluations : {1, 7, 60}) {
      Checked f(&space);
      Budget budget(&space, &f, evaluations);
      std::string error;
      std::unique_ptr<Optimizer> dqn = NewOptimizer("dqn", &error);
      ASSERT_NE(dqn, nullptr) << error;
      dqn->Run(space, seed, &budget);
      EXPECT_EQ(budget.trials().size(), evaluations) << "seed " << seed;
      EXPECT_EQ(size_t(f.calls), evaluations) << "seed " << seed;
      EXPECT_EQ(f.invalid, 0) << "seed " << seed;
      const std::vector<std::string> uris = Uris(budget);
      EXPECT_EQ(std::set<std::string>(uris.begin(), uris.end()).size(), uris.size());
      EXPECT_EQ(uris[0], space.Render(space.Default()));
      for (const Trial& t : budget.trials()) EXPECT_TRUE(space.Feasible(t.point)) << t.uri;
    }
  }
}

TEST(TuneDqn, SameSeedSameSearchOtherSeedOtherSearch) {
  SKIP_WITHOUT_LIBTORCH();
  const Space space = Parse(kMixed);
  auto search = [&](uint64_t seed) {
    Checked f(&space);
    Budget budget(&space, &f, 40);
    std::string error;
    NewOptimizer("dqn", &error)->Run(space, seed, &budget);
    return Uris(budget);
  };
  EXPECT_EQ(search(5), search(5));
  EXPECT_NE(search(5), search(6));
}

TEST(TuneDqn, IsListedAndNamed) {
  SKIP_WITHOUT_LIBTORCH();
  const std::vector<std::string> names = OptimizerNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "dqn"), names.end());
  std::string error;
  EXPECT_EQ(NewOptimizer("dqn", &error)->Name(), "dqn");
}

// A quadratic bowl over four discrete parameters (7 x 7 x 9 x 9 = 3,969
// configurations): the sum of squared index distances to the bottom at
// segment 1M, queue 32, busy share 30, plan 2000 ms. 0 at the bottom, 1 one
// step from it (8 configurations), 2 at two steps in different parameters.
const char kBowl[] =
    "tiers /fast:128M:optane,/slow:8G:sata-ssd\n"
    "segment_size discrete 64K 128K 256K 512K 1M 2M 4M default=64K\n"
    "migration_queue discrete 1 2 4 8 16 32 64 default=1\n"
    "migration_busy_share discrete 10 20 30 40 50 60 70 80 90 default=90\n"
    "migration_plan_ms discrete 10 20 50 100 200 500 1000 2000 5000 default=10\n";

class Bowl : public Objective {
 public:
  bool Value(const Point& p, double* value, std::string*) override {
    const double bottom[] = {4, 5, 2, 7};
    *value = 0;
    for (size_t i = 0; i < 4; ++i) *value += (p[i] - bottom[i]) * (p[i] - bottom[i]);
    return true;
  }
};

double BestOnBowl(const std::string& name, size_t evaluations, uint64_t seed) {
  const Space space = Parse(kBowl);
  Bowl f;
  Budget budget(&space, &f, evaluations);
  std::string error;
  NewOptimizer(name, &error)->Run(space, seed, &budget);
  EXPECT_EQ(budget.trials().size(), evaluations) << name;
  return budget.best().value;
}

// The default is 16 + 25 + 36 + 49 = 126 from the bottom, 22 steps away. The
// margin and budget: within 2 (at most two parameters one step off; 33 of the
// 3,969 configurations) in 60 evaluations, over 12 seeds. Random search gets
// there with probability about 1 - (1 - 33/3969)^60 = 39% a run; dqn must
// do so on more seeds than random search, and on at least MinDqn of them.
TEST(TuneDqn, ReachesTheBottomOfABowlMoreOftenThanRandomSearch) {
  SKIP_WITHOUT_LIBTORCH();
  constexpr size_t kEvaluations = 60;
  constexpr double kMargin = 2;
  constexpr int kSeeds = 12;
  constexpr int kMinDqn = 9;
  int dqn = 0, random = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const double d = BestOnBowl("dqn", kEvaluations, seed);
    const double r = BestOnBowl("random", kEvaluations, seed);
    dqn += d <= kMargin;
    random += r <= kMargin;
    printf("seed %2d: dqn best %g, random best %g\n", int(seed), d, r);
  }
  printf("within %g in %zu evaluations: dqn %d of %d seeds, random %d\n", kMargin, kEvaluations,
         dqn, kSeeds, random);
  EXPECT_GT(dqn, random);
  EXPECT_GE(dqn, kMinDqn);
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
