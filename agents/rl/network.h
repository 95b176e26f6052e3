// The agents' network: a small multilayer perceptron with swish hidden layers
// and a C51 head (a distribution over `atoms` return values per action), as
// plain C++ for inference on the I/O path. LibTorch trains a copy of it
// (agents/rl/learner.cc) and hands its weights over in this layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tierfs {
namespace rl {

struct NetworkShape {
  int inputs = 7;
  std::vector<int> hidden{10};  // Harmonia: one layer of 10; Sibyl: 20, 30
  int actions = 2;
  int atoms = 51;
  double v_min = -10, v_max = 10;  // the support of the return distribution

  int outputs() const { return actions * atoms; }
  // Number of parameters: every layer's weights (out x in, row-major) then
  // its biases, layer after layer, the last layer producing outputs().
  size_t ParameterCount() const;
  bool operator==(const NetworkShape& o) const;
  std::string Describe() const;  // "7-10-2x51 [-10, 10]"
};

// Immutable once published: inference reads it without locks.
struct Weights {
  NetworkShape shape;
  std::vector<float> params;  // ParameterCount() values, in the order above

  // Xavier-uniform weights, zero biases, from `seed` (deterministic).
  static Weights Random(const NetworkShape& shape, uint64_t seed);
  // Random(), but every action starts out expecting returns near v_max: the
  // output bias of each action's top atom is `logit` (optimism in the face
  // of uncertainty: a greedy agent tries each action before it settles,
  // instead of repeating whichever an untrained network happens to prefer).
  static Weights Optimistic(const NetworkShape& shape, uint64_t seed, float logit);
  // Memory held: this object and its arrays' capacity.
  size_t Bytes() const {
    return sizeof(*this) + params.capacity() * sizeof(float) +
           shape.hidden.capacity() * sizeof(int);
  }
};

// Forward passes. Scratch space is the caller's (no allocation per call).
class Network {
 public:
  explicit Network(const NetworkShape& shape);
  // Q-value (expected return) of each action for input `in`.
  void QValues(const Weights& w, const float* in, float* q);
  // The return distribution of each action: actions x atoms probabilities.
  void Distributions(const Weights& w, const float* in, float* probs);
  // The action with the highest Q-value (lowest index on ties).
  // Among the actions whose bit is set in `allowed` (none set: all).
  int BestAction(const Weights& w, const float* in, uint32_t allowed = ~0u);
  // Memory held: this object and its scratch arrays' capacity.
  size_t Bytes() const;

 private:
  void Logits(const Weights& w, const float* in);
  NetworkShape shape_;
  std::vector<float> a_, b_, logits_, q_;  // scratch
};

}  // namespace rl
}  // namespace tierfs
