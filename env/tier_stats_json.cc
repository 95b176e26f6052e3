// TierStats as JSON and back (tier_stats_json.h).
#include "env/tier_stats_json.h"

#include <stdexcept>
#include <string>

#include "core/json_number.h"

namespace tierfs {

using nlohmann::json;

json HistogramToJson(const LatencyHistogram& h) {
  const std::vector<uint64_t> buckets(h.buckets, h.buckets + LatencyHistogram::kBuckets);
  return json{{"count", h.count}, {"sum_us", h.sum_us}, {"buckets", buckets}};
}

LatencyHistogram HistogramFromJson(const json& j) {
  if (!j.is_object()) throw std::out_of_range("a histogram is not an object: " + j.dump());
  LatencyHistogram h;
  h.count = JsonNumber<uint64_t>(j, "count", 0);
  h.sum_us = JsonNumber<uint64_t>(j, "sum_us", 0);
  const json b = j.value("buckets", json::array());
  for (size_t i = 0; i < b.size() && i < size_t(LatencyHistogram::kBuckets); ++i) {
    h.buckets[i] = JsonNumber<uint64_t>(b.at(i));
  }
  return h;
}

json TierStatsToJsonLossless(const std::vector<TierStats>& stats) {
  json out = json::array();
  for (const TierStats& s : stats) {
    json tier{{"tier", s.index}, {"path", s.path}, {"device", s.device},
              {"capacity", s.capacity}, {"used_bytes", s.used_bytes}};
    for (const TierTickerInfo& info : kTierTickers) tier[info.name] = s.Get(info.id);
    for (const TierHistogramInfo& info : kTierHistograms) {
      tier[info.name] = HistogramToJson(s.Get(info.id));
    }
    out.push_back(tier);
  }
  return out;
}

std::vector<TierStats> TierStatsFromJsonLossless(const json& j) {
  if (!j.is_array()) throw std::out_of_range("the tiers are not an array: " + j.dump());
  std::vector<TierStats> out;
  for (const json& tier : j) {
    if (!tier.is_object()) throw std::out_of_range("a tier is not an object: " + tier.dump());
    TierStats s;
    s.index = JsonNumber<int>(tier, "tier", int(out.size()));
    s.path = tier.value("path", "");
    s.device = tier.value("device", "");
    s.capacity = JsonNumber<uint64_t>(tier, "capacity", 0);
    s.used_bytes = JsonNumber<uint64_t>(tier, "used_bytes", 0);
    for (const TierTickerInfo& info : kTierTickers) {
      s.tickers[size_t(info.id)] = JsonNumber<uint64_t>(tier, info.name, 0);
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      if (tier.contains(info.name)) {
        s.histograms[size_t(info.id)] = HistogramFromJson(tier[info.name]);
      }
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace tierfs
