// The learning agents' machinery (agents/rl/): LibTorch training exported to
// the plain forward pass, weight swaps under concurrent inference, and the
// learning policies' registration.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "agents/policy.h"
#include "agents/rl/agent.h"
#include "agents/rl/learner.h"
#include "agents/rl/network.h"

namespace tierfs {
namespace rl {
namespace {

NetworkShape Bandit() {
  NetworkShape s;
  s.inputs = 2;
  s.hidden = {8};
  s.actions = 2;
  s.atoms = 11;
  s.v_min = -1;
  s.v_max = 1;
  return s;
}

// A two-armed contextual bandit: in context 0 action 0 pays 1 and action 1
// pays 0; in context 1 the reverse. One-step episodes (terminal).
Transition Pull(int context, int action) {
  Transition t;
  t.state = {context == 0 ? 1.f : 0.f, context == 1 ? 1.f : 0.f};
  t.next = t.state;
  t.action = action;
  t.reward = context == action ? 1.f : 0.f;
  t.terminal = true;
  return t;
}

TEST(LearnerTest, LearnsABanditAndTheExportedWeightsAgreeWithTorch) {
  LearnerOptions o;
  o.shape = Bandit();
  o.batch = 32;
  o.buffer = 256;
  o.train_every = 4;
  o.learning_rate = 1e-2;
  o.mode = LearnerOptions::Mode::kInline;
  Learner learner(o);
  for (int i = 0; i < 2000; ++i) learner.Add(Pull(i % 2, (i / 2) % 2));
  Learner::Stats stats = learner.GetStats();
  EXPECT_EQ(2000u, stats.transitions);
  EXPECT_GE(stats.steps, 400u);
  ASSERT_FALSE(stats.losses.empty());
  // The loss fell: the last steps' mean is well below the first steps'.
  double first = 0, last = 0;
  for (size_t i = 0; i < 20; ++i) {
    first += stats.losses[i].second;
    last += stats.losses[stats.losses.size() - 1 - i].second;
  }
  EXPECT_LT(last, 0.5 * first);

  // The plain forward pass over the exported weights has learned it.
  std::shared_ptr<const Weights> w = learner.Snapshot();
  Network net(o.shape);
  float q[2];
  const float c0[2] = {1, 0}, c1[2] = {0, 1};
  net.QValues(*w, c0, q);
  EXPECT_GT(q[0], q[1] + 0.5);
  EXPECT_NEAR(1.0, q[0], 0.2);
  EXPECT_EQ(0, net.BestAction(*w, c0));
  EXPECT_EQ(1, net.BestAction(*w, c1));

  // Weights handed back in (a restart) give the same decisions.
  Learner again(o, w.get());
  float q2[2];
  net.QValues(*again.Snapshot(), c0, q2);
  EXPECT_FLOAT_EQ(q[0], q2[0]);
  EXPECT_FLOAT_EQ(q[1], q2[1]);
}

TEST(LearnerTest, BackgroundTrainingRunsOffTheCallersThread) {
  LearnerOptions o;
  o.shape = Bandit();
  o.batch = 16;
  o.buffer = 64;
  o.train_every = 1;
  Learner learner(o);  // background
  for (int i = 0; i < 400; ++i) learner.Add(Pull(i % 2, (i / 2) % 2));
  // Add never trains in the caller's thread; the learner's thread catches up.
  for (int i = 0; i < 2000 && learner.GetStats().steps == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(learner.GetStats().steps, 0u);
}

TEST(AgentTest, InferenceNeverSeesTornWeightsWhileTheyAreSwapped) {
  // One thread trains (inline) and swaps; four threads read Q-values of a
  // fixed state all along. Every value a reader sees must be exactly that of
  // one of the published weight versions.
  AgentOptions o;
  o.learner.shape = Bandit();
  o.learner.batch = 16;
  o.learner.buffer = 64;
  o.learner.train_every = 1;
  o.learner.mode = LearnerOptions::Mode::kInline;
  o.swap_every = 1;
  Agent agent(o);
  const float state[2] = {1, 0};

  std::mutex mu;
  std::set<float> published;
  Network reference(o.learner.shape);
  auto publish = [&] {
    float q[2];
    reference.QValues(*agent.learner().Snapshot(), state, q);
    std::lock_guard<std::mutex> lock(mu);
    published.insert(q[0]);
  };
  publish();

  std::atomic<bool> stop{false};
  std::vector<std::vector<float>> seen(4);
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      float q[2];
      while (!stop.load()) {
        agent.QValues(state, q);
        if (seen[size_t(r)].size() < 200000) seen[size_t(r)].push_back(q[0]);
      }
    });
  }
  for (int i = 0; i < 600; ++i) {
    agent.Learn(Pull(i % 2, (i / 2) % 2));
    publish();       // the snapshot this step produced...
    agent.Tick(uint64_t(i) + 1);  // ...installed (swap_every = 1: a new span each request)
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(agent.swaps(), 100u);
  size_t reads = 0;
  for (const auto& v : seen) {
    for (float q : v) {
      ASSERT_TRUE(published.count(q)) << "a reader saw Q = " << q << ", from no published version";
      reads++;
    }
  }
  EXPECT_GT(reads, 1000u);
}

TEST(AgentTest, ExplorationFallsFromItsStartToItsFloor) {
  AgentOptions o;
  o.learner.shape = Bandit();
  o.learner.mode = LearnerOptions::Mode::kInline;
  o.epsilon = 0;
  o.epsilon_start = 1;
  o.epsilon_decay = 1000;
  Agent agent(o);
  const float state[2] = {1, 0};
  // The untrained network prefers one action; random choices take the other
  // about half the time while epsilon is near 1, and never once it is 0.
  const int preferred = [&] {
    AgentOptions g = o;
    g.epsilon_start = 0;
    Agent greedy(g);
    return greedy.Act(state);
  }();
  int early = 0, late = 0;
  for (int i = 0; i < 200; ++i) early += agent.Act(state) != preferred;
  for (int i = 200; i < 1000; ++i) agent.Act(state);
  for (int i = 0; i < 500; ++i) late += agent.Act(state) != preferred;
  EXPECT_GT(early, 60);  // epsilon from 1 to 0.8: about 45 of 100 random, half the other way
  EXPECT_EQ(0, late);
}

TEST(AgentTest, EpsilonOneExploresAndZeroExploits) {
  AgentOptions o;
  o.learner.shape = Bandit();
  o.learner.mode = LearnerOptions::Mode::kInline;
  o.epsilon = 1;
  Agent explorer(o);
  const float state[2] = {1, 0};
  int ones = 0;
  for (int i = 0; i < 2000; ++i) ones += explorer.Act(state);
  EXPECT_GT(ones, 800);
  EXPECT_LT(ones, 1200);
  o.epsilon = 0;
  o.epsilon_start = 0;  // no exploring start
  Agent greedy(o);
  const int first = greedy.Act(state);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(first, greedy.Act(state));
  // Masked (the engine's rules), neither exploring nor exploiting leaves the
  // mask.
  const uint32_t other = 1u << (1 - first);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(1 - first, greedy.Act(state, other));
  for (int i = 0; i < 200; ++i) ASSERT_EQ(1 - first, explorer.Act(state, other));
}

TEST(LearningPoliciesTest, AreRegisteredAndRejectUnknownParameters) {
  std::string error;
  for (const char* name : {"harmonia", "harmonia-nocoord", "sibyl", "sapm", "cde+rl-migr"}) {
    EXPECT_TRUE(PolicyLearns(name)) << name;
    PolicyParams params{{"inline", "1"}};
    std::unique_ptr<Policy> p = NewPolicy(name, params, &error);
    ASSERT_TRUE(p) << name << ": " << error;
    EXPECT_STREQ(name, p->Name());
  }
  EXPECT_FALSE(PolicyLearns("lru"));
  EXPECT_FALSE(NewPolicy("harmonia", {{"placement_gama", "0.5"}}, &error));
  EXPECT_NE(std::string::npos, error.find("placement_gama")) << error;
}

// Harmonia ranks the hot-page copies with its learned admission unless told
// not to (agents/reuse_predictor.h); the heuristics leave them to TinyLFU.
TEST(LearningPoliciesTest, HarmoniaRanksTheCopiesUnlessToldNot) {
  std::string error;
  std::unique_ptr<Policy> learned = NewPolicy("harmonia", {{"inline", "1"}}, &error);
  ASSERT_TRUE(learned) << error;
  EXPECT_TRUE(learned->RanksCopies());
  std::unique_ptr<Policy> plain =
      NewPolicy("harmonia", {{"inline", "1"}, {"learned_copies", "0"}}, &error);
  ASSERT_TRUE(plain) << error;
  EXPECT_FALSE(plain->RanksCopies());
  for (const char* name : {"lru", "fast-first", "cde", "hintstor", "mutant"}) {
    std::unique_ptr<Policy> p = NewPolicy(name, {}, &error);
    ASSERT_TRUE(p) << name << ": " << error;
    EXPECT_FALSE(p->RanksCopies()) << name;
  }
  // Before it has labels it admits as TinyLFU does.
  Policy::CopyCandidate once, twice;
  once.frequency = 1;
  twice.frequency = 2;
  EXPECT_FALSE(learned->AdmitCopy(once, nullptr));
  EXPECT_TRUE(learned->AdmitCopy(twice, nullptr));
  EXPECT_FALSE(NewPolicy("harmonia", {{"copy_horizn", "2"}}, &error));
  EXPECT_NE(std::string::npos, error.find("copy_horizn")) << error;
}

}  // namespace
}  // namespace rl
}  // namespace tierfs

