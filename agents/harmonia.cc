// harmonia: Harmonia's two coordinating C51 agents (Kanellopoulos et al.,
// harmonia.txt, sections 4.2-4.5): a placement agent for every new segment
// (agents/rl/placement_agent.h) and a migration agent that scans placed
// segments every plan_interval requests and fills the migration queue
// (agents/rl/migration_agent.h), rewarded by the latency of the requests
// that follow its moves (Equation 3). The variants the paper measures
// (section 3.4):
//   harmonia-nocoord  the ablation whose migration agent is rewarded only for
//                     its own moves' cost;
//   sapm              one agent for both placement and migration (in the
//                     migration thread's idle time), with both rewards;
//   cde+rl-migr       CDE's placement and eviction (agents/cde.cc) with
//                     Harmonia's migration agent.
// Defaults are Table 3's: placement gamma 0.9, lr 1e-3, batch 128, buffer
// 1000; migration gamma 0.1, lr 1e-2, batch 256, buffer 1000; epsilon 0.001
// from the first decision; one hidden layer of 10 swish neurons; 51 atoms;
// weights swapped into inference every 1000 requests; x = 10 moves, n = 50
// requests. Where we depart from the paper, each measured (DESIGN.md,
// "Learning agents"; figures: docs/lab-notebook.md, "Learning agents"):
//   placement_optimism (0.5)  a cold placement agent starts optimistic
//       about every tier (Weights::Optimistic), so it tries the fast tier at
//       once instead of spending the fast tier's room on random exploration;
//       mildly: at 3 an HDD tier, tried and found slow, kept its optimistic
//       estimate long enough to take segments the SSD had room for (tri
//       -6% on the synthetic suite, seeds 1 and 7);
//   migration_latency_unit_us (0: adaptive)  the migration reward's unit is
//       the running mean latency, so it means the same on Optane and on HDD;
//   stay_baseline (1)  decisions to stay earn that unit, moves the measured
//       reward: a move is learned only where it beats not moving;
//   reward_wait (4096)  the reward measures the n requests after the
//       window's moves are made (OnMoveDone), not after they are queued;
//   placement_reads (4; sapm 0)  a placement is rewarded by the latency of
//       its segment's first 4 user reads its home served against the mean
//       read, waited for at most placement_read_wait (16384) requests, not
//       by the buffered write that placed it (Equation 2, which 0 keeps);
//       a segment not read from its home in that time, by its writes'
//       latency against the mean write. SAPM keeps Equation 2: its one
//       agent's migration rewards sit around 1, these around 0;
//   the placement agent learns the tier the engine placed the segment on
//       (Policy::OnPlaced: a spill, the room kept for the WAL and the upper
//       levels), not the one it chose;
//   migration_warmup (1024), migration_warmup_moves (1)  until the
//       migration agent has learned from 1024 transitions a plan makes at
//       most one move: a cold network's moves are noise;
//   batches (1)  one gradient step per train_every (16) transitions, not 16
//       (section 4.6.2): in the simulator 11x faster (YCSB-B, 300,000
//       requests: 0.18 M requests/s against 0.02 M) and better on 9 of 9
//       seeded synthetic runs (YCSB A, B, C; docs/lab-notebook.md, "Fewer
//       gradient steps"), and a sixteenth of the training thread's work.
// Parameters: see agents/rl/agent_params.h (placement_*, migration_*),
// reward_moves, reward_requests, latency_unit_us (placement, 10),
// placement_reads, placement_read_wait,
// migration_latency_unit_us, penalty, min_age, candidates (64), cold_share
// (0.5), plan_interval (1024), placement_optimism, migration_optimism (0),
// stay_baseline, reward_wait, migration_warmup, migration_warmup_moves;
// the hot-page copies (agents/reuse_predictor.h, on unless learned_copies
// is 0): copy_horizon (2), copy_floor (0.1), copy_margin (0.2), copy_sample (4), copy_samples
// (4096), copy_history (2), copy_lr (0.05), copy_warmup (2048); eviction on
// placement (agents/eviction_gate.h, off unless evict is 1): when tier 0 is
// full for a segment the placement agent chose it for, a learned gate evicts
// lru's victims for it or lets it spill: evict_horizon (1000), evict_margin
// (0.1), evict_lr (0.05), evict_warmup (256).
#include <algorithm>
#include <memory>
#include <mutex>

