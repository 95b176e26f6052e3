// What the field's supervised migration baselines share (K-SVM and RNN-HSS,
// harmonia.txt section 3.4, agents/ksvm.cc and agents/rnn_hss.cc): each
// segment's accesses per fixed interval of requests, and a planner that moves
// segments toward the tier a model wants them on.
//
// Both baselines "identify the target device for migration of each stored
// page based on the page's access frequency" and "perform data migration at
// fixed intervals (e.g. after every 1000 incoming requests)"; both place new
// data on the fast tier until it is full (harmonia.txt, section 3.4).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "agents/policy.h"

namespace tierfs {

// The accesses (user reads and writes) of every placed segment in each of the
// last `length` intervals, taken from the growth of its counters between
// calls to Sample (as mutant's temperature: the policy needs no lock and no
// work on the I/O path). A segment placed after an interval began counts zero
// for the intervals before it.
class IntervalHistory {
 public:
  explicit IntervalHistory(size_t length);

  struct Segment {
    SegmentRef ref;
    uint64_t bytes = 0;
    int tier = 0;
    bool fixed = false;  // busy (being written) or pinned: it cannot move
    // Accesses per interval, oldest first; counts.back() is the newest.
    std::vector<uint32_t> counts;
  };

  // Ends an interval: every placed segment's accesses since the last call
  // become its newest count. Segments no longer placed are forgotten.
  // Afterwards segments() lists the placed ones by file, then segment.
  void Sample(const StorageView& view);

  const std::vector<Segment>& segments() const { return segments_; }
  size_t length() const { return length_; }
  // Intervals sampled so far.
  uint64_t intervals() const { return intervals_; }

 private:
  struct Seen {
    uint64_t accesses = 0;  // user_reads + writes at the last Sample
    uint64_t generation = 0;
    size_t index = 0;       // into segments_ at that Sample
  };

  const size_t length_;
  uint64_t intervals_ = 0;
  std::vector<Segment> segments_;
  std::unordered_map<SegmentRef, Seen, SegmentRefHash> seen_;
};

// Where a model wants one segment of IntervalHistory::segments().
struct Wanted {
  size_t segment = 0;  // index into segments()
  int tier = 0;
  double score = 0;    // the model's heat: the hottest promoted first, the coldest demoted first
};

// Appends at most `max` moves toward the wanted tiers: the promotions,
// hottest first, each to the fastest tier from its wanted one up to its own
// that has room, where the wanted tier is full after demoting the coldest
// segments wanted off it (each to its wanted tier or the next slower one
// with room); then the demotions left, coldest first. Segments that are
// fixed, or already where they are wanted, do not move.
void PlanTowardWanted(const StorageView& view, const IntervalHistory& history,
                      std::vector<Wanted> wanted, size_t max, std::vector<Move>* moves);

}  // namespace tierfs
