// The store's statistics in Prometheus's text exposition format (version
// 0.0.4), as `tierfs metrics` prints them and as the URI key `metrics_file`
// makes a running store write them for node_exporter's textfile collector.
// Made from the rows of kTierTickers and kTierHistograms
// (tierfs/statistics.h), so a statistic added there shows up here too.
//
// Per tier, labelled {tier="0",device="optane",path="/mnt/optane/db"}:
//   tierfs_capacity_bytes, tierfs_used_bytes     gauges
//   tierfs_<ticker>_total                        each counter (TickerKind::kCounter)
//   tierfs_<ticker>                              each gauge (TickerKind::kGauge)
//   tierfs_<histogram>_seconds                   each latency histogram: _bucket
//                                                {le=...} (cumulative, the power-of-
//                                                two bounds of LatencyHistogram), _sum,
//                                                _count
// Each family has its # HELP (the row's help) and # TYPE.
#pragma once

#include <string>
#include <vector>

#include "tierfs/statistics.h"

namespace tierfs {

std::string TierStatsToPrometheus(const std::vector<TierStats>& stats);

}  // namespace tierfs
