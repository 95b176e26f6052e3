// Synthetic block-I/O workloads for the simulator: approximations of the
// traces Harmonia evaluates (harmonia.txt, Table 5: SYSTOR'17 LUN0-4,
// RocksDB ssd-00..04, YCSB B-F, MLPerf ResNet50 and CosmoFlow), its
// phase-change benchmark and its six multi-programmed mixes (Table 6).
//
// The real traces are not available here; each generator reproduces the
// published read fraction, average request size and average inter-request
// time, plus spatial skew and phase behaviour chosen to resemble the trace's
// kind (documented per workload in workloads.cc). They are approximations,
// and the results they give are called that.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace sim {

struct WorkloadOptions {
  uint64_t requests = 100000;  // records to generate (all streams of a mix together)
  uint64_t seed = 1;
  // Bytes of address space each workload (each stream of a mix) touches at
  // most; 0 = the workload's own default.
  uint64_t footprint = 0;
};

// What a single workload is meant to reproduce (Table 5).
struct WorkloadProfile {
  std::string name;         // "LUN0", "ssd-00", "YCSB-B", "ResNet50", ...
  std::string suite;        // "SYSTOR17", "RocksDB", "YCSB", "MLPerf"
  double read_percent;      // Table 5
  double avg_request_kib;   // Table 5 (KB taken as KiB)
  double avg_interval_us;   // Table 5: average inter-request time
};

// The seventeen workloads of Table 5 in its order, plus YCSB-A (used by mix4,
// not in Table 5).
const std::vector<WorkloadProfile>& WorkloadProfiles();

// Every name Generate accepts: the profiles' names, "phase-change" (LUN0 and
// ResNet50 alternating every 5000 requests) and "mix1".."mix6".
std::vector<std::string> WorkloadNames();

// Generates workload `name`: records in time order, kind FileKind::kVolume,
// priority kUnknown, type kUserRead or kWrite, offsets and sizes multiples of
// 4096. A single workload is stream 0, file 0; a mix interleaves its
// constituents by time, constituent i as stream i and file i (each its own
// volume). Same name, options and seed give the same records. False and
// *error (naming the workload and listing the known ones) on an unknown name.
bool Generate(const std::string& name, const WorkloadOptions& options,
              std::vector<TraceRecord>* records, std::string* error);

// The header a generated trace carries: no tier layout, segment_size 0 (the
// simulator's configuration decides), source "synthetic:NAME".
TraceHeader SyntheticHeader(const std::string& name);

}  // namespace sim
}  // namespace tierfs
