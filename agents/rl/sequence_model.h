// A small recurrent regressor (an LSTM and a linear read-out) that predicts
// the next value of a sequence from its last `length` values: RNN-HSS's
// predictor of a segment's accesses in the next interval (agents/rnn_hss.cc).
//
// Like the agents' learner (learner.h) its LibTorch half lives in
// libtierfs_learner.so (sequence_model.cc), loaded the first time a model is
// made; nothing here includes LibTorch's headers. It trains in the caller's
// thread, deterministically for a given seed and input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tierfs {
namespace rl {

struct SequenceModelOptions {
  int length = 8;       // values per input sequence
  int hidden = 16;      // the LSTM's hidden units
  double learning_rate = 1e-2;  // Adam's
  uint64_t seed = 1;
};

// What LibTorch's half implements.
class SequenceModelImpl {
 public:
  virtual ~SequenceModelImpl() = default;
  // `steps` gradient steps on minibatches of at most `batch` rows of
  // `inputs` (rows x length values, row after row) against `targets` (one
  // per row), mean squared error. Returns the mean loss of the last step;
  // false and *error on failure.
  virtual bool Fit(const float* inputs, const float* targets, size_t rows, int steps,
                   size_t batch, float* loss, std::string* error) = 0;
  // One prediction per row into `out`; false and *error on failure.
  virtual bool Predict(const float* inputs, size_t rows, float* out, std::string* error) = 0;
};

// True if the LibTorch half can be loaded; else *error says why.
bool SequenceModelAvailable(std::string* error);

// Throws std::runtime_error saying why if the LibTorch half cannot be loaded
// or refuses the options.
std::unique_ptr<SequenceModelImpl> NewSequenceModel(const SequenceModelOptions& options);

}  // namespace rl
}  // namespace tierfs
