// Does the simulator decide as the store did? Replays a trace captured from a
// live store (with its events, format version 2) with the capture's own
// timing of plans and moves (SimConfig::follow_trace_timing) and compares the
// decisions made — placements, eviction moves, plans, queued moves and how
// each planned move ended — with the ones the capture recorded, in order.
//
// What timing alone can change is taken from the capture, so a difference is
// a difference of rules or state. Two threads whose I/O interleaves
// differently than recorded, or a plan that ran while I/O went on, can still
// differ: such captures compare well up to their first race, not beyond.
#pragma once

#include <string>
#include <vector>

#include "core/trace_format.h"
#include "tools/sim/simulator.h"

namespace tierfs {
namespace sim {

struct Verification {
  size_t live = 0, replay = 0;  // decisions made by each
  size_t same = 0;              // the common prefix
  PageCopies::Counters copies;  // what the replay's hot-page copies did
  // A learning policy's training in the replay (Policy::LossCurves): a
  // replay that decided the same without training would prove little.
  std::vector<Policy::LossCurve> losses;
  // What the replay's saved start refused (SimResult::copies_refused,
  // stats_refused): "" if it took all it was given.
  std::string copies_refused, stats_refused;
  // Empty if every decision was the same; else the first that differs, with
  // the decisions before it.
  std::string difference;
  bool ok() const { return difference.empty(); }
};

// One decision, as people read it.
std::string DescribeDecision(const TraceRecord& d);

// The decisions a capture recorded (move starts, which the replay follows
// rather than decides, left out).
std::vector<TraceRecord> RecordedDecisions(const std::vector<TraceRecord>& trace);

// Replays `trace` on `config` (its policy) following the capture's timing.
// False and *error if the replay fails.
bool Verify(const std::vector<TraceRecord>& trace, SimConfig config, Verification* result,
            std::string* error);

}  // namespace sim
}  // namespace tierfs
