#include "agents/rl/agent.h"

#include "util/splitmix64.h"

namespace tierfs {
namespace rl {

namespace {

// splitmix64 (util/splitmix64.h): a random stream shared by the threads
// without a lock (a lost update only repeats a number).
uint64_t Next(std::atomic<uint64_t>& state) {
  return SplitMix64Mix(state.fetch_add(kSplitMix64Gamma, std::memory_order_relaxed) +
                       kSplitMix64Gamma);
}

}  // namespace

Agent::Agent(const AgentOptions& options, const Weights* initial)
    : options_(options), learner_(options.learner, initial), rng_state_(options.learner.seed) {
  for (Slot& s : slots_) s.net = std::make_unique<Network>(options_.learner.shape);
  owned_.push_back(learner_.Snapshot());
  owned_bytes_.store(owned_.back()->Bytes(), std::memory_order_relaxed);
  current_.store(owned_.back().get(), std::memory_order_release);
}

Agent::~Agent() = default;

template <class Fn>
void Agent::WithWeights(Fn&& fn) {
  readers_.fetch_add(1, std::memory_order_seq_cst);
  const Weights* w = current_.load(std::memory_order_seq_cst);
  // Borrow a free scratch network; if every one is in use, make one.
  for (Slot& s : slots_) {
    if (!s.busy.exchange(true, std::memory_order_acquire)) {
      fn(*w, *s.net);
      s.busy.store(false, std::memory_order_release);
      readers_.fetch_sub(1, std::memory_order_release);
      return;
    }
  }
  Network spare(w->shape);
  fn(*w, spare);
  readers_.fetch_sub(1, std::memory_order_release);
}

int Agent::Act(const float* state, uint32_t allowed) {
  const uint64_t r = Next(rng_state_);
  const uint64_t n = decisions_.fetch_add(1, std::memory_order_relaxed);
  double epsilon = options_.epsilon;
  if (n < options_.epsilon_decay) {
    const double f = double(n) / double(options_.epsilon_decay);
    epsilon = options_.epsilon_start + (options_.epsilon - options_.epsilon_start) * f;
  }
  // epsilon as a fraction of 2^32, compared with the low bits.
  const int actions = shape().actions;
  const uint32_t all = actions >= 32 ? ~0u : (1u << actions) - 1;
  if ((allowed & all) == 0) allowed = all;
  if (double(r & 0xffffffffu) < epsilon * 4294967296.0) {
    // The k-th allowed action, k uniform.
    const int count = __builtin_popcount(allowed & all);
    int k = int((r >> 32) % uint64_t(count));
    for (int a = 0; a < actions && a < 32; ++a) {
      if ((allowed & all) >> a & 1 && k-- == 0) return a;
    }
  }
  int action = 0;
  WithWeights([&](const Weights& w, Network& net) { action = net.BestAction(w, state, allowed); });
  return action;
}

void Agent::QValues(const float* state, float* q) {
  WithWeights([&](const Weights& w, Network& net) { net.QValues(w, state, q); });
}

void Agent::Tick(uint64_t seq) {
  const uint64_t span = seq / options_.swap_every;
  if (span == span_.load(std::memory_order_relaxed)) return;  // the common case: no write
  if (span_.exchange(span, std::memory_order_relaxed) != span) Swap();
}

void Agent::Swap() {
  if (swapping_.exchange(true, std::memory_order_acquire)) return;  // another thread is at it
  // Weights retired at an earlier swap can go once no reader is inside: any
  // reader that loaded them incremented readers_ before the exchange that
  // retired them, and decrements it when done.
  if (owned_.size() > 1 && readers_.load(std::memory_order_seq_cst) == 0) {
    owned_.erase(owned_.begin(), owned_.end() - 1);
  }
  std::shared_ptr<const Weights> newest = learner_.Snapshot();
  if (newest.get() != current_.load(std::memory_order_relaxed)) {
    owned_.push_back(newest);
    current_.store(newest.get(), std::memory_order_seq_cst);
    swaps_.fetch_add(1, std::memory_order_relaxed);
  }
  size_t owned_bytes = 0;
  for (const auto& w : owned_) owned_bytes += w->Bytes();
  owned_bytes_.store(owned_bytes, std::memory_order_relaxed);
  swapping_.store(false, std::memory_order_release);
}

size_t Agent::MemoryBytes() const {
  // The learner's newest weights are counted in its bytes; if the agent
  // decides with those same weights, they are not counted twice.
  const std::shared_ptr<const Weights> newest = learner_.Snapshot();
  size_t bytes = learner_.GetStats().bytes + owned_bytes_.load(std::memory_order_relaxed);
  if (newest.get() == current_.load(std::memory_order_acquire)) bytes -= newest->Bytes();
  for (const Slot& s : slots_) bytes += s.net->Bytes();
  return bytes + sizeof(*this);
}

}  // namespace rl
}  // namespace tierfs
