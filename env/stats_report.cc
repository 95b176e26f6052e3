// `tierfs stats` and `tierfs --json stats`, generated from the statistics tables.
#include "env/stats_report.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "util/size.h"

namespace tierfs {

using nlohmann::json;

namespace {

struct Column {
  std::string header;
  bool left;  // names align left, numbers right
  std::function<std::string(const TierStats&)> cell;
};

std::string Format(const char* format, double v) {
  char buf[48];
  snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string FormatValue(uint64_t v, StatUnit unit) {
  return unit == StatUnit::kBytes ? FormatSize(v) : std::to_string(v);
}

std::vector<Column> ColumnsOf(StatGroup group) {
  std::vector<Column> cols = {
      {"tier", true, [](const TierStats& s) { return std::to_string(s.index); }}};
  if (group == StatGroup::kIO) {
    cols.push_back({"device", true, [](const TierStats& s) { return s.device; }});
    cols.push_back({"capacity", false, [](const TierStats& s) { return FormatSize(s.capacity); }});
    cols.push_back({"used", false, [](const TierStats& s) { return FormatSize(s.used_bytes); }});
    cols.push_back({"use%", false, [](const TierStats& s) {
                      const double cap = double(std::max<uint64_t>(s.capacity, 1));
                      return Format("%.0f%%", 100.0 * double(s.used_bytes) / cap);
                    }});
  }
  for (const TierTickerInfo& info : kTierTickers) {
    if (info.group != group) continue;
    cols.push_back({info.column, false, [&info](const TierStats& s) {
                      return FormatValue(s.Get(info.id), info.unit);
                    }});
  }
  if (group == StatGroup::kIO) {
    for (const TierHistogramInfo& info : kTierHistograms) {
      cols.push_back({std::string(info.column) + " avg", false, [&info](const TierStats& s) {
                        return Format("%.0fus", s.Get(info.id).Average());
                      }});
      cols.push_back({std::string(info.column) + " p99", false, [&info](const TierStats& s) {
                        return Format("%.0fus", s.Get(info.id).Percentile(99));
                      }});
    }
    cols.push_back({"path", true, [](const TierStats& s) { return s.path; }});
  }
  return cols;
}

std::string Render(const std::vector<Column>& cols, const std::vector<TierStats>& stats) {
  std::vector<std::vector<std::string>> rows(1 + stats.size());
  std::vector<size_t> width(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    rows[0].push_back(cols[c].header);
    for (size_t r = 0; r < stats.size(); ++r) rows[r + 1].push_back(cols[c].cell(stats[r]));
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t c = 0; c < cols.size(); ++c) {
      const bool last = c + 1 == cols.size();
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) out += ' ';
      if (!cols[c].left) out += pad;
      out += row[c];
      if (cols[c].left && !last) out += pad;
    }
    out += '\n';
  }
  return out;
}

}  // namespace

json TierStatsToJson(const std::vector<TierStats>& stats) {
  json out = json::array();
  for (const TierStats& s : stats) {
    json t{{"tier", s.index}, {"path", s.path}, {"device", s.device}, {"capacity", s.capacity},
           {"used_bytes", s.used_bytes}};
    for (const TierTickerInfo& info : kTierTickers) t[info.name] = s.Get(info.id);
    for (const TierHistogramInfo& info : kTierHistograms) {
      t[std::string(info.prefix) + "_avg_us"] = s.Get(info.id).Average();
      t[std::string(info.prefix) + "_p99_us"] = s.Get(info.id).Percentile(99);
    }
    out.push_back(t);
  }
  return out;
}

std::string TierStatsTables(const std::vector<TierStats>& stats) {
  std::string out;
  for (StatGroup group : {StatGroup::kIO, StatGroup::kPlacement}) {
    if (!out.empty()) out += '\n';
    out += Render(ColumnsOf(group), stats);
  }
  return out;
}

}  // namespace tierfs
