// The learning policies' tunables, read the same way for every agent: a
// prefix ("placement_", "migration_", "" for a single agent) then gamma, lr,
// batch, buffer; and shared ones: epsilon (final), epsilon_start, epsilon_decay
// (decisions over which epsilon falls), swap_every, atoms, v_min, v_max,
// hidden (neurons of one hidden layer), train_every, batches, target_sync, inline
// (1: train in the caller's thread, as the simulator does), seed.
#pragma once

#include <string>

#include "agents/policy.h"
#include "agents/rl/agent.h"

namespace tierfs {
namespace rl {

// `defaults` carries the paper's values for this agent; the parameters
// given override them. The network's inputs and actions are set later,
// when the number of tiers is known (Agent shapes: see SetTiers).
AgentOptions ReadAgentOptions(ParamReader& params, const std::string& prefix,
                              const AgentOptions& defaults);

// Harmonia's agent: 7-10-2 with swish, C51 with 51 atoms (Table 3 values
// come from the caller), for `inputs` features and `tiers` actions.
void SetShape(AgentOptions* options, int inputs, int tiers);

}  // namespace rl
}  // namespace tierfs
