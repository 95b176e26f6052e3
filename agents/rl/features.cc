// Table 2's bins and the observation vector (features.h). Runs on the I/O path
// for every placement decision: integer arithmetic only, no libm, no
// allocation.
//
// The bins:
//   SizeBin   pages = ceil(bytes / 4096), 0 bytes counted as 1 page;
//             bin = 0 for 1 page, else min(7, ceil(log2(pages))):
//               pages  1 | 2 | 3-4 | 5-8 | 9-16 | 17-32 | 33-64 | 65+
//               bin    0 | 1 |  2  |  3  |  4   |   5   |   6   |  7
//   LogBin    0 for 0; for v >= 1, with k = floor(log2 v) (from count-leading-
//             zeros) and j = the bit below v's leading one (v's half of its
//             octave):
//               bin = min(63, 1 + 2k + j)
//             i.e. 1 + floor(2 * log2'(v)) with log2 interpolated linearly
//             within each octave. Two bins per doubling, so that 64 bins
//             reach 2^31: intervals are counted in requests, and a cold
//             segment's run to millions (four bins per doubling stopped at
//             49152, where most intervals of a long run would have shared
//             the last bin). 1 -> 1, 2 -> 3, 3 -> 4, 4 -> 5, 6 -> 6, 8 -> 7,
//             1000 -> 20, 2^20 -> 41, and from 2^31 on, 63. Non-decreasing.
//   FreeBin   floor(8 * share) clamped to 0..7: [0, 1/8) -> 0, ...,
//             [7/8, 1] -> 7; below 0 and NaN -> 0, above 1 -> 7.
#include "agents/rl/features.h"

#include <cstddef>

namespace tierfs {
namespace rl {

namespace {

constexpr uint64_t kPage = 4096;
// The first value LogBin puts in its last bin: 1 + 2 * 31 + 0 = 63.
constexpr uint64_t kLogSaturation = uint64_t(1) << 31;

// floor(log2(v)) for v > 0.
inline int Log2Floor(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
  return 63 - __builtin_clzll(v);
#else
  int k = 0;
  while (v >>= 1) ++k;
  return k;
#endif
}

// bin / (bins - 1), the value a feature enters the network with, for every
// bin: a table, as float division would take most of Encode's time.
template <int kBins>
struct ScaleTable {
  constexpr ScaleTable() : value() {
    for (int i = 0; i < kBins; ++i) value[i] = float(i) / float(kBins - 1);
  }
  float value[kBins];
};
constexpr ScaleTable<ObservationEncoder::kSizeBins> kSizeScale;
constexpr ScaleTable<ObservationEncoder::kLogBins> kLogScale;
constexpr ScaleTable<ObservationEncoder::kFreeBins> kFreeScale;

// The bins, without branches (conditional moves): the values are as good as
// random from one request to the next, and a mispredicted branch would cost
// more than the whole computation. Here rather than in the static members so
// that Encode inlines them (a shared library may not inline its exported
// functions into each other).

inline int SizeBinOf(uint64_t bytes) {
  const uint64_t pages = bytes / kPage + (bytes % kPage != 0);  // no overflow near 2^64
  const uint64_t p = pages < 65 ? pages : 65;                   // 65 and more: the last bin
  const int bin = Log2Floor((p - 1) | 1) + 1;  // ceil(log2(p)) for p >= 2
  return p <= 1 ? 0 : bin;
}

inline int LogBinOf(uint64_t value) {
  const uint64_t v = value < kLogSaturation ? value : kLogSaturation;
  const int k = Log2Floor(v | 1);  // <= 31, so v << 1 cannot overflow
  const int bin = 1 + 2 * k + int(((v << 1) >> k) & 1);
  return value == 0 ? 0 : bin;
}

inline int FreeBinOf(double share) {
  constexpr double kLast = ObservationEncoder::kFreeBins - 1;
  double bin = share * ObservationEncoder::kFreeBins;
  bin = bin > 0 ? bin : 0;  // also NaN
  bin = bin < kLast ? bin : kLast;
  return int(bin);
}

}  // namespace

ObservationEncoder::ObservationEncoder(int tiers) : tiers_(tiers < 1 ? 1 : tiers) {}

int ObservationEncoder::SizeBin(uint64_t bytes) { return SizeBinOf(bytes); }
int ObservationEncoder::LogBin(uint64_t value) { return LogBinOf(value); }
int ObservationEncoder::FreeBin(double share) { return FreeBinOf(share); }

// The layout of `out` (size() floats), each bin / (bins - 1):
//   [0] req_type   0 read, 1 write
//   [1] req_size   SizeBin / 7
//   [2] acc_intr   LogBin / 63          (0 for a segment not placed)
//   [3] acc_freq   LogBin / 63
//   [4 .. 4+N-2]   free share of tiers 0 .. N-2, FreeBin / 7 each
//                  (a tier missing from free_share counts as full: 0)
//   [N+3] curr_dev tier / (N - 1); not placed: the slowest tier's 1
//   [N+4] migr_intr LogBin / 63         (0 for a segment not placed)
// A tier index past the slowest counts as the slowest; with one tier,
// curr_dev is 0.
void ObservationEncoder::Encode(const Observation& o, float* out) const {
  const bool placed = o.tier >= 0;
  const int slowest = tiers_ - 1;
  *out++ = o.write ? 1.0f : 0.0f;
  *out++ = kSizeScale.value[SizeBinOf(o.bytes)];
  *out++ = placed ? kLogScale.value[LogBinOf(o.access_interval)] : 0.0f;
  *out++ = kLogScale.value[LogBinOf(o.access_count)];
  const size_t known = o.free_share.size();
  for (int t = 0; t < slowest; ++t) {
    *out++ = size_t(t) < known ? kFreeScale.value[FreeBinOf(o.free_share[size_t(t)])] : 0.0f;
  }
  const int tier = !placed || o.tier > slowest ? slowest : o.tier;
  *out++ = tier == 0 ? 0.0f : tier == slowest ? 1.0f : float(tier) / float(slowest);
  *out++ = placed ? kLogScale.value[LogBinOf(o.migration_interval)] : 0.0f;
}

}  // namespace rl
}  // namespace tierfs
