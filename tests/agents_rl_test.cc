// The learning agents' plain-C++ core: Table 2's bins and the observation
// vector (features.h), the network's forward pass (network.h) and C51's
// projection (c51.h). Expected values are worked out by hand (arithmetic in
// the comments) or by a straightforward double-precision reference here, never
// by the code under test.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <vector>

#include <gtest/gtest.h>

#include "agents/rl/c51.h"
#include "agents/rl/features.h"
#include "agents/rl/network.h"
#include "agents/rl/weights_io.h"

// Every allocation of the process, counted: the I/O-path calls must not add
// any. Out of line, so the compiler does not see malloc's memory reach an
// inlined delete (-Wmismatched-new-delete).
static std::atomic<uint64_t> g_allocations{0};

[[gnu::noinline]] void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

namespace tierfs {
namespace rl {
namespace {

using Enc = ObservationEncoder;

NetworkShape Shape(int inputs, std::vector<int> hidden, int actions, int atoms = 51,
                   double v_min = -10, double v_max = 10) {
  NetworkShape s;
  s.inputs = inputs;
  s.hidden = std::move(hidden);
  s.actions = actions;
  s.atoms = atoms;
  s.v_min = v_min;
  s.v_max = v_max;
  return s;
}
NetworkShape Harmonia() { return Shape(7, {10}, 2); }
NetworkShape Harmonia3() { return Shape(8, {10}, 3); }
NetworkShape Sibyl() { return Shape(8, {20, 30}, 2); }

// ---- Bins --------------------------------------------------------------------

TEST(SizeBinTest, PagesAtTheBoundaries) {
  EXPECT_EQ(Enc::SizeBin(0), 0);
  EXPECT_EQ(Enc::SizeBin(1), 0);
  EXPECT_EQ(Enc::SizeBin(4096), 0);     // 1 page
  EXPECT_EQ(Enc::SizeBin(4097), 1);     // 2 pages
  EXPECT_EQ(Enc::SizeBin(8192), 1);     // 2
  EXPECT_EQ(Enc::SizeBin(8193), 2);     // 3
  EXPECT_EQ(Enc::SizeBin(12288), 2);    // 3
  EXPECT_EQ(Enc::SizeBin(16384), 2);    // 4
  EXPECT_EQ(Enc::SizeBin(16385), 3);    // 5
  EXPECT_EQ(Enc::SizeBin(32768), 3);    // 8
  EXPECT_EQ(Enc::SizeBin(32769), 4);    // 9
  EXPECT_EQ(Enc::SizeBin(65536), 4);    // 16
  EXPECT_EQ(Enc::SizeBin(65537), 5);    // 17
  EXPECT_EQ(Enc::SizeBin(131072), 5);   // 32
  EXPECT_EQ(Enc::SizeBin(131073), 6);   // 33
  EXPECT_EQ(Enc::SizeBin(262144), 6);   // 64
  EXPECT_EQ(Enc::SizeBin(262145), 7);   // 65
  EXPECT_EQ(Enc::SizeBin(1 << 30), 7);
  EXPECT_EQ(Enc::SizeBin(std::numeric_limits<uint64_t>::max()), 7);
}

TEST(LogBinTest, HalvesOfEachOctave) {
  EXPECT_EQ(Enc::LogBin(0), 0);
  EXPECT_EQ(Enc::LogBin(1), 1);   // 1 + 2*0
  EXPECT_EQ(Enc::LogBin(2), 3);   // 1 + 2*1
  EXPECT_EQ(Enc::LogBin(3), 4);   // 1 + 2*1 + 1 (3 = 2 * 1.5)
  EXPECT_EQ(Enc::LogBin(4), 5);
  EXPECT_EQ(Enc::LogBin(5), 5);   // 4 * 1.25: the lower half
  EXPECT_EQ(Enc::LogBin(6), 6);
  EXPECT_EQ(Enc::LogBin(7), 6);
  EXPECT_EQ(Enc::LogBin(8), 7);
  EXPECT_EQ(Enc::LogBin(1000), 20);   // 2^9 = 512, 1000 / 512 = 1.95: 1 + 18 + 1
  EXPECT_EQ(Enc::LogBin(1 << 20), 41);
  EXPECT_EQ(Enc::LogBin((uint64_t(1) << 31) - 1), 62);  // upper half of 2^30's octave
  EXPECT_EQ(Enc::LogBin(uint64_t(1) << 31), 63);
  EXPECT_EQ(Enc::LogBin(uint64_t(1) << 40), 63);
  EXPECT_EQ(Enc::LogBin(std::numeric_limits<uint64_t>::max()), 63);
}

TEST(LogBinTest, MonotonicSaturatingAndCloseToLog) {
  int previous = 0;
  for (uint64_t v = 0; v < 200000; ++v) {
    const int bin = Enc::LogBin(v);
    ASSERT_GE(bin, previous) << v;
    ASSERT_LE(bin, 63) << v;
    if (v > 0) {  // 1 + floor(2 log2 v), log2 interpolated within octaves
      const int exact = 1 + int(std::floor(2 * std::log2(double(v))));
      ASSERT_LE(std::abs(bin - exact), 1) << v;
    }
    previous = bin;
  }
  for (int k = 17; k < 31; ++k) {
    EXPECT_EQ(Enc::LogBin(uint64_t(1) << k), 1 + 2 * k);  // exact at powers of two
  }
  for (int k = 32; k < 64; ++k) {
    EXPECT_EQ(Enc::LogBin(uint64_t(1) << k), 63);
    EXPECT_EQ(Enc::LogBin((uint64_t(1) << k) - 1), 63);
  }
}

TEST(FreeBinTest, EightEqualBinsClamped) {
  EXPECT_EQ(Enc::FreeBin(0), 0);
  EXPECT_EQ(Enc::FreeBin(0.124), 0);
  EXPECT_EQ(Enc::FreeBin(0.125), 1);
  EXPECT_EQ(Enc::FreeBin(0.5), 4);
  EXPECT_EQ(Enc::FreeBin(0.8749), 6);
  EXPECT_EQ(Enc::FreeBin(0.875), 7);
  EXPECT_EQ(Enc::FreeBin(0.999), 7);
  EXPECT_EQ(Enc::FreeBin(1), 7);
  EXPECT_EQ(Enc::FreeBin(1.5), 7);
  EXPECT_EQ(Enc::FreeBin(-0.25), 0);
  EXPECT_EQ(Enc::FreeBin(std::nan("")), 0);
}

// ---- Encode ------------------------------------------------------------------

TEST(EncodeTest, TwoTiers) {
  Enc enc(2);
  ASSERT_EQ(enc.size(), 7);
  Observation o;
  o.write = true;
  o.bytes = 12288;           // 3 pages: bin 2
  o.access_interval = 5;     // bin 5 (4..5: the lower half of 2^2's octave)
  o.access_count = 8;        // bin 7
  o.migration_interval = 1;  // bin 1
  o.tier = 1;
  o.free_share = {0.3, 0.9};  // tier 0: bin 2; the slowest tier is not a feature
  float out[8];
  out[7] = -42;  // must stay untouched
  enc.Encode(o, out);
  EXPECT_FLOAT_EQ(out[0], 1.0f);
  EXPECT_FLOAT_EQ(out[1], 2.0f / 7);
  EXPECT_FLOAT_EQ(out[2], 5.0f / 63);
  EXPECT_FLOAT_EQ(out[3], 7.0f / 63);
  EXPECT_FLOAT_EQ(out[4], 2.0f / 7);
  EXPECT_FLOAT_EQ(out[5], 1.0f);  // tier 1 of 0..1
  EXPECT_FLOAT_EQ(out[6], 1.0f / 63);
  EXPECT_EQ(out[7], -42);
}

TEST(EncodeTest, ThreeTiers) {
  Enc enc(3);
  ASSERT_EQ(enc.size(), 8);
  Observation o;
  o.write = false;
  o.bytes = 4096;                // 1 page: bin 0
  o.access_interval = 0;         // unknown: bin 0
  o.access_count = 1;            // bin 1
  o.migration_interval = uint64_t(1) << 31;  // bin 63
  o.tier = 1;
  o.free_share = {0.5, 0.125, 0.9};  // bins 4, 1
  float out[9];
  out[8] = -42;
  enc.Encode(o, out);
  EXPECT_FLOAT_EQ(out[0], 0.0f);
  EXPECT_FLOAT_EQ(out[1], 0.0f);
  EXPECT_FLOAT_EQ(out[2], 0.0f);
  EXPECT_FLOAT_EQ(out[3], 1.0f / 63);
  EXPECT_FLOAT_EQ(out[4], 4.0f / 7);
  EXPECT_FLOAT_EQ(out[5], 1.0f / 7);
  EXPECT_FLOAT_EQ(out[6], 0.5f);  // tier 1 of 0..2
  EXPECT_FLOAT_EQ(out[7], 1.0f);
  EXPECT_EQ(out[8], -42);

  o.tier = 0;
  enc.Encode(o, out);
  EXPECT_FLOAT_EQ(out[6], 0.0f);
  o.tier = 7;  // past the slowest: counts as the slowest
  enc.Encode(o, out);
  EXPECT_FLOAT_EQ(out[6], 1.0f);
}

TEST(EncodeTest, UnplacedSegmentIsOnTheSlowestTierWithoutIntervals) {
  Enc enc(3);
  Observation o;
  o.write = true;
  o.bytes = 1 << 20;           // 256 pages: bin 7
  o.access_interval = 7;       // ignored: not placed
  o.access_count = 2;          // bin 3
  o.migration_interval = 300;  // ignored: not placed
  o.tier = -1;
  o.free_share = {1.0, 0.0, 0.5};
  float out[8];
  enc.Encode(o, out);
  EXPECT_FLOAT_EQ(out[0], 1.0f);
  EXPECT_FLOAT_EQ(out[1], 1.0f);
  EXPECT_FLOAT_EQ(out[2], 0.0f);
  EXPECT_FLOAT_EQ(out[3], 3.0f / 63);
  EXPECT_FLOAT_EQ(out[4], 1.0f);
  EXPECT_FLOAT_EQ(out[5], 0.0f);
  EXPECT_FLOAT_EQ(out[6], 1.0f);
  EXPECT_FLOAT_EQ(out[7], 0.0f);
}

TEST(EncodeTest, MissingFreeSharesCountAsFull) {
  Enc enc(3);
  Observation o;
  o.tier = 0;
  o.free_share = {0.75};  // tier 1 missing
  float out[8];
  enc.Encode(o, out);
  EXPECT_FLOAT_EQ(out[4], 6.0f / 7);
  EXPECT_FLOAT_EQ(out[5], 0.0f);
}

// ---- NetworkShape, Weights ---------------------------------------------------

TEST(NetworkShapeTest, ParameterCount) {
  EXPECT_EQ(Harmonia().ParameterCount(), 7u * 10 + 10 + 10 * 102 + 102);  // 1202
  EXPECT_EQ(Harmonia3().ParameterCount(), 8u * 10 + 10 + 10 * 153 + 153);  // 1773
  EXPECT_EQ(Sibyl().ParameterCount(), 8u * 20 + 20 + 20 * 30 + 30 + 30 * 102 + 102);  // 3972
  EXPECT_EQ(Shape(2, {2}, 2, 3).ParameterCount(), 24u);
  EXPECT_EQ(Shape(3, {}, 2, 4).ParameterCount(), 3u * 8 + 8);
}

TEST(NetworkShapeTest, DescribeAndEquality) {
  EXPECT_EQ(Harmonia().Describe(), "7-10-2x51 [-10, 10]");
  EXPECT_EQ(Sibyl().Describe(), "8-20-30-2x51 [-10, 10]");
  EXPECT_EQ(Shape(2, {2}, 2, 3, -1, 0.5).Describe(), "2-2-2x3 [-1, 0.5]");
  EXPECT_TRUE(Harmonia() == Shape(7, {10}, 2));
  EXPECT_FALSE(Harmonia() == Shape(8, {10}, 2));
  EXPECT_FALSE(Harmonia() == Shape(7, {11}, 2));
  EXPECT_FALSE(Harmonia() == Shape(7, {10, 10}, 2));
  EXPECT_FALSE(Harmonia() == Shape(7, {10}, 3));
  EXPECT_FALSE(Harmonia() == Shape(7, {10}, 2, 21));
  EXPECT_FALSE(Harmonia() == Shape(7, {10}, 2, 51, -5, 10));
  EXPECT_FALSE(Harmonia() == Shape(7, {10}, 2, 51, -10, 5));
}

TEST(WeightsTest, RandomIsDeterministicXavierWithZeroBiases) {
  const NetworkShape shape = Sibyl();
  const Weights a = Weights::Random(shape, 7), b = Weights::Random(shape, 7);
  const Weights c = Weights::Random(shape, 8);
  ASSERT_EQ(a.params.size(), shape.ParameterCount());
  EXPECT_TRUE(a.shape == shape);
  EXPECT_EQ(a.params, b.params);
  EXPECT_NE(a.params, c.params);
  // Layer by layer: |w| <= sqrt(6 / (in + out)), spread over the range, mean ~0.
  size_t k = 0;
  int in = shape.inputs;
  std::vector<int> outs = shape.hidden;
  outs.push_back(shape.outputs());
  for (int out : outs) {
    const double limit = std::sqrt(6.0 / (in + out));
    double max_abs = 0, sum = 0;
    const size_t n = size_t(in) * size_t(out);
    for (size_t i = 0; i < n; ++i, ++k) {
      max_abs = std::max(max_abs, std::fabs(double(a.params[k])));
      sum += a.params[k];
    }
    EXPECT_LE(max_abs, limit) << in << "x" << out;
    EXPECT_GT(max_abs, 0.9 * limit) << in << "x" << out;
    EXPECT_LT(std::fabs(sum / double(n)), 0.25 * limit) << in << "x" << out;
    for (int i = 0; i < out; ++i, ++k) EXPECT_EQ(a.params[k], 0.0f);
    in = out;
  }
  EXPECT_EQ(k, a.params.size());
}

// ---- Forward pass ------------------------------------------------------------

// 2 inputs, one hidden layer of 2, 2 actions x 3 atoms on [-1, 1] (z = -1, 0, 1).
Weights TinyWeights() {
  Weights w;
  w.shape = Shape(2, {2}, 2, 3, -1, 1);
  w.params = {
      // hidden layer: W1 (2 x 2) row by row, then b1
      1, 0,     // unit 0
      0.5, -1,  // unit 1
      0, 1,     // b1
      // output layer: W2 (6 x 2) row by row, then b2
      0, 0,                // action 0, atom 0
      1, 0,                //           atom 1
      0, 0,                //           atom 2
      0, 1,                // action 1, atom 0
      0, 0,                //           atom 1
      2, 0,                //           atom 2
      0, 0, 2, 0, -1, 0,  // b2
  };
  return w;
}

// For x = (1, 2):
//   hidden pre-activations: 1*1 + 0*2 + 0 = 1;  0.5*1 - 1*2 + 1 = -0.5
//   swish: h0 = 1 / (1 + e^-1) = 0.7310585786;  h1 = -0.5 / (1 + e^0.5) = -0.1887703344
//   logits, action 0: (0, h0, 2);  action 1: (h1, -1, 2*h0) = (-0.18877, -1, 1.46212)
//   softmax 0: e^0 = 1, e^h0 = 2.07747, e^2 = 7.38906, sum 10.46653
//              -> (0.0955444, 0.1984724, 0.7059832)
//   softmax 1: e^h1 = 0.82798, e^-1 = 0.36788, e^1.46212 = 4.31540, sum 5.51126
//              -> (0.1502423, 0.0667544, 0.7830033)
//   Q = p2 - p0: 0.7059832 - 0.0955444 = 0.6104387;  0.7830033 - 0.1502423 = 0.6327610
TEST(NetworkTest, TinyNetworkByHand) {
  const Weights w = TinyWeights();
  ASSERT_EQ(w.params.size(), w.shape.ParameterCount());
  Network net(w.shape);
  const float x[2] = {1, 2};
  float probs[6];
  net.Distributions(w, x, probs);
  const float expected[6] = {0.0955444f, 0.1984724f, 0.7059832f,
                             0.1502423f, 0.0667544f, 0.7830033f};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(probs[i], expected[i], 2e-6) << i;
  float q[2];
  net.QValues(w, x, q);
  EXPECT_NEAR(q[0], 0.6104387f, 2e-6);
  EXPECT_NEAR(q[1], 0.6327610f, 2e-6);
  EXPECT_EQ(net.BestAction(w, x), 1);
}

// A straightforward forward pass in double precision with std::exp.
std::vector<double> ReferenceQ(const Weights& w, const float* in) {
  const NetworkShape& s = w.shape;
  std::vector<double> x(in, in + s.inputs);
  const float* p = w.params.data();
  std::vector<int> outs = s.hidden;
  outs.push_back(s.outputs());
  for (size_t layer = 0; layer < outs.size(); ++layer) {
    const int n = outs[layer];
    std::vector<double> y(size_t(n), 0.0);
    const float* bias = p + size_t(n) * x.size();
    for (int o = 0; o < n; ++o) {
      double sum = bias[o];
      for (size_t i = 0; i < x.size(); ++i) sum += double(p[size_t(o) * x.size() + i]) * x[i];
      y[size_t(o)] = layer + 1 < outs.size() ? sum / (1 + std::exp(-sum)) : sum;
    }
    p = bias + n;
    x = std::move(y);
  }
  std::vector<double> q;
  const double dz = (s.v_max - s.v_min) / (s.atoms - 1);
  for (int a = 0; a < s.actions; ++a) {
    const double* l = x.data() + size_t(a) * size_t(s.atoms);
    double m = l[0], sum = 0, expectation = 0;
    for (int i = 1; i < s.atoms; ++i) m = std::max(m, l[i]);
    for (int i = 0; i < s.atoms; ++i) {
      const double e = std::exp(l[i] - m);
      sum += e;
      expectation += e * (s.v_min + i * dz);
    }
    q.push_back(expectation / sum);
  }
  return q;
}

// Random weights with biases and weights scaled up, so the distributions are
// far from uniform and the hidden units reach swish's tails.
Weights Spiky(const NetworkShape& shape, uint64_t seed) {
  Weights w = Weights::Random(shape, seed);
  uint64_t state = seed * 7919 + 1;
  for (float& v : w.params) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const float noise = float(int64_t(state >> 33) % 2001 - 1000) / 1000.0f;  // [-1, 1]
    v = 3 * v + 2 * noise;
  }
  return w;
}

class NetworkShapesTest : public ::testing::TestWithParam<NetworkShape> {};

TEST_P(NetworkShapesTest, QValuesMatchStdExpReference) {
  const NetworkShape shape = GetParam();
  Network net(shape);
  uint64_t state = 12345;
  std::vector<float> in(size_t(shape.inputs));
  std::vector<float> q(size_t(shape.actions)), probs(size_t(shape.outputs()));
  int agree = 0, trials = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Weights w = seed % 2 ? Weights::Random(shape, seed) : Spiky(shape, seed);
    for (int trial = 0; trial < 50; ++trial, ++trials) {
      for (float& v : in) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = float(state >> 40) / float(1 << 24);  // [0, 1), like the encoder's output
      }
      const std::vector<double> ref = ReferenceQ(w, in.data());
      net.QValues(w, in.data(), q.data());
      int best_ref = 0;
      for (int a = 0; a < shape.actions; ++a) {
        ASSERT_NEAR(q[size_t(a)], ref[size_t(a)], 2e-4) << "seed " << seed << " action " << a;
        if (ref[size_t(a)] > ref[size_t(best_ref)]) best_ref = a;
      }
      agree += net.BestAction(w, in.data()) == best_ref;
      // Distributions: each action's atoms sum to 1 and give the same Q.
      net.Distributions(w, in.data(), probs.data());
      const double dz = (shape.v_max - shape.v_min) / (shape.atoms - 1);
      for (int a = 0; a < shape.actions; ++a) {
        double sum = 0, expectation = 0;
        for (int i = 0; i < shape.atoms; ++i) {
          const double p = probs[size_t(a * shape.atoms + i)];
          ASSERT_GE(p, 0.0);
          sum += p;
          expectation += p * (shape.v_min + i * dz);
        }
        ASSERT_NEAR(sum, 1.0, 1e-5);
        ASSERT_NEAR(expectation, ref[size_t(a)], 2e-4);
      }
    }
  }
  // Only near-ties may disagree with the reference.
  EXPECT_GE(agree, trials - 2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, NetworkShapesTest,
                         ::testing::Values(Harmonia(), Harmonia3(), Sibyl(),
                                           Shape(2, {2}, 2, 3, -1, 1), Shape(3, {}, 4, 5),
                                           Shape(33, {40}, 2, 11, -3, 7),
                                           // too few weights after the last row
                                           // for it to be read eight at a time
                                           Shape(3, {}, 1, 2, -1, 1), Shape(13, {}, 1, 2),
                                           Shape(6, {5}, 1, 3, 0, 1)));

// Logits spread far apart within an action (beyond what shifting by the
// first logit allows: the max is needed) or far below it.
TEST(NetworkTest, WideLogitsMatchReference) {
  const NetworkShape shape = Harmonia();
  Weights w = Weights::Random(shape, 9);
  const size_t output_start = 7 * 10 + 10, biases = output_start + 102 * 10;
  for (size_t i = output_start; i < biases; ++i) w.params[i] *= 0.01f;
  Network net(shape);
  const float in[7] = {0.5f, 0.25f, 1, 0, 0.75f, 1, 0.125f};
  for (int pattern = 0; pattern < 4; ++pattern) {
    for (int i = 0; i < 51; ++i) {
      float& b0 = w.params[biases + size_t(i)];
      float& b1 = w.params[biases + 51 + size_t(i)];
      switch (pattern) {
        case 0: b0 = 3.0f * i, b1 = -3.0f * i; break;           // rising 150 / falling 150
        case 1: b0 = i == 0 ? -1000.0f : 0, b1 = i == 7 ? 90.0f : 0; break;  // first far below
        case 2: b0 = i == 50 ? 70.0f : 0, b1 = i == 50 ? 60.0f : 0; break;   // either side of 64
        case 3: b0 = 200.0f + i, b1 = -200.0f - (i % 5); break;  // far from 0 both ways
      }
    }
    const std::vector<double> ref = ReferenceQ(w, in);
    float q[2];
    net.QValues(w, in, q);
    EXPECT_NEAR(q[0], ref[0], 1e-4) << pattern;
    EXPECT_NEAR(q[1], ref[1], 1e-4) << pattern;
    EXPECT_EQ(net.BestAction(w, in), ref[1] > ref[0] ? 1 : 0) << pattern;
  }
}

TEST(NetworkTest, BestActionTiesGoToTheLowestIndex) {
  // All output weights and biases 0: every distribution is uniform, every Q 0.
  Weights w = Weights::Random(Harmonia(), 3);
  const size_t output_start = 7 * 10 + 10;
  for (size_t i = output_start; i < w.params.size(); ++i) w.params[i] = 0;
  Network net(w.shape);
  const float in[7] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f};
  EXPECT_EQ(net.BestAction(w, in), 0);

