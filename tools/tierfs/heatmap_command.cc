// `tierfs heatmap`: per file under --db, grouped by LSM level, each
// segment's heat against the tier its home is on, in the terminal and as a
// PNG (heatmap.h draws both). It reads the store read-only, as `segments`
// does: the statistics are those of the store's last clean close. With
// --trace, each segment's heat over time from a trace (heatmap_trace.cc).
//
// Hot-page copies are counted per tier only (the store keeps no record of
// which file's pages are copied that it exposes, and a store at rest holds
// none), so the map says so instead of drawing them.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tierfs/statistics.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/heatmap.h"
#include "tools/tierfs/inspect_command.h"
#include "tools/tierfs/registry.h"
#include "util/size.h"

namespace tierfs {
namespace tool {
namespace {

// The width to wrap at: $COLUMNS if set, else the terminal's if stdout is
// one; 0 (no wrapping) otherwise.
int OutputWidth() {
  if (const char* c = getenv("COLUMNS")) {
    const int n = atoi(c);
    if (n > 0) return n;
  }
  struct winsize ws;
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 0;
}

// Files under `dir` with their placed segments, grouped by level.
rocksdb::Status BuildHeatMap(const rocksdb::FileSystem& fs, const Options& options,
                             const std::string& dir, HeatMap* map) {
  std::vector<FileInfo> files;
  std::vector<SegmentReport> segments;
  std::vector<TierStats> stats;
  rocksdb::Status s = ListFiles(&fs, dir, &files);
  if (s.ok()) s = ListSegments(&fs, dir, &segments);
  if (s.ok()) s = GetTierStats(&fs, &stats);
  if (!s.ok()) return s;
  for (const TierStats& t : stats) map->tiers.push_back(t.device.empty() ? "-" : t.device);

  double max_heat = 0, max_reads = 0;
  for (const SegmentReport& r : segments) {
    max_heat = std::max(max_heat, r.heat);
    max_reads = std::max(max_reads, double(r.user_reads));
  }
  const bool by_heat = max_heat > 0 || max_reads == 0;
  map->measure = by_heat ? "heat (user reads decayed to half every 65536 requests)"
                         : "user reads (every segment's heat has decayed to 0)";
  map->max_value = by_heat ? max_heat : max_reads;
  map->value_key = by_heat ? "heat" : "user_reads";

  std::map<std::string, HeatRow> rows;  // by logical path
  for (const SegmentReport& r : segments) {
    HeatRow& row = rows[r.file];
    if (row.cells.size() <= r.segment) row.cells.resize(r.segment + 1);
    row.cells[r.segment] = HeatCell{r.tier, r.copy_tier, by_heat ? r.heat : double(r.user_reads)};
    if (row.segments_per_tier.size() < map->tiers.size()) {
      row.segments_per_tier.assign(map->tiers.size(), 0);
    }
    if (r.tier >= 0 && size_t(r.tier) < row.segments_per_tier.size()) {
      ++row.segments_per_tier[size_t(r.tier)];
    }
    if (r.copy_tier >= 0) ++row.copies;
  }
  const std::string prefix = dir == "/" ? "/" : dir + "/";
  for (const FileInfo& f : files) {
    auto it = rows.find(f.name);
    if (it == rows.end()) continue;  // no placed segment of a bulk file
    HeatRow row = std::move(it->second);
    row.level = f.level;
    row.path = f.name;
    row.name = f.name.compare(0, prefix.size(), prefix) == 0 ? f.name.substr(prefix.size())
                                                             : f.name;
    map->rows.push_back(std::move(row));
  }
  size_t placed = 0;
  for (const HeatRow& r : map->rows) placed += r.cells.size();
  map->title = "heat map of " + dir + ": " + std::to_string(map->rows.size()) + " files, " +
               std::to_string(placed) + " segments" +
               (options.segment_size ? " of " + FormatSize(options.segment_size)
                                     : " (whole files)") +
               "; one character per segment";
  map->cell = "segment";
  map->cells = "segments";
  // Levels in order, files without one last; by name within a level.
  std::stable_sort(map->rows.begin(), map->rows.end(), [](const HeatRow& a, const HeatRow& b) {
    const unsigned la = unsigned(a.level), lb = unsigned(b.level);  // -1 sorts last
    return la != lb ? la < lb : a.name < b.name;
  });
  return rocksdb::Status::OK();
}

class HeatmapCommand : public InspectCommand {
 public:
  const char* Name() const override { return "heatmap"; }
  const char* Summary() const override {
    return "per file under --db, by level: each segment's heat, coloured by its tier; --png";
  }
  std::string Details() const override {
    return "One line per bulk file (table files by LSM level, then WAL and the rest), one\n"
           "character per segment: ' ' unread, then . : - = + * # % @ in equal steps up to\n"
           "the hottest segment (heat: user reads decayed to half every 65536 requests; if\n"
           "every heat has decayed to 0, user reads). On a terminal (or --color=always) a\n"
           "glyph's background is the tier of the segment's home, and a segment with an\n"
           "extra copy (replicate, prefetch) is underlined; the columns before the glyphs\n"
           "count each file's segments per tier and its copies. Long files wrap at the\n"
           "terminal's width ($COLUMNS if set; no wrapping when stdout is not a terminal).\n"
           "--png FILE: the same as an image, a row of square cells per file and a column\n"
           "per segment (8 pixels, fewer to stay within 4096 pixels), hue = tier,\n"
           "brightness = heat; the top quarter of a cell with a copy is the copy's tier.\n"
           "Hot-page copies are counted per tier only (shown below the map), not per file.\n"
           "The store is read read-only, as `segments` reads it: the statistics are those\n"
           "of its last clean close (a running process's are not seen).\n"
           "--trace FILE: instead of the store, a trace (the URI key trace:PATH) over time:\n"
           "a row per segment users read (#FILE_ID.KIND:SEGMENT, by level), a character\n"
           "per one of --windows equal windows of the trace's time, by the segment's user\n"
           "reads in it, coloured by the tier that served most of them.\n"
           "--json: the same as one JSON object: \"files\" (from a trace \"segments\"), each\n"
           "with its name, logical path, level and per segment (window) its tier, copy's\n"
           "tier (-1 none) and heat (user_reads); the hot-page copies per tier; the PNG.\n";
  }
  std::vector<FlagUse> Flags() const override {
    return {{"db", "the logical directory whose files to map (default: /)"},
            {"png", "also write the map as a PNG image to FILE"},
            {"color", "colour by tier: auto (when stdout is a terminal), always, never "
                      "(default: auto)"},
            {"trace", "map a trace's segments over time instead of the store (no --fs_uri)"},
            {"json", "the map as JSON: per file its level and per segment its tier, copy "
                     "and heat"},
            {"windows", "the time windows of --trace (default: 40)"}};
  }
  bool NeedsStore() const override { return FLAGS_trace.empty(); }
  int Run(const Invocation& inv) const override {
    if (FLAGS_color != "auto" && FLAGS_color != "always" && FLAGS_color != "never") {
      LOG(ERROR) << "bad --color '" << FLAGS_color << "' (expected auto, always or never)";
      return kExitBadUsage;
    }
    if (FlagGiven("png") && FLAGS_png.empty()) {
      LOG(ERROR) << "--png needs a file name";
      return kExitBadUsage;
    }
    if (FLAGS_trace.empty()) {
      if (FlagGiven("windows")) {
        LOG(ERROR) << "--windows applies only with --trace";
        return kExitBadUsage;
      }
      return InspectCommand::Run(inv);
    }
    if (FlagGiven("db") || FLAGS_windows < 1) {
      LOG(ERROR) << (FLAGS_windows < 1
                         ? "bad --windows=" + std::to_string(FLAGS_windows) + " (at least 1)"
                         : std::string("--db does not apply with --trace (a trace names files "
                                       "by id)"));
      return kExitBadUsage;
    }
    HeatMap map;
    rocksdb::Status s = BuildTraceHeatMap(FLAGS_trace, FLAGS_windows, &map);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    return Show(map, nullptr);
  }

