// Loads the dqn optimizer's LibTorch half (libtierfs_tune_qnet.so, see
// qnet.h) the first time a search asks for it, as agents/rl/learner_loader.cc
// loads the agents' learner: from a loaded object that already provides it
// (the tuner's tests link it), else from the directory of the program
// holding this code (tierfs-tune, built or installed: the library is built
// next to it), else by the dynamic loader's search path.
#include <string>

#include "tools/tune/qnet.h"
#include "util/sibling_library.h"

namespace tierfs {
namespace tune {
namespace {

using Factory = QNetImpl* (*)(const QNetOptions*);
constexpr const char* kLibrary = "libtierfs_tune_qnet.so";
constexpr const char* kEntry = "TierFSNewTuneQNet";

const SiblingSymbol& Load() {
  static const SiblingSymbol qnet(
      kLibrary, kEntry, reinterpret_cast<const void*>(&Load),
      std::string("the dqn optimizer needs ") + kLibrary +
          " (tierfs-tune's LibTorch half, built where LibTorch is): ");
  return qnet;
}

}  // namespace

bool QNetAvailable(std::string* error) {
  const SiblingSymbol& l = Load();
  if (!l.get() && error) *error = l.error();
  return l.get() != nullptr;
}

std::unique_ptr<QNetImpl> NewQNet(const QNetOptions& options, std::string* error) {
  const SiblingSymbol& l = Load();
  if (!l.get()) {
    *error = l.error();
    return nullptr;
  }
  std::unique_ptr<QNetImpl> net(reinterpret_cast<Factory>(l.get())(&options));
  if (!net) *error = "LibTorch refused the Q-network (see the message above)";
  return net;
}

}  // namespace tune
}  // namespace tierfs
