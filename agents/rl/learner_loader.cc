// Loads the learner's LibTorch half (libtierfs_learner.so, see learner.h)
// the first time a learning policy needs it: from wherever a loaded object
// already provides it (a program linked with it), else from the directory of
// the library holding this code (libtierfs.so, built or installed), else by
// the dynamic loader's search path.
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "agents/rl/learner.h"
#include "util/sibling_library.h"

namespace tierfs {
namespace rl {

namespace {

using Factory = LearnerImpl* (*)(const LearnerOptions*, const Weights*);
constexpr const char* kLibrary = "libtierfs_learner.so";
constexpr const char* kEntry = "TierFSNewTorchLearner";

struct Loaded {
  Factory factory = nullptr;
  std::string error;
};

const Loaded& Load() {
  static Loaded loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    loaded.factory = reinterpret_cast<Factory>(
        FindSiblingSymbol(kLibrary, kEntry, reinterpret_cast<const void*>(&Load), &tried));
    if (loaded.factory) return;
    loaded.error = std::string("the learning policies need ") + kLibrary +
                   " (TierFS's LibTorch half, built with libtierfs): " + tried;
  });
  return loaded;
}

}  // namespace

bool LearnerAvailable(std::string* error) {
  const Loaded& l = Load();
  if (!l.factory && error) *error = l.error;
  return l.factory != nullptr;
}

Learner::Learner(const LearnerOptions& options, const Weights* initial) : options_(options) {
  const Loaded& l = Load();
  if (l.factory) impl_.reset(l.factory(&options_, initial));
  if (!impl_) {
    // The policies check LearnerAvailable() when they are created: reaching
    // here is a bug, not a configuration error.
    fprintf(stderr, "TierFS: %s\n", l.factory ? "the learner failed to start" : l.error.c_str());
    abort();
  }
}

Learner::~Learner() = default;

}  // namespace rl
}  // namespace tierfs
