// Training of one agent's network: an experience replay buffer and C51 on
// LibTorch, off the I/O path. LibTorch's half is learner.cc (with
// sequence_model.cc, the only files that include its headers); nothing here
// includes them, and the critical path never calls into it.
//
// LibTorch's libraries take 0.3 s to load, which every process linking
// libtierfs (db_bench, ldb, the admin tool) would pay at start whether it
// used a learning policy or not. So learner.cc lives in its own shared
// library, libtierfs_learner.so, loaded (learner_loader.cc) the first time a
// learning policy is created.
//
// The agent (agents/rl/agent.h) adds transitions as they complete; the
// learner samples batches from its buffer of the most recent `buffer`
// transitions (stored compactly, see ReplayCodec), trains the online network
// against a target network (synced every `target_sync` steps) with Adam, and
// hands the weights over in the plain layout of network.h. It trains on its
// own thread (Mode::kBackground: one batch per `train_every` new transitions,
// as fast as they come), or in the caller's thread (Mode::kInline: the same
// schedule, run by Add, so a simulation is deterministic).
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/rl/network.h"

namespace tierfs {
namespace rl {

struct LearnerOptions {
  NetworkShape shape;
  double gamma = 0.9;
  double learning_rate = 1e-3;
  size_t batch = 128;
  size_t buffer = 1000;
  uint64_t train_every = 16;    // new transitions per training step
  int batches = 16;             // gradient steps per training step (harmonia.txt, 4.6.2)
  uint64_t target_sync = 100;   // training steps between target-network syncs
  uint64_t seed = 1;
  enum class Mode { kBackground, kInline } mode = Mode::kBackground;
};

// One transition, observed by an agent. An n-step agent (Sibyl) sums the
// discounted rewards of n steps into `reward` and sets `discount` to
// gamma^n; a one-step agent leaves it at -1, meaning gamma.
struct Transition {
  std::vector<float> state, next;
  int action = 0;
  float reward = 0;
  float discount = -1;
  bool terminal = false;
};

// How the replay buffer stores a transition: learner.cc keeps its ring in
// this form, one flat array per field, and decodes a record when it builds a
// training batch. 2 * inputs + 7 bytes a transition (21 for Harmonia's two
// tiers, against 136 and two heap blocks for a Transition):
//
//   field             bytes   encoding
//   state             inputs  EncodeInput per value: round(x * 255)
//   next              inputs  the same
//   action, terminal  1       action in bits 0-6 (< 128 actions), terminal in bit 7
//   reward            4       float32, as given (Sibyl's reward, 0.1 / latency in
//                             ms, can pass float16's 65504)
//   discount          2       EncodeDiscount: round(d * 65534); 65535: the learner's gamma
//
// Every input the encoders produce is in [0, 1] (features.h: bin / (bins -
// 1); Sibyl's fill fractions), so 8-bit fixed point loses at most half a
// step: |DecodeInput(EncodeInput(x)) - x| <= 1/510 for x in [0, 1] (plus
// float rounding, < 1e-7). Harmonia's finest bins, 1/63 apart, stay 4 codes
// apart. Inputs outside [0, 1] are clamped to it (NaN to 0): the error is
// then the distance to the interval plus that bound. A discount (gamma^n of
// an n-step agent) is in [0, 1] likewise, clamped, within 1/131068 (an atom
// z of the target moves by at most |z| / 131068); a negative one (the
// one-step default, -1) decodes to gamma exactly.
struct ReplayCodec {
  static constexpr float kInputBound = 1.0f / 510;
  static constexpr float kDiscountBound = 1.0f / 131068;
  static constexpr int kMaxActions = 128;
  static constexpr uint16_t kGamma = 0xffff;