namespace tierfs {
namespace {

// A small view for driving a policy by hand.
class TwoTiers : public StorageView {
 public:
  int NumTiers() const override { return tiers; }
  uint64_t Capacity(int) const override { return 1 << 30; }
  uint64_t Used(int) const override { return 0; }
  uint64_t Now() const override { return now; }
  uint64_t SegmentSize() const override { return 1 << 16; }
  void ForEachSegment(const std::function<void(const SegmentInfo&)>&) const override {}
  int tiers = 2;
  uint64_t now = 0;
};

// Drives `policy` through placements and their requests so that it trains.
void Exercise(Policy* policy, const StorageView& view, int n) {
  for (int i = 0; i < n; ++i) {
    PlacementRequest req;
    req.file_id = 1;
    req.segment = uint64_t(i);
    req.kind = FileKind::kSst;
    req.bytes = 1 << 16;
    req.write_size = 4096 << (i % 5);
    const int tier = policy->Place(req, view);
    Request done;
    done.file_id = 1;
    done.segment = uint64_t(i);
    done.kind = FileKind::kSst;
    done.type = IoType::kWrite;
    done.tier = tier;
    policy->OnRequest(done, tier == 0 ? 20000 : 400000);
  }
}

TEST(LearningPoliciesTest, StateSurvivesARestartAndAMismatchIsRefusedByName) {
  for (const char* name : {"harmonia", "sibyl", "sapm", "cde+rl-migr"}) {
    SCOPED_TRACE(name);
    std::string error;
    PolicyParams params{{"inline", "1"}};
    std::unique_ptr<Policy> trained = NewPolicy(name, params, &error);
    ASSERT_TRUE(trained) << error;
    TwoTiers view;
    EXPECT_EQ("", trained->SaveState());  // nothing learned yet
    Exercise(trained.get(), view, 3000);
    std::vector<Move> none;
    trained->Plan(view, 10, &none);  // creates cde+rl-migr's migration agent
    const std::string state = trained->SaveState();
    ASSERT_FALSE(state.empty());

    // Restored into a fresh policy, its agents start from those weights: one
    // placement (which trains nothing) later, it saves the same bytes.
    std::unique_ptr<Policy> restored = NewPolicy(name, params, &error);
    ASSERT_TRUE(restored->LoadState(state, 2, &error)) << error;
    Exercise(restored.get(), view, 1);
    EXPECT_EQ(state, restored->SaveState());

    // Another tier count: refused, naming both shapes.
    std::unique_ptr<Policy> three = NewPolicy(name, params, &error);
    EXPECT_FALSE(three->LoadState(state, 3, &error));
    EXPECT_NE(std::string::npos, error.find("3 tiers")) << error;
    // Another policy's, or damaged: refused.
    std::unique_ptr<Policy> other = NewPolicy(std::string(name) == "sibyl" ? "harmonia" : "sibyl",
                                              params, &error);
    EXPECT_FALSE(other->LoadState(state, 2, &error));
    EXPECT_NE(std::string::npos, error.find("not")) << error;
    std::string damaged = state;
    damaged[damaged.size() / 2] ^= 0x20;
    std::unique_ptr<Policy> fresh = NewPolicy(name, params, &error);
    EXPECT_FALSE(fresh->LoadState(damaged, 2, &error));
    EXPECT_NE(std::string::npos, error.find("checksum")) << error;
  }
}

}  // namespace
}  // namespace tierfs
