// A learned admission and eviction rank for the hot-page copies, in the style
// of LRB (Song et al., NSDI 2020): predict, from cheap features, whether a
// page (block) will be read again within a horizon of about the copies'
// reach, and keep what is most likely to be. The model is an online logistic
// regression (LRB trains gradient-boosted trees; a linear model over the
// features below costs one dot product per question and learns per label).
//
// Time is counted in accesses: every counted user read of a page of a
// candidate file, hit or miss (NoteAccess). The horizon is `horizon` x the
// copies' capacity in objects; LRB's Belady boundary, simplified to a fixed
// multiple.
//
// Training samples are the questions themselves: one in `sample` feature
// vectors Value() is asked for (candidates at their miss, copies when a set
// looks for a victim) is kept with its key and time, at most `samples` at
// once and one per key; the key's next access within the horizon labels it
// 1, the horizon's passing 0. So the model learns on the distribution of the
// decisions it makes.
//
// Features of a key at time t: its recent frequency (the copies' sketch),
// the accesses since its last one and the gap before that (a direct-mapped
// history of recent keys), its file's kind and level, its file's age in
// accesses (first seen), and its position in the file.
//
// Thread-safe (one mutex; the copies call it under their own lock, so it is
// never contended there).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "agents/policy.h"
#include "util/mutex.h"

namespace tierfs {

class ReusePredictor {
 public:
  struct Options {
    double horizon = 2;        // x the capacity in objects
    uint64_t sample = 4;       // one question in `sample` becomes a training sample
    uint64_t samples = 4096;   // the most samples waiting for their label
    double history = 2;        // history entries, x the horizon (rounded up to a power of 2)
    double learning_rate = 0.05;
    uint64_t warmup = 2048;    // labels before the model's answers are used
    double floor = 0.1;        // a miss is copied into free room if its p is at least this
    // Over a victim, a miss's p must beat the victim's by more than this: a
    // copy costs a write to tier 0 (and CPU live). At 0, harmonia copied
    // 3.6x the blocks fast-first did on YCSB B hotspot for 8% more hits;
    // at 0.2, 1.3x for 7% more (lab notebook, "Harmonia's copies churn").
    double margin = 0.2;
  };
  static constexpr int kFeatures = 20;
  using Features = std::array<float, kFeatures>;

  explicit ReusePredictor(const Options& options);

  // The copies hold about `objects` pages (blocks) at most: sets the horizon
  // and the history's size. Called once by the copies' owner at open; a
  // second call with another capacity starts the history over.
  void SetCapacity(uint64_t objects) EXCLUDES(mu_);
  // A counted user read of `page`, hit or miss.
  void NoteAccess(const Policy::CopyCandidate& page) EXCLUDES(mu_);
  // The probability that `page` is read again within the horizon from now.
  // Before `warmup` labels, the sketch's frequency / 16 (TinyLFU's order).
  double Value(const Policy::CopyCandidate& page) EXCLUDES(mu_);
  // The admission rule: over a victim, a value higher by the margin; into
  // room, at least the floor. Before `warmup` labels, TinyLFU's rule (Policy::AdmitCopy).
  bool Admit(const Policy::CopyCandidate& page, const Policy::CopyCandidate* victim) EXCLUDES(mu_);

  bool warm() const EXCLUDES(mu_);
  struct Stats {
    uint64_t accesses = 0, labels = 0, positives = 0;
    double loss = 0;  // mean log loss of the last 1024 labels, before their update
  };
  Stats stats() const EXCLUDES(mu_);
  // The bytes the predictor holds (history, samples, weights).
  uint64_t MemoryBytes() const EXCLUDES(mu_);

 private:
  // A recent key (direct-mapped by its hash): its last access and the gap
  // before it.
  struct History {
    uint32_t tag = 0;
    uint32_t last = 0;
    uint32_t gap = 0;  // 0: unknown
  };
  // A question kept for training: its features, quantized (x * 127, every
  // feature is in [0, 2]), until its key's next access or the horizon.
  struct Sample {
    uint64_t key = 0;  // 0: labelled, or none
    uint64_t time = 0;
    std::array<uint8_t, kFeatures> x{};
  };
  static uint64_t KeyOf(const Policy::CopyCandidate& page);
  History* Find(uint64_t key) REQUIRES(mu_);
  static uint32_t Tag(uint64_t key) { return uint32_t(key >> 32) | 1; }
  Features Describe(const Policy::CopyCandidate& page) REQUIRES(mu_);
  double Predict(const Features& x) const REQUIRES(mu_);
  void Train(const Sample& sample, bool reused) REQUIRES(mu_);
  void Expire() REQUIRES(mu_);
  double ValueLocked(const Policy::CopyCandidate& page) REQUIRES(mu_);

  const Options options_;
  mutable Mutex mu_;
  uint64_t horizon_ GUARDED_BY(mu_) = 1 << 14;
  double scale_ GUARDED_BY(mu_) = 0;  // Log2p(horizon_): the gaps' unit
  uint64_t now_ GUARDED_BY(mu_) = 0;        // accesses so far
  uint64_t questions_ GUARDED_BY(mu_) = 0;  // Value calls so far
  std::vector<History> history_ GUARDED_BY(mu_);
  std::unordered_map<uint64_t, uint64_t> file_born_ GUARDED_BY(mu_);  // file id -> first access
  // A ring of samples in time order: [tail_, head_) modulo its size.
  std::vector<Sample> samples_ GUARDED_BY(mu_);
  uint64_t head_ GUARDED_BY(mu_) = 0, tail_ GUARDED_BY(mu_) = 0;
  std::unordered_map<uint64_t, uint64_t> pending_ GUARDED_BY(mu_);  // key -> its sample's index
  std::array<double, kFeatures> w_ GUARDED_BY(mu_){};
  Stats stats_ GUARDED_BY(mu_);
  double loss_sum_ GUARDED_BY(mu_) = 0;
  uint64_t loss_n_ GUARDED_BY(mu_) = 0;
};

}  // namespace tierfs