#include "agents/eviction_gate.h"
#include "agents/policies.h"
#include "agents/reuse_predictor.h"
#include "agents/rl/agent_params.h"
#include "agents/rl/learner.h"
#include "agents/rl/features.h"
#include "agents/rl/migration_agent.h"
#include "agents/rl/placement_agent.h"
#include "agents/rl/weights_io.h"

namespace tierfs {
namespace {

rl::AgentOptions PlacementDefaults() {
  rl::AgentOptions o;
  o.learner.gamma = 0.9;
  o.learner.learning_rate = 1e-3;
  o.learner.batch = 128;
  o.learner.buffer = 1000;
  o.learner.batches = 1;        // one step per 16 transitions (atop this file)
  o.epsilon_start = o.epsilon;  // no decay: the optimistic start explores
  return o;
}

rl::AgentOptions MigrationDefaults() {
  rl::AgentOptions o;
  o.learner.gamma = 0.1;
  o.learner.learning_rate = 1e-2;
  o.learner.batch = 256;
  o.learner.buffer = 1000;
  o.learner.batches = 1;
  o.learner.seed = 2;
  o.epsilon_start = o.epsilon;
  return o;
}

enum class Variant { kHarmonia, kNoCoord, kSapm, kCdeRlMigr };

const char* NameOf(Variant v) {
  switch (v) {
    case Variant::kHarmonia: return "harmonia";
    case Variant::kNoCoord: return "harmonia-nocoord";
    case Variant::kSapm: return "sapm";
    case Variant::kCdeRlMigr: return "cde+rl-migr";
  }
  return "?";
}

class Harmonia : public Policy {
 public:
  Harmonia(ParamReader& params, Variant variant)
      : variant_(variant),
        name_(NameOf(variant)),
        placement_options_(rl::ReadAgentOptions(params, "placement_", PlacementDefaults())),
        migration_options_(rl::ReadAgentOptions(params, "migration_", MigrationDefaults())),
        latency_unit_us_(params.Number("latency_unit_us", 10)),
        placement_reads_(int(std::clamp(params.Number("placement_reads", variant == Variant::kSapm ? 0 : 4), 0.0, 1e6))),
        placement_read_wait_(uint64_t(std::max(1.0, params.Number("placement_read_wait", 16384)))),
        plan_interval_(uint64_t(std::max(1.0, params.Number("plan_interval", 1024)))),
        placement_optimism_(float(params.Number("placement_optimism", 0.5))),
        migration_optimism_(float(params.Number("migration_optimism", 0))) {
    std::string error;
    if (!rl::LearnerAvailable(&error)) params.Fail(error);
    reward_.coordinated = variant != Variant::kNoCoord;
    if (variant == Variant::kCdeRlMigr) {
      PolicyParams none;
      ParamReader cde_params(none);
      cde_ = NewCdePolicy(cde_params);
    }
    reward_.latency_unit_us = params.Number("migration_latency_unit_us", 0);
    reward_.reward_moves = uint64_t(std::max(1.0, params.Number("reward_moves", 10)));
    reward_.reward_requests = uint64_t(std::max(1.0, params.Number("reward_requests", 50)));
    reward_.stay_baseline = params.Number("stay_baseline", 1) != 0;
    reward_.reward_wait = uint64_t(std::max(1.0, params.Number("reward_wait", double(reward_.reward_wait))));
    reward_.penalty = params.Number("penalty", reward_.penalty);
    reward_.min_age = uint64_t(std::max(0.0, params.Number("min_age", double(reward_.min_age))));
    reward_.candidates = size_t(std::max(1.0, params.Number("candidates", double(reward_.candidates))));
    reward_.cold_share = std::clamp(params.Number("cold_share", reward_.cold_share), 0.0, 1.0);
    reward_.warmup = uint64_t(std::max(0.0, params.Number("migration_warmup", double(reward_.warmup))));
    reward_.warmup_moves = size_t(
        std::max(0.0, params.Number("migration_warmup_moves", double(reward_.warmup_moves))));
    if (params.Number("learned_copies", 1) != 0) {
      ReusePredictor::Options o;
      o.horizon = std::max(0.01, params.Number("copy_horizon", o.horizon));
      o.sample = uint64_t(std::max(1.0, params.Number("copy_sample", double(o.sample))));
      o.samples = uint64_t(std::clamp(params.Number("copy_samples", double(o.samples)), 1.0, 1e7));
      o.history = std::clamp(params.Number("copy_history", o.history), 0.01, 64.0);
      o.learning_rate = std::max(0.0, params.Number("copy_lr", o.learning_rate));
      o.warmup = uint64_t(std::max(0.0, params.Number("copy_warmup", double(o.warmup))));
      o.floor = std::clamp(params.Number("copy_floor", o.floor), 0.0, 1.0);
      o.margin = std::clamp(params.Number("copy_margin", o.margin), 0.0, 1.0);
      copies_ = std::make_unique<ReusePredictor>(o);
    }
    {
      // Read whether or not the gate is on, so that each is a known name.
      EvictionGate::Options o;
      const bool evict = params.Number("evict", 0) != 0;
      o.horizon = uint64_t(std::max(1.0, params.Number("evict_horizon", double(o.horizon))));
      o.margin = params.Number("evict_margin", o.margin);
      o.learning_rate = std::max(0.0, params.Number("evict_lr", o.learning_rate));
      o.warmup = uint64_t(std::max(0.0, params.Number("evict_warmup", double(o.warmup))));
      if (evict && variant == Variant::kCdeRlMigr) {
        params.Fail("cde+rl-migr places and evicts as cde: `evict` is for the placement agent");
      } else if (evict) {
        gate_ = std::make_unique<EvictionGate>(o);
      }
    }
  }

