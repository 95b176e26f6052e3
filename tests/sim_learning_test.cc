// A learning agent must learn: on a workload whose best placement is obvious
// — the fast tier holds everything, so every segment belongs there — a
// trained harmonia beats the same agent acting at random (epsilon = 1).
// Deterministic: the simulator trains inline.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tools/sim/simulator.h"

namespace tierfs {
namespace sim {
namespace {

constexpr uint64_t kSeg = 64 << 10;

// Writes to 6000 new segments, each followed by a read of a segment written
// before, 100 us of think time apart.
std::vector<TraceRecord> Workload() {
  std::vector<TraceRecord> trace;
  uint64_t t = 0, rng = 7;
  for (uint64_t i = 0; i < 6000; ++i) {
    TraceRecord w;
    w.time_ns = t += 100000;
    w.offset = i * kSeg;
    w.size = 4096;
    w.type = IoType::kWrite;
    w.kind = FileKind::kVolume;
    trace.push_back(w);
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    TraceRecord r = w;
    r.time_ns = t += 100000;
    r.offset = ((rng >> 33) % (i + 1)) * kSeg;
    r.type = IoType::kUserRead;
    trace.push_back(r);
  }
  return trace;
}

// harmonia over optane and sata-ssd, each holding everything.
SimConfig TwoTiers() {
  SimConfig c;
  SimTier fast, slow;
  fast.name = "/fast";
  fast.capacity = 1ull << 30;
  EXPECT_TRUE(ParseDeviceParams("optane", &fast.device).ok());
  slow.name = "/slow";
  slow.capacity = 1ull << 30;
  EXPECT_TRUE(ParseDeviceParams("sata-ssd", &slow.device).ok());
  c.tiers = {fast, slow};
  c.segment_size = kSeg;
  c.policy = "harmonia";
  return c;
}

SimResult Replay(const std::vector<TraceRecord>& trace, double epsilon) {
  SimConfig c = TwoTiers();
  c.policy_params["epsilon"] = std::to_string(epsilon);
  // The fill floor would promote read data for either agent: off, so that
  // the placement agent's own choices are what is measured.
  c.migration.fast_headroom_pct = 100;
  SimResult r;
  std::string error;
  EXPECT_TRUE(RunPolicy(trace, c, &r, &error)) << error;
  return r;
}

TEST(SimLearningTest, HarmoniaLearnsThePlacementARandomAgentMisses) {
  const std::vector<TraceRecord> trace = Workload();
  const SimResult random = Replay(trace, 1.0);
  const SimResult learned = Replay(trace, 0.001);
  // Random placement serves about half from the fast tier.
  EXPECT_NEAR(0.5, random.tiers[0].hit_ratio, 0.05);
  // The trained agent puts most new segments there...
  EXPECT_GT(learned.tiers[0].hit_ratio, 0.75);
  // ...and requests are faster for it.
  EXPECT_LT(learned.avg_latency_us, 0.8 * random.avg_latency_us);
  ASSERT_FALSE(learned.losses.empty());
  EXPECT_EQ("placement", learned.losses[0].agent);
  EXPECT_GT(learned.losses[0].points.size(), 100u);
}

// What a replay learned starts another (state=FILE, SimResult::
// policy_state): a replay too short to train gives back exactly the state
// it was offered, where a cold one gives back its own start; a state for
// another tier count, or no file, is an error naming it.
TEST(SimLearningTest, AReplayStartsFromTheStateAnotherLearned) {
  const SimResult trained = Replay(Workload(), 0.001);
  ASSERT_FALSE(trained.policy_state.empty());
  const std::string file = testing::TempDir() + "/harmonia.state";
  {
    std::ofstream out(file, std::ios::binary);
    out << trained.policy_state;
    ASSERT_TRUE(out.good());
  }
  std::vector<TraceRecord> few = Workload();
  few.resize(8);  // fewer transitions than a batch: no training step
  SimConfig c = TwoTiers();
  std::string error;
  SimResult cold, warm;
  ASSERT_TRUE(RunPolicy(few, c, &cold, &error)) << error;
  EXPECT_NE(trained.policy_state, cold.policy_state);
  c.policy_params[kStateParam] = file;
  ASSERT_TRUE(RunPolicy(few, c, &warm, &error)) << error;
  EXPECT_EQ(trained.policy_state, warm.policy_state);

  // Offered a missing file first, the run fails naming it.
  c.policy_params[kStateParam] = file + ".missing+" + file;
  EXPECT_FALSE(RunPolicy(few, c, &warm, &error));
  EXPECT_NE(std::string::npos, error.find(file + ".missing")) << error;
  // A path given whole (tierfs-sim run --state_in) may hold a '+'.
  const std::string plus = testing::TempDir() + "/harmonia+evict.state";
  {
    std::ofstream out(plus, std::ios::binary);
    out << trained.policy_state;
  }
  c.policy_params.erase(kStateParam);
  c.policy_state_files = {plus};
  ASSERT_TRUE(RunPolicy(few, c, &warm, &error)) << error;
  EXPECT_EQ(trained.policy_state, warm.policy_state);
  c.policy_state_files.clear();
  // Three tiers take no two-tier state: the refusal names the file.
  c.policy_params[kStateParam] = file;
  c.tiers.push_back(c.tiers.back());
  c.tiers.back().name = "/slower";
  EXPECT_FALSE(RunPolicy(few, c, &warm, &error));
  EXPECT_NE(std::string::npos, error.find("took none")) << error;
  EXPECT_NE(std::string::npos, error.find(file)) << error;
}

}  // namespace
}  // namespace sim
}  // namespace tierfs