  // Three actions: action 0 worse, actions 1 and 2 identical (copied rows and
  // biases) and better: 1 wins.
  const NetworkShape shape = Harmonia3();
  Weights v = Weights::Random(shape, 4);
  const size_t start = 8 * 10 + 10, atoms = 51, in_width = 10;
  const size_t weights_end = start + 3 * atoms * in_width;
  for (size_t i = 0; i < atoms * in_width; ++i) {
    v.params[start + 2 * atoms * in_width + i] = v.params[start + atoms * in_width + i];
  }
  for (size_t i = 0; i < atoms; ++i) {
    v.params[weights_end + 2 * atoms + i] = v.params[weights_end + atoms + i] = 0.2f * i;
    v.params[weights_end + i] = -0.2f * i;
  }
  Network net3(shape);
  const float in3[8] = {0.9f, 0.1f, 0.5f, 0.5f, 0.2f, 0.7f, 0.0f, 1.0f};
  float q[3];
  net3.QValues(v, in3, q);
  EXPECT_EQ(q[1], q[2]);
  EXPECT_GT(q[1], q[0]);
  EXPECT_EQ(net3.BestAction(v, in3), 1);
  // A mask (PlacementRequest::allowed): the best of the allowed actions;
  // none allowed means all.
  EXPECT_EQ(net3.BestAction(v, in3, 0b101), 2);
  EXPECT_EQ(net3.BestAction(v, in3, 0b001), 0);
  EXPECT_EQ(net3.BestAction(v, in3, 0b011), 1);
  EXPECT_EQ(net3.BestAction(v, in3, 0), 1);
}

