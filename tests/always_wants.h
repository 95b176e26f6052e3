// An agent whose network always wants tier `tier` of two: that action's top
// atom and every other action's bottom atom get a logit far above the
// network's own. For the agents' tests (agents_placement_test,
// agents_migration_test).
#pragma once

#include <memory>

#include "agents/rl/agent.h"
#include "agents/rl/features.h"
#include "agents/rl/network.h"

namespace tierfs {
namespace rl {

inline std::unique_ptr<Agent> AlwaysWants(int tier) {
  AgentOptions o;
  o.learner.shape.inputs = ObservationEncoder(2).size();
  o.learner.shape.actions = 2;
  o.learner.mode = LearnerOptions::Mode::kInline;
  o.epsilon = o.epsilon_start = 0;
  Weights w = Weights::Random(o.learner.shape, 7);
  const NetworkShape& shape = o.learner.shape;
  float* bias = w.params.data() + w.params.size() - size_t(shape.outputs());
  for (int a = 0; a < shape.actions; ++a) bias[a * shape.atoms + (a == tier ? shape.atoms - 1 : 0)] = 40;
  return std::make_unique<Agent>(o, &w);
}

}  // namespace rl
}  // namespace tierfs
