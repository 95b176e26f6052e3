// The one translation unit that includes LibTorch (see learner.h).
#include "agents/rl/learner.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "agents/rl/c51.h"

namespace tierfs {
namespace rl {

namespace {

constexpr size_t kMaxLossPoints = 1 << 16;

// Swish, as the plain forward pass computes it.
torch::Tensor Swish(const torch::Tensor& x) { return x * torch::sigmoid(x); }

}  // namespace

class TorchLearner : public LearnerImpl {
 public:
  TorchLearner(const LearnerOptions& options, const Weights* initial);
  ~TorchLearner() override;
  void Add(Transition t) override;
  std::shared_ptr<const Weights> Snapshot() const override;
  LearnerStats GetStats() const override;

 private:
  struct Torch;  // the LibTorch networks
  void Run();
  bool TrainStep();  // one batch; false if the buffer holds too little

  const LearnerOptions options_;
  std::unique_ptr<Torch> torch_;

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::vector<Transition> ring_;
  size_t next_ = 0;
  uint64_t added_ = 0, trained_at_ = 0;
  std::shared_ptr<const Weights> snapshot_;
  LearnerStats stats_;
  bool stop_ = false;
  std::thread thread_;
};

// The online and target networks, as LibTorch modules mirroring network.h.
struct TorchLearner::Torch {
  explicit Torch(const LearnerOptions& o) : shape(o.shape) {
    torch::manual_seed(o.seed);
    int in = shape.inputs;
    for (int h : shape.hidden) {
      online.push_back(torch::nn::Linear(in, h));
      target.push_back(torch::nn::Linear(in, h));
      in = h;
    }
    online.push_back(torch::nn::Linear(in, shape.outputs()));
    target.push_back(torch::nn::Linear(in, shape.outputs()));
    std::vector<torch::Tensor> params;
    for (auto& l : online) {
      params.push_back(l->weight);
      params.push_back(l->bias);
    }
    optimizer = std::make_unique<torch::optim::Adam>(
        params, torch::optim::AdamOptions(o.learning_rate));
    for (auto& l : target) {
      l->weight.set_requires_grad(false);
      l->bias.set_requires_grad(false);
    }
  }

  // Logits of every action and atom: [batch, actions, atoms].
  static torch::Tensor Forward(std::vector<torch::nn::Linear>& layers, torch::Tensor x,
                               const NetworkShape& shape) {
    for (size_t i = 0; i + 1 < layers.size(); ++i) x = Swish(layers[i]->forward(x));
    return layers.back()->forward(x).view({-1, shape.actions, shape.atoms});
  }

  void SyncTarget() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < online.size(); ++i) {
      target[i]->weight.copy_(online[i]->weight);
      target[i]->bias.copy_(online[i]->bias);
    }
  }

  // The plain layout of network.h: per layer, weights [out][in] then biases.
  Weights Export() const {
    Weights w;
    w.shape = shape;
    w.params.reserve(shape.ParameterCount());
    for (const auto& l : online) {
      torch::Tensor weight = l->weight.detach().contiguous();
      torch::Tensor bias = l->bias.detach().contiguous();
      w.params.insert(w.params.end(), weight.data_ptr<float>(),
                      weight.data_ptr<float>() + weight.numel());
      w.params.insert(w.params.end(), bias.data_ptr<float>(), bias.data_ptr<float>() + bias.numel());
    }
    return w;
  }

  void Import(const Weights& w) {
    torch::NoGradGuard no_grad;
    const float* p = w.params.data();
    for (auto& l : online) {
      const int64_t nw = l->weight.numel(), nb = l->bias.numel();
      l->weight.copy_(torch::from_blob(const_cast<float*>(p), l->weight.sizes()).clone());
      p += nw;
      l->bias.copy_(torch::from_blob(const_cast<float*>(p), l->bias.sizes()).clone());
      p += nb;
    }
    SyncTarget();
  }

  const NetworkShape shape;
  std::vector<torch::nn::Linear> online, target;
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::mt19937_64 rng{1};
};

TorchLearner::TorchLearner(const LearnerOptions& options, const Weights* initial)
    : options_(options) {
  // One intra-op thread: the batches are tiny, and more threads would take
  // the cores RocksDB is using (and make a simulation depend on timing).
  torch::set_num_threads(1);
  torch_ = std::make_unique<Torch>(options_);
  torch_->rng.seed(options_.seed);
  if (initial && initial->shape == options_.shape &&
      initial->params.size() == options_.shape.ParameterCount()) {
    torch_->Import(*initial);
  } else {
    torch_->SyncTarget();
  }
  snapshot_ = std::make_shared<const Weights>(torch_->Export());
  ring_.reserve(options_.buffer);
  if (options_.mode == LearnerOptions::Mode::kBackground) thread_ = std::thread([this] { Run(); });
}

