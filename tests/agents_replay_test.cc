// The learner's replay buffer (8-bit inputs, see ReplayCodec in
// agents/rl/learner.h) and the memory the learner and agent report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>

#include "agents/rl/agent.h"
#include "agents/rl/learner.h"
#include "agents/rl/network.h"

namespace tierfs {
namespace rl {
namespace {

NetworkShape Harmonia2() {
  NetworkShape s;
  s.inputs = 7;
  s.hidden = {10};
  s.actions = 2;
  return s;
}

// A learner that never trains: what goes in stays as stored.
LearnerOptions Untrained(size_t buffer) {
  LearnerOptions o;
  o.shape = Harmonia2();
  o.buffer = buffer;
  o.batch = buffer + 1;
  o.mode = LearnerOptions::Mode::kInline;
  return o;
}

// A transition with every input drawn from [0, 1].
Transition RandomTransition(std::mt19937* rng, int inputs) {
  std::uniform_real_distribution<float> unit(0, 1);
  Transition t;
  for (int i = 0; i < inputs; ++i) {
    t.state.push_back(unit(*rng));
    t.next.push_back(unit(*rng));
  }
  t.action = int((*rng)() % 2);
  t.reward = unit(*rng) * 20 - 10;
  t.terminal = (*rng)() % 2;
  return t;
}

TEST(ReplayTest, StoredTransitionsDecodeWithinHalfAQuantizationStep) {
  const LearnerOptions o = Untrained(64);
  Learner learner(o);
  std::mt19937 rng(7);
  std::vector<Transition> added;
  for (int i = 0; i < 64; ++i) {
    added.push_back(RandomTransition(&rng, o.shape.inputs));
    if (i % 3 == 0) added.back().discount = 0.99f * 0.99f;  // an n-step one
    learner.Add(added.back());
  }
  // The bound, plus the float rounding of the decoded value.
  const float bound = ReplayCodec::kInputBound + 1e-6f;
  for (size_t slot = 0; slot < added.size(); ++slot) {
    const Transition& in = added[slot];
    Transition out;
    ASSERT_TRUE(learner.Stored(slot, &out));
    ASSERT_EQ(in.state.size(), out.state.size());
    for (size_t i = 0; i < in.state.size(); ++i) {
      EXPECT_NEAR(in.state[i], out.state[i], bound) << "slot " << slot << " input " << i;
      EXPECT_NEAR(in.next[i], out.next[i], bound) << "slot " << slot << " input " << i;
    }
    EXPECT_EQ(in.action, out.action);
    EXPECT_EQ(in.terminal, out.terminal);
    EXPECT_EQ(in.reward, out.reward);  // float32, kept as is
    if (in.discount < 0) {
      EXPECT_EQ(float(o.gamma), out.discount);  // the default: gamma, exactly
    } else {
      EXPECT_NEAR(in.discount, out.discount, ReplayCodec::kDiscountBound + 1e-7f);
    }
  }
  Transition none;
  EXPECT_FALSE(learner.Stored(64, &none));
}

TEST(ReplayTest, TheBoundIsTightAndBinsStayApart) {
  // The worst case, halfway between two codes, is off by half a step.
  const float half = 0.5f / 255;
  EXPECT_NEAR(ReplayCodec::kInputBound,
              std::fabs(ReplayCodec::DecodeInput(ReplayCodec::EncodeInput(half)) - half), 1e-6f);
  // Harmonia's finest bins (64: k / 63) keep their order and stay distinct.
  for (int k = 0; k < 63; ++k) {
    EXPECT_LT(ReplayCodec::EncodeInput(float(k) / 63), ReplayCodec::EncodeInput(float(k + 1) / 63));
  }
  EXPECT_EQ(0, ReplayCodec::EncodeInput(0));
  EXPECT_EQ(255, ReplayCodec::EncodeInput(1));
}

// More actions than a record holds: LibTorch's half refuses the learner. The
// reason comes back as an exception (the store's exception boundary hands it
// to RocksDB as an IOError), never as a line on stderr.
TEST(ReplayTest, ALearnerThatCannotStartSaysWhyAndPrintsNothing) {
  LearnerOptions o = Untrained(4);
  o.shape.actions = ReplayCodec::kMaxActions + 1;
  std::FILE* sink = std::tmpfile();
  ASSERT_NE(nullptr, sink);
  fflush(stderr);
  const int saved = dup(2);
  ASSERT_EQ(2, dup2(fileno(sink), 2));
  std::string what;
  try {
    Learner learner(o);
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fseek(sink, 0, SEEK_END);
  const long printed = std::ftell(sink);  // bytes written to fd 2 meanwhile
  std::fclose(sink);
  EXPECT_NE(std::string::npos, what.find("the learner failed to start: LibTorch refused the "
                                         "learner: the replay buffer holds at most 128 actions"))
      << what;
  EXPECT_EQ(0, printed);
}

TEST(ReplayTest, InputsOutsideTheUnitIntervalAreClamped) {
  Learner learner(Untrained(4));
  Transition t;
  t.state = {-0.5f, 1.5f, std::numeric_limits<float>::quiet_NaN(), -1e9f, 1e9f, 0, 1};
  t.next = {2, -2, 0.5f, 0.25f, 0.75f, 1, 0};
  t.discount = 1.5f;
  learner.Add(t);
  Transition out;
  ASSERT_TRUE(learner.Stored(0, &out));
  EXPECT_EQ((std::vector<float>{0, 1, 0, 0, 1, 0, 1}), out.state);
  EXPECT_EQ(1.f, out.next[0]);
  EXPECT_EQ(0.f, out.next[1]);
  EXPECT_EQ(1.f, out.discount);
}

TEST(ReplayTest, TheRingOverwritesTheOldest) {
  Learner learner(Untrained(4));
  for (int i = 0; i < 6; ++i) {
    Transition t;
    t.state.assign(7, 0);
    t.next.assign(7, 0);
    t.reward = float(i);
    learner.Add(t);
  }
  // Slots 0 and 1 hold the fifth and sixth; 2 and 3 the third and fourth.
  const float rewards[4] = {4, 5, 2, 3};
  for (size_t slot = 0; slot < 4; ++slot) {
    Transition out;
    ASSERT_TRUE(learner.Stored(slot, &out));
    EXPECT_EQ(rewards[slot], out.reward);
  }
}

TEST(ReplayTest, InlineTrainingIsDeterministic) {
  LearnerOptions o;
  o.shape = Harmonia2();
  o.batch = 32;
  o.buffer = 200;
  o.train_every = 8;
  o.batches = 2;
  o.mode = LearnerOptions::Mode::kInline;
  Learner a(o), b(o);
  std::mt19937 rng(3);
  for (int i = 0; i < 600; ++i) {
    const Transition t = RandomTransition(&rng, o.shape.inputs);
    a.Add(t);
    b.Add(t);
  }
  EXPECT_GT(a.GetStats().steps, 100u);
  EXPECT_EQ(a.Snapshot()->params, b.Snapshot()->params);
}

TEST(ReplayTest, ASeedNamesOneStartWhileOtherLearnersStartBeside) {
  // LibTorch draws a new network's weights from its one process-wide
  // generator: learners started at once on two threads (two simulations of
  // one `tierfs-sim compare --jobs=2`) must still start from the weights
  // their own seeds name.
  LearnerOptions o = Untrained(64);
  o.seed = 5;
  const std::vector<float> alone = Learner(o).Snapshot()->params;
  LearnerOptions other = o;
  other.seed = 6;
  int differed = 0;
  for (int round = 0; round < 50; ++round) {
    std::thread beside([&] {
      for (int i = 0; i < 20; ++i) Learner l(other);
    });
    for (int i = 0; i < 20; ++i) differed += Learner(o).Snapshot()->params != alone;
    beside.join();
  }
  EXPECT_EQ(0, differed);
}

// The learner's figure is measured: Adam's moments appear with the first
// step, and the total for Harmonia's shape with a buffer of 1000 stays
// under 50 KiB while exceeding its ring alone.
TEST(LearnerMemoryTest, HarmoniaShapeWithAFullBufferHoldsUnder50KiB) {
  LearnerOptions o;
  o.shape = Harmonia2();
  o.buffer = 1000;
  o.batch = 128;
  o.train_every = 250;
  o.batches = 1;
  o.mode = LearnerOptions::Mode::kInline;
  Learner learner(o);
  const size_t params = o.shape.ParameterCount() * sizeof(float);
  const size_t ring = o.buffer * (2 * size_t(o.shape.inputs) + 7);
  const LearnerStats fresh = learner.GetStats();
  EXPECT_EQ(ring, fresh.replay_bytes);
  EXPECT_EQ(2 * params, fresh.training_bytes);  // online and target; no Adam state yet

  std::mt19937 rng(5);
  for (int i = 0; i < 1000; ++i) learner.Add(RandomTransition(&rng, o.shape.inputs));
  const LearnerStats stats = learner.GetStats();
  ASSERT_GE(stats.steps, 3u);
  EXPECT_EQ(4 * params, stats.training_bytes);  // plus Adam's two moments
  EXPECT_GE(stats.weights_bytes, params);
  EXPECT_EQ(stats.bytes, stats.replay_bytes + stats.training_bytes + stats.weights_bytes +
                             stats.curve_bytes + (fresh.bytes - fresh.replay_bytes -
                                                  fresh.training_bytes - fresh.weights_bytes -
                                                  fresh.curve_bytes));
  EXPECT_GT(stats.bytes, ring + 4 * params);
  EXPECT_LT(stats.bytes, 50u * 1024);
}

TEST(LearnerMemoryTest, AnAgentAddsItsInferenceCopies) {
  AgentOptions o;
  o.learner = Untrained(1000);
  Agent agent(o);
  const size_t learner = agent.learner().GetStats().bytes;
  // Deciding with the learner's own weights: only the scratch networks and
  // the agent itself are added.
  Network scratch(o.learner.shape);
  EXPECT_GE(agent.MemoryBytes(), learner + 8 * scratch.Bytes());
  EXPECT_LT(agent.MemoryBytes(), learner + 8 * scratch.Bytes() + 4096);
}

}  // namespace
}  // namespace rl
}  // namespace tierfs
