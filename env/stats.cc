// Store statistics: the live counters, their persistence in <tier0>/meta/STATS
// (JSON, written at close, added back at open so counters cover the store's
// life), and the file listing behind `tierfs ls`.
//
// STATS, version 1 (JSON; written via STATS.tmp + rename):
//   {"version": 1,
//    "seq":      the request clock at close,
//    "tiers":    [one object per tier, by index:
//                 {<name>: n, ... for every counter (TickerKind::kCounter) of
//                                 kTierTickers; gauges are not saved,
//                  <name>: {"count": n, "sum_us": n, "buckets": [32 counts]}, ...
//                                 for every row of kTierHistograms}],
//    "segments": [[file id, segment, user reads, background reads, writes,
//                  migrations, heat, last access, placed, last migration], ...],
//    "files":    [[file id, level, column family], ...],
//    "errors":   {<name>: n, ... for every row of kStoreErrors (store_errors.h)}}
// A key missing loads as zero (a file written before the statistic existed);
// unknown keys are ignored.
#include <map>

#include <nlohmann/json.hpp>

#include "env/file_name.h"
#include "env/json_number.h"
#include "env/store.h"

namespace tierfs {

using nlohmann::json;
using rocksdb::IOStatus;

namespace {

json HistogramToJson(const LatencyHistogram& h) {
  return json{{"count", h.count}, {"sum_us", h.sum_us},
              {"buckets", std::vector<uint64_t>(h.buckets, h.buckets + LatencyHistogram::kBuckets)}};
}

// Throws (std::exception) on a value of the wrong type.
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

}  // namespace

void Store::GetStats(std::vector<TierStats>* out) {
  out->clear();
  for (const auto& t : tiers_) {
    TierStats s;
    s.index = t->index;
    s.path = t->root;
    s.device = t->device.params().name;
    s.capacity = t->capacity();
    s.used_bytes = t->used();
    t->Snapshot(&s);
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
    {
      std::shared_lock<std::shared_mutex> elock(e->mu);
      info.level = e->hints.level;
      info.hint = e->hints.access;
      info.pinned_tier = e->hints.pinned_tier;
    }
    info.segments_per_tier.assign(tiers_.size(), 0);
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      uint8_t t = e->segments.tier(s);
      if (t != kNoTier) info.segments_per_tier[t]++;
    }
    files->push_back(info);
  }
}

void Store::ListSegments(const std::string& dir, std::vector<SegmentReport>* out) {
  std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> entries;
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    entries = ns_.FilesUnder(dir);
  }
  out->clear();
  const uint64_t now = Now();
  for (const auto& [name, e] : entries) {
    if (!IsBulkKind(e->kind)) continue;
    std::shared_lock<std::shared_mutex> lock(e->mu);
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      uint8_t t = e->segments.tier(s);
      if (t == kNoTier) continue;
      SegmentStats st = e->segments.heat(s)->Snapshot();
      SegmentReport r;
      r.file = name;
      r.segment = s;
      r.tier = t;
      uint8_t c = e->segments.copy(s);
      r.copy_tier = c == kNoTier ? -1 : c;
      r.bytes = ContentEnd(*e, s) - SegmentStart(s);
      r.user_reads = st.user_reads;
      r.background_reads = st.background_reads;
      r.writes = st.writes;
      r.migrations = st.migrations;
      r.heat = st.HeatAt(now);
      out->push_back(r);
    }
  }
}

IOStatus Store::SaveStats() {
  std::vector<TierStats> stats;
  GetStats(&stats);
  json tiers = json::array();
  for (const TierStats& s : stats) {
    json tier = json::object();
    for (const TierTickerInfo& info : kTierTickers) {
      if (info.kind == TickerKind::kCounter) tier[info.name] = s.Get(info.id);
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      tier[info.name] = HistogramToJson(s.Get(info.id));
    }
    tiers.push_back(tier);
  }
  // Per segment statistics, so policies and `tierfs segments` keep them
  // across restarts: [file id, segment, user reads, background reads, writes,
  // migrations, heat as of last access, last access, placed, last migration],
  // sequence numbers on the store's request clock, saved as "seq".
  json segments = json::array();
  // What the event listener said of each table file: [file id, level, column
  // family], so levels survive a restart (RocksDB does not restate them).
  json files = json::array();
  std::map<uint32_t, std::string> cf_names;
  {
    std::lock_guard<std::mutex> lock(hints_mu_);
    for (const auto& [name, cf] : cf_ids_) cf_names[cf] = name;
  }
  {
    std::lock_guard<std::mutex> lock(ns_mu_);
    for (const auto& [id, e] : ns_.files()) {
      std::shared_lock<std::shared_mutex> elock(e->mu);
      if (e->hints.level >= 0 || e->hints.column_family != 0) {
        files.push_back(json::array({id, e->hints.level, cf_names[e->hints.column_family]}));
      }
      for (uint64_t s = 0; s < e->segments.size(); ++s) {
        if (e->segments.tier(s) == kNoTier) continue;
        SegmentStats st = e->segments.heat(s)->Snapshot();
        segments.push_back(json::array({id, s, st.user_reads, st.background_reads, st.writes,
                                        st.migrations, st.heat, st.last_access, st.placed,
                                        st.last_migration}));
      }
    }
  }
  json doc{{"version", 1},   {"seq", Now()},   {"tiers", tiers},
           {"segments", segments}, {"files", files}, {"errors", StoreErrorsToJson(errors())}};
  const std::string path = meta_dir_ + "/STATS";
  IOStatus s = rocksdb::WriteStringToFile(base_.get(), doc.dump(1), path + ".tmp", true);
  if (s.ok()) s = base_->RenameFile(path + ".tmp", path, rocksdb::IOOptions(), nullptr);
  return s;
}

