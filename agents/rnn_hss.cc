// rnn-hss: RNN-HSS, Harmonia's adaptation (harmonia.txt, section 3.4) of
// Kleio (Doudali et al., "Kleio: A Hybrid Memory Page Scheduler with Machine
// Intelligence", HPDC 2019): a recurrent network predicts each page's
// accesses in the next interval from its accesses in the past ones, and at
// fixed intervals the pages predicted hottest migrate to the fast device;
// new data goes to the fast device until it is full.
//
// As built here, every `interval` requests (1000, the paper's example):
//   1. every placed segment's accesses (user reads and writes) in each of the
//      last `length` + 1 intervals (agents/interval_history.h);
//   2. an LSTM of `hidden` units and a linear read-out (agents/rl/
//      sequence_model.h, LibTorch, in the caller's thread) takes `steps`
//      gradient steps learning log(1 + accesses) of each segment's newest
//      interval from the `length` before it. Its samples: at most `samples`
//      segments accessed in the window and a quarter as many not, each an
//      even stride (most segments are idle in any one interval; trained on
//      all alike, it learns to predict zero);
//   3. it predicts every segment's next interval from its newest `length`
//      intervals (the idle ones share one prediction), ranks the segments
//      by it (ties: the faster tier first, so equals do not trade places),
//      fills tier 0's capacity from the top, then tier 1's, and so on;
//      segments move toward their tiers, at most the migration queue's free
//      slots per plan, as k-svm's do (PlanTowardWanted).
// Kleio keeps one network per important page and a history-based rule for
// the rest; one network shared by all segments is what a file system of
// hundreds of thousands of segments can train between plans, and what
// Harmonia's simulator could have trained. As for k-svm, moves run on the
// migration thread, not on the critical path. Parameters: interval (1000
// requests), length (8 intervals), hidden (16), lr (0.01), steps (16 per
// plan), batch (256), samples (4096), seed (1). Its network is not saved
// across a restart (it retrains in a few plans).
#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>

#include "agents/interval_history.h"
#include "agents/policies.h"
#include "agents/rl/sequence_model.h"
#include "util/mutex.h"

namespace tierfs {
namespace {

class RnnHss : public Policy {
 public:
  explicit RnnHss(ParamReader& params)
      : interval_(uint64_t(std::max(1.0, params.Number("interval", 1000)))),
        length_(size_t(std::clamp(params.Number("length", 8), 1.0, 64.0))),
        history_(length_ + 1),
        steps_(int(std::clamp(params.Number("steps", 16), 0.0, 1e6))),
        batch_(size_t(std::clamp(params.Number("batch", 256), 1.0, 1e6))),
        samples_(size_t(std::clamp(params.Number("samples", 4096), 1.0, 1e7))) {
    rl::SequenceModelOptions o;
    o.length = int(length_);
    o.hidden = int(std::clamp(params.Number("hidden", o.hidden), 1.0, 1024.0));
    o.learning_rate = std::max(0.0, params.Number("lr", o.learning_rate));
    o.seed = uint64_t(std::max(0.0, params.Number("seed", double(o.seed))));
    PolicyParams none;
    ParamReader fast_first(none);
    placement_ = NewFastFirstPolicy(fast_first);
    std::string error;
    if (!rl::SequenceModelAvailable(&error)) {
      params.Fail(error);
      return;
    }
    try {
      model_ = rl::NewSequenceModel(o);
    } catch (const std::exception& e) {
      params.Fail(e.what());
    }
  }

  const char* Name() const override { return "rnn-hss"; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    return placement_->Place(request, view);
  }

  uint64_t PlanIntervalRequests() const override { return interval_; }

  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    history_.Sample(view);
    if (!model_ || view.NumTiers() < 2 || history_.intervals() < 2) return;
    const auto& segments = history_.segments();
    std::string error;

