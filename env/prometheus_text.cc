#include "env/prometheus_text.h"

#include <cinttypes>
#include <cstdio>

namespace tierfs {

namespace {

// Backslash and newline escaped, and in a label value the double quote too.
std::string Escaped(const std::string& v, bool label = true) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || (label && c == '"')) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Labels(const TierStats& s) {
  return "tier=\"" + std::to_string(s.index) + "\",device=\"" + Escaped(s.device) +
         "\",path=\"" + Escaped(s.path) + "\"";
}

void Family(std::string* out, const std::string& name, const char* type, const std::string& help) {
  *out += "# HELP " + name + " " + Escaped(help, /*label=*/false) + "\n";
  *out += "# TYPE " + name + " " + type + "\n";
}

void Sample(std::string* out, const std::string& name, const std::string& labels, uint64_t v) {
  *out += name + "{" + labels + "} " + std::to_string(v) + "\n";
}

// A store-wide family of one sample.
void Single(std::string* out, const std::string& name, const char* type, const std::string& help,
            uint64_t v) {
  Family(out, name, type, help);
  *out += name + " " + std::to_string(v) + "\n";
}

std::string Seconds(double s) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.9g", s);
  return buf;
}

}  // namespace

std::string TierStatsToPrometheus(const std::vector<TierStats>& stats) {
  std::string out;
  Family(&out, "tierfs_capacity_bytes", "gauge", "the tier's configured capacity");
  for (const TierStats& s : stats) Sample(&out, "tierfs_capacity_bytes", Labels(s), s.capacity);
  Family(&out, "tierfs_used_bytes", "gauge",
         "bytes charged on the tier: resident data, copies and reserved headroom");
  for (const TierStats& s : stats) Sample(&out, "tierfs_used_bytes", Labels(s), s.used_bytes);
  for (const TierTickerInfo& t : kTierTickers) {
    const bool counter = t.kind == TickerKind::kCounter;
    const std::string name = std::string("tierfs_") + t.name + (counter ? "_total" : "");
    Family(&out, name, counter ? "counter" : "gauge", t.help);
    for (const TierStats& s : stats) Sample(&out, name, Labels(s), s.Get(t.id));
  }
  for (const TierHistogramInfo& h : kTierHistograms) {
    const std::string name = std::string("tierfs_") + h.name + "_seconds";
    Family(&out, name, "histogram", h.help);
    for (const TierStats& s : stats) {
      const LatencyHistogram& hist = s.Get(h.id);
      const std::string labels = Labels(s);
      // Bucket i holds [2^(i-1), 2^i) us (bucket 0: < 1 us): its upper bound
      // is 2^i us; the last is +Inf.
      uint64_t cumulative = 0;
      for (int i = 0; i < LatencyHistogram::kBuckets; ++i) {
        cumulative += hist.buckets[i];
        const std::string le = i + 1 == LatencyHistogram::kBuckets
                                   ? "+Inf"
                                   : Seconds(double(uint64_t(1) << i) / 1e6);
        out += name + "_bucket{" + labels + ",le=\"" + le + "\"} " + std::to_string(cumulative) +
               "\n";
      }
      out += name + "_sum{" + labels + "} " + Seconds(double(hist.sum_us) / 1e6) + "\n";
      // The buckets' total, not hist.count: a live histogram's fields are
      // read one by one, and _count must equal the +Inf bucket.
      out += name + "_count{" + labels + "} " + std::to_string(cumulative) + "\n";
    }
  }
  return out;
}

std::string StoreMetricsToPrometheus(const StoreMetrics& metrics) {
  std::string out = TierStatsToPrometheus(metrics.tiers);
  Family(&out, "tierfs_store_errors_total", "counter",
         "errors no caller could be told of, by kind, over the store's life (`tierfs errors` "
         "says what each counts; each is a line in <tier 0>/meta/LOG)");
  for (const StoreErrorInfo& e : kStoreErrors) {
    Sample(&out, "tierfs_store_errors_total", std::string("kind=\"") + e.name + "\"",
           metrics.errors[size_t(e.id)]);
  }
  const MigrationInfo& m = metrics.migration;
  Single(&out, "tierfs_migration_enabled", "gauge", "1 if the store has a migration thread",
         m.enabled);
  Single(&out, "tierfs_migration_moves_total", "counter",
         "migration moves done (planned and manual) since the store opened", m.done);
  Single(&out, "tierfs_migration_moved_bytes_total", "counter",
         "bytes the migration moves done carried since the store opened", m.bytes);
  Single(&out, "tierfs_migration_skipped_total", "counter",
         "migration moves skipped since the store opened: nothing to do, file busy, no room",
         m.skipped);
  Single(&out, "tierfs_migration_given_up_total", "counter",
         "migration moves given up since the store opened: devices never idle, or an error",
         m.given_up);
  Single(&out, "tierfs_migration_waits_total", "counter",
         "migration chunks that waited for foreground I/O since the store opened", m.waits);
  const uint64_t manual = QueuedManualMoves(m);
  Family(&out, "tierfs_migration_queue_length", "gauge", "migration moves waiting, by queue");
  Sample(&out, "tierfs_migration_queue_length", "queue=\"manual\"", manual);
  Sample(&out, "tierfs_migration_queue_length", "queue=\"planned\"", m.queue.size() - manual);
  Single(&out, "tierfs_migration_running", "gauge", "1 while a migration move runs",
         m.running.has_value());
  return out;
}

}  // namespace tierfs
