// A deep Q-network search (blackbox-autotuning.txt §2: "states correspond to
// configurations, actions mean changing to a different configuration, and
// rewards are differences in evaluation results"). The paper gives no more
// than that; the rest is standard DQN, chosen here:
//
//   state    the current configuration, Space::Encode: numeric and discrete
//            parameters by their (log) position in [0, 1], categoricals
//            one-hot (scaled 1/sqrt(2)), inactive ones at their default
//   actions  per numeric or discrete parameter, one step down and one up
//            (Space::Adjacent's steps: an eighth of the (log) range, the
//            next value); per categorical, one action per name. An action
//            is possible at a state if Adjacent has its point there (the
//            parameter is active, the step moves, the constraints hold):
//            only possible actions are taken, so every configuration the
//            search evaluates is feasible
//   reward   the grade before the step minus the grade after (lower is
//            better), divided at training time by the largest |reward| seen
//            so far, so the network sees rewards in [-1, 1] on any objective
//   episodes kEpisode steps, the first from the default, the others from
//            the best configuration so far; truncated, never terminal
//   network  qnet.h: ReLU layers of 64 and 64, Adam at 1e-3, Huber loss,
//            gamma 0.9; a replay buffer of the last kReplay transitions,
//            kBatchesPerStep batches of kBatch (drawn with replacement) per
//            step once it holds kWarmup, the target network synced every
//            kSync batches. Evaluations are the scarce thing (a simulation
//            each), so the network trains hard on the few it gets: on the
//            bowl of tests/tune_dqn_test.cc, 4 batches a step and epsilon
//            over half the budget did best of the few settings tried (one
//            batch a step, or epsilon over 30%, about 7 or 8 seeds in 12
//            against 11), and without training it does worse than random
//            search (6 seeds in 48 against 19): the network, not the walk,
//            finds the bottom
//   explore  epsilon-greedy, epsilon falling linearly from 1 to 0.05 over
//            the first half of the evaluation budget (Budget::progress)
//
// Every step asks the Budget, so a configuration seen before (a step back,
// an episode's restart) costs nothing and counts nothing: only new
// configurations spend the budget. A greedy agent can circle among seen
// configurations for ever; after kStall steps with nothing new it takes the
// possible action of highest Q-value that leads somewhere new, or, if none
// does, jumps to a random feasible configuration.
//
// Deterministic for a seed: the search's draws come from rng.h, and the
// network runs LibTorch on one thread seeded by the same seed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tools/tune/optimizer.h"
#include "tools/tune/qnet.h"

namespace tierfs {
namespace tune {
namespace {

constexpr size_t kEpisode = 10;
constexpr size_t kStall = 10;
constexpr size_t kReplay = 5000;
constexpr size_t kBatch = 32;
constexpr size_t kWarmup = 8;
constexpr int kBatchesPerStep = 4;
constexpr uint64_t kSync = 25;
constexpr double kEpsilonEnd = 0.05;
constexpr double kExploreShare = 0.5;  // of the budget, over which epsilon falls

// The action space of a Space: the first action of each parameter.
struct Actions {
  explicit Actions(const Space& space) {
    for (const Param& p : space.params()) {
      first.push_back(count);
      count += p.kind == ParamKind::kCategorical ? int(p.values.size()) : 2;
    }
  }
  // The action that turns `from` into `to`, an adjacent point (one
  // parameter differs).
  int Of(const Space& space, const Point& from, const Point& to) const {
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i] == to[i]) continue;
      if (space.params()[i].kind == ParamKind::kCategorical) return first[i] + int(to[i]);
      return first[i] + (to[i] < from[i] ? 0 : 1);
    }
    return -1;
  }
  std::vector<int> first;
  int count = 0;
};

// The possible moves from a point: each adjacent point and its action.
struct Moves {
  std::vector<Point> points;
  std::vector<int> actions;
  std::vector<uint8_t> valid;  // per action of the space
};

Moves PossibleMoves(const Space& space, const Actions& actions, const Point& p) {
  Moves m;
  m.valid.assign(size_t(actions.count), 0);
  for (Point& n : space.Adjacent(p)) {
    const int a = actions.Of(space, p, n);
    if (a < 0 || m.valid[size_t(a)]) continue;
    m.valid[size_t(a)] = 1;
    m.actions.push_back(a);
    m.points.push_back(std::move(n));
  }
  return m;
}

std::vector<float> State(const Space& space, const Point& p) {
  const std::vector<double> e = space.Encode(p);
  return std::vector<float>(e.begin(), e.end());
}

// The replay buffer: a ring of the last kReplay transitions.
struct Replay {
  struct Transition {
    std::vector<float> state, next;
    std::vector<uint8_t> next_valid;
    int32_t action;
    double reward;  // raw: grade before minus grade after
  };
  void Add(Transition t) {
    if (ring.size() < kReplay) {
      ring.push_back(std::move(t));
    } else {
      ring[next] = std::move(t);
    }
    next = (next + 1) % kReplay;
  }
  std::vector<Transition> ring;
  size_t next = 0;
};

class Dqn : public Optimizer {
 public:
  std::string Name() const override { return "dqn"; }