TEST(NetworkTest, HotPathDoesNotAllocate) {
  Enc enc(3);
  Observation o;
  o.write = true;
  o.bytes = 65536;
  o.access_interval = 100;
  o.access_count = 12;
  o.migration_interval = 4000;
  o.tier = 1;
  o.free_share = {0.2, 0.6, 0.9};
  const Weights w = Weights::Random(Harmonia3(), 5);
  Network net(Harmonia3());
  float in[8], q[3];
  const uint64_t before = g_allocations.load();
  int sum = 0;
  for (int i = 0; i < 100; ++i) {
    enc.Encode(o, in);
    net.QValues(w, in, q);
    sum += net.BestAction(w, in);
  }
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GE(sum, 0);
  // The counter does count: a vector allocates (kept through a volatile
  // pointer, or the compiler may elide the allocation).
  std::vector<int>* volatile v = new std::vector<int>(10);
  delete v;
  EXPECT_GT(g_allocations.load(), before);
}

// ---- C51 projection ----------------------------------------------------------

// 5 atoms on [-2, 2]: z = -2, -1, 0, 1, 2, dz = 1.
constexpr int kAtoms = 5;
const float kNext[kAtoms] = {0.1f, 0.2f, 0.3f, 0.25f, 0.15f};

void ExpectTarget(const float* got, std::vector<float> want) {
  for (int i = 0; i < kAtoms; ++i) EXPECT_NEAR(got[i], want[size_t(i)], 1e-6) << "atom " << i;
}