    // 2: learn the newest interval from the ones before it.
    std::vector<size_t> active, idle;
    for (size_t i = 0; i < segments.size(); ++i) {
      const auto& c = segments[i].counts;
      (std::any_of(c.begin(), c.end(), [](uint32_t n) { return n > 0; }) ? active : idle).push_back(i);
    }
    std::vector<float> inputs, targets;
    auto add_samples = [&](const std::vector<size_t>& from, size_t most) {
      const size_t stride = (from.size() + most - 1) / std::max<size_t>(1, most);
      for (size_t k = 0; k < from.size(); k += std::max<size_t>(1, stride)) {
        const auto& c = segments[from[k]].counts;
        AppendInputs(c, 0, &inputs);
        targets.push_back(float(std::log1p(c.back())));
      }
    };
    add_samples(active, samples_);
    add_samples(idle, std::max<size_t>(1, samples_ / 4));
    float loss = 0;
    if (!model_->Fit(inputs.data(), targets.data(), targets.size(), steps_, batch_, &loss, &error)) {
      return;  // LibTorch failed: no moves this interval
    }
    {
      MutexLock lock(&curve_mu_);
      curve_.push_back({view.Now(), loss});
      if (curve_.size() >= kMaxCurvePoints) {  // a long run keeps every other point
        for (size_t i = 0; i < kMaxCurvePoints / 2; ++i) curve_[i] = curve_[2 * i + 1];
        curve_.resize(kMaxCurvePoints / 2);
      }
    }

    // 3: predict, rank, fill the tiers from the top.
    inputs.clear();
    std::vector<size_t> predicted;  // the active segments, then one idle sequence
    for (size_t i : active) {
      AppendInputs(segments[i].counts, 1, &inputs);
      predicted.push_back(i);
    }
    inputs.insert(inputs.end(), length_, 0.0f);
    std::vector<float> out(predicted.size() + 1);
    if (!model_->Predict(inputs.data(), out.size(), out.data(), &error)) return;
    std::vector<Wanted> wanted(segments.size());
    for (size_t i = 0; i < segments.size(); ++i) {
      wanted[i].segment = i;
      wanted[i].score = out.back();
    }
    for (size_t k = 0; k < predicted.size(); ++k) wanted[predicted[k]].score = out[k];
    std::vector<size_t> rank(segments.size());
    for (size_t i = 0; i < rank.size(); ++i) rank[i] = i;
    std::sort(rank.begin(), rank.end(), [&](size_t a, size_t b) {
      if (wanted[a].score != wanted[b].score) return wanted[a].score > wanted[b].score;
      if (segments[a].tier != segments[b].tier) return segments[a].tier < segments[b].tier;
      return a < b;
    });
    int tier = 0;
    uint64_t room = view.Capacity(0);
    for (size_t i : rank) {
      while (tier + 1 < view.NumTiers() && segments[i].bytes > room) room = view.Capacity(++tier);
      room -= std::min(room, segments[i].bytes);
      wanted[i].tier = tier;
    }
    PlanTowardWanted(view, history_, std::move(wanted), max, moves);
  }

  // The training loss after each plan, by the request it was made at.
  std::vector<LossCurve> LossCurves() const override {
    MutexLock lock(&curve_mu_);
    return {{"predictor", curve_}};
  }

 private:
  // log(1 + accesses) of `length` intervals from counts[first].
  void AppendInputs(const std::vector<uint32_t>& counts, size_t first, std::vector<float>* inputs) const {
    for (size_t f = 0; f < length_; ++f) inputs->push_back(float(std::log1p(counts[first + f])));
  }

  static constexpr size_t kMaxCurvePoints = 4096;

  const uint64_t interval_;
  const size_t length_;
  IntervalHistory history_;  // Plan's (Plan runs one at a time), as model_
  const int steps_;
  const size_t batch_;
  const size_t samples_;
  std::unique_ptr<Policy> placement_;  // fast-first
  std::unique_ptr<rl::SequenceModelImpl> model_;
  mutable Mutex curve_mu_;
  std::vector<std::pair<uint64_t, float>> curve_ GUARDED_BY(curve_mu_);  // one point a plan
};

}  // namespace

std::unique_ptr<Policy> NewRnnHssPolicy(ParamReader& params) {
  return std::make_unique<RnnHss>(params);
}

}  // namespace tierfs
