// k-svm: K-SVM (Shetti et al., "Machine Learning-based Adaptive Migration
// Algorithm for Hybrid Storage Systems", NAS 2019), one of the data-migration
// baselines Harmonia compares against (harmonia.txt, section 3.4): k-means
// groups pages into classes by their access frequency, a support vector
// machine trained on those classes assigns every stored page a target device,
// and pages migrate there at fixed intervals; new data goes to the fast
// device until it is full.
//
// As built here, every `interval` requests (1000, the paper's example):
//   1. every placed segment's accesses (user reads and writes) in each of the
//      last `history` intervals (agents/interval_history.h);
//   2. k-means (k = the number of tiers, Lloyd's iterations from quantiles of
//      the distinct values) on log(1 + accesses in the newest interval):
//      the hottest cluster is class 0, the next class 1, ...;
//   3. a linear SVM (Debian's liblinear, L2-loss, primal: deterministic)
//      learns to tell each segment's class in the newest interval from its
//      accesses in the `history` - 1 intervals before it: what the past
//      says of the next interval;
//   4. it classifies every segment by its newest `history` - 1 intervals,
//      and class c wants tier c (tiers spread over the classes when there
//      are fewer classes than tiers); segments move toward their tiers,
//      at most the migration queue's free slots per plan, the most
//      accessed up first, the coldest down to make room
//      (agents/interval_history.h, PlanTowardWanted).
// The paper leaves the classes' features open; these are the ones the
// Harmonia paper names ("based on the page's access frequency"). One
// departure is forced by the engine: moves run on the migration thread, not
// on the critical path as the paper's K-SVM does. Parameters: interval
// (1000 requests), history (5 intervals), c (the SVM's C, 1), samples (8192
// segments the SVM trains on at most, an even stride of all).
#include <linear.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "agents/interval_history.h"
#include "agents/policies.h"

namespace tierfs {
namespace {

// liblinear reports its progress on stdout unless told otherwise; the
// library never prints.
void Quiet(const char*) {}

// Lloyd's k-means in one dimension: the cluster of each value, 0 for the
// largest centre, k - 1 for the smallest. Starts from quantiles of the
// distinct values, so no cluster starts empty; k shrinks to their count.
// Returns the number of clusters.
int ClusterByValue(const std::vector<double>& values, int k, std::vector<int>* cluster) {
  std::vector<double> distinct(values);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  k = std::min<int>(k, int(distinct.size()));
  cluster->assign(values.size(), 0);
  if (k <= 1) return k;
  std::vector<double> centre(static_cast<size_t>(k));
  for (int c = 0; c < k; ++c) {
    centre[size_t(c)] = distinct[(size_t(c) * 2 + 1) * distinct.size() / (size_t(k) * 2)];
  }
  std::vector<double> sum(static_cast<size_t>(k));
  std::vector<size_t> count(static_cast<size_t>(k));
  for (int iteration = 0; iteration < 100; ++iteration) {
    bool changed = false;
    std::fill(sum.begin(), sum.end(), 0);
    std::fill(count.begin(), count.end(), 0);
    for (size_t i = 0; i < values.size(); ++i) {
      int best = 0;
      for (int c = 1; c < k; ++c) {
        if (std::fabs(values[i] - centre[size_t(c)]) < std::fabs(values[i] - centre[size_t(best)])) {
          best = c;
        }
      }
      changed |= (*cluster)[i] != best || iteration == 0;
      (*cluster)[i] = best;
      sum[size_t(best)] += values[i];
      count[size_t(best)]++;
    }
    for (int c = 0; c < k; ++c) {
      if (count[size_t(c)] > 0) centre[size_t(c)] = sum[size_t(c)] / double(count[size_t(c)]);
    }
    if (!changed) break;
  }
  // Centres ascend (they start so, and one dimension keeps the order): the
  // largest becomes class 0.
  for (int& c : *cluster) c = k - 1 - c;
  return k;
}

class KSvm : public Policy {
 public:
  explicit KSvm(ParamReader& params)
      : interval_(uint64_t(std::max(1.0, params.Number("interval", 1000)))),
        history_(size_t(std::clamp(params.Number("history", 5), 2.0, 64.0))),
        c_(std::max(1e-6, params.Number("c", 1))),
        samples_(size_t(std::clamp(params.Number("samples", 8192), 2.0, 1e7))) {
    PolicyParams none;
    ParamReader fast_first(none);
    placement_ = NewFastFirstPolicy(fast_first);
  }

