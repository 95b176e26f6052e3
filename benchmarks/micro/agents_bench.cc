// Microbenchmarks of the learning agents' I/O-path code (agents/rl/):
//   - inference per decision, Network::BestAction and QValues, for Harmonia's
//     7-10-2x51 (two tiers) and 8-10-3x51 (three tiers) and Sibyl's
//     8-20-30-2x51; harmonia.txt (section 4.6.2) reports 240 ns per
//     inference, TierFS's target is 100 ns;
//   - Distributions (std::exp softmax, for training targets), for comparison;
//   - ObservationEncoder::Encode, two and three tiers;
//   - one C51 projection of 51 atoms (the learner does `batch` per step);
//   - one training step of the LibTorch learner (a batch of 128, Harmonia's
//     placement agent; 256 for its migration agent), off the I/O path;
//   - the memory both of Harmonia's agents hold, and Sibyl's one, measured
//     (counters, see BM_Memory): real rl::Agents (buffers of 1000, filled,
//     trained a few steps so Adam's state exists) report the bytes of their
//     containers and tensors (Agent::MemoryBytes: the replay ring, LibTorch's
//     networks and Adam's moments, the exported and inference weights, the
//     scratch networks); heap_KiB checks them against what malloc handed out
//     for both agents (which adds LibTorch's bookkeeping). harmonia.txt
//     (4.6.1) reports 206 KiB; the target is 100 KiB.
//   - the copies' learned admission (agents/reuse_predictor.h): one access
//     noted, and one question (Value: features, the dot product, a sample
//     kept one time in four), its bytes at a capacity of 6,000 blocks
//     (a 26 MiB reserve of 4 KiB blocks).
// Inputs cycle through 256 different observations, so no run repeats one
// input back to back. The *Chained variants feed each decision into the next
// input: latency rather than throughput.
//
//   agents_bench [--benchmark_filter=BestAction] [--benchmark_repetitions=5]
#include <malloc.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>

#include "agents/rl/agent.h"
#include "agents/rl/c51.h"
#include "agents/rl/learner.h"
#include "agents/rl/features.h"
#include "agents/rl/network.h"
#include "agents/reuse_predictor.h"

