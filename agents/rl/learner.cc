// LibTorch's half of the learner (see learner.h); sequence_model.cc is the
// only other file that includes LibTorch.
#include "agents/rl/learner.h"

#include <torch/torch.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <thread>

#include "agents/rl/c51.h"
#include "agents/rl/torch_seed.h"
#include "util/mutex.h"
#include "util/thread_name.h"

namespace tierfs {
namespace rl {

namespace {

constexpr size_t kMaxLossPoints = 1 << 16;

// Swish, as the plain forward pass computes it.
torch::Tensor Swish(const torch::Tensor& x) { return x * torch::sigmoid(x); }

}  // namespace

Mutex& TorchSeedMutex() {
  static Mutex* const mu = new Mutex;  // never destroyed: a learner may start during exit
  return *mu;
}

class TorchLearner : public LearnerImpl {
 public:
  TorchLearner(const LearnerOptions& options, const Weights* initial);
  ~TorchLearner() override;
  void Add(Transition t) override EXCLUDES(mu_);
  void Stop() override EXCLUDES(mu_, join_mu_);
  std::shared_ptr<const Weights> Snapshot() const override EXCLUDES(mu_);
  LearnerStats GetStats() const override EXCLUDES(mu_);
  bool Stored(size_t slot, Transition* t) const override EXCLUDES(mu_);

 private:
  struct Torch;  // the LibTorch networks
  void Run() EXCLUDES(mu_);
  bool TrainStep() EXCLUDES(mu_);  // one batch; false if the buffer holds too little
  // Decodes the record at `slot` into inputs() floats of state and of next.
  void Decode(size_t slot, float* state, float* next) const REQUIRES(mu_);
  size_t inputs() const { return size_t(options_.shape.inputs); }

  const LearnerOptions options_;
  std::unique_ptr<Torch> torch_;

  mutable Mutex mu_;
  CondVar cv_;
  // The replay ring, `buffer` records in ReplayCodec's form, one flat array
  // per field (no allocation per transition): record i's state is
  // inputs_[2 * inputs() * i, + inputs()), its next the following inputs().
  std::vector<uint8_t> inputs_ GUARDED_BY(mu_);
  std::vector<uint8_t> action_terminal_ GUARDED_BY(mu_);
  std::vector<float> reward_ GUARDED_BY(mu_);
  std::vector<uint16_t> discount_ GUARDED_BY(mu_);
  size_t stored_ GUARDED_BY(mu_) = 0;  // records in the ring, up to buffer
  size_t next_ GUARDED_BY(mu_) = 0;    // the slot the next transition goes to
  uint64_t added_ GUARDED_BY(mu_) = 0;
  uint64_t trained_at_ GUARDED_BY(mu_) = 0;
  std::shared_ptr<const Weights> snapshot_ GUARDED_BY(mu_);
  LearnerStats stats_ GUARDED_BY(mu_);  // training_bytes is refreshed by the thread training
  bool stop_ GUARDED_BY(mu_) = false;
  Mutex join_mu_;  // Stop from the store's exit save, then from the destructor
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

  // Drops the gradients once a step has used them: they live only while a
  // step runs, like the batch, instead of holding a copy of the parameters
  // between steps. The next backward pass allocates them afresh, with the
  // values it would have added to zeroed ones (training is unchanged).
  void FreeGradients() {
    for (auto& l : online) {
      l->weight.mutable_grad().reset();
      l->bias.mutable_grad().reset();
    }
  }

