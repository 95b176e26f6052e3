// C51's distributional Bellman update (Bellemare, Dabney, Munos, "A
// Distributional Perspective on Reinforcement Learning", ICML 2017,
// Algorithm 1): the target distribution of r + gamma * Z(s', a*), projected
// back onto the fixed support of `atoms` values in [v_min, v_max].
#pragma once

namespace tierfs {
namespace rl {

// Writes to `target` (atoms values, summing to 1) the projection of
// reward + gamma * z_j, each with probability next[j], onto the support
// z_i = v_min + i * (v_max - v_min) / (atoms - 1). With `terminal`, the
// distribution of the reward alone (next is ignored).
void ProjectDistribution(int atoms, double v_min, double v_max, double reward, double gamma,
                         const float* next, bool terminal, float* target);

}  // namespace rl
}  // namespace tierfs
