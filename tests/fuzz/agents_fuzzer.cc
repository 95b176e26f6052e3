// AGENTS, the learning policies' saved state (<tier0>/meta/AGENTS,
// agents/rl/weights_io.h): the bytes given to Policy::LoadState, as
// Store::LoadPolicyState does at open, for each learning policy and for two
// and three tiers.
//
// The state ends in an FNV-1a checksum: the custom mutator rewrites it after
// mutating (15 times in 16; the 16th keeps the damage).
//
// A learning policy is created only where its LibTorch half can be loaded
// (agents/rl/learner_loader.cc); loading a state never starts it. This
// fuzzer, which links no LibTorch, provides the entry point the loader looks
// for: it is never called.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "agents/policy.h"
#include "agents/rl/learner.h"
#include "tests/fuzz/fuzz_util.h"

using namespace tierfs;

extern "C" __attribute__((visibility("default"))) rl::LearnerImpl* TierFSNewTorchLearner(
    const rl::LearnerOptions*, const rl::Weights*) {
  fprintf(stderr, "agents_fuzzer: a learner was started\n");
  abort();
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 16 != 0 && size >= 16) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i + 8 < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
    memcpy(data + size - 8, &h, 8);
  }
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const kPolicies[] = {"harmonia", "harmonia-nocoord", "sapm", "cde+rl-migr",
                                          "sibyl"};
  const std::string state = fuzz::Text(data, size);
  for (const char* name : kPolicies) {
    for (int tiers : {2, 3}) {
      std::string error;
      std::unique_ptr<Policy> policy = NewPolicy(name, {}, &error);
      FUZZ_CHECK(policy != nullptr);
      if (!policy->LoadState(state, tiers, &error)) FUZZ_CHECK(!error.empty());
    }
  }
  return 0;
}