  const char* Name() const override { return "k-svm"; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    return placement_->Place(request, view);
  }

  uint64_t PlanIntervalRequests() const override { return interval_; }

  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    history_.Sample(view);
    if (view.NumTiers() < 2 || history_.intervals() < 2) return;
    const auto& segments = history_.segments();
    const size_t features = history_.length() - 1;

    // 2: the classes of the newest interval.
    std::vector<double> newest(segments.size());
    for (size_t i = 0; i < segments.size(); ++i) newest[i] = std::log1p(segments[i].counts.back());
    std::vector<int> label;
    const int classes = ClusterByValue(newest, view.NumTiers(), &label);
    if (classes < 2) return;  // every segment alike: nothing to tell apart

    // 3: the SVM, on an even stride of the segments.
    const size_t stride = (segments.size() + samples_ - 1) / samples_;
    std::vector<double> y;
    std::vector<feature_node> nodes;
    const size_t row = features + 2;  // the features, the bias, the end mark
    for (size_t i = 0; i < segments.size(); i += stride) {
      y.push_back(label[i]);
      AppendRow(segments[i].counts, 0, &nodes);
    }
    std::vector<feature_node*> x(y.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = &nodes[i * row];
    problem prob;
    prob.l = int(y.size());
    prob.n = int(features) + 1;
    prob.y = y.data();
    prob.x = x.data();
    prob.bias = 1;
    parameter param{};
    param.solver_type = L2R_L2LOSS_SVC;
    param.eps = 0.01;
    param.C = c_;
    if (check_parameter(&prob, &param) != nullptr) return;
    set_print_string_function(&Quiet);
    model* svm = train(&prob, &param);
    if (svm == nullptr) return;

    // 4: each segment's class from its newest intervals, and its tier.
    std::vector<Wanted> wanted;
    wanted.reserve(segments.size());
    std::vector<feature_node> one;
    for (size_t i = 0; i < segments.size(); ++i) {
      one.clear();
      AppendRow(segments[i].counts, 1, &one);
      const int c = int(predict(svm, one.data()));
      Wanted w;
      w.segment = i;
      w.tier = int(std::lround(double(c) * (view.NumTiers() - 1) / double(classes - 1)));
      w.score = Recent(segments[i].counts);
      wanted.push_back(w);
    }
    free_and_destroy_model(&svm);
    PlanTowardWanted(view, history_, std::move(wanted), max, moves);
  }

 private:
  // One row of features: log(1 + accesses) of history - 1 intervals from
  // counts[first], the bias, the end mark.
  void AppendRow(const std::vector<uint32_t>& counts, size_t first,
                 std::vector<feature_node>* nodes) const {
    const size_t features = history_.length() - 1;
    for (size_t f = 0; f < features; ++f) {
      nodes->push_back({int(f) + 1, std::log1p(counts[first + f])});
    }
    nodes->push_back({int(features) + 1, 1.0});  // prob.bias's feature
    nodes->push_back({-1, 0});
  }

  // The order of moves among segments of one class: the accesses of the
  // recent intervals, each interval weighing twice the one before it.
  static double Recent(const std::vector<uint32_t>& counts) {
    double score = 0;
    for (uint32_t c : counts) score = score / 2 + std::log1p(c);
    return score;
  }

  const uint64_t interval_;
  IntervalHistory history_;  // Plan's (Plan runs one at a time)
  const double c_;
  const size_t samples_;
  std::unique_ptr<Policy> placement_;  // fast-first
};

}  // namespace

std::unique_ptr<Policy> NewKSvmPolicy(ParamReader& params) { return std::make_unique<KSvm>(params); }

}  // namespace tierfs