  const char* Name() const override { return name_; }

  int Place(const PlacementRequest& request, const StorageView& view) override {
    Init(view.NumTiers());
    if (cde_) return cde_->Place(request, view);
    const int chosen = placement_->Place(request, view);
    if (!gate_) return chosen;
    evict_for_ = nullptr;
    // Tier 0 full: the gate decides between an eviction and a spill. (With
    // room for the segment but not its file's first block on the tier,
    // kFileBlock, the engine asks for an eviction the gate was not asked
    // about: none is made, the segment spills.)
    if (chosen == 0 && view.NumTiers() > 1 && view.Free(0) < request.bytes + kBlock) {
      if (!gate_->ShouldEvict(request, view)) return 1;
      evict_for_ = this;
    }
    return chosen;
  }

  // The placement agent learns the tier the segment got, not the one it chose.
  void OnPlaced(const PlacementRequest& request, int chosen, int placed) override {
    if (cde_) cde_->OnPlaced(request, chosen, placed);
    if (ready_.load(std::memory_order_acquire) && placement_) placement_->OnPlaced(request, placed);
  }

  void OnRequest(const Request& request, uint64_t latency_ns) override {
    if (cde_) cde_->OnRequest(request, latency_ns);
    if (gate_) gate_->OnRequest(request);
    if (!ready_.load(std::memory_order_acquire)) return;
    if (placement_) placement_->OnRequest(request, latency_ns);  // ticks the placement agent
    if (migration_agent_ != placement_agent_) migration_agent_->Tick(request.seq);  // SAPM's one agent ticked once
    migration_->OnRequest(request, latency_ns);
  }

  // The agents' rewards are the latencies of the requests after a decision.
  bool LearnsFromLatency() const override { return true; }

  void OnMoveDone(const Move& move, bool made) override {
    if (ready_.load(std::memory_order_acquire)) migration_->OnMoveDone(move, made);
  }

