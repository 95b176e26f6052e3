// Training of one agent's network: an experience replay buffer and C51 on
// LibTorch, off the I/O path. The only LibTorch user (learner.cc): nothing
// here includes its headers, and the critical path never calls into it.
//
// LibTorch's libraries take 0.3 s to load, which every process linking
// libtierfs (db_bench, ldb, the admin tool) would pay at start whether it
// used a learning policy or not. So learner.cc lives in its own shared
// library, libtierfs_learner.so, loaded (learner_loader.cc) the first time a
// learning policy is created.
//
// The agent (agents/rl/agent.h) adds transitions as they complete; the
// learner samples batches from its buffer of the most recent `buffer`
// transitions, trains the online network against a target network (synced
// every `target_sync` steps) with Adam, and hands the weights over in the
// plain layout of network.h. It trains on its own thread (Mode::kBackground:
// one batch per `train_every` new transitions, as fast as they come), or in
// the caller's thread (Mode::kInline: the same schedule, run by Add, so a
// simulation is deterministic).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/rl/network.h"

namespace tierfs {
namespace rl {

struct LearnerOptions {
  NetworkShape shape;
  double gamma = 0.9;
  double learning_rate = 1e-3;
  size_t batch = 128;
  size_t buffer = 1000;
  uint64_t train_every = 16;    // new transitions per training step
  int batches = 16;             // gradient steps per training step (harmonia.txt, 4.6.2)
  uint64_t target_sync = 100;   // training steps between target-network syncs
  uint64_t seed = 1;
  enum class Mode { kBackground, kInline } mode = Mode::kBackground;
};

// One transition, observed by an agent. An n-step agent (Sibyl) sums the
// discounted rewards of n steps into `reward` and sets `discount` to
// gamma^n; a one-step agent leaves it at -1, meaning gamma.
struct Transition {
  std::vector<float> state, next;
  int action = 0;
  float reward = 0;
  float discount = -1;
  bool terminal = false;
};

struct LearnerStats {
  uint64_t transitions = 0;  // added so far
  uint64_t steps = 0;        // training batches
  double last_loss = 0;
  // (transitions seen, loss) after every training step, for curves.
  std::vector<std::pair<uint64_t, float>> losses;
};

// What LibTorch's half implements (learner.cc, built into
// libtierfs_learner.so).
class LearnerImpl {
 public:
  virtual ~LearnerImpl() = default;
  virtual void Add(Transition t) = 0;
  virtual std::shared_ptr<const Weights> Snapshot() const = 0;
  virtual LearnerStats GetStats() const = 0;
};

// True if the learner's LibTorch half can be loaded; else *error says why.
// The learning policies check it when they are created, so a store with one
// fails to open with that message instead of failing later.
bool LearnerAvailable(std::string* error);

class Learner {
 public:
  // Starts the training thread (kBackground). `initial` (optional) seeds the
  // networks, e.g. weights saved by an earlier run. REQUIRES:
  // LearnerAvailable() (aborts with its message otherwise).
  Learner(const LearnerOptions& options, const Weights* initial = nullptr);
  ~Learner();  // stops and joins the thread
  Learner(const Learner&) = delete;
  Learner& operator=(const Learner&) = delete;

  const LearnerOptions& options() const { return options_; }

  // Adds a transition: a copy into the buffer under a mutex (kInline: and
  // trains when a batch is due). Never blocks on training.
  void Add(Transition t) { impl_->Add(std::move(t)); }

  // The newest trained weights (the initial ones before the first step).
  std::shared_ptr<const Weights> Snapshot() const { return impl_->Snapshot(); }

  using Stats = LearnerStats;
  Stats GetStats() const { return impl_->GetStats(); }

 private:
  const LearnerOptions options_;
  std::unique_ptr<LearnerImpl> impl_;
};

}  // namespace rl
}  // namespace tierfs