  void Run(const Space& space, uint64_t seed, Budget* budget) override {
    const Actions actions(space);
    QNetOptions options;
    options.inputs = int(space.Encode(space.Default()).size());
    options.actions = actions.count;
    options.seed = seed;
    Point current = space.Default();
    double value;
    if (!budget->Evaluate(current, &value)) return;
    // After the default, so that a search whose network fails (NewOptimizer
    // checked that the library loads; LibTorch may still refuse) ends with
    // a trial, as the Budget's callers expect.
    std::string error;
    std::unique_ptr<QNetImpl> net = NewQNet(options, &error);
    if (!net) {
      fprintf(stderr, "tierfs-tune: dqn: %s\n", error.c_str());
      return;
    }
    Rng rng(seed);
    Replay replay;
    double scale = 0;  // the largest |reward| so far
    uint64_t batches = 0;
    std::vector<float> q(size_t(actions.count));

    Moves moves = PossibleMoves(space, actions, current);
    size_t steps = 0, stall = 0;
    while (!budget->Done()) {
      if (steps == kEpisode) {
        current = budget->best().point;
        value = budget->best().value;
        moves = PossibleMoves(space, actions, current);
        steps = 0;
      }
      // The move to make: its index in `moves`, or -1 to jump.
      const std::vector<float> state = State(space, current);
      int pick = -1;
      const double epsilon =
          std::max(kEpsilonEnd, 1.0 - (1.0 - kEpsilonEnd) * budget->progress() / kExploreShare);
      if (stall >= kStall) {
        pick = Greedy(net.get(), state, moves, &q, [&](const Point& n) { return !budget->Seen(n); });
      } else if (!moves.points.empty()) {
        if (rng.Uniform() < epsilon) {
          pick = int(rng.Below(moves.points.size()));
        } else {
          pick = Greedy(net.get(), state, moves, &q, [](const Point&) { return true; });
        }
      }
      if (pick < 0) {
        // Nothing new one step away (or nowhere to step): start afresh.
        current = space.Random(&rng);
        const size_t before = budget->trials().size();
        if (!budget->Evaluate(current, &value)) break;
        if (budget->trials().size() > before) stall = 0;
        moves = PossibleMoves(space, actions, current);
        steps = 0;
        continue;
      }
      const Point next = moves.points[size_t(pick)];
      const size_t before = budget->trials().size();
      double next_value;
      if (!budget->Evaluate(next, &next_value)) break;
      stall = budget->trials().size() > before ? 0 : stall + 1;
      Moves next_moves = PossibleMoves(space, actions, next);

      Replay::Transition t;
      t.state = state;
      t.action = moves.actions[size_t(pick)];
      t.reward = value - next_value;
      t.next = State(space, next);
      t.next_valid = next_moves.valid;
      if (std::isfinite(t.reward)) {
        scale = std::max(scale, std::fabs(t.reward));
        replay.Add(std::move(t));
      }
      for (int b = 0; b < kBatchesPerStep && replay.ring.size() >= kWarmup; ++b) {
        Train(net.get(), replay, scale, options, &rng);
        if (++batches % kSync == 0) net->SyncTarget();
      }
      current = next;
      value = next_value;
      moves = std::move(next_moves);
      ++steps;
    }
  }

 private:
  // The index in `moves` of the allowed move of highest Q-value (the first
  // of equal ones), or -1 if `allowed` refuses them all.
  template <typename Allowed>
  static int Greedy(QNetImpl* net, const std::vector<float>& state, const Moves& moves,
                    std::vector<float>* q, Allowed allowed) {
    net->QValues(state.data(), q->data());
    int pick = -1;
    float best = -std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < moves.points.size(); ++i) {
      const float v = (*q)[size_t(moves.actions[i])];
      if ((pick < 0 || v > best) && allowed(moves.points[i])) {
        pick = int(i);
        best = v;
      }
    }
    return pick;
  }

  // One batch of kBatch transitions drawn uniformly, with replacement.
  static void Train(QNetImpl* net, const Replay& replay, double scale,
                    const QNetOptions& options, Rng* rng) {
    const size_t inputs = size_t(options.inputs), n_actions = size_t(options.actions);
    std::vector<float> states(kBatch * inputs), next(kBatch * inputs), rewards(kBatch);
    std::vector<int32_t> acts(kBatch);
    std::vector<uint8_t> valid(kBatch * n_actions);
    for (size_t b = 0; b < kBatch; ++b) {
      const Replay::Transition& t = replay.ring[rng->Below(replay.ring.size())];
      std::copy(t.state.begin(), t.state.end(), states.begin() + long(b * inputs));
      std::copy(t.next.begin(), t.next.end(), next.begin() + long(b * inputs));
      std::copy(t.next_valid.begin(), t.next_valid.end(), valid.begin() + long(b * n_actions));
      acts[b] = t.action;
      rewards[b] = scale > 0 ? float(t.reward / scale) : 0.0f;
    }
    net->Train(states.data(), acts.data(), rewards.data(), next.data(), valid.data(), kBatch);
  }
};

}  // namespace

std::unique_ptr<Optimizer> NewDqn() { return std::make_unique<Dqn>(); }

}  // namespace tune
}  // namespace tierfs
