// A trace's records within a time window, and a trace's totals: what
// `tierfs-trace cut` and `tierfs-trace info` compute, so that a benchmark can
// hand the measured part of a run to the ceilings (`tierfs-sim ceiling`) and
// read what was written to each kind of file (benchmarks/fast_tier.sh).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace sim {

// The records (I/O and events) whose time lies in [from_ns, to_ns], times
// made relative to from_ns; *header (if given) moves its start_unix_ns by
// from_ns, so that times still map to the same wall clock. Records must be in
// time order, as a trace holds them.
std::vector<TraceRecord> TraceWindow(const std::vector<TraceRecord>& records, uint64_t from_ns,
                                     uint64_t to_ns, TraceHeader* header = nullptr);

struct TraceTotals {
  uint64_t user_reads = 0, background_reads = 0, writes = 0;  // I/O records
  uint64_t read_bytes = 0, write_bytes = 0;
  std::map<std::string, uint64_t> written_by_kind;  // FileKindName -> bytes written
  std::map<TraceEvent, uint64_t> events;            // events by kind
  uint64_t streams = 0, files = 0;
  uint64_t seconds_ns = 0;  // the last record's time
  // What the user reads took, as the live store measured them (latency_ns):
  // the mean and the 99th percentile, microseconds; 0 without user reads.
  double user_read_latency_us = 0, user_read_p99_us = 0;
};
TraceTotals CountTrace(const std::vector<TraceRecord>& records);

}  // namespace sim
}  // namespace tierfs