namespace tierfs {
namespace rl {
namespace {

constexpr size_t kInputs = 256;  // distinct observations per run, a power of two

NetworkShape Shape(int inputs, std::vector<int> hidden, int actions) {
  NetworkShape s;
  s.inputs = inputs;
  s.hidden = std::move(hidden);
  s.actions = actions;
  s.atoms = 51;
  s.v_min = -10;
  s.v_max = 10;
  return s;
}
NetworkShape Harmonia2() { return Shape(7, {10}, 2); }
NetworkShape Harmonia3() { return Shape(8, {10}, 3); }
NetworkShape Sibyl() { return Shape(8, {20, 30}, 2); }

uint64_t Lcg(uint64_t* state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 33;
}

// kInputs observations of a `tiers`-tier store, with every field varied.
std::vector<Observation> Observations(int tiers) {
  std::vector<Observation> obs(kInputs);
  uint64_t state = 42;
  for (Observation& o : obs) {
    o.write = Lcg(&state) & 1;
    o.bytes = Lcg(&state) % (1 << 20);
    o.access_interval = Lcg(&state) % 100000;
    o.access_count = Lcg(&state) % 5000;
    o.migration_interval = Lcg(&state) % 100000;
    o.tier = int(Lcg(&state) % uint64_t(tiers + 1)) - 1;
    for (int t = 0; t < tiers; ++t) o.free_share.push_back(double(Lcg(&state) % 1000) / 1000);
  }
  return obs;
}

// The encoded observations, kInputs x inputs floats.
std::vector<float> EncodedInputs(int inputs) {
  const int tiers = inputs - 5;
  ObservationEncoder enc(tiers);
  std::vector<float> in(kInputs * size_t(inputs));
  const std::vector<Observation> obs = Observations(tiers);
  for (size_t i = 0; i < kInputs; ++i) enc.Encode(obs[i], in.data() + i * size_t(inputs));
  return in;
}

void BM_BestAction(benchmark::State& state, NetworkShape shape) {
  const Weights w = Weights::Random(shape, 1);
  Network net(shape);
  const std::vector<float> in = EncodedInputs(shape.inputs);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(net.BestAction(w, in.data() + i * size_t(shape.inputs)));
    i = (i + 1) & (kInputs - 1);
  }
  state.SetLabel(shape.Describe());
}

// Each decision's action picks the next input: one decision must finish
// before the next starts.
void BM_BestActionChained(benchmark::State& state, NetworkShape shape) {
  const Weights w = Weights::Random(shape, 1);
  Network net(shape);
  const std::vector<float> in = EncodedInputs(shape.inputs);
  size_t i = 0;
  for (auto _ : state) {
    const int action = net.BestAction(w, in.data() + i * size_t(shape.inputs));
    i = (i + 1 + size_t(action)) & (kInputs - 1);
  }
  benchmark::DoNotOptimize(i);
  state.SetLabel(shape.Describe());
}

void BM_QValues(benchmark::State& state, NetworkShape shape) {
  const Weights w = Weights::Random(shape, 1);
  Network net(shape);
  const std::vector<float> in = EncodedInputs(shape.inputs);
  std::vector<float> q(size_t(shape.actions));
  size_t i = 0;
  for (auto _ : state) {
    net.QValues(w, in.data() + i * size_t(shape.inputs), q.data());
    benchmark::ClobberMemory();
    i = (i + 1) & (kInputs - 1);
  }
  state.SetLabel(shape.Describe());
}

void BM_Distributions(benchmark::State& state, NetworkShape shape) {
  const Weights w = Weights::Random(shape, 1);
  Network net(shape);
  const std::vector<float> in = EncodedInputs(shape.inputs);
  std::vector<float> probs(size_t(shape.outputs()));
  size_t i = 0;
  for (auto _ : state) {
    net.Distributions(w, in.data() + i * size_t(shape.inputs), probs.data());
    benchmark::ClobberMemory();
    i = (i + 1) & (kInputs - 1);
  }
  state.SetLabel(shape.Describe());
}

void BM_Encode(benchmark::State& state) {
  const int tiers = int(state.range(0));
  const ObservationEncoder enc(tiers);
  const std::vector<Observation> obs = Observations(tiers);
  std::vector<float> out(size_t(enc.size()));
  size_t i = 0;
  for (auto _ : state) {
    enc.Encode(obs[i], out.data());
    benchmark::ClobberMemory();
    i = (i + 1) & (kInputs - 1);
  }
}

void BM_Project(benchmark::State& state) {
  constexpr int kAtoms = 51;
  std::vector<float> next(kAtoms), target(kAtoms);
  uint64_t seed = 7;
  double sum = 0;
  for (float& p : next) sum += (p = float(Lcg(&seed) % 1000 + 1));
  for (float& p : next) p = float(p / sum);
  std::vector<double> rewards(kInputs);
  for (double& r : rewards) r = double(Lcg(&seed) % 4001) / 200 - 10;  // [-10, 10]
  size_t i = 0;
  for (auto _ : state) {
    ProjectDistribution(kAtoms, -10, 10, rewards[i], 0.9, next.data(), false, target.data());
    benchmark::ClobberMemory();
    i = (i + 1) & (kInputs - 1);
  }
}

// One gradient step on a batch: a learner trained inline, one step per Add.
void BM_TrainStep(benchmark::State& state, int batch) {
  LearnerOptions o;
  o.shape = Harmonia2();
  o.batch = size_t(batch);
  o.buffer = 1000;
  o.train_every = 1;
  o.batches = 1;
  o.mode = LearnerOptions::Mode::kInline;
  Learner learner(o);
  const std::vector<float> in = EncodedInputs(o.shape.inputs);
  auto transition = [&](size_t i) {
    Transition t;
    t.state.assign(in.begin() + long(i * 7), in.begin() + long(i * 7 + 7));
    t.next.assign(in.begin() + long(((i + 1) % kInputs) * 7),
                  in.begin() + long(((i + 1) % kInputs) * 7 + 7));
    t.action = int(i & 1);
    t.reward = float(i % 10) / 10;
    return t;
  };
  for (size_t i = 0; i < o.buffer; ++i) learner.Add(transition(i % kInputs));  // fill first
  size_t i = 0;
  for (auto _ : state) {
    learner.Add(transition(i));  // one training step
    i = (i + 1) & (kInputs - 1);
  }
}

// An agent as a policy runs one (a 1000-transition buffer, inline training),
// brought to the state it spends most of its time in: the buffer full, Adam's
// moments made (a step every 250 transitions), inference weights swapped
// twice (at 500 and 1000 transitions), then one more step. So, as between
// two swaps of a run, the agent decides with one version, keeps the one it
// retired at the last swap (freed at the next), and the learner holds a
// newer one.
std::unique_ptr<Agent> BuiltAgent(const NetworkShape& shape, size_t batch, float discount) {
  AgentOptions o;
  o.learner.shape = shape;
  o.learner.batch = batch;
  o.learner.buffer = 1000;
  o.learner.train_every = 250;
  o.learner.batches = 1;
  o.learner.mode = LearnerOptions::Mode::kInline;
  auto agent = std::make_unique<Agent>(o);
  const size_t n = size_t(shape.inputs);
  const std::vector<float> in = EncodedInputs(shape.inputs);
  for (size_t i = 0; i < o.learner.buffer + o.learner.train_every; ++i) {
    Transition t;
    const size_t s = i % kInputs, next = (i + 1) % kInputs;
    t.state.assign(in.begin() + long(s * n), in.begin() + long(s * n + n));
    t.next.assign(in.begin() + long(next * n), in.begin() + long(next * n + n));
    t.action = int(i % size_t(shape.actions));
    t.reward = float(i % 10) / 10;
    t.discount = discount;
    agent->Learn(std::move(t));
    if ((i + 1) % 500 == 0 && i < o.learner.buffer) agent->Swap();
  }
  return agent;
}

// Bytes malloc has handed out and not taken back.
size_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Counters, in KiB: harmonia (both agents: Agent::MemoryBytes), its parts
// replay (the rings), training (LibTorch's networks and Adam's moments) and
// other (three weights copies an agent: the learner's newest, the one
// deciding, the one retired; eight scratch networks; the objects; the loss
// curve), heap (malloc's count for the two, with LibTorch's bookkeeping),
// sibyl (its one agent).
void BM_Memory(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
  BuiltAgent(Harmonia2(), 128, -1).reset();  // LibTorch's one-time allocations
  const size_t heap_before = HeapInUse();
  // Harmonia's placement (batch 128) and migration (batch 256) agents.
  std::unique_ptr<Agent> placement = BuiltAgent(Harmonia2(), 128, -1);
  std::unique_ptr<Agent> migration = BuiltAgent(Harmonia2(), 256, -1);
  const size_t heap = HeapInUse() - heap_before;
  double total = 0, replay = 0, training = 0;
  for (Agent* a : {placement.get(), migration.get()}) {
    const LearnerStats stats = a->learner().GetStats();
    total += double(a->MemoryBytes());
    replay += double(stats.replay_bytes);
    training += double(stats.training_bytes);
  }
  state.counters["harmonia_KiB"] = total / 1024;
  state.counters["harmonia_replay_KiB"] = replay / 1024;
  state.counters["harmonia_training_KiB"] = training / 1024;
  state.counters["harmonia_other_KiB"] = (total - replay - training) / 1024;
  state.counters["harmonia_heap_KiB"] = double(heap) / 1024;
  state.counters["weights_per_network_KiB"] =
      double(Harmonia2().ParameterCount()) * sizeof(float) / 1024;
  // Sibyl's one agent, 2-step returns (discount gamma^2).
  const std::unique_ptr<Agent> sibyl = BuiltAgent(Sibyl(), 128, 0.99f * 0.99f);
  state.counters["sibyl_KiB"] = double(sibyl->MemoryBytes()) / 1024;
}

}  // namespace
}  // namespace rl