  // Bytes of the networks' parameters, their gradients (none between
  // steps, see FreeGradients) and Adam's state tensors, as they are now.
  // REQUIRES: called by the thread that trains.
  size_t Bytes() const {
    size_t bytes = 0;
    auto add = [&](const torch::Tensor& t) {
      if (t.defined()) bytes += size_t(t.numel()) * t.element_size();
    };
    for (const auto* layers : {&online, &target}) {
      for (const auto& l : *layers) {
        add(l->weight);
        add(l->bias);
        add(l->weight.grad());
        add(l->bias.grad());
      }
    }
    for (const auto& entry : optimizer->state()) {
      const auto& state = static_cast<const torch::optim::AdamParamState&>(*entry.second);
      add(state.exp_avg());
      add(state.exp_avg_sq());
      add(state.max_exp_avg_sq());
    }
    return bytes;
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
  if (options_.shape.actions > ReplayCodec::kMaxActions) {
    throw std::invalid_argument("the replay buffer holds at most 128 actions");
  }
  {
    MutexLock seeding(&TorchSeedMutex());
    torch_ = std::make_unique<Torch>(options_);
  }
  torch_->rng.seed(options_.seed);
  if (initial && initial->shape == options_.shape &&
      initial->params.size() == options_.shape.ParameterCount()) {
    torch_->Import(*initial);
  } else {
    torch_->SyncTarget();
  }
  snapshot_ = std::make_shared<const Weights>(torch_->Export());
  stats_.training_bytes = torch_->Bytes();
  inputs_.assign(options_.buffer * 2 * inputs(), 0);
  action_terminal_.assign(options_.buffer, 0);
  reward_.assign(options_.buffer, 0);
  discount_.assign(options_.buffer, 0);
  if (options_.mode == LearnerOptions::Mode::kBackground) {
    thread_ = std::thread([this] { Run(); });
    NameThread(thread_, "tierfs-learner");  // its CPU told apart (benchmarks/learner_cpu.sh)
  }
}

TorchLearner::~TorchLearner() { Stop(); }

void TorchLearner::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  MutexLock join(&join_mu_);
  if (thread_.joinable()) thread_.join();
}

void TorchLearner::Add(Transition t) {
  bool due;
  {
    MutexLock lock(&mu_);
    const size_t n = inputs();
    uint8_t* in = inputs_.data() + next_ * 2 * n;
    // A vector shorter than the shape reads as zeros beyond its end.
    for (size_t i = 0; i < n; ++i) {
      in[i] = ReplayCodec::EncodeInput(i < t.state.size() ? t.state[i] : 0);
      in[n + i] = ReplayCodec::EncodeInput(i < t.next.size() ? t.next[i] : 0);
    }
    action_terminal_[next_] = ReplayCodec::EncodeActionTerminal(t.action, t.terminal);
    reward_[next_] = t.reward;
    discount_[next_] = ReplayCodec::EncodeDiscount(t.discount);
    stored_ = std::max(stored_, next_ + 1);
    next_ = (next_ + 1) % options_.buffer;
    added_++;
    stats_.transitions = added_;
    due = !stop_ && added_ - trained_at_ >= options_.train_every && stored_ >= options_.batch;
  }
  if (!due) return;
  if (options_.mode == LearnerOptions::Mode::kInline) {
    for (int b = 0; b < options_.batches; ++b) TrainStep();
  } else {
    cv_.NotifyOne();
  }
}

std::shared_ptr<const Weights> TorchLearner::Snapshot() const {
  MutexLock lock(&mu_);
  return snapshot_;
}

LearnerStats TorchLearner::GetStats() const {
  MutexLock lock(&mu_);
  LearnerStats stats = stats_;
  stats.replay_bytes = inputs_.capacity() * sizeof(uint8_t) +
                       action_terminal_.capacity() * sizeof(uint8_t) +
                       reward_.capacity() * sizeof(float) + discount_.capacity() * sizeof(uint16_t);
  stats.weights_bytes = snapshot_->Bytes();
  stats.curve_bytes = stats_.losses.capacity() * sizeof(stats_.losses[0]);
  stats.bytes = stats.replay_bytes + stats.training_bytes + stats.weights_bytes +
                stats.curve_bytes + sizeof(*this) + sizeof(Torch);
  return stats;
}

void TorchLearner::Decode(size_t slot, float* state, float* next) const {
  const size_t n = inputs();
  const uint8_t* in = inputs_.data() + slot * 2 * n;
  for (size_t i = 0; i < n; ++i) {
    state[i] = ReplayCodec::DecodeInput(in[i]);
    next[i] = ReplayCodec::DecodeInput(in[n + i]);
  }
}

bool TorchLearner::Stored(size_t slot, Transition* t) const {
  MutexLock lock(&mu_);
  if (slot >= stored_) return false;
  t->state.resize(inputs());
  t->next.resize(inputs());
  Decode(slot, t->state.data(), t->next.data());
  t->action = ReplayCodec::DecodeAction(action_terminal_[slot]);
  t->terminal = ReplayCodec::DecodeTerminal(action_terminal_[slot]);
  t->reward = reward_[slot];
  t->discount = ReplayCodec::DecodeDiscount(discount_[slot], float(options_.gamma));
  return true;
}

void TorchLearner::Run() {
  for (;;) {
    {
      MutexLock lock(&mu_);
      cv_.Wait(&mu_, [&] {
        mu_.AssertHeld();
        return stop_ ||
               (added_ - trained_at_ >= options_.train_every && stored_ >= options_.batch);
      });
      if (stop_) return;
    }
    for (int b = 0; b < options_.batches; ++b) {
      {
        MutexLock lock(&mu_);
        if (stop_) return;  // Stop waits for one step at most
      }
      TrainStep();
    }
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
    MutexLock lock(&mu_);
    if (stored_ < options_.batch) return false;
    trained_at_ = added_;
    seen = added_;
    std::uniform_int_distribution<size_t> pick(0, stored_ - 1);
    for (size_t i = 0; i < n; ++i) {
      const size_t slot = pick(torch_->rng);
      Decode(slot, states.data() + i * size_t(inputs), nexts.data() + i * size_t(inputs));
      actions[i] = ReplayCodec::DecodeAction(action_terminal_[slot]);
      rewards[i] = reward_[slot];
      discounts[i] = ReplayCodec::DecodeDiscount(discount_[slot], float(options_.gamma));
      terminal[i] = ReplayCodec::DecodeTerminal(action_terminal_[slot]);
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
  net.FreeGradients();

  auto snapshot = std::make_shared<const Weights>(net.Export());
  const size_t training_bytes = net.Bytes();
  MutexLock lock(&mu_);
  stats_.training_bytes = training_bytes;
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

// The entry point learner_loader.cc looks up after loading this library. On
// failure, nullptr and *error says why (the library prints nothing).
extern "C" __attribute__((visibility("default"))) tierfs::rl::LearnerImpl* TierFSNewTorchLearner(
    const tierfs::rl::LearnerOptions* options, const tierfs::rl::Weights* initial,
    std::string* error) {
  try {
    return new tierfs::rl::TorchLearner(*options, initial);
  } catch (const std::exception& e) {
    *error = std::string("LibTorch refused the learner: ") + e.what();
    return nullptr;
  }
}
