// Store statistics: the live counters, their persistence in <tier0>/meta/STATS
// (JSON, written at close, added back at open so counters cover the store's
// life), and the file listing behind `tierfs ls`.
#include <nlohmann/json.hpp>

#include "env/file_name.h"
#include "env/store.h"

namespace tierfs {

using nlohmann::json;
using rocksdb::IOStatus;

namespace {

json HistogramToJson(const LatencyHistogram& h) {
  return json{{"count", h.count}, {"sum_us", h.sum_us},
              {"buckets", std::vector<uint64_t>(h.buckets, h.buckets + LatencyHistogram::kBuckets)}};
}

LatencyHistogram HistogramFromJson(const json& j) {
  LatencyHistogram h;
  h.count = j.value("count", uint64_t(0));
  h.sum_us = j.value("sum_us", uint64_t(0));
  std::vector<uint64_t> b = j.value("buckets", std::vector<uint64_t>());
  for (size_t i = 0; i < b.size() && i < size_t(LatencyHistogram::kBuckets); ++i) h.buckets[i] = b[i];
  return h;
}

}  // namespace

void Store::GetStats(std::vector<TierStats>* out) {
  out->clear();
  for (const auto& t : tiers_) {
    TierStats s;
    s.index = t->index;
    s.path = t->root;
    s.device = t->device.params().name;
    s.capacity = t->capacity;
    s.used_bytes = t->used();
    s.segments = t->segments.load();
    t->ReadTotals(&s.reads, &s.read_bytes, &s.read_latency);
    s.writes = t->writes.load();
    s.write_bytes = t->write_bytes.load();
    s.syncs = t->syncs.load();
    s.spills_in = t->spills_in.load();
    s.write_latency = t->write_latency.Snapshot();
    s.sync_latency = t->sync_latency.Snapshot();
    out->push_back(s);
  }
}

void Store::ListFiles(const std::string& dir, std::vector<FileInfo>* files) {
  std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> entries;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    entries = ns_.FilesUnder(dir);
  }
  files->clear();
  for (const auto& [name, e] : entries) {
    FileInfo info;
    info.name = name;
    info.kind = FileKindName(ClassifyFileName(name));  // by its current name: CURRENT was born a .dbtmp
    info.size = e->size.load();
    info.segments_per_tier.assign(tiers_.size(), 0);
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      uint8_t t = e->segments.tier(s);
      if (t != kNoTier) info.segments_per_tier[t]++;
    }
    files->push_back(info);
  }
}

IOStatus Store::SaveStats() {
  std::vector<TierStats> stats;
  GetStats(&stats);
  json tiers = json::array();
  for (const TierStats& s : stats) {
    tiers.push_back(json{{"reads", s.reads}, {"read_bytes", s.read_bytes},
                         {"writes", s.writes}, {"write_bytes", s.write_bytes},
                         {"syncs", s.syncs}, {"spills_in", s.spills_in},
                         {"read_latency", HistogramToJson(s.read_latency)},
                         {"write_latency", HistogramToJson(s.write_latency)},
                         {"sync_latency", HistogramToJson(s.sync_latency)}});
  }
  json doc{{"version", 1}, {"tiers", tiers}};
  const std::string path = meta_dir_ + "/STATS";
  IOStatus s = rocksdb::WriteStringToFile(base_.get(), doc.dump(1), path + ".tmp", true);
  if (s.ok()) s = base_->RenameFile(path + ".tmp", path, rocksdb::IOOptions(), nullptr);
  return s;
}

void Store::LoadStats() {
  std::string text;
  if (!rocksdb::ReadFileToString(base_.get(), meta_dir_ + "/STATS", &text).ok()) return;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc["tiers"].is_array()) return;  // a damaged STATS only loses counters
  const json& tiers = doc["tiers"];
  for (size_t i = 0; i < tiers.size() && i < tiers_.size(); ++i) {
    const json& j = tiers[i];
    if (!j.is_object()) continue;
    Tier& t = *tiers_[i];
    t.AddSavedReads(j.value("reads", uint64_t(0)), j.value("read_bytes", uint64_t(0)),
                    j.contains("read_latency") ? HistogramFromJson(j["read_latency"])
                                               : LatencyHistogram());
    t.writes += j.value("writes", uint64_t(0));
    t.write_bytes += j.value("write_bytes", uint64_t(0));
    t.syncs += j.value("syncs", uint64_t(0));
    t.spills_in += j.value("spills_in", uint64_t(0));
    if (j.contains("write_latency")) t.write_latency.Merge(HistogramFromJson(j["write_latency"]));
    if (j.contains("sync_latency")) t.sync_latency.Merge(HistogramFromJson(j["sync_latency"]));
  }
}

}  // namespace tierfs
