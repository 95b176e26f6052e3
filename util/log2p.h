// log2(1 + x) for x >= 0, within 2e-4 of std::log2 and about a quarter of
// its time: the exponent of 1 + x and a quartic in its mantissa (least
// squares on [1, 2)). For features that are quantized anyway (the copies'
// reuse predictor, agents/reuse_predictor.cc).
#pragma once

#include <cstdint>
#include <cstring>

namespace tierfs {

inline double Log2p(double x) {
  const double v = 1 + x;
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const int exponent = int((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0xfffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  std::memcpy(&m, &bits, sizeof(m));
  const double t = m - 1;
  return exponent + t * (1.43854765 + t * (-0.67808746 + t * (0.32364232 + t * -0.08429226)));
}

}  // namespace tierfs