TEST(ProjectTest, ByHand) {
  // r = 0.5, gamma = 0.5: Tz = 0.5 + 0.5 z = (-0.5, 0, 0.5, 1, 1.5)
  //   b = Tz + 2 = (1.5, 2, 2.5, 3, 3.5)
  //   j0 b 1.5: m1 += 0.1 * 0.5 = 0.05,  m2 += 0.05
  //   j1 b 2  : l == u, m2 += 0.2
  //   j2 b 2.5: m2 += 0.15, m3 += 0.15
  //   j3 b 3  : l == u, m3 += 0.25
  //   j4 b 3.5: m3 += 0.075, m4 += 0.075
  //   m = (0, 0.05, 0.05 + 0.2 + 0.15, 0.15 + 0.25 + 0.075, 0.075) = (0, 0.05, 0.4, 0.475, 0.075)
  float target[kAtoms + 1];
  target[kAtoms] = -42;
  ProjectDistribution(kAtoms, -2, 2, 0.5, 0.5, kNext, false, target);
  ExpectTarget(target, {0, 0.05f, 0.4f, 0.475f, 0.075f});
  EXPECT_EQ(target[kAtoms], -42);
}

TEST(ProjectTest, WholeNumberPositionsKeepTheirMass) {
  // r = 1, gamma = 1: every atom moves up exactly one (l == u everywhere),
  // the top one clamped onto itself: (0, 0.1, 0.2, 0.3, 0.25 + 0.15).
  // Nothing may be added past the top atom, not even 0: the sentinel after
  // it is -0, which + 0 would turn into +0.
  float target[kAtoms + 1];
  target[kAtoms] = -0.0f;
  ProjectDistribution(kAtoms, -2, 2, 1, 1, kNext, false, target);
  ExpectTarget(target, {0, 0.1f, 0.2f, 0.3f, 0.4f});
  EXPECT_TRUE(std::signbit(target[kAtoms]));
  // r = 0, gamma = 1: the identity.
  ProjectDistribution(kAtoms, -2, 2, 0, 1, kNext, false, target);
  ExpectTarget(target, {0.1f, 0.2f, 0.3f, 0.25f, 0.15f});
  EXPECT_TRUE(std::signbit(target[kAtoms]));
}

