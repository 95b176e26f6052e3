// The dqn optimizer's Q-network on LibTorch (qnet.h): the one translation
// unit of the tuner that includes LibTorch, built alone into
// libtierfs_tune_qnet.so and opened by qnet_loader.cc.
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "tools/tune/qnet.h"

namespace tierfs {
namespace tune {
namespace {

// A ReLU perceptron whose weights can be copied into another of its shape.
struct Mlp {
  Mlp(int inputs, const std::vector<int>& hidden, int outputs) {
    int in = inputs;
    for (int h : hidden) {
      layers.push_back(torch::nn::Linear(in, h));
      in = h;
    }
    layers.push_back(torch::nn::Linear(in, outputs));
  }

  torch::Tensor Forward(torch::Tensor x) {
    for (size_t i = 0; i + 1 < layers.size(); ++i) x = torch::relu(layers[i]->forward(x));
    return layers.back()->forward(x);
  }

  std::vector<torch::Tensor> Parameters() {
    std::vector<torch::Tensor> params;
    for (auto& l : layers) {
      params.push_back(l->weight);
      params.push_back(l->bias);
    }
    return params;
  }

  std::vector<torch::nn::Linear> layers;
};

class TorchQNet : public QNetImpl {
 public:
  explicit TorchQNet(const QNetOptions& o)
      : options_(o), online_(Init(o), o.hidden, o.actions), target_(o.inputs, o.hidden, o.actions) {
    optimizer_ = std::make_unique<torch::optim::Adam>(online_.Parameters(),
                                                      torch::optim::AdamOptions(o.learning_rate));
    for (torch::Tensor& p : target_.Parameters()) p.set_requires_grad(false);
    SyncTarget();
  }

  void QValues(const float* state, float* q) override {
    torch::NoGradGuard no_grad;
    const torch::Tensor x =
        torch::from_blob(const_cast<float*>(state), {1, options_.inputs}, torch::kFloat32);
    const torch::Tensor out = online_.Forward(x).contiguous();
    std::copy(out.data_ptr<float>(), out.data_ptr<float>() + options_.actions, q);
  }

  double Train(const float* states, const int32_t* actions, const float* rewards,
               const float* next, const uint8_t* next_valid, size_t n) override {
    const int64_t rows = int64_t(n);
    // from_blob does not copy: the tensors only live during this call.
    const torch::Tensor s =
        torch::from_blob(const_cast<float*>(states), {rows, options_.inputs}, torch::kFloat32);
    const torch::Tensor s2 =
        torch::from_blob(const_cast<float*>(next), {rows, options_.inputs}, torch::kFloat32);
    const torch::Tensor a =
        torch::from_blob(const_cast<int32_t*>(actions), {rows}, torch::kInt32).to(torch::kInt64);
    const torch::Tensor r = torch::from_blob(const_cast<float*>(rewards), {rows}, torch::kFloat32);
    torch::Tensor target;
    {
      torch::NoGradGuard no_grad;
      const torch::Tensor valid =
          torch::from_blob(const_cast<uint8_t*>(next_valid), {rows, options_.actions},
                           torch::kUInt8)
              .to(torch::kBool);
      // Impossible actions never win the max; a state with none bootstraps 0.
      const torch::Tensor best =
          std::get<0>(target_.Forward(s2).masked_fill(~valid, -1e30f).max(1));
      const torch::Tensor any = valid.any(1);
      target = r + float(options_.gamma) * torch::where(any, best, torch::zeros_like(best));
    }
    const torch::Tensor q = online_.Forward(s).gather(1, a.unsqueeze(1)).squeeze(1);
    torch::Tensor loss = torch::nn::functional::smooth_l1_loss(q, target);
    optimizer_->zero_grad();
    loss.backward();
    optimizer_->step();
    return loss.item<double>();
  }

  void SyncTarget() override {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < online_.layers.size(); ++i) {
      target_.layers[i]->weight.copy_(online_.layers[i]->weight);
      target_.layers[i]->bias.copy_(online_.layers[i]->bias);
    }
  }

 private:
  // Seeds LibTorch and pins it to one thread before the online network's
  // layers draw their initial weights (so the seed decides them).
  static int Init(const QNetOptions& o) {
    torch::set_num_threads(1);
    torch::manual_seed(o.seed);
    return o.inputs;
  }

  const QNetOptions options_;
  Mlp online_, target_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
};

}  // namespace
}  // namespace tune
}  // namespace tierfs

// The entry point qnet_loader.cc looks up after loading this library.
extern "C" __attribute__((visibility("default"))) tierfs::tune::QNetImpl* TierFSNewTuneQNet(
    const tierfs::tune::QNetOptions* options) {
  try {
    return new tierfs::tune::TorchQNet(*options);
  } catch (const std::exception& e) {
    fprintf(stderr, "tierfs-tune: cannot create the LibTorch Q-network: %s\n", e.what());
    return nullptr;
  }
}
