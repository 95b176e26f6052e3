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

// FindSiblingSymbol, done once: keep one in a function-local static (its
// construction is thread-safe) and call it on first use.
class SiblingSymbol {
 public:
  // `why`: the start of the error if none is found ("the learning policies
  // need libtierfs_learner.so (...): "), what each attempt said follows.
  SiblingSymbol(const char* library, const char* entry, const void* anchor,
                const std::string& why);

  void* get() const { return symbol_; }
  const std::string& error() const { return error_; }  // "" if found

 private:
  void* symbol_ = nullptr;
  std::string error_;
};

}  // namespace tierfs
