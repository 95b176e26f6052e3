// The Q-network of the dqn optimizer (dqn.cc): a multilayer perceptron from
// an encoded configuration to one Q-value per action, its target network,
// and Adam training on batches of transitions with the one-step DQN target
// r + gamma * max_a' Q_target(s', a'). The optimizer keeps the replay buffer
// and samples the batches itself (tools/tune/rng.h, so a seed gives the same
// batches everywhere); this is only the network.
//
// LibTorch sits behind this header as the learning agents' does
// (agents/rl/learner.h): libtorch/qnet_torch.cc, the tuner's only translation unit
// that includes LibTorch headers, is built into a shared library of its own,
// libtierfs_tune_qnet.so, which qnet_loader.cc opens with dlopen the first
// time a dqn search starts. The tuner library and tierfs-tune neither
// include nor link LibTorch: they build, and their other optimizers run,
// where it is missing; only `dqn` then reports that it is unavailable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tierfs {
namespace tune {

struct QNetOptions {
  int inputs = 1;
  int actions = 1;
  std::vector<int> hidden{64, 64};  // ReLU layers
  double learning_rate = 1e-3;      // Adam
  double gamma = 0.9;               // the discount of the DQN target
  uint64_t seed = 1;                // LibTorch's initial weights
};

// What the LibTorch half implements (libtorch/qnet_torch.cc). Not thread-safe: one
// search calls it from one thread. Deterministic for given options and
// calls: LibTorch runs on one thread, seeded by options.seed.
class QNetImpl {
 public:
  virtual ~QNetImpl() = default;
  // The online network's Q-values at one state: inputs floats in, actions
  // floats out.
  virtual void QValues(const float* state, float* q) = 0;
  // One Adam step on n transitions laid out row by row (states and next:
  // n x inputs; actions, rewards: n; next_valid: n x actions, 1 where the
  // action is possible at next) against the target network, Huber loss:
  // the target is reward + gamma * the target network's highest Q-value
  // over next's possible actions (reward alone if it has none). Returns the
  // batch's loss before the step. Every transition is non-terminal: a
  // search's episodes end by truncation, not by an end state.
  virtual double Train(const float* states, const int32_t* actions, const float* rewards,
                       const float* next, const uint8_t* next_valid, size_t n) = 0;
  // Copies the online network's weights into the target network.
  virtual void SyncTarget() = 0;
};

// True if libtierfs_tune_qnet.so can be loaded; else *error says why.
bool QNetAvailable(std::string* error);
// A new network, or nullptr and *error (the library is missing, or LibTorch
// refused the options).
std::unique_ptr<QNetImpl> NewQNet(const QNetOptions& options, std::string* error);

}  // namespace tune
}  // namespace tierfs
