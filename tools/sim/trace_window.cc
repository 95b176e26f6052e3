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
  std::vector<uint64_t> user_read_ns;
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
      if (r.type == IoType::kUserRead) user_read_ns.push_back(r.latency_ns);
      t.read_bytes += r.size;
    }
    streams.insert(r.stream);
    files.insert(r.file_id);
  }
  t.streams = streams.size();
  t.files = files.size();
  t.seconds_ns = records.empty() ? 0 : records.back().time_ns;
  if (!user_read_ns.empty()) {
    long double sum = 0;
    for (uint64_t ns : user_read_ns) sum += ns;
    t.user_read_latency_us = double(sum / user_read_ns.size()) / 1000.0;
    const size_t k = std::min(user_read_ns.size() - 1, user_read_ns.size() * 99 / 100);
    std::nth_element(user_read_ns.begin(), user_read_ns.begin() + long(k), user_read_ns.end());
    t.user_read_p99_us = double(user_read_ns[k]) / 1000.0;
  }
  return t;
}

}  // namespace sim
}  // namespace tierfs
