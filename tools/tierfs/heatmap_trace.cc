// `tierfs heatmap --trace` (heatmap.h): the heat of each segment over time,
// from a trace (core/trace_format.h: what the store captures with the URI key
// `trace`, what tools/sim replays). A row per segment that users read, a
// cell per time window of equal length: the segment's user reads in that
// window, coloured by the tier that served most of them. Traces name files
// by id, not by path, so rows are "#ID.KIND:SEGMENT".
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/trace_format.h"
#include "tools/tierfs/heatmap.h"

namespace tierfs {
namespace tool {

namespace {

// What one segment saw: per window, its user reads by the tier that served
// them (the last slot: tier not recorded).
struct SegmentWindows {
  FileKind kind = FileKind::kOther;
  int level = -1;
  std::vector<std::vector<uint32_t>> reads;  // [window][tier], tiers + 1 slots
};

rocksdb::Status TraceError(const std::string& error) {
  return rocksdb::Status::Corruption("cannot read the trace", error);
}

std::string Seconds(double ns) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.3g s", ns / 1e9);
  return buf;
}

}  // namespace

rocksdb::Status BuildTraceHeatMap(const std::string& path, int windows, HeatMap* map) {
  // The first pass finds when the trace's last I/O was issued, the second counts.
  TraceReader first;
  std::string error;
  if (!first.Open(path, &error)) return TraceError(error);
  TraceRecord r;
  uint64_t end_ns = 0;
  while (first.Next(&r, &error)) {
    if (r.is_io()) end_ns = r.time_ns;  // the windows span the I/O
  }
  if (!error.empty()) return TraceError(error);
  const TraceHeader header = first.header();
  const size_t tiers = header.tiers.size();
  const uint64_t width_ns = std::max<uint64_t>(1, end_ns / uint64_t(windows) + 1);
  const uint64_t segment = header.segment_size;

  TraceReader second;
  if (!second.Open(path, &error)) return TraceError(error);
  std::map<std::pair<uint64_t, uint64_t>, SegmentWindows> segs;  // (file id, segment)
  uint64_t reads = 0;
  while (second.Next(&r, &error)) {
    if (!r.is_io() || r.type != IoType::kUserRead || r.size == 0) continue;
    ++reads;
    const size_t w = size_t(std::min<uint64_t>(r.time_ns / width_ns, uint64_t(windows) - 1));
    const size_t t = r.tier >= 0 && size_t(r.tier) < tiers ? size_t(r.tier) : tiers;
    const uint64_t from = segment ? r.offset / segment : 0;
    const uint64_t to = segment ? (r.offset + r.size - 1) / segment : 0;
    for (uint64_t s = from; s <= to; ++s) {  // a piece per segment, as the store counts
      SegmentWindows& sw = segs[{r.file_id, s}];
      if (sw.reads.empty()) sw.reads.assign(size_t(windows), std::vector<uint32_t>(tiers + 1, 0));
      sw.kind = r.kind;
      if (r.level >= 0) sw.level = r.level;
      ++sw.reads[w][t];
    }
  }
  if (!error.empty()) return TraceError(error);

  for (const TraceTier& t : header.tiers) map->tiers.push_back(t.device.empty() ? "-" : t.device);
  std::map<uint64_t, bool> files;
  for (auto& [key, sw] : segs) {
    files[key.first] = true;
    HeatRow row;
    row.name = "#" + std::to_string(key.first) + "." + FileKindName(sw.kind) + ":" +
               std::to_string(key.second);
    row.level = sw.level;
    row.segments_per_tier.assign(tiers, 0);
    for (const std::vector<uint32_t>& by_tier : sw.reads) {
      HeatCell cell;
      uint32_t most = 0, total = 0;
      for (size_t t = 0; t <= tiers; ++t) {
        total += by_tier[t];
        if (t < tiers && by_tier[t] > most) {
          most = by_tier[t];
          cell.tier = int(t);
        }
      }
      cell.value = total;
      if (cell.tier >= 0) ++row.segments_per_tier[size_t(cell.tier)];
      map->max_value = std::max(map->max_value, cell.value);
      row.cells.push_back(cell);
    }
    map->rows.push_back(std::move(row));
  }
  // Levels in order, files without one last (a std::map keeps file ids and
  // segments in order within a level).
  std::stable_sort(map->rows.begin(), map->rows.end(), [](const HeatRow& a, const HeatRow& b) {
    return unsigned(a.level) < unsigned(b.level);
  });
  map->title = "heat map of the trace " + path + ": " + std::to_string(reads) +
               " user reads of " + std::to_string(map->rows.size()) + " segments in " +
               std::to_string(files.size()) + " files, " + Seconds(double(end_ns)) + " in " +
               std::to_string(windows) + " windows of " + Seconds(double(width_ns)) +
               "; a row per segment, one character per window";
  map->row = "segment";
  map->rows_noun = "segments";
  map->copies_column = false;
  map->cell = "window";
  map->cells = "windows";
  map->value_key = "user_reads";
  map->measure = "user reads in the window (the tier that served most of them: its colour)";
  return rocksdb::Status::OK();
}

}  // namespace tool
}  // namespace tierfs
