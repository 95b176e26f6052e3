// The heat map as JSON (heatmap.h): the rows and cells HeatMapText draws, by
// the map's own nouns, so a store's map and a trace's read alike.
#include <nlohmann/json.hpp>

#include "tools/tierfs/heatmap.h"

namespace tierfs {
namespace tool {

using nlohmann::json;

json HeatMapJson(const HeatMap& map) {
  json rows = json::array();
  for (const HeatRow& r : map.rows) {
    json cells = json::array();
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const HeatCell& c = r.cells[i];
      cells.push_back(json{{map.cell, i}, {"tier", c.tier}, {"copy_tier", c.copy_tier},
                           {map.value_key, c.value}});
    }
    json row = {{"name", r.name}, {"level", r.level}};
    if (!r.path.empty()) row["file"] = r.path;
    row["segments_per_tier"] = r.segments_per_tier;
    if (map.copies_column) row["copies"] = r.copies;
    row[map.cells] = std::move(cells);
    rows.push_back(std::move(row));
  }
  return json{{"title", map.title}, {"measure", map.measure}, {"max_value", map.max_value},
              {"tiers", map.tiers}, {map.rows_noun, std::move(rows)}};
}

}  // namespace tool
}  // namespace tierfs