  static uint8_t EncodeInput(float x) {
    if (!(x > 0)) return 0;  // also NaN
    if (x >= 1) return 255;
    return uint8_t(std::lround(double(x) * 255));
  }
  static float DecodeInput(uint8_t q) { return float(q) / 255.0f; }
  static uint8_t EncodeActionTerminal(int action, bool terminal) {
    return uint8_t((action & 0x7f) | (terminal ? 0x80 : 0));
  }
  static int DecodeAction(uint8_t q) { return q & 0x7f; }
  static bool DecodeTerminal(uint8_t q) { return (q & 0x80) != 0; }
  static uint16_t EncodeDiscount(float d) {
    if (!(d >= 0)) return kGamma;  // -1 (and NaN): the learner's gamma
    if (d >= 1) return kGamma - 1;
    return uint16_t(std::lround(double(d) * (kGamma - 1)));
  }
  static float DecodeDiscount(uint16_t q, float gamma) {
    return q == kGamma ? gamma : float(q) / float(kGamma - 1);
  }
};

struct LearnerStats {
  uint64_t transitions = 0;  // added so far
  uint64_t steps = 0;        // training batches
  double last_loss = 0;
  // (transitions seen, loss) after every training step, for curves.
  std::vector<std::pair<uint64_t, float>> losses;
  // Memory the learner holds, in bytes, from its containers and tensors as
  // they are now: bytes = replay_bytes + training_bytes + weights_bytes +
  // curve_bytes + the learner's own objects. Payloads only: LibTorch's
  // per-tensor and per-module bookkeeping and the allocator's overhead are
  // not counted, nor the temporaries of a training step (the batch, its
  // activations), which live only while it runs.
  size_t bytes = 0;
  size_t replay_bytes = 0;    // the replay ring: capacity of its arrays (ReplayCodec)
  // LibTorch: the online and target networks and Adam's two moments; the
  // gradients too while a step runs (they are freed after it).
  size_t training_bytes = 0;
  size_t weights_bytes = 0;   // the newest exported weights (network.h layout)
  size_t curve_bytes = 0;     // `losses` (grows to 64Ki points, 1 MiB, on a long run)
};

// What LibTorch's half implements (learner.cc, built into
// libtierfs_learner.so).
class LearnerImpl {
 public:
  virtual ~LearnerImpl() = default;
  virtual void Add(Transition t) = 0;
  // Stops training for good: joins the training thread (after the step it
  // is in, if any); transitions added later are stored, never trained on.
  // Safe to call more than once, and before the destructor (which calls it).
  virtual void Stop() = 0;
  // Calls no LibTorch code (a copy of the newest plain weights, under a
  // mutex): policies' SaveState calls it when the store saves at process
  // exit (env/exit_hook.h), when LibTorch's statics may be destroyed.
  virtual std::shared_ptr<const Weights> Snapshot() const = 0;
  virtual LearnerStats GetStats() const = 0;
  // The transition stored at `slot` of the ring (0 the first added), decoded
  // as a training batch sees it; false if that slot is empty. For tests.
  virtual bool Stored(size_t slot, Transition* t) const = 0;
};

// True if the learner's LibTorch half can be loaded; else *error says why.
// The learning policies check it when they are created, so a store with one
// fails to open with that message instead of failing later.
bool LearnerAvailable(std::string* error);

class Learner {
 public:
  // Starts the training thread (kBackground). `initial` (optional) seeds the
  // networks, e.g. weights saved by an earlier run. Throws
  // std::runtime_error saying why if the learner cannot start (LibTorch's
  // half missing, though LearnerAvailable() was to be checked first, or
  // LibTorch refusing it); nothing is printed.
  Learner(const LearnerOptions& options, const Weights* initial = nullptr);
  ~Learner();  // stops and joins the thread
  Learner(const Learner&) = delete;
  Learner& operator=(const Learner&) = delete;

  const LearnerOptions& options() const { return options_; }

  // Adds a transition: a copy into the buffer under a mutex (kInline: and
  // trains when a batch is due). Never blocks on training.
  void Add(Transition t) { impl_->Add(std::move(t)); }

  // See LearnerImpl::Stop: no training from now on; the weights stay.
  void Stop() { impl_->Stop(); }

  // The newest trained weights (the initial ones before the first step).
  std::shared_ptr<const Weights> Snapshot() const { return impl_->Snapshot(); }

  using Stats = LearnerStats;
  Stats GetStats() const { return impl_->GetStats(); }

  // See LearnerImpl::Stored. For tests.
  bool Stored(size_t slot, Transition* t) const { return impl_->Stored(slot, t); }

 private:
  const LearnerOptions options_;
  std::unique_ptr<LearnerImpl> impl_;
};

}  // namespace rl
}  // namespace tierfs
