// The heat map of `tierfs heatmap` (heatmap_command.cc): per file, one cell
// per segment, holding the tier of the segment's home, its extra copy if it
// has one, and its heat; or, from a trace (heatmap_trace.cc), per segment one
// cell per time window. Drawn as text for a terminal (heatmap_text.cc) or as
// a PNG image (heatmap_png.cc); both take the tiers' colours from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <rocksdb/status.h>

namespace tierfs {
namespace tool {

struct HeatCell {
  int tier = -1;       // the home's tier (from a trace: the tier that served most of the
                       // window's reads); -1: no segment placed there, or not known
  int copy_tier = -1;  // an extra copy's tier (replicate, prefetch); -1 none
  double value = 0;    // on the map's scale (HeatMap::measure), >= 0
};

struct HeatRow {
  std::string name;             // as shown: the path relative to the listed directory
  std::string path;             // a store's file: its logical path; "" from a trace
  int level = -1;               // LSM level from the event listener; -1 unknown
  std::vector<HeatCell> cells;  // by segment index
  std::vector<uint64_t> segments_per_tier;  // cells by their tier
  uint64_t copies = 0;          // segments with an extra copy
};

struct HeatMap {
  std::string title;              // the first line: what the rows and cells are
  std::string cell, cells;        // what a cell is, singular and plural ("segment")
  std::string row = "file", rows_noun = "files";  // what a row is, singular and plural
  bool copies_column = true;      // show each row's HeatRow::copies
  std::vector<std::string> tiers;  // "optane": each tier's device, by index
  std::vector<HeatRow> rows;      // grouped by level: 0, 1, ..., then unknown
  std::string measure;            // what the values are: "heat" or "user reads"
  std::string value_key = "heat";  // the values' key in HeatMapJson: "heat" or "user_reads"
  double max_value = 0;           // the hottest cell's value (0: nothing was read)
};

// The glyph scale, coldest to hottest: ' ' for a value of 0, then one of the
// nine others in equal steps of the hottest value ('@' at it).
constexpr char kHeatGlyphs[] = " .:-=+*#%@";
char HeatGlyph(double value, double max_value);

struct Rgb {
  uint8_t r, g, b;
};
// A tier's colour: 0 green, 1 yellow, 2 blue, 3 magenta, 4 cyan, then again.
Rgb TierRgb(int tier);
const char* TierColourName(int tier);
// Its ANSI background colour (SGR 42-46) and a foreground readable on it.
int TierAnsiBackground(int tier);
int TierAnsiForeground(int tier);

// The heat of each segment users read in the trace at `path`
// (core/trace_format.h) over time: a row per segment, named
// "#FILE_ID.KIND:SEGMENT" and grouped by level, a cell per one of `windows`
// equal windows of the trace's time (up to its last I/O: each window is
// last_io_ns / windows + 1 ns long), holding the segment's user reads in it
// and the tier that served most of them. Corruption naming the file if it
// cannot be read. REQUIRES: windows >= 1.
rocksdb::Status BuildTraceHeatMap(const std::string& path, int windows, HeatMap* map);

// The map as text: a header and legend, then per level group one line per
// file (name, segments on each tier, copies, then one glyph per segment
// between '|'). With `colour`, each glyph's background is its home's tier
// and a segment with an extra copy is underlined. `width` > 0: a file's
// glyphs wrap onto lines of at most `width` characters; 0: no wrapping.
std::string HeatMapText(const HeatMap& map, bool colour, int width);

// The map as JSON (`tierfs heatmap --json`), the same data the text shows:
//   {"title": ..., "measure": ..., "max_value": ..., "tiers": [device, ...],
//    ROWS: [{"name": ..., "file": logical path (a store's file only), "level": -1 unknown,
//            "segments_per_tier": [...], "copies": n (a store's map only),
//            CELLS: [{CELL: index, "tier": -1 none, "copy_tier": -1 none, VALUE: v}, ...]}]}
// ROWS, CELLS and CELL are the map's nouns ("files", "segments", "segment"; from a trace
// "segments", "windows", "window"), VALUE its value_key ("heat" or "user_reads").
nlohmann::json HeatMapJson(const HeatMap& map);

// The PNG's geometry: rows are files (in HeatMapText's order), columns
// segments, each a square of `cell` pixels: 8, or less (4, 2, 1) to keep the
// image within kMaxPngSide pixels each way when it can.
struct PngLayout {
  static constexpr int kMaxPngSide = 4096;
  int cell = 0;
  int width = 0, height = 0;  // pixels
};
PngLayout HeatMapPngLayout(const HeatMap& map);

// Writes the map as an 8-bit RGB PNG (libpng): a cell's hue is its home's
// tier, its brightness its value (a fifth of the tier's colour at 0, full at
// the hottest); the top quarter of a cell with an extra copy, when cells are
// at least 4 pixels, is the copy's tier at full brightness; no segment: dark
// grey. IOError naming `path` if it cannot be written.
rocksdb::Status WriteHeatMapPng(const HeatMap& map, const std::string& path, PngLayout* layout);

}  // namespace tool
}  // namespace tierfs
