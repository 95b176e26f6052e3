// TierStats as JSON and back, losslessly: every ticker (counters and gauges)
// by its name in kTierTickers, every histogram whole (count, sum_us and its
// buckets), and the tier's index, path, device, capacity and use. The admin
// channel's "stats" answer carries a live store's statistics so (`tierfs
// watch` takes differences of two answers); the STATS file writes its
// histograms with the same HistogramToJson.
//
// `tierfs --json stats` is another format (averages and p99s, for people and
// scripts): env/stats_report.h.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "tierfs/statistics.h"

namespace tierfs {

// {"count": N, "sum_us": N, "buckets": [N, ...]}.
nlohmann::json HistogramToJson(const LatencyHistogram& h);

// The inverse of HistogramToJson; a missing key is 0. Throws std::exception
// (nlohmann's type_error, or std::out_of_range from JsonNumber) on a value of
// the wrong type or out of range.
LatencyHistogram HistogramFromJson(const nlohmann::json& j);

// One object per tier, in order.
nlohmann::json TierStatsToJsonLossless(const std::vector<TierStats>& stats);

// The inverse of TierStatsToJsonLossless: a missing ticker or histogram is 0
// (an answer from a store with fewer statistics). Throws std::exception as
// HistogramFromJson does, also if `j` is not an array of objects.
std::vector<TierStats> TierStatsFromJsonLossless(const nlohmann::json& j);

}  // namespace tierfs