TorchLearner::~TorchLearner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TorchLearner::Add(Transition t) {
  bool due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ring_.size() < options_.buffer) {
      ring_.push_back(std::move(t));
    } else {
      ring_[next_] = std::move(t);
    }
    next_ = (next_ + 1) % options_.buffer;
    added_++;
    stats_.transitions = added_;
    due = added_ - trained_at_ >= options_.train_every && ring_.size() >= options_.batch;
  }
  if (!due) return;
  if (options_.mode == LearnerOptions::Mode::kInline) {
    for (int b = 0; b < options_.batches; ++b) TrainStep();
  } else {
    cv_.notify_one();
  }
}

std::shared_ptr<const Weights> TorchLearner::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshot_;
}

LearnerStats TorchLearner::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void TorchLearner::Run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] {
        return stop_ ||
               (added_ - trained_at_ >= options_.train_every && ring_.size() >= options_.batch);
      });
      if (stop_) return;
    }
    for (int b = 0; b < options_.batches; ++b) TrainStep();
  }
}

bool TorchLearner::TrainStep() {
  const NetworkShape& shape = options_.shape;
  const int64_t batch = int64_t(options_.batch);
  const int64_t inputs = shape.inputs, atoms = shape.atoms;
  // Copy a batch out of the buffer, so the lock is not held while training.
  const size_t n = static_cast<size_t>(batch);
  std::vector<float> states(n * size_t(inputs)), nexts(n * size_t(inputs));
  std::vector<int64_t> actions(n);
  std::vector<float> rewards(n), discounts(n);
  std::vector<uint8_t> terminal(n);
  uint64_t seen;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ring_.size() < options_.batch) return false;
    trained_at_ = added_;
    seen = added_;
    std::uniform_int_distribution<size_t> pick(0, ring_.size() - 1);
    for (int64_t i = 0; i < batch; ++i) {
      const Transition& t = ring_[pick(torch_->rng)];
      std::copy(t.state.begin(), t.state.end(), states.begin() + i * inputs);
      std::copy(t.next.begin(), t.next.end(), nexts.begin() + i * inputs);
      actions[size_t(i)] = t.action;
      rewards[size_t(i)] = t.reward;
      discounts[size_t(i)] = t.discount >= 0 ? t.discount : float(options_.gamma);
      terminal[size_t(i)] = t.terminal;
    }
  }

  Torch& net = *torch_;
  // The target distributions: the target network's best action in s', its
  // distribution shifted by r and discounted, projected onto the support.
  torch::Tensor target;
  {
    torch::NoGradGuard no_grad;
    torch::Tensor next_probs = torch::softmax(
        Torch::Forward(net.target, torch::from_blob(nexts.data(), {batch, inputs}), shape), 2);
    torch::Tensor support = torch::linspace(shape.v_min, shape.v_max, atoms);
    torch::Tensor best = (next_probs * support).sum(2).argmax(1);  // [batch]
    torch::Tensor chosen =
        next_probs.index({torch::arange(batch), best}).contiguous();  // [batch, atoms]
    target = torch::empty({batch, atoms});
    const float* p = chosen.data_ptr<float>();
    float* m = target.data_ptr<float>();
    for (int64_t i = 0; i < batch; ++i) {
      ProjectDistribution(int(atoms), shape.v_min, shape.v_max, rewards[size_t(i)],
                          discounts[size_t(i)], p + i * atoms, terminal[size_t(i)],
                          m + i * atoms);
    }
  }
  // Cross-entropy between the projected target and the online network's
  // distribution of the action taken.
  torch::Tensor logits =
      Torch::Forward(net.online, torch::from_blob(states.data(), {batch, inputs}), shape);
  torch::Tensor taken = logits.index(
      {torch::arange(batch), torch::from_blob(actions.data(), {batch}, torch::kLong)});
  torch::Tensor loss = -(target * torch::log_softmax(taken, 1)).sum(1).mean();
  net.optimizer->zero_grad();
  loss.backward();
  net.optimizer->step();

  auto snapshot = std::make_shared<const Weights>(net.Export());
  std::lock_guard<std::mutex> lock(mu_);
  stats_.steps++;
  stats_.last_loss = loss.item<double>();
  stats_.losses.push_back({seen, float(stats_.last_loss)});
  if (stats_.losses.size() >= kMaxLossPoints) {
    // A long run keeps every other point: the curve, in bounded memory.
    for (size_t i = 0; i < kMaxLossPoints / 2; ++i) stats_.losses[i] = stats_.losses[2 * i + 1];
    stats_.losses.resize(kMaxLossPoints / 2);
  }
  if (stats_.steps % options_.target_sync == 0) net.SyncTarget();
  snapshot_ = std::move(snapshot);
  return true;
}

}  // namespace rl
}  // namespace tierfs

// The entry point learner_loader.cc looks up after loading this library.
extern "C" __attribute__((visibility("default"))) tierfs::rl::LearnerImpl* TierFSNewTorchLearner(const tierfs::rl::LearnerOptions* options,
                                                          const tierfs::rl::Weights* initial) {
  try {
    return new tierfs::rl::TorchLearner(*options, initial);
  } catch (const std::exception& e) {
    fprintf(stderr, "TierFS: cannot create a LibTorch learner: %s\n", e.what());
    return nullptr;
  }
}