TEST(ProjectTest, ClampsAtBothEnds) {
  float target[kAtoms];
  // r = 5, gamma = 0.9: Tz >= 5 - 1.8 = 3.2 > 2: everything on the top atom.
  ProjectDistribution(kAtoms, -2, 2, 5, 0.9, kNext, false, target);
  ExpectTarget(target, {0, 0, 0, 0, 1});
  // r = -5: everything on the bottom atom.
  ProjectDistribution(kAtoms, -2, 2, -5, 0.9, kNext, false, target);
  ExpectTarget(target, {1, 0, 0, 0, 0});
  // r = 1.5, gamma = 1: Tz = (-0.5, 0.5, 1.5, 2.5 -> 2, 3.5 -> 2), b = (1.5, 2.5, 3.5, 4, 4)
  //   m1 += 0.05, m2 += 0.05;  m2 += 0.1, m3 += 0.1;  m3 += 0.15, m4 += 0.15;
  //   m4 += 0.25;  m4 += 0.15  ->  (0, 0.05, 0.15, 0.25, 0.55)
  ProjectDistribution(kAtoms, -2, 2, 1.5, 1, kNext, false, target);
  ExpectTarget(target, {0, 0.05f, 0.15f, 0.25f, 0.55f});
  // r = -1.5, gamma = 1: Tz = (-3.5 -> -2, -2.5 -> -2, -1.5, -0.5, 0.5), b = (0, 0, 0.5, 1.5, 2.5)
  //   m0 += 0.1;  m0 += 0.2;  m0 += 0.15, m1 += 0.15;  m1 += 0.125, m2 += 0.125;
  //   m2 += 0.075, m3 += 0.075  ->  (0.45, 0.275, 0.2, 0.075, 0)
  ProjectDistribution(kAtoms, -2, 2, -1.5, 1, kNext, false, target);
  ExpectTarget(target, {0.45f, 0.275f, 0.2f, 0.075f, 0});
}