namespace {

// The i-th access of the cycle the benchmarks draw: 64 files, `keys` pages,
// each brought back within the horizon.
Policy::CopyCandidate Candidate(uint64_t i, uint64_t keys) {
  Policy::CopyCandidate c;
  c.file_id = i % 64;
  c.page = (i * 7919) % keys;
  c.level = int(c.file_id % 4);
  c.kind = FileKind::kSst;
  c.frequency = uint32_t(i % 5);
  return c;
}

// A predictor warmed by 200,000 accesses, each also asked about.
std::unique_ptr<ReusePredictor> WarmPredictor(uint64_t keys) {
  auto p = std::make_unique<ReusePredictor>(ReusePredictor::Options());
  p->SetCapacity(6000);
  for (uint64_t i = 0; i < 200000; ++i) {
    p->NoteAccess(Candidate(i, keys));
    p->Value(Candidate(i, keys));
  }
  return p;
}

void BM_CopyValue(benchmark::State& state) {
  std::unique_ptr<ReusePredictor> p = WarmPredictor(10000);
  uint64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(p->Value(Candidate(i++, 10000)));
  state.counters["bytes_KiB"] = double(p->MemoryBytes()) / 1024;
}

void BM_CopyNoteAccess(benchmark::State& state) {
  std::unique_ptr<ReusePredictor> p = WarmPredictor(10000);
  uint64_t i = 0;
  for (auto _ : state) p->NoteAccess(Candidate(i++, 10000));
}

BENCHMARK(BM_CopyValue);
BENCHMARK(BM_CopyNoteAccess);

}  // namespace

namespace rl {
namespace {

BENCHMARK_CAPTURE(BM_TrainStep, batch128, 128)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TrainStep, batch256, 256)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Memory)->Iterations(1);
BENCHMARK_CAPTURE(BM_BestAction, harmonia_2tiers, Harmonia2());
BENCHMARK_CAPTURE(BM_BestAction, harmonia_3tiers, Harmonia3());
BENCHMARK_CAPTURE(BM_BestAction, sibyl, Sibyl());
BENCHMARK_CAPTURE(BM_BestActionChained, harmonia_2tiers, Harmonia2());
BENCHMARK_CAPTURE(BM_BestActionChained, harmonia_3tiers, Harmonia3());
BENCHMARK_CAPTURE(BM_BestActionChained, sibyl, Sibyl());
BENCHMARK_CAPTURE(BM_QValues, harmonia_2tiers, Harmonia2());
BENCHMARK_CAPTURE(BM_QValues, harmonia_3tiers, Harmonia3());
BENCHMARK_CAPTURE(BM_QValues, sibyl, Sibyl());
BENCHMARK_CAPTURE(BM_Distributions, harmonia_2tiers, Harmonia2());
BENCHMARK_CAPTURE(BM_Distributions, sibyl, Sibyl());
BENCHMARK(BM_Encode)->Arg(2)->Arg(3)->ArgName("tiers");
BENCHMARK(BM_Project);

}  // namespace
}  // namespace rl
}  // namespace tierfs

BENCHMARK_MAIN();
