#include "agents/rl/agent_params.h"

#include <algorithm>

namespace tierfs {
namespace rl {

AgentOptions ReadAgentOptions(ParamReader& params, const std::string& prefix,
                              const AgentOptions& defaults) {
  AgentOptions o = defaults;
  LearnerOptions& l = o.learner;
  l.gamma = std::clamp(params.Number(prefix + "gamma", l.gamma), 0.0, 1.0);
  l.learning_rate = std::max(1e-9, params.Number(prefix + "lr", l.learning_rate));
  l.batch = std::max<size_t>(1, size_t(params.Number(prefix + "batch", double(l.batch))));
  l.buffer = std::max(l.batch, size_t(params.Number(prefix + "buffer", double(l.buffer))));
  o.epsilon = std::clamp(params.Number("epsilon", o.epsilon), 0.0, 1.0);
  o.epsilon_start = std::clamp(params.Number("epsilon_start", std::max(o.epsilon, o.epsilon_start)),
                               o.epsilon, 1.0);
  o.epsilon_decay = uint64_t(std::max(0.0, params.Number("epsilon_decay", double(o.epsilon_decay))));
  o.swap_every = std::max<uint64_t>(1, uint64_t(params.Number("swap_every", double(o.swap_every))));
  l.shape.atoms = std::max(2, int(params.Number("atoms", l.shape.atoms)));
  l.shape.v_min = params.Number(prefix + "v_min", l.shape.v_min);
  l.shape.v_max = std::max(l.shape.v_min + 1e-6, params.Number(prefix + "v_max", l.shape.v_max));
  const int hidden = int(params.Number("hidden", l.shape.hidden.empty() ? 10 : l.shape.hidden[0]));
  if (hidden > 0 && l.shape.hidden.size() == 1) l.shape.hidden[0] = hidden;
  l.train_every = std::max<uint64_t>(1, uint64_t(params.Number("train_every", double(l.train_every))));
  l.target_sync = std::max<uint64_t>(1, uint64_t(params.Number("target_sync", double(l.target_sync))));
  l.batches = std::max(1, int(params.Number("batches", l.batches)));
  l.mode = params.Number("inline", 0) != 0 ? LearnerOptions::Mode::kInline
                                          : LearnerOptions::Mode::kBackground;
  l.seed = uint64_t(params.Number("seed", double(l.seed)));
  return o;
}

void SetShape(AgentOptions* options, int inputs, int tiers) {
  options->learner.shape.inputs = inputs;
  options->learner.shape.actions = tiers;
}

}  // namespace rl
}  // namespace tierfs
