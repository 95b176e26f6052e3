// Loads the learner's LibTorch half (libtierfs_learner.so, see learner.h)
// the first time a learning policy needs it: from wherever a loaded object
// already provides it (a program linked with it), else from the directory of
// the library holding this code (libtierfs.so, built or installed), else by
// the dynamic loader's search path.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "agents/rl/learner.h"

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
    if (void* sym = dlsym(RTLD_DEFAULT, kEntry)) {
      loaded.factory = reinterpret_cast<Factory>(sym);
      return;
    }
    std::string tried;
    Dl_info self;
    std::vector<std::string> candidates;
    if (dladdr(reinterpret_cast<void*>(&Load), &self) && self.dli_fname) {
      std::string dir = self.dli_fname;
      dir = dir.rfind('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
      candidates.push_back(dir + "/" + kLibrary);
    }
    candidates.push_back(kLibrary);
    for (const std::string& path : candidates) {
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        tried += std::string(tried.empty() ? "" : "; ") + dlerror();
        continue;
      }
      if (void* sym = dlsym(handle, kEntry)) {
        loaded.factory = reinterpret_cast<Factory>(sym);
        return;
      }
      tried += "; " + path + " has no " + kEntry;
    }
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
