// The agents' network in plain C++ (network.h): inference on the I/O path
// (QValues, BestAction) without allocation and without libm.
//
// Two implementations of the forward pass, chosen once at load time:
//   - AVX2 + FMA (x86-64 CPUs since 2013), for layers up to 32 inputs wide
//     (every shape the agents use): each output is the dot product of its
//     weight row with the layer's input held in registers, eight outputs at a
//     time reduced together (Reduce8); the softmax and the expectation over
//     the atoms run eight atoms at a time (QFastAvx).
//   - portable C++ for everything else (and with -DTIERFS_RL_NO_SIMD).
// Both compute exp with FastExp2 below (swish in the hidden layers, the
// softmax of QValues and BestAction), relative error about 2e-7; the AVX2
// softmax uses a cheaper one (3e-6, Exp2SoftmaxAvx). Q-values come within
// 4e-5 (mean 2.5e-6) of a double-precision std::exp forward pass on the
// support [-10, 10] (7-10-2x51, 20,000 random inputs and weights, measured).
// Distributions feeds training targets and uses std::exp for its softmax.
//
// Memory reads never go past the caller's input or the weights. The input's
// last chunk is read with a masked load, so its lanes past the layer's width
// are 0; a weight row's last chunk is read whole, running into the next row
// (those weights then count 0 times: harmless unless infinite or NaN, when
// the network is broken anyway), except where that would run past the end
// of the weights: there a masked load. Scratch buffers are padded to a
// multiple of eight floats (plus eight for the logits), so eight-wide stores
// of a layer's last outputs and eight-wide loads of an action's last atoms
// stay inside them.
#include "agents/rl/network.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "util/splitmix64.h"

#if !defined(TIERFS_RL_NO_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TIERFS_RL_AVX2 1
#include <immintrin.h>
#endif

namespace tierfs {
namespace rl {

namespace {

constexpr int kLanes = 8;

int RoundUp(int n, int m) { return (n + m - 1) / m * m; }

// FastExp2(t) = 2^t: t = n + f with n = round(t), f in [-0.5, 0.5]; 2^f from
// a degree-5 polynomial (least squares in relative error on [-0.5, 0.5],
// 1.04e-7), 2^n added to its exponent bits: 1.6e-7 relative error in all,
// measured. t is clamped to [-125, 126] (NaN to -125), so the result stays a
// normal, finite float. exp(x) = FastExp2(x * log2(e)) adds the rounding of
// the product: relative error 1.6e-7 + 9e-8 |x| for x in [-86, 87] (4e-7 for
// |x| <= 4), about 2e-38 below and 8.5e37 above.
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kExpMinT = -125.0f, kExpMaxT = 126.0f;
constexpr float kExpC1 = 0.693146856f, kExpC2 = 0.24022238f, kExpC3 = 0.0555089295f,
                kExpC4 = 0.00967169794f, kExpC5 = 0.00132186725f;

inline float FastExp2(float t) {
  if (!(t >= kExpMinT)) t = kExpMinT;
  if (t > kExpMaxT) t = kExpMaxT;
  const int n = int(t + (t >= 0 ? 0.5f : -0.5f));  // round half away from zero
  const float f = t - float(n);
  float p = ((((kExpC5 * f + kExpC4) * f + kExpC3) * f + kExpC2) * f + kExpC1) * f + 1.0f;
  uint32_t bits;
  std::memcpy(&bits, &p, sizeof(bits));
  bits += uint32_t(n) << 23;
  std::memcpy(&p, &bits, sizeof(p));
  return p;
}

// x * sigmoid(x).
inline float Swish(float x) { return x / (1.0f + FastExp2(-x * kLog2e)); }

// ---- Portable ----------------------------------------------------------------

// y = W x + bias (W out x in, row-major), through swish if `swish`.
void DensePortable(const float* w, const float* bias, const float* x, int in, int out, float* y,
                   bool swish) {
  for (int o = 0; o < out; ++o) {
    const float* row = w + size_t(o) * size_t(in);
    float s = 0;
    for (int i = 0; i < in; ++i) s += row[i] * x[i];
    s += bias[o];
    y[o] = swish ? Swish(s) : s;
  }
}

// sum_i softmax(l)_i * z_i with z_i = v_min + i * dz, through FastExp2.
float QPortable(const float* l, int atoms, float v_min, float dz) {
  float m = l[0];
  for (int i = 1; i < atoms; ++i) m = l[i] > m ? l[i] : m;
  float s = 0, t = 0;
  for (int i = 0; i < atoms; ++i) {
    const float e = FastExp2((l[i] - m) * kLog2e);
    s += e;
    t += e * float(i);
  }
  return v_min + dz * (t / s);
}

// ---- AVX2 + FMA --------------------------------------------------------------

#ifdef TIERFS_RL_AVX2
#define TIERFS_AVX2 __attribute__((target("avx2,fma")))

// Eight -1 then eight 0: the mask of the first n lanes (1 <= n <= 8) starts
// at kMaskTable + 8 - n.
alignas(64) const int32_t kMaskTable[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                            0,  0,  0,  0,  0,  0,  0,  0};

TIERFS_AVX2 inline __m256i FirstLanes(int n) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMaskTable + kLanes - n));
}

