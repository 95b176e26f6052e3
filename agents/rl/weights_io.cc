#include "agents/rl/weights_io.h"

#include <cstdint>
#include <cstring>

namespace tierfs {
namespace rl {

namespace {

constexpr char kMagic[8] = {'T', 'I', 'E', 'R', 'F', 'S', 'R', 'L'};
constexpr uint32_t kVersion = 1;
// The widest layer, action count or atom count a saved network may have: the
// shape is held in ints and actions x atoms must be one (the agents' are
// under a hundred).
constexpr uint32_t kMaxWidth = 1 << 15;

template <class T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));  // little-endian hosts only
}
void PutString(std::string* out, const std::string& s) {
  Put<uint32_t>(out, uint32_t(s.size()));
  out->append(s);
}

uint64_t Fnv1a(const char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ uint8_t(p[i])) * 0x100000001b3ull;
  return h;
}

class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), end_(p + n) {}
  template <class T>
  bool Get(T* v) {
    if (size_t(end_ - p_) < sizeof(T)) return false;
    std::memcpy(v, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  bool GetString(std::string* s) {
    uint32_t n;
    if (!Get(&n) || size_t(end_ - p_) < n) return false;
    s->assign(p_, n);
    p_ += n;
    return true;
  }
  bool GetFloats(size_t n, std::vector<float>* v) {
    if (size_t(end_ - p_) / sizeof(float) < n) return false;
    v->resize(n);
    if (n > 0) std::memcpy(v->data(), p_, n * sizeof(float));  // data() may be null
    p_ += n * sizeof(float);
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace

std::string EncodeWeights(const std::string& policy, const NamedWeights& sets) {
  std::string out(kMagic, sizeof(kMagic));
  Put<uint32_t>(&out, kVersion);
  PutString(&out, policy);
  Put<uint32_t>(&out, uint32_t(sets.size()));
  for (const auto& [name, w] : sets) {
    PutString(&out, name);
    Put<uint32_t>(&out, uint32_t(w.shape.inputs));
    Put<uint32_t>(&out, uint32_t(w.shape.hidden.size()));
    for (int h : w.shape.hidden) Put<uint32_t>(&out, uint32_t(h));
    Put<uint32_t>(&out, uint32_t(w.shape.actions));
    Put<uint32_t>(&out, uint32_t(w.shape.atoms));
    Put<double>(&out, w.shape.v_min);
    Put<double>(&out, w.shape.v_max);
    Put<uint32_t>(&out, uint32_t(w.params.size()));
    out.append(reinterpret_cast<const char*>(w.params.data()), w.params.size() * sizeof(float));
  }
  Put<uint64_t>(&out, Fnv1a(out.data(), out.size()));
  return out;
}

bool DecodeWeights(const std::string& bytes, const std::string& policy, NamedWeights* sets,
                   std::string* error) {
  if (bytes.size() < sizeof(kMagic) + 8 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic))) {
    *error = "not a saved agent state (bad magic)";
    return false;
  }
  uint64_t sum;
  std::memcpy(&sum, bytes.data() + bytes.size() - 8, 8);
  if (sum != Fnv1a(bytes.data(), bytes.size() - 8)) {
    *error = "saved agent state is corrupt (checksum mismatch)";
    return false;
  }
  Reader r(bytes.data() + sizeof(kMagic), bytes.size() - sizeof(kMagic) - 8);
  uint32_t version = 0, count = 0;
  std::string saved_policy;
  if (!r.Get(&version) || version != kVersion) {
    *error = "saved agent state has version " + std::to_string(version) + "; this build reads " +
             std::to_string(kVersion);
    return false;
  }
  if (!r.GetString(&saved_policy) || !r.Get(&count)) {
    *error = "saved agent state is cut short";
    return false;
  }
  if (saved_policy != policy) {
    *error = "saved agent state is policy " + saved_policy + "'s, not " + policy + "'s";
    return false;
  }
  sets->clear();
  for (uint32_t i = 0; i < count; ++i) {
    std::string name;
    Weights w;
    uint32_t inputs, layers, actions, atoms, params;
    bool ok = r.GetString(&name) && r.Get(&inputs) && r.Get(&layers) && layers < 16 &&
              inputs <= kMaxWidth;
    w.shape.hidden.clear();
    for (uint32_t l = 0; ok && l < layers; ++l) {
      uint32_t h = 0;
      ok = r.Get(&h) && h <= kMaxWidth;
      w.shape.hidden.push_back(int(h));
    }
    ok = ok && r.Get(&actions) && r.Get(&atoms) && actions <= kMaxWidth && atoms <= kMaxWidth &&
         r.Get(&w.shape.v_min) && r.Get(&w.shape.v_max) && r.Get(&params);
    if (ok) {
      w.shape.inputs = int(inputs);
      w.shape.actions = int(actions);
      w.shape.atoms = int(atoms);
      ok = params == w.shape.ParameterCount() && r.GetFloats(params, &w.params);
    }
    if (!ok) {
      *error = "saved agent state is malformed at weight set " + std::to_string(i);
      return false;
    }
    sets->emplace_back(std::move(name), std::move(w));
  }
  return true;
}

}  // namespace rl
}  // namespace tierfs
