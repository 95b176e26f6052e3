// A learned answer to the question a full fast tier asks at every placement:
// evict for the new segment, or let it spill? (issue 33; docs/lab-notebook.md,
// "Eviction on placement, learned".)
//
// Evicting on placement pays when the new segment is used before the victim
// would have been: lru always evicts and loses to never evicting on every
// synthetic workload, while the oracle, which knows the new segment's next
// use, evicts and wins. The gate predicts that next use, in the style of LRB
// (Song et al., NSDI 2020) for segments: an online logistic regression gives
// the probability that a segment placed now is used (read by the user, or
// written by the client: not a compaction's next append) within `horizon`
// requests, from what the placing request shows (a write or a read,
// continuing the previous placement or not, its neighbours' recent use, its
// size, its file's kind and level). The victims are the least recently used
// segments on the tier (agents/lru_eviction.h); how often they are accessed
// within the horizon after their eviction is counted as they go. The gate
// evicts when the new segment's probability exceeds the victims' rate by
// `margin`.
//
// Training samples are the placements the gate is asked about (tier 0 full),
// whatever it answers: whether a segment is used soon does not depend on
// where it went, so the labels are not biased by the decisions. Until
// `warmup` labels the gate answers "spill" (as a policy that never evicts).
//
// Thread-safe (one mutex): Place() and OnRequest() run on the I/O path.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "agents/lru_eviction.h"
#include "agents/pending_filter.h"
#include "agents/policy.h"
#include "util/mutex.h"

namespace tierfs {

class EvictionGate {
 public:
  struct Options {
    uint64_t horizon = 1000;      // requests: "used soon"
    double margin = 0.1;          // evict when p(new) > victims' rate + margin
    double learning_rate = 0.05;
    uint64_t warmup = 256;        // labels before the gate may evict
    // The most placements and victims awaiting a label (about 90 bytes
    // each, with their index); more, and the oldest count as not used.
    uint64_t pending = 1 << 14;
  };
  static constexpr int kFeatures = 14;
  using Features = std::array<float, kFeatures>;

  explicit EvictionGate(const Options& options);

  // Tier 0 has no room for `request`'s segment: evict for it (true), or let
  // it spill (false)? Counts the question as a training sample.
  bool ShouldEvict(const PlacementRequest& request, const StorageView& view) EXCLUDES(mu_);
  // The victims on `tier` that free `bytes` there (LruEviction), remembered
  // to learn how soon such victims are used again. Runs one at a time
  // (Policy::Evict).
  void Evict(int tier, uint64_t bytes, const StorageView& view, std::vector<Move>* moves)
      EXCLUDES(mu_);
  // A request done: labels a waiting sample of its segment if it is a use
  // (a user read; a write, but for the appends of table and blob files).
  void OnRequest(const Request& request) EXCLUDES(mu_);

  struct Stats {
    uint64_t questions = 0, evictions = 0;  // ShouldEvict calls, and true answers
    uint64_t labels = 0, positives = 0;     // placements labelled, used within the horizon
    uint64_t victims = 0;                   // victims labelled
    double victim_rate = 0;                 // the victims' rate of use within the horizon
    double loss = 0;  // mean log loss of the last 1024 labels, before their update
  };
  Stats stats() const EXCLUDES(mu_);
  bool warm() const EXCLUDES(mu_);

 private:
  struct Sample {
    SegmentRef ref;
    uint64_t placed = 0;
    bool victim = false;
    bool labelled = false;
    Features x{};
  };

  // What the placing segment's neighbours in its file show.
  struct Neighbours {
    bool before_recent = false;  // the segment before it used within the horizon
    uint32_t before_reads = 0;   // its user reads
    bool after_recent = false;   // the segment after it used within the horizon
  };
  Neighbours Look(const PlacementRequest& request, const StorageView& view) const;
  Features Describe(const PlacementRequest& request, const Neighbours& n) REQUIRES(mu_);
  double PredictLocked(const Features& x) const REQUIRES(mu_);
  // Labels samples_[pos] and trains on it (a placement) or counts it (a victim).
  void Label(size_t pos, bool used) REQUIRES(mu_);
  void Expire(uint64_t now) REQUIRES(mu_);
  void Add(const SegmentRef& ref, uint64_t now, bool victim, const Features& x) REQUIRES(mu_);

  const Options options_;
  mutable Mutex mu_;
  std::array<double, kFeatures> w_ GUARDED_BY(mu_){};
  // Samples in placement order; index_ finds a segment's newest by its ref.
  // Those not used within the horizon are labelled at the next question or
  // eviction (Expire), not on the I/O path.
  std::deque<Sample> samples_ GUARDED_BY(mu_);
  uint64_t first_ GUARDED_BY(mu_) = 0;  // the number of the sample at samples_.front()
  std::unordered_map<SegmentRef, uint64_t, SegmentRefHash> index_ GUARDED_BY(mu_);
  SegmentRef last_ GUARDED_BY(mu_);       // the previous question's segment
  uint64_t last_seq_ GUARDED_BY(mu_) = 0;
  // The unlabelled samples' segments, read without mu_ by OnRequest.
  PendingFilter filter_;
  Stats stats_ GUARDED_BY(mu_);
  // The victims' uses within the horizon, and their labels, decayed.
  double victim_used_ GUARDED_BY(mu_) = 0;
  double victim_n_ GUARDED_BY(mu_) = 0;
  double loss_sum_ GUARDED_BY(mu_) = 0;
  uint64_t loss_n_ GUARDED_BY(mu_) = 0;
  LruEviction lru_;  // Evict runs one at a time
};

}  // namespace tierfs
