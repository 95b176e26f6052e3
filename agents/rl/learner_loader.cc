// Loads the learner's LibTorch half (libtierfs_learner.so, see learner.h)
// the first time a learning policy needs it: from wherever a loaded object
// already provides it (a program linked with it), else from the directory of
// the library holding this code (libtierfs.so, built or installed), else by
// the dynamic loader's search path.
#include <stdexcept>

#include "agents/rl/learner.h"
#include "util/sibling_library.h"

namespace tierfs {
namespace rl {

namespace {

// TierFSNewTorchLearner (learner.cc): nullptr and *error on failure.
using Factory = LearnerImpl* (*)(const LearnerOptions*, const Weights*, std::string* error);
constexpr const char* kLibrary = "libtierfs_learner.so";
constexpr const char* kEntry = "TierFSNewTorchLearner";

const SiblingSymbol& Load() {
  static const SiblingSymbol learner(
      kLibrary, kEntry, reinterpret_cast<const void*>(&Load),
      std::string("the learning policies need ") + kLibrary +
          " (TierFS's LibTorch half, built with libtierfs): ");
  return learner;
}

}  // namespace

bool LearnerAvailable(std::string* error) {
  const SiblingSymbol& l = Load();
  if (!l.get() && error) *error = l.error();
  return l.get() != nullptr;
}

Learner::Learner(const LearnerOptions& options, const Weights* initial) : options_(options) {
  const SiblingSymbol& l = Load();
  std::string error = l.error();
  if (l.get()) impl_.reset(reinterpret_cast<Factory>(l.get())(&options_, initial, &error));
  // The policies check LearnerAvailable() when they are created: what is left
  // is LibTorch refusing (memory, a bug). The library prints nothing: the
  // message goes up to the exception boundary (env/guard.h), whose caller
  // hears it as an IOError.
  if (!impl_) throw std::runtime_error("TierFS: the learner failed to start: " + error);
}

Learner::~Learner() = default;

}  // namespace rl
}  // namespace tierfs
