// Loads the sequence model's LibTorch half from libtierfs_learner.so, as
// learner_loader.cc loads the learner's.
#include <stdexcept>

#include "agents/rl/sequence_model.h"
#include "util/sibling_library.h"

namespace tierfs {
namespace rl {

namespace {

// TierFSNewTorchSequenceModel (sequence_model.cc): nullptr and *error on failure.
using Factory = SequenceModelImpl* (*)(const SequenceModelOptions*, std::string* error);

const SiblingSymbol& Load() {
  static const SiblingSymbol model(
      "libtierfs_learner.so", "TierFSNewTorchSequenceModel", reinterpret_cast<const void*>(&Load),
      "rnn-hss needs libtierfs_learner.so (TierFS's LibTorch half, built with libtierfs): ");
  return model;
}

}  // namespace

bool SequenceModelAvailable(std::string* error) {
  const SiblingSymbol& l = Load();
  if (!l.get() && error) *error = l.error();
  return l.get() != nullptr;
}

std::unique_ptr<SequenceModelImpl> NewSequenceModel(const SequenceModelOptions& options) {
  const SiblingSymbol& l = Load();
  std::string error = l.error();
  std::unique_ptr<SequenceModelImpl> model;
  if (l.get()) model.reset(reinterpret_cast<Factory>(l.get())(&options, &error));
  if (!model) throw std::runtime_error("TierFS: the sequence model failed to start: " + error);
  return model;
}

}  // namespace rl
}  // namespace tierfs
