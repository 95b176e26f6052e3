// sibyl: Sibyl's single C51 placement agent (Singh et al., "Sibyl: Adaptive
// and Extensible Data Placement in Hybrid Storage Systems Using Online
// Reinforcement Learning", ISCA 2022), as its public code has it and as
// harmonia.txt (section 3.3) describes it: features request size,
// read/write, access count, access interval, size in 4 KiB pages, current
// placement, fast-tier fill, slow-tier fill (agents/rl/placement_agent.h);
// hidden layers of 20 and 30 swish neurons; 51 atoms over [-20, 20]; 2-step
// returns; reward 0.1 / latency_ms - evictions^0.09; batch 128, lr 2e-4,
// buffer 1000, gamma 0.99, epsilon 0.001. No migration: when the fast tier
// passes 90% full, the least recently used segments there move down (at
// each plan, every plan_interval requests), and a placement that finds it
// full evicts first (agents/lru_eviction.h). The engine's fill and the
// hot-page copies leave that tenth free too (FastHeadroomShare).
// Parameters: see agents/rl/agent_params.h (no prefix), fill (0.9),
// plan_interval (256).
#include <algorithm>
#include <memory>
#include <mutex>

#include "agents/lru_eviction.h"
#include "agents/policies.h"
#include "agents/rl/agent_params.h"
#include "agents/rl/learner.h"
#include "agents/rl/placement_agent.h"
#include "agents/rl/weights_io.h"

namespace tierfs {
namespace {

rl::AgentOptions SibylDefaults() {
  rl::AgentOptions o;
  o.learner.gamma = 0.99;
  o.learner.learning_rate = 2e-4;
  o.learner.batch = 128;
  o.learner.buffer = 1000;
  o.learner.shape.hidden = {20, 30};
  o.learner.shape.v_min = -20;
  o.learner.shape.v_max = 20;
  return o;
}

class Sibyl : public Policy {
 public:
  explicit Sibyl(ParamReader& params)
      : options_(rl::ReadAgentOptions(params, "", SibylDefaults())),
        fill_(std::clamp(params.Number("fill", 0.9), 0.1, 1.0)),
        plan_interval_(uint64_t(std::max(1.0, params.Number("plan_interval", 256)))) {
    std::string error;
    if (!rl::LearnerAvailable(&error)) params.Fail(error);
  }

  const char* Name() const override { return "sibyl"; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    Init(view.NumTiers());
    const int tier = placement_->Place(request, view);
    LastPlaced() = {request.file_id, request.segment};
    return tier;
  }

  // The agent learns the tier the segment got (a victim that could not move
  // leaves the tier full, and the segment spills).
  void OnPlaced(const PlacementRequest& request, int chosen, int placed) override {
    (void)chosen;
    if (ready_.load(std::memory_order_acquire)) placement_->OnPlaced(request, placed);
  }

  void OnRequest(const Request& request, uint64_t latency_ns) override {
    if (ready_.load(std::memory_order_acquire)) placement_->OnRequest(request, latency_ns);
  }

  // The agents' rewards are the latencies of the requests after a decision.
  bool LearnsFromLatency() const override { return true; }

  bool EvictsOnPlacement() const override { return true; }
  void Evict(int tier, uint64_t bytes, const StorageView& view, std::vector<Move>* moves) override {
    const size_t before = moves->size();
    {
      MutexLock lock(&eviction_mu_);
      eviction_.Evict(tier, bytes, view, moves);
    }
    // Evict follows, in the same thread, the Place that needed the room:
    // charge that placement the evictions.
    if (ready_.load(std::memory_order_acquire)) {
      placement_->NoteEvictions(LastPlaced().file_id, LastPlaced().segment, moves->size() - before);
    }
  }

  std::string SaveState() const override {
    if (!ready_.load(std::memory_order_acquire)) return "";
    return rl::EncodeWeights("sibyl", {{"placement", *agent_->learner().Snapshot()}});
  }

  void StopLearning() override {
    if (ready_.load(std::memory_order_acquire)) agent_->learner().Stop();
  }

  bool LoadState(const std::string& state, int tiers, std::string* error) override {
    rl::NamedWeights sets;
    if (ready_.load(std::memory_order_acquire)) {
      *error = "sibyl: state must be loaded before the first request";
      return false;
    }
    if (!rl::DecodeWeights(state, "sibyl", &sets, error)) return false;
    rl::AgentOptions want = options_;
    rl::SetShape(&want, rl::PlacementAgent::Inputs(rl::PlacementAgentOptions::Kind::kSibyl, tiers),
                 tiers);
    if (sets.size() != 1 || !(sets[0].second.shape == want.learner.shape)) {
      *error = "sibyl: the saved agent has shape " +
               (sets.empty() ? std::string("none") : sets[0].second.shape.Describe()) +
               ", this store needs " + want.learner.shape.Describe() + " (" +
               std::to_string(tiers) + " tiers)";
      return false;
    }
    saved_ = std::make_unique<rl::Weights>(sets[0].second);
    return true;
  }

  std::vector<LossCurve> LossCurves() const override {
    if (!ready_.load(std::memory_order_acquire)) return {};
    return {{"placement", agent_->learner().GetStats().losses}};
  }

  // Its plans keep 1 - fill of tier 0 free: the engine's fill and the copies
  // must leave that free too, or the plans demote what the fill promoted.
  double FastHeadroomShare() const override { return 1.0 - fill_; }

  uint64_t PlanIntervalRequests() const override { return plan_interval_; }
  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    const uint64_t cap = view.Capacity(0), limit = uint64_t(double(cap) * fill_);
    if (view.NumTiers() < 2 || view.Used(0) <= limit) return;
    std::vector<Move> lru;
    {
      MutexLock lock(&eviction_mu_);
      eviction_.Evict(0, view.Used(0) - limit, view, &lru);
    }
    if (lru.size() > max) lru.resize(max);
    moves->insert(moves->end(), lru.begin(), lru.end());
  }

 private:
  void Init(int tiers) {
    std::call_once(once_, [&] {
      rl::PlacementAgentOptions po;
      po.kind = rl::PlacementAgentOptions::Kind::kSibyl;
      po.n_step = 2;
      po.gamma = options_.learner.gamma;
      rl::SetShape(&options_, rl::PlacementAgent::Inputs(po.kind, tiers), tiers);
      agent_ = std::make_unique<rl::Agent>(options_, saved_.get());
      placement_ = std::make_unique<rl::PlacementAgent>(agent_.get(), tiers, po);
      ready_.store(true, std::memory_order_release);
    });
  }

  rl::AgentOptions options_;
  const double fill_;
  const uint64_t plan_interval_;
  std::once_flag once_;
  std::atomic<bool> ready_{false};
  std::unique_ptr<rl::Agent> agent_;
  std::unique_ptr<rl::PlacementAgent> placement_;
  std::unique_ptr<rl::Weights> saved_;  // from LoadState
  // The segment this thread placed last (Evict follows its Place).
  static SegmentRef& LastPlaced() {
    thread_local SegmentRef ref;
    return ref;
  }
  Mutex eviction_mu_;  // Evict (writers) and Plan (migration thread) share the heap
  LruEviction eviction_ GUARDED_BY(eviction_mu_);
};

}  // namespace

std::unique_ptr<Policy> NewSibylPolicy(ParamReader& params) {
  return std::make_unique<Sibyl>(params);
}

}  // namespace tierfs