TEST(ProjectTest, TerminalIsTheRewardAlone) {
  const float nan = std::nanf("");
  const float ignored[kAtoms] = {nan, nan, nan, nan, nan};
  float target[kAtoms];
  // b = 0.25 + 2 = 2.25: m2 = 0.75, m3 = 0.25.
  ProjectDistribution(kAtoms, -2, 2, 0.25, 0.9, ignored, true, target);
  ExpectTarget(target, {0, 0, 0.75f, 0.25f, 0});
  ProjectDistribution(kAtoms, -2, 2, 1, 0.9, ignored, true, target);
  ExpectTarget(target, {0, 0, 0, 1, 0});
  ProjectDistribution(kAtoms, -2, 2, -3, 0.9, ignored, true, target);
  ExpectTarget(target, {1, 0, 0, 0, 0});
  ProjectDistribution(kAtoms, -2, 2, 7, 0.9, ignored, true, target);
  ExpectTarget(target, {0, 0, 0, 0, 1});
}

TEST(ProjectTest, TargetIsADistributionAndStaysInBounds) {
  constexpr int atoms = 51;
  uint64_t state = 99;
  auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1.0p-53;
  };
  std::vector<float> next(atoms), target(atoms + 1);
  for (int trial = 0; trial < 2000; ++trial) {
    double sum = 0;
    for (float& p : next) sum += (p = float(uniform()));
    for (float& p : next) p = float(p / sum);
    const double reward = 30 * uniform() - 15;  // past both ends sometimes
    const double gamma = trial % 10 == 0 ? 1.0 : uniform();
    target[atoms] = -42;
    ProjectDistribution(atoms, -10, 10, reward, gamma, next.data(), trial % 7 == 0,
                        target.data());
    double total = 0, mean = 0;
    for (int i = 0; i < atoms; ++i) {
      ASSERT_GE(target[size_t(i)], 0.0f);
      total += target[size_t(i)];
      mean += target[size_t(i)] * (-10 + 0.4 * i);
    }
    ASSERT_NEAR(total, 1.0, 1e-5) << trial;
    ASSERT_EQ(target[atoms], -42) << trial;
    // The projection keeps the mean of the clamped values.
    double want = 0;
    for (int j = 0; j < atoms; ++j) {
      const double tz = trial % 7 == 0 ? reward : reward + gamma * (-10 + 0.4 * j);
      want += (trial % 7 == 0 ? (j == 0) : next[size_t(j)]) * std::min(10.0, std::max(-10.0, tz));
    }
    ASSERT_NEAR(mean, want, 1e-4) << trial;
  }
  // The top of the support exactly, where (v_max - v_min) / dz may round past
  // atoms - 1: on [-13.7, 13.7], 27.4 / (27.4 / 50) = 50.00000000000001. A
  // write past the end would put ~1e-14 into the 0 after the target.
  for (double v_max : {10.0, 13.7, 1.0, 0.3}) {
    target[atoms] = 0;
    ProjectDistribution(atoms, -v_max, v_max, v_max, 0.5, next.data(), true, target.data());
    EXPECT_NEAR(target[atoms - 1], 1.0f, 1e-6) << v_max;
    EXPECT_EQ(target[atoms], 0) << v_max;
    ProjectDistribution(atoms, -v_max, v_max, 0, 1.0, next.data(), false, target.data());
    EXPECT_NEAR(target[atoms - 1], next[atoms - 1], 1e-6) << v_max;
    EXPECT_EQ(target[atoms], 0) << v_max;
  }
}