TIERFS_AVX2 inline __m256 Exp2Avx(__m256 t) {
  t = _mm256_max_ps(t, _mm256_set1_ps(kExpMinT));  // NaN -> the minimum
  t = _mm256_min_ps(t, _mm256_set1_ps(kExpMaxT));
  const __m256 n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 f = _mm256_sub_ps(t, n);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kExpC5), f, _mm256_set1_ps(kExpC4));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(kExpC3));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(kExpC2));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(kExpC1));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
}

// Exp2Avx for t <= 126 (no upper clamp) with a degree-4 polynomial (least
// squares, max relative error 3.1e-6): for the softmax of QFastAvx, whose
// arguments never exceed kMaxSpread * log2(e) and which needs ~1e-5.
TIERFS_AVX2 inline __m256 Exp2SoftmaxAvx(__m256 t) {
  t = _mm256_max_ps(t, _mm256_set1_ps(kExpMinT));  // NaN -> the minimum
  const __m256 n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 f = _mm256_sub_ps(t, n);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0.00960039552f), f, _mm256_set1_ps(0.0559168938f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.240237185f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(0.693121995f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
}

TIERFS_AVX2 inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

TIERFS_AVX2 inline __m256 HorizontalMax(__m256 v) {  // the maximum in every lane
  v = _mm256_max_ps(v, _mm256_permute2f128_ps(v, v, 0x01));
  v = _mm256_max_ps(v, _mm256_permute_ps(v, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm256_max_ps(v, _mm256_permute_ps(v, _MM_SHUFFLE(2, 3, 0, 1)));
}

// Chunk c of a weight row: the last one masked by `tail` if kMasked, else
// read whole (past the row's end).
template <int C, bool kMasked>
TIERFS_AVX2 inline __m256 RowChunk(const float* row, int c, __m256i tail) {
  return kMasked && c == C - 1 ? _mm256_maskload_ps(row + kLanes * c, tail)
                               : _mm256_loadu_ps(row + kLanes * c);
}

// The eight lanes of `row` (C chunks) times x, whose lanes past the layer's
// width are 0.
template <int C, bool kMasked>
TIERFS_AVX2 inline __m256 RowDot(const float* row, const __m256* x, __m256i tail) {
  __m256 acc = _mm256_mul_ps(RowChunk<C, kMasked>(row, 0, tail), x[0]);
#pragma GCC unroll 4
  for (int c = 1; c < C; ++c) acc = _mm256_fmadd_ps(RowChunk<C, kMasked>(row, c, tail), x[c], acc);
  return acc;
}

// [x.lo + x.hi | y.lo + y.hi]: one cross-lane shuffle, one blend.
TIERFS_AVX2 inline __m256 FoldHalves(__m256 x, __m256 y) {
  return _mm256_add_ps(_mm256_permute2f128_ps(x, y, 0x21), _mm256_blend_ps(x, y, 0xF0));
}
// Per 128-bit lane: [x0 + x2, x1 + x3, y0 + y2, y1 + y3].
TIERFS_AVX2 inline __m256 FoldQuarters(__m256 x, __m256 y) {
  return _mm256_add_ps(_mm256_shuffle_ps(x, y, _MM_SHUFFLE(1, 0, 3, 2)),
                       _mm256_blend_ps(x, y, 0xCC));
}

// The sums of a0 .. a7's lanes, in lanes 0 .. 7. Shuffles are the scarce
// resource (one or two a cycle): 8 of them, with 6 blends and 7 adds, where
// the textbook tree of vhaddps takes 14.
TIERFS_AVX2 inline __m256 Reduce8(__m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256 a4,
                                  __m256 a5, __m256 a6, __m256 a7) {
  // Row r's partial sums in the low half, row r + 4's in the high half.
  const __m256 b0 = FoldHalves(a0, a4), b1 = FoldHalves(a1, a5);
  const __m256 b2 = FoldHalves(a2, a6), b3 = FoldHalves(a3, a7);
  // Low half: two partial sums each of rows 0, 1 (c01) or 2, 3 (c23).
  const __m256 c01 = FoldQuarters(b0, b1), c23 = FoldQuarters(b2, b3);
  return _mm256_hadd_ps(c01, c23);
}

// DensePortable for in <= 8 * C, eight outputs at a time. y has room for
// RoundUp(out, 8) values; those past `out` are scratch. Unless kMasked, the
// last chunk of every row is read whole: REQUIRES 8 * C - in readable floats
// after the last row.
template <int C, bool kMasked>
TIERFS_AVX2 void DenseAvx(const float* w, const float* bias, const float* x, int in, int out,
                          float* y, bool swish) {
  const __m256i tail = FirstLanes(in - kLanes * (C - 1));
  __m256 xv[C];
#pragma GCC unroll 4
  for (int c = 0; c < C - 1; ++c) xv[c] = _mm256_loadu_ps(x + kLanes * c);
  xv[C - 1] = _mm256_maskload_ps(x + kLanes * (C - 1), tail);
  const size_t stride = size_t(in);
  for (int o = 0; o < out; o += kLanes) {
    const int rows = out - o < kLanes ? out - o : kLanes;
    const float* r0 = w + size_t(o) * stride;
    const float* last = r0 + size_t(rows - 1) * stride;  // stands in for rows past `out`
    auto row = [&](int r) { return r < rows ? r0 + size_t(r) * stride : last; };
    __m256 s = Reduce8(
        RowDot<C, kMasked>(row(0), xv, tail), RowDot<C, kMasked>(row(1), xv, tail),
        RowDot<C, kMasked>(row(2), xv, tail), RowDot<C, kMasked>(row(3), xv, tail),
        RowDot<C, kMasked>(row(4), xv, tail), RowDot<C, kMasked>(row(5), xv, tail),
        RowDot<C, kMasked>(row(6), xv, tail), RowDot<C, kMasked>(row(7), xv, tail));
    s = _mm256_add_ps(s, rows == kLanes ? _mm256_loadu_ps(bias + o)
                                        : _mm256_maskload_ps(bias + o, FirstLanes(rows)));
    if (swish) {
      const __m256 e = Exp2Avx(_mm256_mul_ps(s, _mm256_set1_ps(-kLog2e)));
      s = _mm256_div_ps(s, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
    }
    _mm256_storeu_ps(y + o, s);
  }
}

// QPortable eight atoms at a time. l may be read up to RoundUp(atoms, 8)
// values; those past `atoms` are ignored.
TIERFS_AVX2 float QStableAvx(const float* l, int atoms, float v_min, float dz) {
  const int chunks = (atoms + kLanes - 1) / kLanes;
  const __m256 tail = _mm256_castsi256_ps(FirstLanes(atoms - kLanes * (chunks - 1)));
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 m = neg_inf;
  for (int c = 0; c < chunks - 1; ++c) m = _mm256_max_ps(m, _mm256_loadu_ps(l + kLanes * c));
  m = _mm256_max_ps(
      m, _mm256_blendv_ps(neg_inf, _mm256_loadu_ps(l + kLanes * (chunks - 1)), tail));
  const __m256 log2e = _mm256_set1_ps(kLog2e);
  const __m256 shift = _mm256_mul_ps(HorizontalMax(m), _mm256_set1_ps(-kLog2e));
  __m256 idx = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 step = _mm256_set1_ps(float(kLanes));
  __m256 s = _mm256_setzero_ps(), t = _mm256_setzero_ps();
  for (int c = 0; c < chunks; ++c) {
    __m256 e = Exp2Avx(_mm256_fmadd_ps(_mm256_loadu_ps(l + kLanes * c), log2e, shift));
    if (c == chunks - 1) e = _mm256_and_ps(e, tail);
    s = _mm256_add_ps(s, e);
    t = _mm256_fmadd_ps(e, idx, t);
    idx = _mm256_add_ps(idx, step);
  }
  return v_min + dz * (HorizontalSum(t) / HorizontalSum(s));
}

// How far (in natural-log units) an action's logits may rise above its first
// one for QFastAvx: e^64 times 51 atoms times index 50 stays far below
// FLT_MAX, and Exp2SoftmaxAvx clamps only terms below 2^-125 of the first
// one's, which count for nothing next to it.
constexpr float kMaxSpread = 64.0f;

// QStableAvx for K = ceil(atoms / 8) chunks, shifted by the action's first
// logit instead of its maximum, so the exps need not wait for a reduction;
// the maximum is taken alongside and, if it rises more than kMaxSpread above
// the first logit, the action is redone by QStableAvx. Two pairs of
// accumulators halve the dependency chains.
template <int K>
TIERFS_AVX2 float QFastAvx(const float* l, __m256 tail, int atoms, float v_min, float dz) {
  const __m256 log2e = _mm256_set1_ps(kLog2e);
  const __m256 shift = _mm256_set1_ps(-l[0] * kLog2e);
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 s[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  __m256 t[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  __m256 m = neg_inf;
#pragma GCC unroll 8
  for (int c = 0; c < K; ++c) {
    __m256 v = _mm256_loadu_ps(l + kLanes * c);
    if (c == K - 1) v = _mm256_blendv_ps(neg_inf, v, tail);
    m = _mm256_max_ps(m, v);
    __m256 e = Exp2SoftmaxAvx(_mm256_fmadd_ps(v, log2e, shift));
    if (c == K - 1) e = _mm256_and_ps(e, tail);
    const float i = float(kLanes * c);
    const __m256 idx = _mm256_setr_ps(i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7);
    s[c & 1] = _mm256_add_ps(s[c & 1], e);
    t[c & 1] = _mm256_fmadd_ps(e, idx, t[c & 1]);
  }
  if (_mm_cvtss_f32(_mm256_castps256_ps128(HorizontalMax(m))) - l[0] > kMaxSpread) {
    return QStableAvx(l, atoms, v_min, dz);
  }
  return v_min + dz * (HorizontalSum(_mm256_add_ps(t[0], t[1])) /
                       HorizontalSum(_mm256_add_ps(s[0], s[1])));
}

template <int K>
TIERFS_AVX2 void QValuesFastAvx(const float* logits, int actions, int atoms, float v_min,
                                float dz, float* q) {
  const __m256 tail = _mm256_castsi256_ps(FirstLanes(atoms - kLanes * (K - 1)));
  for (int a = 0; a < actions; ++a) {
    q[a] = QFastAvx<K>(logits + size_t(a) * size_t(atoms), tail, atoms, v_min, dz);
  }
}

bool DetectAvx2() {
  __builtin_cpu_init();  // may run before the constructors that would call it
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
// Set when the library loads; a network used by a static initializer that
// runs earlier sees false and takes the portable path.
const bool kAvx2 = DetectAvx2();
#endif  // TIERFS_RL_AVX2

// One layer: y = W x + bias (through swish if `swish`), W at w (out x in),
// the weights ending at `end`.
void Dense(const float* w, const float* bias, const float* x, int in, int out, float* y,
           bool swish, const float* end) {
#ifdef TIERFS_RL_AVX2
  if (kAvx2) {
    const int chunks = (in + kLanes - 1) / kLanes;
    const bool masked = end - (w + size_t(out) * size_t(in)) < kLanes * chunks - in;
#define TIERFS_DENSE_CASE(C)                                                              \
  case C:                                                                                 \
    return masked ? DenseAvx<C, true>(w, bias, x, in, out, y, swish)                      \
                  : DenseAvx<C, false>(w, bias, x, in, out, y, swish)
    switch (chunks) {
      TIERFS_DENSE_CASE(1);
      TIERFS_DENSE_CASE(2);
      TIERFS_DENSE_CASE(3);
      TIERFS_DENSE_CASE(4);
      default: break;
    }
#undef TIERFS_DENSE_CASE
  }
#endif
  DensePortable(w, bias, x, in, out, y, swish);
}

// The Q-value of each of `actions` from their logits (actions x atoms,
// readable up to RoundUp(actions * atoms, 8) + 8 values).
void QValuesOf(const float* logits, int actions, int atoms, float v_min, float dz, float* q) {
#ifdef TIERFS_RL_AVX2
  if (kAvx2) {
    switch ((atoms + kLanes - 1) / kLanes) {
      case 1: return QValuesFastAvx<1>(logits, actions, atoms, v_min, dz, q);
      case 2: return QValuesFastAvx<2>(logits, actions, atoms, v_min, dz, q);
      case 3: return QValuesFastAvx<3>(logits, actions, atoms, v_min, dz, q);
      case 4: return QValuesFastAvx<4>(logits, actions, atoms, v_min, dz, q);
      case 5: return QValuesFastAvx<5>(logits, actions, atoms, v_min, dz, q);
      case 6: return QValuesFastAvx<6>(logits, actions, atoms, v_min, dz, q);
      case 7: return QValuesFastAvx<7>(logits, actions, atoms, v_min, dz, q);
      case 8: return QValuesFastAvx<8>(logits, actions, atoms, v_min, dz, q);
      default:
        for (int a = 0; a < actions; ++a) {
          q[a] = QStableAvx(logits + size_t(a) * size_t(atoms), atoms, v_min, dz);
        }
        return;
    }
  }
#endif
  for (int a = 0; a < actions; ++a) {
    q[a] = QPortable(logits + size_t(a) * size_t(atoms), atoms, v_min, dz);
  }
}

}  // namespace

// ---- NetworkShape, Weights ---------------------------------------------------

size_t NetworkShape::ParameterCount() const {
  size_t count = 0, in = size_t(inputs);
  for (int h : hidden) {
    count += size_t(h) * in + size_t(h);
    in = size_t(h);
  }
  return count + size_t(outputs()) * in + size_t(outputs());
}

bool NetworkShape::operator==(const NetworkShape& o) const {
  return inputs == o.inputs && hidden == o.hidden && actions == o.actions && atoms == o.atoms &&
         v_min == o.v_min && v_max == o.v_max;
}

std::string NetworkShape::Describe() const {
  std::string s = std::to_string(inputs);
  for (int h : hidden) s += "-" + std::to_string(h);
  s += "-" + std::to_string(actions) + "x" + std::to_string(atoms);
  char range[64];
  std::snprintf(range, sizeof(range), " [%g, %g]", v_min, v_max);
  return s + range;
}

// Per layer, weights uniform in [-a, a] with a = sqrt(6 / (in + out))
// (Glorot and Bengio 2010), biases 0. Uniform doubles in [0, 1) are the top
// 53 bits of splitmix64 (util/splitmix64.h) started at `seed`.
Weights Weights::Random(const NetworkShape& shape, uint64_t seed) {
  Weights w;
  w.shape = shape;
  w.params.assign(shape.ParameterCount(), 0.0f);
  uint64_t state = seed;
  size_t k = 0;
  int in = shape.inputs;
  const size_t layers = shape.hidden.size() + 1;
  for (size_t layer = 0; layer < layers; ++layer) {
    const int out = layer < shape.hidden.size() ? shape.hidden[layer] : shape.outputs();
    const double limit = std::sqrt(6.0 / double(in + out));
    for (size_t i = 0; i < size_t(out) * size_t(in); ++i) {
      const double u = double(SplitMix64(&state) >> 11) * 0x1.0p-53;
      w.params[k++] = float((2 * u - 1) * limit);
    }
    k += size_t(out);  // biases stay 0
    in = out;
  }
  return w;
}

Weights Weights::Optimistic(const NetworkShape& shape, uint64_t seed, float logit) {
  Weights w = Random(shape, seed);
  float* bias = w.params.data() + w.params.size() - size_t(shape.outputs());  // the last layer's
  for (int a = 0; a < shape.actions; ++a) bias[a * shape.atoms + shape.atoms - 1] = logit;
  return w;
}

// ---- Network -----------------------------------------------------------------

Network::Network(const NetworkShape& shape) : shape_(shape) {
  int widest = kLanes;
  for (int h : shape_.hidden) widest = h > widest ? h : widest;
  a_.assign(size_t(RoundUp(widest, kLanes)), 0.0f);
  b_.assign(size_t(RoundUp(widest, kLanes)), 0.0f);
  logits_.assign(size_t(RoundUp(shape_.outputs(), kLanes) + kLanes), 0.0f);
  q_.assign(size_t(shape_.actions > 0 ? shape_.actions : 1), 0.0f);
}

size_t Network::Bytes() const {
  const size_t floats = a_.capacity() + b_.capacity() + logits_.capacity() + q_.capacity();
  return sizeof(*this) + floats * sizeof(float) + shape_.hidden.capacity() * sizeof(int);
}

// REQUIRES: w.shape == the constructor's shape (checked in debug builds).
void Network::Logits(const Weights& w, const float* in) {
  assert(w.params.size() == shape_.ParameterCount());
  const float* p = w.params.data();
  const float* const end = p + w.params.size();
  const float* x = in;
  int width = shape_.inputs;
  float* hidden_out[2] = {a_.data(), b_.data()};
  const size_t layers = shape_.hidden.size();
  for (size_t layer = 0; layer <= layers; ++layer) {
    const bool last = layer == layers;
    const int out = last ? shape_.outputs() : shape_.hidden[layer];
    float* y = last ? logits_.data() : hidden_out[layer & 1];
    const float* bias = p + size_t(out) * size_t(width);
    Dense(p, bias, x, width, out, y, !last, end);
    p = bias + out;
    x = y;
    width = out;
  }
}

void Network::QValues(const Weights& w, const float* in, float* q) {
  Logits(w, in);
  const int atoms = shape_.atoms;
  const float v_min = float(shape_.v_min);
  const float dz = atoms > 1 ? float((shape_.v_max - shape_.v_min) / (atoms - 1)) : 0.0f;
  QValuesOf(logits_.data(), shape_.actions, atoms, v_min, dz, q);
}

int Network::BestAction(const Weights& w, const float* in, uint32_t allowed) {
  QValues(w, in, q_.data());
  const uint32_t all = shape_.actions >= 32 ? ~0u : (1u << shape_.actions) - 1;
  if ((allowed & all) == 0) allowed = all;
  int best = -1;
  for (int a = 0; a < shape_.actions; ++a) {
    if (a < 32 && !(allowed >> a & 1)) continue;
    if (best < 0 || q_[size_t(a)] > q_[size_t(best)]) best = a;
  }
  return best;
}

void Network::Distributions(const Weights& w, const float* in, float* probs) {
  Logits(w, in);
  const int atoms = shape_.atoms;
  for (int a = 0; a < shape_.actions; ++a) {
    const float* l = logits_.data() + size_t(a) * size_t(atoms);
    float* p = probs + size_t(a) * size_t(atoms);
    float m = l[0];
    for (int i = 1; i < atoms; ++i) m = l[i] > m ? l[i] : m;
    double sum = 0;
    for (int i = 0; i < atoms; ++i) {
      p[i] = std::exp(l[i] - m);
      sum += p[i];
    }
    const float scale = float(1.0 / sum);
    for (int i = 0; i < atoms; ++i) p[i] *= scale;
  }
}

}  // namespace rl
}  // namespace tierfs
