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
//
// Store-wide, after those, without the tier labels:
//   tierfs_store_errors_total{kind="..."}        each error counter (kStoreErrors in
//                                                env/store_errors.h), over the store's life
//   tierfs_migration_enabled                     gauge: 1 if the store has a migration thread
//   tierfs_migration_moves_total                 the migration engine's counters (MigrationInfo),
//   tierfs_migration_moved_bytes_total           since the store opened: moves done and the
//   tierfs_migration_skipped_total               bytes they carried, moves skipped, given up,
//   tierfs_migration_given_up_total              chunks that waited for foreground I/O
//   tierfs_migration_waits_total
//   tierfs_migration_queue_length{queue="manual"|"planned"}   gauges: moves waiting
//   tierfs_migration_running                     gauge: 1 while a move runs
// A store opened read-only (`tierfs metrics` on a store at rest) has no migration thread: its
// migration families are all 0.
#pragma once

#include <string>
#include <vector>

#include "env/store_errors.h"
#include "tierfs/statistics.h"

namespace tierfs {

// Everything the exposition shows.
struct StoreMetrics {
  std::vector<TierStats> tiers;  // GetTierStats
  StoreErrorCounts errors{};     // Store::errors()
  MigrationInfo migration;       // GetMigrationInfo
};

// The whole exposition: the per-tier families, then the store-wide ones.
std::string StoreMetricsToPrometheus(const StoreMetrics& metrics);

// The per-tier families alone.
std::string TierStatsToPrometheus(const std::vector<TierStats>& stats);

}  // namespace tierfs
