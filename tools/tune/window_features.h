// LearnedSSD's workload characterization starts here (learnedssd.txt §3.3):
// a trace cut into windows of 3,000 I/O requests, each window one point of a
// feature space. The features are the ones the paper reads from a block
// trace (timestamp, size, address, operation), summarized per window:
//
//   read_share       user and compaction reads over all I/O requests
//   log_size         mean of ln(request bytes)
//   log_size_sd      standard deviation of ln(request bytes)
//   log_gap          ln(1 + mean inter-arrival time in microseconds)
//   gap_cv           the inter-arrival times' coefficient of variation
//   sequential       share of requests starting where the previous one of
//                    the same file ended
//   log_seek         mean ln(1 + |distance in KiB| from the previous request
//                    of the same file), over requests that are not a file's
//                    first in the window (the spatial spread)
//   log_footprint    ln(distinct 64 KiB blocks touched)
//   reuse_share      share of requests whose first 64 KiB block was already
//                    touched in the window
//   log_reuse_dist   mean ln(1 + requests since that block's last access),
//                    over reused requests (0 if none)
//
// Events (records that are not I/O) are skipped. The windows are features
// of the record order only: a trace captured on one machine and replayed on
// another characterizes the same (apart from its timings).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace tune {

// Requests per window (LearnedSSD's default).
constexpr size_t kWindowRequests = 3000;

// The features' names, in the order WindowFeatures fills a vector.
const std::vector<std::string>& FeatureNames();

// The trace's I/O requests cut into consecutive windows of `window`
// requests, one feature vector each. A last partial window is kept only if
// it holds at least half a window, or if it is the only one (a trace shorter
// than a window is one window). An empty trace gives no window.
std::vector<std::vector<double>> WindowFeatures(const std::vector<TraceRecord>& trace,
                                                size_t window = kWindowRequests);

}  // namespace tune
}  // namespace tierfs
