// The "segments" rows of meta/STATS (saved_segments.h).
#include "core/saved_segments.h"

#include <exception>

#include <nlohmann/json.hpp>

#include "core/json_number.h"

namespace tierfs {

using nlohmann::json;

json SavedSegmentToJson(const SavedSegment& s) {
  const SegmentStats& st = s.stats;
  return json::array({s.id, s.segment, st.user_reads, st.background_reads, st.writes,
                      st.migrations, st.heat, st.last_access, st.placed, st.last_migration});
}

bool SavedSegmentFromJson(const json& row, SavedSegment* out) {
  if (!row.is_array() || row.size() < 7) return false;
  *out = SavedSegment();
  out->id = JsonNumber<uint64_t>(row[0]);
  out->segment = JsonNumber<uint64_t>(row[1]);
  SegmentStats& st = out->stats;
  st.user_reads = JsonNumber<uint32_t>(row[2]);
  st.background_reads = JsonNumber<uint32_t>(row[3]);
  st.writes = JsonNumber<uint32_t>(row[4]);
  st.migrations = JsonNumber<uint32_t>(row[5]);
  st.heat = JsonNumber<float>(row[6]);
  out->times = row.size() >= 10;
  if (out->times) {
    st.last_access = JsonNumber<uint64_t>(row[7]);
    st.placed = JsonNumber<uint64_t>(row[8]);
    st.last_migration = JsonNumber<uint64_t>(row[9]);
  }
  return true;
}

bool ReadSavedSegments(const std::string& text, std::vector<SavedSegment>* rows,
                       uint64_t* skipped, std::string* damage) {
  rows->clear();
  *skipped = 0;
  damage->clear();
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("tiers") || !doc["tiers"].is_array()) return false;
  if (!doc.contains("segments") || !doc["segments"].is_array()) return true;
  for (const json& row : doc["segments"]) {
    SavedSegment s;
    try {
      if (!SavedSegmentFromJson(row, &s)) {
        ++*skipped;
        continue;
      }
    } catch (const std::exception& e) {
      *damage = "segment row " + std::to_string(rows->size() + *skipped) + " is damaged (" +
                e.what() + "): the rows after it were not read";
      return true;
    }
    rows->push_back(s);
  }
  return true;
}

}  // namespace tierfs