// Found by tests/fuzz/agents_fuzzer: a saved shape whose actions x atoms
// overflows an int (65,536 x 65,536) was taken in, its parameter count
// computed with undefined behaviour; such a state is damage.
TEST(WeightsIoTest, AShapeTooWideForTheNetworkIsRefused) {
  Weights w;
  w.shape.inputs = 4;
  w.shape.actions = 1 << 16;
  w.shape.atoms = 1 << 16;
  NamedWeights sets, out;
  sets.push_back({"placement", w});
  std::string error;
  EXPECT_FALSE(DecodeWeights(EncodeWeights("sibyl", sets), "sibyl", &out, &error));
  EXPECT_NE(std::string::npos, error.find("malformed at weight set 0")) << error;
}

// A network with no parameters at all reads back (its empty array used to
// be copied from with memcpy's null pointer).
TEST(WeightsIoTest, AnEmptyNetworkRoundTrips) {
  Weights w;
  w.shape.inputs = 0;
  w.shape.hidden.clear();
  w.shape.actions = 0;
  w.shape.atoms = 0;
  NamedWeights sets, out;
  sets.push_back({"placement", w});
  std::string error;
  ASSERT_TRUE(DecodeWeights(EncodeWeights("sibyl", sets), "sibyl", &out, &error)) << error;
  ASSERT_EQ(1u, out.size());
  EXPECT_TRUE(out[0].second.shape == w.shape);
  EXPECT_TRUE(out[0].second.params.empty());
}

}  // namespace
}  // namespace rl
}  // namespace tierfs