 protected:
  int Inspect(const rocksdb::FileSystem& fs, const Options& options) const override {
    HeatMap map;
    rocksdb::Status s = BuildHeatMap(fs, options, FLAGS_db, &map);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    return Show(map, &fs);
  }

 private:
  // Prints the map (and, of a store `fs`, what it holds of page copies) and
  // writes the PNG if asked.
  static int Show(const HeatMap& map, const rocksdb::FileSystem* fs) {
    if (FLAGS_json) return ShowJson(map, fs);
    const bool colour =
        FLAGS_color == "always" || (FLAGS_color == "auto" && isatty(STDOUT_FILENO));
    printf("%s", HeatMapText(map, colour, OutputWidth()).c_str());
    std::vector<TierStats> stats;
    if (fs && GetTierStats(fs, &stats).ok() && !stats.empty()) {
      printf("hot-page copies: counted per tier only, not per file or segment (none drawn):");
      for (const TierStats& t : stats) {
        printf(" tier %d %s resident, %llu hits;", t.index,
               FormatSize(t.Get(TierTicker::kPageCopyBytes)).c_str(),
               (unsigned long long)t.Get(TierTicker::kPageHits));
      }
      printf(" (a store read at rest shows none: saved copies come back at its next open)\n");
      printf("(statistics as of the store's last clean close; `tierfs watch` shows a running "
             "one)\n");
    }
    if (!FLAGS_png.empty()) {
      PngLayout layout;
      if (!WritePng(map, &layout)) return kExitFailed;
      printf("wrote %s: %d x %d pixels, a row per %s and a column per %s, %d-pixel cells\n",
             FLAGS_png.c_str(), layout.width, layout.height, fs ? "file" : "segment",
             map.cell.c_str(), layout.cell);
    }
    return kExitOk;
  }

  // Writes --png; false (said) if it cannot.
  static bool WritePng(const HeatMap& map, PngLayout* layout) {
    rocksdb::Status s = WriteHeatMapPng(map, FLAGS_png, layout);
    if (!s.ok()) LOG(ERROR) << s.ToString();
    return s.ok();
  }

  // --json: the map, the hot-page copies per tier of a store, the PNG written.
  static int ShowJson(const HeatMap& map, const rocksdb::FileSystem* fs) {
    nlohmann::json out = HeatMapJson(map);
    std::vector<TierStats> stats;
    if (fs && GetTierStats(fs, &stats).ok()) {
      nlohmann::json pages = nlohmann::json::array();
      for (const TierStats& t : stats) {
        pages.push_back({{"tier", t.index},
                         {"resident_bytes", t.Get(TierTicker::kPageCopyBytes)},
                         {"hits", t.Get(TierTicker::kPageHits)}});
      }
      out["hot_page_copies"] = std::move(pages);
    }
    if (!FLAGS_png.empty()) {
      PngLayout layout;
      if (!WritePng(map, &layout)) return kExitFailed;
      out["png"] = {{"path", FLAGS_png}, {"width", layout.width}, {"height", layout.height},
                    {"cell", layout.cell}};
    }
    // Names are bytes: invalid UTF-8 is replaced rather than thrown on.
    printf("%s\n", out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kExitOk;
  }
};

}  // namespace

std::unique_ptr<Command> NewHeatmapCommand() { return std::make_unique<HeatmapCommand>(); }

}  // namespace tool
}  // namespace tierfs