  bool EvictsOnPlacement() const override {
    return gate_ != nullptr || (cde_ && cde_->EvictsOnPlacement());
  }
  void Evict(int tier, uint64_t bytes, const StorageView& view, std::vector<Move>* moves) override {
    if (cde_) cde_->Evict(tier, bytes, view, moves);
    // Only what the gate answered for, in this thread's Place just before
    // (the engine evicts from the placing writer); a full slower tier spills.
    if (!gate_) return;
    if (tier == 0 && evict_for_ == this) gate_->Evict(tier, bytes, view, moves);
    evict_for_ = nullptr;
  }

  // State: the trained weights of each agent, by role.
  std::string SaveState() const override {
    if (!ready_.load(std::memory_order_acquire)) return "";
    rl::NamedWeights sets;
    if (placement_agent_) sets.push_back({"placement", *placement_agent_->learner().Snapshot()});
    if (migration_agent_ != placement_agent_) {
      sets.push_back({"migration", *migration_agent_->learner().Snapshot()});
    }
    return rl::EncodeWeights(name_, sets);
  }

  void StopLearning() override {
    if (!ready_.load(std::memory_order_acquire)) return;
    if (placement_agent_) placement_agent_->learner().Stop();
    if (migration_agent_ && migration_agent_ != placement_agent_) {
      migration_agent_->learner().Stop();
    }
  }

  bool LoadState(const std::string& state, int tiers, std::string* error) override {
    if (ready_.load(std::memory_order_acquire)) {
      *error = std::string(name_) + ": state must be loaded before the first request";
      return false;
    }
    rl::NamedWeights sets;
    if (!rl::DecodeWeights(state, name_, &sets, error)) return false;
    const int inputs = rl::ObservationEncoder(tiers).size();
    rl::AgentOptions placement = placement_options_, migration = migration_options_;
    rl::SetShape(&placement, inputs, tiers);
    rl::SetShape(&migration, inputs, tiers);
    for (const auto& [role, w] : sets) {
      const rl::NetworkShape& want = role == "migration" ? migration.learner.shape
                                                         : placement.learner.shape;
      if (!(w.shape == want)) {
        *error = std::string(name_) + ": the saved " + role + " agent has shape " +
                 w.shape.Describe() + ", this store needs " + want.Describe() + " (" +
                 std::to_string(tiers) + " tiers)";
        return false;
      }
      (role == "migration" ? saved_migration_ : saved_placement_) = std::make_unique<rl::Weights>(w);
    }
    return true;
  }

  std::vector<LossCurve> LossCurves() const override {
    std::vector<LossCurve> curves;
    if (!ready_.load(std::memory_order_acquire)) return curves;
    if (placement_agent_) {
      curves.push_back({migration_agent_ == placement_agent_ ? "agent" : "placement",
                        placement_agent_->learner().GetStats().losses});
    }
    if (migration_agent_ != placement_agent_) {
      curves.push_back({"migration", migration_agent_->learner().GetStats().losses});
    }
    return curves;
  }

  // The hot-page copies' admission and victims (agents/reuse_predictor.h).
  bool RanksCopies() const override { return copies_ != nullptr; }
  void SetCopyCapacity(uint64_t objects) override {
    if (copies_) copies_->SetCapacity(objects);
  }
  void NoteCopyAccess(const CopyCandidate& page) override {
    if (copies_) copies_->NoteAccess(page);
  }
  double CopyValue(const CopyCandidate& page) override {
    return copies_ ? copies_->Value(page) : Policy::CopyValue(page);
  }
  bool AdmitCopy(const CopyCandidate& page, const CopyCandidate* victim) override {
    return copies_ ? copies_->Admit(page, victim) : Policy::AdmitCopy(page, victim);
  }

  uint64_t PlanIntervalRequests() const override { return plan_interval_; }
  void Plan(const StorageView& view, size_t max, std::vector<Move>* moves) override {
    Init(view.NumTiers());
    migration_->Plan(view, max, moves);
  }

