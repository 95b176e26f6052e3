// Loads the dqn optimizer's LibTorch half (libtierfs_tune_qnet.so, see
// qnet.h) the first time a search asks for it, as agents/rl/learner_loader.cc
// loads the agents' learner: from a loaded object that already provides it
// (the tuner's tests link it), else from the directory of the program
// holding this code (tierfs-tune, built or installed: the library is built
// next to it), else by the dynamic loader's search path.
#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

#include "tools/tune/qnet.h"

namespace tierfs {
namespace tune {
namespace {

using Factory = QNetImpl* (*)(const QNetOptions*);
constexpr const char* kLibrary = "libtierfs_tune_qnet.so";
constexpr const char* kEntry = "TierFSNewTuneQNet";

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
    std::vector<std::string> candidates;
    Dl_info self;
    if (dladdr(reinterpret_cast<void*>(&Load), &self) && self.dli_fname) {
      std::string dir = self.dli_fname;
      dir = dir.rfind('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
      candidates.push_back(dir + "/" + kLibrary);
    }
    candidates.push_back(kLibrary);
    std::string tried;
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
    loaded.error = std::string("the dqn optimizer needs ") + kLibrary +
                   " (tierfs-tune's LibTorch half, built where LibTorch is): " + tried;
  });
  return loaded;
}

}  // namespace

bool QNetAvailable(std::string* error) {
  const Loaded& l = Load();
  if (!l.factory && error) *error = l.error;
  return l.factory != nullptr;
}

std::unique_ptr<QNetImpl> NewQNet(const QNetOptions& options, std::string* error) {
  const Loaded& l = Load();
  if (!l.factory) {
    *error = l.error;
    return nullptr;
  }
  std::unique_ptr<QNetImpl> net(l.factory(&options));
  if (!net) *error = "LibTorch refused the Q-network (see the message above)";
  return net;
}

}  // namespace tune
}  // namespace tierfs
