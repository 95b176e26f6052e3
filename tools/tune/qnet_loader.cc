// Loads the dqn optimizer's LibTorch half (libtierfs_tune_qnet.so, see
// qnet.h) the first time a search asks for it, as agents/rl/learner_loader.cc
// loads the agents' learner: from a loaded object that already provides it
// (the tuner's tests link it), else from the directory of the program
// holding this code (tierfs-tune, built or installed: the library is built
// next to it), else by the dynamic loader's search path.
#include <mutex>
#include <string>

#include "tools/tune/qnet.h"
#include "util/sibling_library.h"

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
    std::string tried;
    loaded.factory = reinterpret_cast<Factory>(
        FindSiblingSymbol(kLibrary, kEntry, reinterpret_cast<const void*>(&Load), &tried));
    if (loaded.factory) return;
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
