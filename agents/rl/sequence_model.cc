// LibTorch's half of the sequence model (sequence_model.h), built into
// libtierfs_learner.so beside the agents' learner.
#include <torch/torch.h>

#include <algorithm>
#include <exception>
#include <numeric>
#include <random>

#include "agents/rl/sequence_model.h"
#include "agents/rl/torch_seed.h"

namespace tierfs {
namespace rl {
namespace {

class TorchSequenceModel : public SequenceModelImpl {
 public:
  explicit TorchSequenceModel(const SequenceModelOptions& o) : options_(o), rng_(o.seed) {
    torch::set_num_threads(1);  // as the learner: tiny batches, RocksDB's cores
    {
      MutexLock seeding(&TorchSeedMutex());
      torch::manual_seed(o.seed);
      lstm_ = torch::nn::LSTM(torch::nn::LSTMOptions(1, o.hidden).batch_first(true));
      out_ = torch::nn::Linear(o.hidden, 1);
    }
    std::vector<torch::Tensor> params = lstm_->parameters();
    for (const torch::Tensor& p : out_->parameters()) params.push_back(p);
    optimizer_ = std::make_unique<torch::optim::Adam>(
        params, torch::optim::AdamOptions(o.learning_rate));
  }

  bool Fit(const float* inputs, const float* targets, size_t rows, int steps, size_t batch,
           float* loss, std::string* error) override {
    try {
      if (rows == 0 || steps <= 0) return true;
      batch = std::clamp<size_t>(batch, 1, rows);
      std::vector<size_t> order(rows);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng_);
      const size_t length = size_t(options_.length);
      std::vector<float> x(batch * length), y(batch);
      size_t next = 0;
      for (int step = 0; step < steps; ++step) {
        for (size_t r = 0; r < batch; ++r, ++next) {
          const size_t row = order[next % rows];
          std::copy(inputs + row * length, inputs + (row + 1) * length, &x[r * length]);
          y[r] = targets[row];
        }
        optimizer_->zero_grad();
        torch::Tensor predicted = Forward(x.data(), batch);
        torch::Tensor l = torch::mse_loss(predicted, torch::from_blob(y.data(), {int64_t(batch)}));
        l.backward();
        optimizer_->step();
        *loss = l.item<float>();
      }
      return true;
    } catch (const std::exception& e) {
      *error = std::string("LibTorch failed to train the sequence model: ") + e.what();
      return false;
    }
  }

  bool Predict(const float* inputs, size_t rows, float* out, std::string* error) override {
    try {
      torch::NoGradGuard no_grad;
      constexpr size_t kChunk = 4096;  // bounds the activations
      for (size_t first = 0; first < rows; first += kChunk) {
        const size_t n = std::min(kChunk, rows - first);
        torch::Tensor p = Forward(inputs + first * size_t(options_.length), n).contiguous();
        std::copy(p.data_ptr<float>(), p.data_ptr<float>() + n, out + first);
      }
      return true;
    } catch (const std::exception& e) {
      *error = std::string("LibTorch failed to predict with the sequence model: ") + e.what();
      return false;
    }
  }

 private:
  // rows sequences of `length` values -> one prediction each.
  torch::Tensor Forward(const float* inputs, size_t rows) {
    torch::Tensor x = torch::from_blob(const_cast<float*>(inputs),
                                       {int64_t(rows), int64_t(options_.length), 1});
    torch::Tensor hidden = std::get<0>(lstm_->forward(x));  // [rows, length, hidden]
    return out_->forward(hidden.select(1, options_.length - 1)).squeeze(1);
  }

  const SequenceModelOptions options_;
  std::mt19937_64 rng_;
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::Linear out_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
};

}  // namespace
}  // namespace rl
}  // namespace tierfs

// The entry point sequence_model_loader.cc looks up. On failure, nullptr and
// *error says why (the library prints nothing).
extern "C" __attribute__((visibility("default"))) tierfs::rl::SequenceModelImpl*
TierFSNewTorchSequenceModel(const tierfs::rl::SequenceModelOptions* options, std::string* error) {
  try {
    return new tierfs::rl::TorchSequenceModel(*options);
  } catch (const std::exception& e) {
    *error = std::string("LibTorch refused the sequence model: ") + e.what();
    return nullptr;
  }
}
