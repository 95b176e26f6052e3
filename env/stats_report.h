// What the admin tool shows of GetTierStats: the JSON of `tierfs --json stats`
// and the tables of `tierfs stats`, both made from the rows of kTierTickers and
// kTierHistograms (tierfs/statistics.h), so a statistic added there shows up in both.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tierfs/statistics.h"

namespace tierfs {

// One object per tier: "tier", "path", "device", "capacity", "used_bytes",
// every ticker by its name, and for every histogram "<prefix>_avg_us" and
// "<prefix>_p99_us" (the p99 is a power-of-two bucket bound).
nlohmann::json TierStatsToJson(const std::vector<TierStats>& stats);

// One table per StatGroup, a row per tier, a column per ticker of the group
// (in enum order, headed by its column name); the I/O table also has the
// tier's device, capacity and use, each histogram's average and p99, and the
// path last. Columns are as wide as their widest cell.
std::string TierStatsTables(const std::vector<TierStats>& stats);

}  // namespace tierfs
