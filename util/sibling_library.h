// Finding an entry point in a library built beside its user (TierFS keeps
// LibTorch out of its main libraries this way: the agents' learner,
// libtierfs_learner.so beside libtierfs.so, and the tuner's Q-network,
// libtierfs_tune_qnet.so beside tierfs-tune).
#pragma once

#include <string>

namespace tierfs {

// Returns the address of `entry`, looked for in this order: any object
// already loaded (a program linked with the library); `library` in the
// directory of the object that holds `anchor` (an address in the caller's
// library or program); `library` by the dynamic loader's search path.
// nullptr if none has it, with *tried saying what each attempt answered.
// Libraries are opened RTLD_NOW | RTLD_LOCAL and never closed.
void* FindSiblingSymbol(const char* library, const char* entry, const void* anchor,
                        std::string* tried);

}  // namespace tierfs
