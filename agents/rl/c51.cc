// C51's projection (Bellemare et al. 2017, Algorithm 1), for the learner's
// targets: off the I/O path, in double precision, no allocation.
//
// For each atom j of the next distribution, with dz = (v_max - v_min) / (atoms - 1):
//   Tz_j = clamp(reward + gamma * z_j, v_min, v_max)
//   b    = (Tz_j - v_min) / dz          in [0, atoms - 1]
//   l    = floor(b), u = ceil(b)
//   m_l += p_j * (u - b),  m_u += p_j * (b - l)
// and when b is a whole number (l == u) all of p_j goes to m_l: the two
// formulas would both give 0 there and lose the mass (the classic off-by-one
// in the paper's pseudocode). A terminal transition projects the reward alone
// with probability 1. Computed as l = trunc(b) (b >= 0), f = b - l:
// m_l += p_j * (1 - f), m_(l+1) += p_j * f, and only m_l when f == 0 (so
// nothing is ever written past the top atom). b is clamped to atoms - 1 too,
// as (v_max - v_min) / dz may round above it.
#include "agents/rl/c51.h"

namespace tierfs {
namespace rl {

namespace {

// Adds probability p at return value `value` to `target`, split between the
// two nearest atoms; `scale` is 1 / dz.
inline void Spread(int atoms, double v_min, double v_max, double scale, double value, double p,
                   float* target) {
  if (!(value > v_min)) value = v_min;  // also NaN: to the lowest atom
  if (value > v_max) value = v_max;
  double b = (value - v_min) * scale;
  const double last = double(atoms - 1);
  if (b > last) b = last;  // may round above atoms - 1
  // b >= 0: truncation is floor (and cheaper than std::floor without SSE4.1).
  const int l = int(b);
  const double frac = b - double(l);  // b - l; u - b = 1 - frac
  if (frac == 0) {
    target[l] += float(p);  // l == u
  } else {
    target[l] += float(p * (1 - frac));
    target[l + 1] += float(p * frac);
  }
}

}  // namespace

void ProjectDistribution(int atoms, double v_min, double v_max, double reward, double gamma,
                         const float* next, bool terminal, float* target) {
  if (atoms <= 0) return;
  for (int i = 0; i < atoms; ++i) target[i] = 0.0f;
  if (atoms == 1) {
    target[0] = 1.0f;
    return;
  }
  const double dz = (v_max - v_min) / double(atoms - 1);
  const double scale = double(atoms - 1) / (v_max - v_min);
  if (terminal) {
    Spread(atoms, v_min, v_max, scale, reward, 1.0, target);
    return;
  }
  for (int j = 0; j < atoms; ++j) {
    const double z = v_min + double(j) * dz;
    Spread(atoms, v_min, v_max, scale, reward + gamma * z, double(next[j]), target);
  }
}

}  // namespace rl
}  // namespace tierfs
