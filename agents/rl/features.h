// Harmonia's observation (harmonia.txt, section 4.2, Table 2), generalized to
// N tiers, binned and scaled for the agents' networks.
//
//   feature     bins  what
//   req_type       2  read or write
//   req_size       8  request size in 4 KiB pages: 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, more
//   acc_intr      64  requests between the segment's last two accesses (log scale)
//   acc_freq      64  accesses to the segment so far (log scale)
//   free_t         8  free share of tier t, one feature per tier but the slowest
//   curr_dev       N  the tier holding the segment (N tiers)
//   migr_intr     64  requests since the segment last moved (log scale)
//
// Each feature enters the network as bin / (bins - 1), in [0, 1]. A segment
// not placed yet has curr_dev = the slowest tier's value and interval bins 0.
#pragma once

#include <cstdint>
#include <vector>

namespace tierfs {
namespace rl {

// What the encoder needs to know of a request, its segment and the storage.
struct Observation {
  bool write = false;
  uint64_t bytes = 0;               // of the request
  uint64_t access_interval = 0;     // requests between its last two accesses, 0 unknown
  uint64_t access_count = 0;        // accesses so far
  uint64_t migration_interval = 0;  // requests since it last moved (or was placed), 0 unknown
  int tier = -1;                    // where it is; -1 not placed
  std::vector<double> free_share;   // per tier, free / capacity, in [0, 1]
};

class ObservationEncoder {
 public:
  explicit ObservationEncoder(int tiers);
  int tiers() const { return tiers_; }
  // Inputs of the network: 6 + (tiers - 1).
  int size() const { return 6 + (tiers_ - 1); }
  // Writes size() values in [0, 1] to out.
  void Encode(const Observation& o, float* out) const;

  // Table 2's bins.
  static int SizeBin(uint64_t bytes);        // 0..7
  static int LogBin(uint64_t value);         // 0..63: 0 for 0, then 2 bins per doubling
  static int FreeBin(double share);          // 0..7
  static constexpr int kSizeBins = 8, kLogBins = 64, kFreeBins = 8;

 private:
  const int tiers_;
};

}  // namespace rl
}  // namespace tierfs
