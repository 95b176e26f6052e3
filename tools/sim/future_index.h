// Knowledge of the future of a trace, for the oracle: when each segment is
// accessed next, and whether that access continues a sequential run (of
// reads, or of writes, of its file). Built
// from the whole trace before the replay.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "agents/policy.h"
#include "core/trace_format.h"

namespace tierfs {
namespace sim {

class FutureIndex {
 public:
  FutureIndex(const std::vector<TraceRecord>& trace, uint64_t segment_size);

  // The trace index of the first access to `ref` after trace index `now`;
  // UINT64_MAX if none.
  uint64_t NextAccess(const SegmentRef& ref, uint64_t now) const { return NthAccess(ref, now, 1); }
  // The n-th (n >= 1) such access; UINT64_MAX if there are fewer.
  uint64_t NthAccess(const SegmentRef& ref, uint64_t now, size_t n) const;

  struct Use {
    uint64_t index = 0;    // trace index
    uint32_t bytes = 0;    // of the segment the request touches
    bool sequential = false;  // starts where the file's previous read (write) ended
    bool write = false;
    bool continued = false;   // the request goes on into the next segment
  };
  // The access to `ref` at trace index `now`, if there is one.
  bool UseAt(const SegmentRef& ref, uint64_t now, Use* use) const;
  // The accesses to `ref` after `now` and before `until`, at most `max`.
  void Uses(const SegmentRef& ref, uint64_t now, uint64_t until, size_t max,
            std::vector<Use>* out) const;

  // The trace index of the request being replayed (set by the simulator).
  uint64_t now() const { return now_; }
  void set_now(uint64_t now) { now_ = now; }

 private:
  // Per segment, its uses by ascending index.
  const std::vector<Use>* Find(const SegmentRef& ref) const;
  std::unordered_map<SegmentRef, std::vector<Use>, SegmentRefHash> uses_;
  uint64_t now_ = 0;
};

}  // namespace sim
}  // namespace tierfs
