// The statistics file (stats_file.h, which gives its format).
#include "env/stats_file.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/json_number.h"
#include "core/saved_segments.h"
#include "env/store.h"
#include "env/tier_stats_json.h"

namespace tierfs {

using nlohmann::json;
using rocksdb::IOStatus;

const char* SavePointName(SavePoint point) {
  switch (point) {
    case SavePoint::kClose: return "close";
    case SavePoint::kLastDatabaseClosed: return "last database closed";
    case SavePoint::kExit: return "exit";
  }
  return "?";
}

IOStatus StatsFile::Save(Store& store, SavePoint point, bool posix) {
  std::vector<TierStats> stats;
  store.GetStats(&stats);
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
  // across restarts (core/saved_segments.h), sequence numbers on the store's
  // request clock, saved as "seq". And what
  // the event listener said of each table file: [file id, level, column
  // family], so levels survive a restart (RocksDB does not restate them).
  std::vector<Store::SavedFile> saved_files;
  std::vector<SavedSegment> saved_segments;
  store.CollectSaved(&saved_files, &saved_segments);
  json files = json::array();
  for (const Store::SavedFile& f : saved_files) {
    files.push_back(json::array({f.id, f.level, f.column_family}));
  }
  json segments = json::array();
  for (const SavedSegment& g : saved_segments) segments.push_back(SavedSegmentToJson(g));
  json doc{{"version", 1},
           {"seq", store.Now()},
           {"tiers", tiers},
           {"segments", segments},
           {"files", files},
           {"errors", StoreErrorsToJson(store.errors())},
           {"saved_at", SavePointName(point)},
           {"generation", store.journal_generation()}};
  return store.WriteMetaFile("STATS", doc.dump(1), posix);
}

namespace {

// What statistics saved at `saved_at` in journal generation `saved_gen` miss,
// the store having run to generation `last_gen` ("" if nothing).
std::string Missing(const std::string& saved_at, uint64_t saved_gen, uint64_t last_gen) {
  const std::string from = "the statistics are from the save at " +
                           (saved_at.empty() ? std::string("close") : saved_at) +
                           " in journal generation " + std::to_string(saved_gen);
  if (saved_gen != last_gen) {
    return from + "; the store ran to generation " + std::to_string(last_gen) +
           " and was not saved after (the process was killed, or crashed): its activity since "
           "is not counted, and the learning policy's state, if any, is the older one";
  }
  if (saved_at == SavePointName(SavePoint::kLastDatabaseClosed)) {
    return from + "; the process did not save again at its end (killed, or crashed?): what "
           "the store did after its last database closed is not counted";
  }
  if (saved_at == SavePointName(SavePoint::kExit)) {
    return from + ", taken when the process exited with the store open: I/O after that "
           "moment, by threads still running, is not counted";
  }
  return "";
}

}  // namespace

IOStatus StatsFile::Load(Store& store, std::string* missing) {
  // The generation the last process ran to (Recover started the next one).
  const uint64_t generation = store.journal_generation();  // 0: no journal
  const uint64_t last_gen = generation > 0 ? generation - 1 : 0;
  const std::string path = store.meta_dir() + "/STATS";
  std::string text;
  IOStatus s = rocksdb::ReadFileToString(store.base(), path, &text);
  if (s.IsNotFound() || s.IsPathNotFound()) {
    if (missing && last_gen > 0) {
      *missing = "no statistics saved: the store was never saved since it was created "
                 "(killed, or crashed): its activity so far is not counted";
    }
    return IOStatus::OK();
  }
  if (!s.ok()) return s;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc["tiers"].is_array()) {
    return IOStatus::Corruption(path + " is not a TierFS statistics file: nothing loaded");
  }
  // Files written before the save points were recorded lack both keys: no
  // guess is made for them.
  if (missing && generation > 0 && doc["generation"].is_number_unsigned()) {
    const json& at = doc["saved_at"];
    *missing = Missing(at.is_string() ? at.get<std::string>() : "",
                       doc["generation"].get<uint64_t>(), last_gen);
  }
  // Rows are read in the order the file has them; a value of the wrong type
  // (or a number its field cannot hold: core/json_number.h) throws, and what
  // was added before it stays.
  uint64_t skipped = 0;
  try {
    LoadDocument(store, doc, &skipped);
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

void StatsFile::LoadDocument(Store& store, const json& doc, uint64_t* skipped) {
  store.AddSavedErrors(StoreErrorsFromJson(doc.value("errors", json::object())));
  const json& tiers = doc["tiers"];
  for (size_t i = 0; i < tiers.size() && i < size_t(store.NumTiers()); ++i) {
    const json& j = tiers[i];
    if (!j.is_object()) {
      ++*skipped;
      continue;
    }
    Tier& t = store.tier(int(i));
    for (const TierTickerInfo& info : kTierTickers) {
      if (info.kind == TickerKind::kCounter) t.Add(info.id, JsonNumber<uint64_t>(j, info.name, 0));
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      if (j.contains(info.name)) t.Merge(info.id, HistogramFromJson(j[info.name]));
    }
  }
  if (doc.contains("files") && doc["files"].is_array()) {
    for (const json& row : doc["files"]) {
      if (!row.is_array() || row.size() < 3) {
        ++*skipped;
        continue;
      }
      Store::SavedFile f;
      f.id = JsonNumber<uint64_t>(row[0]);
      f.level = JsonNumber<int8_t>(row[1]);  // as FileEntry::level holds it
      f.column_family = row[2].get<std::string>();
      store.RestoreSaved(f);
    }
  }
  // The request clock goes on where it stopped, so ages and decay continue.
  store.RestoreClock(JsonNumber<uint64_t>(doc, "seq", 0));
  if (!doc.contains("segments") || !doc["segments"].is_array()) return;
  for (const json& row : doc["segments"]) {
    SavedSegment g;
    if (!SavedSegmentFromJson(row, &g)) {
      ++*skipped;
      continue;
    }
    store.RestoreSaved(g);
  }
}

}  // namespace tierfs
