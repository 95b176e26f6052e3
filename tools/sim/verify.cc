#include "tools/sim/verify.h"

namespace tierfs {
namespace sim {

std::string DescribeDecision(const TraceRecord& d) {
  if (d.event == TraceEvent::kPlan) {
    return "plan of at most " + std::to_string(d.offset) + ": " + std::to_string(d.size) +
           " moves";
  }
  std::string out = std::string(TraceEventName(d.event)) + " file " + std::to_string(d.file_id) +
                    " segment " + std::to_string(d.offset) + " tier " + std::to_string(d.tier);
  if (d.event == TraceEvent::kMove) {
    Move::Op op;
    bool made;
    MoveCause cause;
    DecodeMoveOutcome(d.size, &op, &made, &cause);
    out += std::string(" ") + DataOpName(op) + (made ? " made" : " not made") +
           (cause == MoveCause::kEviction   ? " (eviction)"
            : cause == MoveCause::kPlanned  ? " (planned)"
            : cause == MoveCause::kPageCopy ? " (page copy: the offset is the page)"
                                            : " (manual)");
  } else if (d.event == TraceEvent::kQueued) {
    out += std::string(" ") + DataOpName(Move::Op(d.size & 3));
  }
  return out;
}

std::vector<TraceRecord> RecordedDecisions(const std::vector<TraceRecord>& trace) {
  std::vector<TraceRecord> out;
  for (const TraceRecord& r : trace) {
    if (!IsDecision(r)) continue;
    if (r.event == TraceEvent::kMove) {
      Move::Op op;
      bool made, started;
      MoveCause cause;
      DecodeMoveOutcome(r.size, &op, &made, &cause, &started);
      if (started || cause == MoveCause::kManual) continue;  // followed, not decided
    }
    out.push_back(r);
  }
  return out;
}

bool Verify(const std::vector<TraceRecord>& trace, SimConfig config, Verification* result,
            std::string* error) {
  *result = Verification();
  config.follow_trace_timing = true;
  config.record_decisions = true;
  SimResult replay;
  if (!RunPolicy(trace, config, &replay, error)) return false;
  const std::vector<TraceRecord> live = RecordedDecisions(trace);
  result->live = live.size();
  result->replay = replay.decisions.size();
  result->copies = replay.copies;
  result->losses = replay.losses;
  result->copies_refused = replay.copies_refused;
  result->stats_refused = replay.stats_refused;
  auto same = [](const TraceRecord& a, const TraceRecord& b) {
    return a.event == b.event && a.file_id == b.file_id && a.offset == b.offset &&
           a.size == b.size && a.tier == b.tier;
  };
  const size_t n = std::min(live.size(), replay.decisions.size());
  size_t i = 0;
  while (i < n && same(live[i], replay.decisions[i])) ++i;
  result->same = i;
  if (i == live.size() && i == replay.decisions.size()) return true;
  std::string& d = result->difference;
  d = "decision " + std::to_string(i) + " of " + std::to_string(live.size()) + " differs:";
  d += "\n  live:   " + (i < live.size() ? DescribeDecision(live[i]) : "(no more decisions)");
  d += "\n  replay: " + (i < replay.decisions.size() ? DescribeDecision(replay.decisions[i])
                                                      : "(no more decisions)");
  d += "\n  after:";
  for (size_t j = i >= 3 ? i - 3 : 0; j < i; ++j) d += "\n    " + DescribeDecision(live[j]);
  return true;
}

}  // namespace sim
}  // namespace tierfs
