// `tierfs heatmap` as text (heatmap.h): the glyph scale, the tiers' colours
// and the lines a terminal shows.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tools/tierfs/heatmap.h"

namespace tierfs {
namespace tool {

namespace {

constexpr int kNumColours = 5;
const Rgb kTierRgb[kNumColours] = {
    {46, 204, 64}, {255, 190, 0}, {40, 110, 255}, {230, 40, 200}, {40, 210, 210}};
const char* const kTierColourNames[kNumColours] = {"green", "yellow", "blue", "magenta", "cyan"};
const int kAnsiBackground[kNumColours] = {42, 43, 44, 45, 46};
const int kAnsiForeground[kNumColours] = {30, 30, 97, 97, 30};  // black or bright white

int ColourIndex(int tier) { return tier < 0 ? 0 : tier % kNumColours; }

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string TierCounts(const std::vector<uint64_t>& per_tier) {
  std::string s;
  for (size_t t = 0; t < per_tier.size(); ++t) {
    s += (t ? "/" : "") + std::to_string(per_tier[t]);
  }
  return s;
}

// The SGR sequence that draws `cell`: its home's tier as the background, and
// underlined if it has an extra copy; the default for a hole.
std::string CellStyle(const HeatCell& cell) {
  if (cell.tier < 0) return "\033[0m";
  return std::string("\033[0;") + (cell.copy_tier >= 0 ? "4;" : "") +
         std::to_string(TierAnsiBackground(cell.tier)) + ";" +
         std::to_string(TierAnsiForeground(cell.tier)) + "m";
}

std::string LevelTitle(const HeatMap& map, int level, size_t rows) {
  const std::string n = std::to_string(rows) + " " + (rows == 1 ? map.row : map.rows_noun);
  if (level < 0) return "no level (WAL, blob, table files the event listener did not name): " + n;
  return "level " + std::to_string(level) + ": " + n;
}

}  // namespace

char HeatGlyph(double value, double max_value) {
  if (!(value > 0) || !(max_value > 0)) return kHeatGlyphs[0];
  const int steps = int(sizeof(kHeatGlyphs)) - 2;  // the glyphs after ' '
  const int i = int(std::ceil(steps * std::min(1.0, value / max_value)));
  return kHeatGlyphs[std::max(1, std::min(steps, i))];
}

Rgb TierRgb(int tier) { return kTierRgb[ColourIndex(tier)]; }
const char* TierColourName(int tier) { return kTierColourNames[ColourIndex(tier)]; }
int TierAnsiBackground(int tier) { return kAnsiBackground[ColourIndex(tier)]; }
int TierAnsiForeground(int tier) { return kAnsiForeground[ColourIndex(tier)]; }

std::string HeatMapText(const HeatMap& map, bool colour, int width) {
  std::string out =
      map.title + (width > 0 ? ", wrapped at " + std::to_string(width) + " columns" : "") + "\n";
  char hottest[64];
  snprintf(hottest, sizeof(hottest), "%.1f", map.max_value);
  out += "scale, by " + map.measure + ": ' ' none, then";
  for (const char* g = kHeatGlyphs + 1; *g; ++g) out += std::string(" ") + *g;
  out += map.max_value > 0 ? " in equal steps up to the hottest " + map.cell + "'s " + hottest
                           : " (no " + map.cell + " has any: every glyph is ' ')";
  out += "\ntiers: ";
  for (size_t t = 0; t < map.tiers.size(); ++t) {
    std::string name = std::to_string(t) + " " + map.tiers[t] + " (" + TierColourName(int(t)) + ")";
    if (colour) name = CellStyle(HeatCell{int(t), -1, 0}) + name + "\033[0m";
    out += (t ? ", " : "") + name;
  }
  if (!colour) {
    out += "; colours on a terminal or with --color=always, per-tier counts below\n";
  } else {
    out += map.copies_column ? "; underlined: an extra copy\n" : "\n";
  }

  // The columns before the glyphs: name, segments on each tier, copies.
  std::string tiers_head;
  for (size_t t = 0; t < map.tiers.size(); ++t) tiers_head += (t ? "/t" : "t") + std::to_string(t);
  size_t name_w = map.row.size(), tiers_w = tiers_head.size();
  for (const HeatRow& r : map.rows) {
    name_w = std::max(name_w, r.name.size());
    tiers_w = std::max(tiers_w, TierCounts(r.segments_per_tier).size());
  }
  const std::string copies_head = map.copies_column ? "copies  " : "";
  const size_t prefix = 2 + name_w + 2 + tiers_w + 2 + copies_head.size();
  size_t per_line = 0;  // glyphs per line; 0: all of a file's on one
  if (width > 0) per_line = size_t(std::max(8, width - int(prefix) - 2));
  out += "  " + Pad(map.row, name_w) + "  " + Pad(tiers_head, tiers_w) + "  " + copies_head +
         map.cells + "\n";

  for (size_t i = 0; i < map.rows.size();) {
    size_t end = i;
    while (end < map.rows.size() && map.rows[end].level == map.rows[i].level) ++end;
    out += LevelTitle(map, map.rows[i].level, end - i) + "\n";
    for (; i < end; ++i) {
      const HeatRow& r = map.rows[i];
      std::string line = "  " + Pad(r.name, name_w) + "  " +
                         Pad(TierCounts(r.segments_per_tier), tiers_w) + "  ";
      if (map.copies_column) {
        line += PadLeft(r.copies ? std::to_string(r.copies) : "-", copies_head.size() - 2) + "  ";
      }
      const size_t n = r.cells.size();
      const size_t step = per_line ? per_line : std::max<size_t>(n, 1);
      for (size_t from = 0; from < std::max<size_t>(n, 1); from += step) {
        if (from > 0) line = std::string(prefix, ' ');
        line += "|";
        std::string style;
        for (size_t s = from; s < std::min(n, from + step); ++s) {
          const HeatCell& c = r.cells[s];
          if (colour && CellStyle(c) != style) line += style = CellStyle(c);
          line += HeatGlyph(c.value, map.max_value);
        }
        if (colour && !style.empty()) line += "\033[0m";
        out += line + "|\n";
      }
    }
  }
  return out;
}

}  // namespace tool
}  // namespace tierfs
