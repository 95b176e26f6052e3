// One learning agent as a policy uses it: decisions from the plain-C++
// network over the newest trained weights, experience for the learner.
//
// Act() runs on the I/O path, from many threads at once, without locks: it
// reads the inference weights through an atomic pointer (bracketed by a
// reader count) and borrows one of a few scratch networks with an atomic
// flag. Every `swap_every` requests (by the store's request clock) the thread
// whose request enters the new span installs the learner's newest snapshot; the old weights are retired
// and freed at a later swap once the reader count has been seen at zero
// (no reader can still hold them). Nothing waits.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <random>
#include <vector>

#include "agents/rl/learner.h"
#include "agents/rl/network.h"

namespace tierfs {
namespace rl {

struct AgentOptions {
  LearnerOptions learner;
  // Exploration, epsilon-greedy: a random action with probability epsilon,
  // which falls linearly from epsilon_start to epsilon over the first
  // epsilon_decay decisions. harmonia.txt: "agents start with no prior
  // knowledge ... make random initial decisions (explore)". Without the
  // decay an untrained network on a nearly constant state (a new segment
  // has no history) takes the same action every time and never learns the
  // other's worth.
  double epsilon = 0.001;
  double epsilon_start = 1.0;
  uint64_t epsilon_decay = 2000;
  uint64_t swap_every = 1000;  // requests between inference-weight swaps
};

class Agent {
 public:
  explicit Agent(const AgentOptions& options, const Weights* initial = nullptr);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  const NetworkShape& shape() const { return options_.learner.shape; }

  // The action for `state` (shape().inputs values): the best by Q-value, or
  // with probability epsilon a random one; only actions whose bit is set in
  // `allowed` (none set: any). Thread-safe, lock-free.
  int Act(const float* state, uint32_t allowed = ~0u);
  // The Q-values of every action (shape().actions of them), for tests and
  // tools. Thread-safe.
  void QValues(const float* state, float* q);

  // At request `seq` (the store's request clock): installs the newest
  // trained weights when seq enters a new span of swap_every requests.
  // Called on every I/O, so it only reads a shared word, except once per
  // span. Thread-safe, lock-free.
  void Tick(uint64_t seq);
  // Installs the newest trained weights now (tests, end of a run).
  void Swap();

  void Learn(Transition t) { learner_.Add(std::move(t)); }
  Learner& learner() { return learner_; }
  uint64_t swaps() const { return swaps_.load(std::memory_order_relaxed); }

  // Memory the agent holds, in bytes: the learner's (LearnerStats::bytes)
  // plus the inference side: the weights it decides with and those retired
  // but not yet freed (one not shared with the learner's newest is counted
  // once), the scratch networks, and this object. Thread-safe; read while
  // a swap runs it may count one weights copy more or less.
  size_t MemoryBytes() const;

 private:
  // A scratch network for one caller at a time.
  struct Slot {
    std::atomic<bool> busy{false};
    std::unique_ptr<Network> net;
  };
  template <class Fn>
  void WithWeights(Fn&& fn);

  const AgentOptions options_;
  Learner learner_;
  std::atomic<const Weights*> current_{nullptr};
  std::atomic<int> readers_{0};
  std::atomic<uint64_t> span_{0}, swaps_{0}, decisions_{0};  // span_: seq / swap_every last seen
  std::atomic<bool> swapping_{false};
  // Owned weights: the current version and retired ones not yet freed.
  // Touched only by the thread holding swapping_, which also keeps
  // owned_bytes_, their Weights::Bytes(), for MemoryBytes.
  std::vector<std::shared_ptr<const Weights>> owned_;
  std::atomic<size_t> owned_bytes_{0};
  std::array<Slot, 8> slots_;
  std::atomic<uint64_t> rng_state_;
};

}  // namespace rl
}  // namespace tierfs