IOStatus Store::LoadStats() {
  const std::string path = meta_dir_ + "/STATS";
  std::string text;
  IOStatus s = rocksdb::ReadFileToString(base_.get(), path, &text);
  if (s.IsNotFound() || s.IsPathNotFound()) return IOStatus::OK();  // never closed cleanly
  if (!s.ok()) return s;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc["tiers"].is_array()) {
    return IOStatus::Corruption(path + " is not a TierFS statistics file: nothing loaded");
  }
  // Rows are read in the order the file has them; a value of the wrong type
  // (or a number its field cannot hold: env/json_number.h) throws, and what
  // was added before it stays.
  uint64_t skipped = 0;
  try {
    LoadStatsDocument(doc, &skipped);
  } catch (const std::exception& e) {
    return IOStatus::Corruption(path + " is damaged (" + e.what() +
                                "): the statistics after the damage were not loaded");
  }
  if (skipped > 0) {
    return IOStatus::Corruption(path + ": " + std::to_string(skipped) +
                                " malformed rows skipped");
  }
  return IOStatus::OK();
}

void Store::LoadStatsDocument(const json& doc, uint64_t* skipped) {
  errors_.AddAll(StoreErrorsFromJson(doc.value("errors", json::object())));
  const json& tiers = doc["tiers"];
  for (size_t i = 0; i < tiers.size() && i < tiers_.size(); ++i) {
    const json& j = tiers[i];
    if (!j.is_object()) {
      ++*skipped;
      continue;
    }
    Tier& t = *tiers_[i];
    for (const TierTickerInfo& info : kTierTickers) {
      if (info.kind == TickerKind::kCounter) t.Add(info.id, JsonNumber<uint64_t>(j, info.name, 0));
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      if (j.contains(info.name)) t.Merge(info.id, HistogramFromJson(j[info.name]));
    }
  }
  std::lock_guard<std::mutex> lock(ns_mu_);
  if (doc.contains("files") && doc["files"].is_array()) {
    for (const json& row : doc["files"]) {
      if (!row.is_array() || row.size() < 3) {
        ++*skipped;
        continue;
      }
      std::shared_ptr<FileEntry> e = ns_.FindId(JsonNumber<uint64_t>(row[0]));
      if (!e) continue;  // deleted since: nothing to restore
      e->hints.level = JsonNumber<int8_t>(row[1]);  // as FileEntry::level holds it
      e->level.store(int8_t(e->hints.level), std::memory_order_relaxed);
      std::string cf = row[2].get<std::string>();
      if (!cf.empty()) {
        std::lock_guard<std::mutex> hl(hints_mu_);
        e->hints.column_family = CfId(cf);
      }
    }
  }
  // The request clock goes on where it stopped, so ages and decay continue.
  clock_.Restore(JsonNumber<uint64_t>(doc, "seq", 0));
  if (!doc.contains("segments") || !doc["segments"].is_array()) return;
  for (const json& row : doc["segments"]) {
    if (!row.is_array() || row.size() < 7) {
      ++*skipped;
      continue;
    }
    std::shared_ptr<FileEntry> e = ns_.FindId(JsonNumber<uint64_t>(row[0]));
    uint64_t s = JsonNumber<uint64_t>(row[1]);
    if (!e || e->segments.tier(s) == kNoTier) continue;  // deleted or moved since
    SegmentHeat* h = e->segments.heat(s);
    h->user_reads = JsonNumber<uint32_t>(row[2]);
    h->background_reads = JsonNumber<uint32_t>(row[3]);
    h->writes = JsonNumber<uint32_t>(row[4]);
    h->migrations = JsonNumber<uint32_t>(row[5]);
    h->heat = JsonNumber<float>(row[6]);
    if (row.size() >= 10) {
      h->last_access = JsonNumber<uint64_t>(row[7]);
      h->placed = JsonNumber<uint64_t>(row[8]);
      h->last_migration = JsonNumber<uint64_t>(row[9]);
    }
  }
}

}  // namespace tierfs
