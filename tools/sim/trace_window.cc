// A trace's records within a window, and its totals (trace_window.h).
#include "tools/sim/trace_window.h"

#include <algorithm>
#include <set>

namespace tierfs {
namespace sim {

std::vector<TraceRecord> TraceWindow(const std::vector<TraceRecord>& records, uint64_t from_ns,
                                     uint64_t to_ns, TraceHeader* header) {
  auto first = std::lower_bound(records.begin(), records.end(), from_ns,
                                [](const TraceRecord& r, uint64_t t) { return r.time_ns < t; });
  std::vector<TraceRecord> out;
  for (auto it = first; it != records.end() && it->time_ns <= to_ns; ++it) {
    out.push_back(*it);
    out.back().time_ns -= from_ns;
  }
  if (header && header->start_unix_ns) header->start_unix_ns += from_ns;
  return out;
}

TraceTotals CountTrace(const std::vector<TraceRecord>& records) {
  TraceTotals t;
  std::set<uint32_t> streams;
  std::set<uint64_t> files;
  for (const TraceRecord& r : records) {
    if (!r.is_io()) {
      t.events[r.event]++;
      continue;
    }
    if (r.is_write()) {
      t.writes++;
      t.write_bytes += r.size;
      t.written_by_kind[FileKindName(r.kind)] += r.size;
    } else {
      (r.type == IoType::kBackgroundRead ? t.background_reads : t.user_reads)++;
      t.read_bytes += r.size;
    }
    streams.insert(r.stream);
    files.insert(r.file_id);
  }
  t.streams = streams.size();
  t.files = files.size();
  t.seconds_ns = records.empty() ? 0 : records.back().time_ns;
  return t;
}

}  // namespace sim
}  // namespace tierfs