 private:
  // The agents' shapes need the tier count, which the first call tells.
  void Init(int tiers) {
    std::call_once(once_, [&] {
      const int inputs = rl::ObservationEncoder(tiers).size();
      rl::SetShape(&placement_options_, inputs, tiers);
      rl::SetShape(&migration_options_, inputs, tiers);
      // SAPM's one agent learns both tasks with the placement agent's settings.
      auto cold_start = [](const rl::AgentOptions& o, float logit, std::unique_ptr<rl::Weights>* w) {
        if (*w || logit == 0) return;
        *w = std::make_unique<rl::Weights>(
            rl::Weights::Optimistic(o.learner.shape, o.learner.seed, logit));
      };
      cold_start(placement_options_, placement_optimism_, &saved_placement_);
      cold_start(migration_options_, migration_optimism_, &saved_migration_);
      if (variant_ != Variant::kCdeRlMigr) {
        placement_agent_ = std::make_shared<rl::Agent>(placement_options_, saved_placement_.get());
        rl::PlacementAgentOptions po;
        po.latency_unit_us = latency_unit_us_;
        po.reward_reads = placement_reads_;
        po.reward_wait = placement_read_wait_;
        placement_ = std::make_unique<rl::PlacementAgent>(placement_agent_.get(), tiers, po);
      }
      migration_agent_ = variant_ == Variant::kSapm
                             ? placement_agent_
                             : std::make_shared<rl::Agent>(migration_options_,
                                                           saved_migration_.get());
      migration_ = std::make_unique<rl::MigrationAgent>(migration_agent_.get(), tiers, reward_);
      ready_.store(true, std::memory_order_release);
    });
  }

  const Variant variant_;
  const char* const name_;
  std::unique_ptr<Policy> cde_;  // cde+rl-migr's placement
  rl::AgentOptions placement_options_, migration_options_;
  rl::MigrationAgentOptions reward_;
  const double latency_unit_us_;
  const int placement_reads_;           // PlacementAgentOptions::reward_reads
  const uint64_t placement_read_wait_;  // PlacementAgentOptions::reward_wait
  const uint64_t plan_interval_;
  const float placement_optimism_, migration_optimism_;  // Weights::Optimistic's logit; 0 off
  std::once_flag once_;
  std::atomic<bool> ready_{false};
  std::shared_ptr<rl::Agent> placement_agent_, migration_agent_;  // one for SAPM
  std::unique_ptr<rl::Weights> saved_placement_, saved_migration_;  // from LoadState
  std::unique_ptr<rl::PlacementAgent> placement_;
  std::unique_ptr<rl::MigrationAgent> migration_;
  std::unique_ptr<ReusePredictor> copies_;  // learned_copies; nullptr: TinyLFU's rule
  std::unique_ptr<EvictionGate> gate_;       // evict; nullptr: spill when tier 0 is full
  // The policy whose gate said "evict" in this thread's last Place: Place
  // runs on many writers at once, and each evicts in its own (Choose).
  static thread_local const Harmonia* evict_for_;
  static constexpr uint64_t kBlock = 4096;  // engine/placement.h's kFileBlock
};

thread_local const Harmonia* Harmonia::evict_for_ = nullptr;

}  // namespace

std::unique_ptr<Policy> NewHarmoniaPolicy(ParamReader& params) {
  return std::make_unique<Harmonia>(params, Variant::kHarmonia);
}
std::unique_ptr<Policy> NewHarmoniaNoCoordPolicy(ParamReader& params) {
  return std::make_unique<Harmonia>(params, Variant::kNoCoord);
}
std::unique_ptr<Policy> NewSapmPolicy(ParamReader& params) {
  return std::make_unique<Harmonia>(params, Variant::kSapm);
}
std::unique_ptr<Policy> NewCdeRlMigrPolicy(ParamReader& params) {
  return std::make_unique<Harmonia>(params, Variant::kCdeRlMigr);
}

}  // namespace tierfs
