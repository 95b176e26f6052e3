// Helpers shared by the fuzzers (tests/fuzz/*_fuzzer.cc).
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace tierfs {
namespace fuzz {

inline std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A check of the decoder's contract that failed: abort, so libFuzzer keeps
// the input as a crash.
#define FUZZ_CHECK(cond)                                                           \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                     \
    }                                                                              \
  } while (0)

// A directory for a fuzzer's store: under /dev/shm (tmpfs: fsync costs
// nothing) when it exists, else $TMPDIR or /tmp. Removed at exit; a run that
// crashes leaves it behind (tests/fuzz/run.sh removes what is left).
inline std::string ScratchDir(const char* tag) {
  const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
  std::string dir = std::string(base ? base : "/tmp") + "/tierfs-fuzz-" + tag + "-" +
                    std::to_string(getpid());
  static std::string to_remove;
  to_remove = dir;
  std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "/t0' '" + dir + "/t1'";
  if (system(cmd.c_str()) != 0) {
    fprintf(stderr, "cannot create %s\n", dir.c_str());
    abort();
  }
  atexit([] {
    std::string rm = "rm -rf '" + to_remove + "'";
    if (system(rm.c_str()) != 0) fprintf(stderr, "cannot remove %s\n", to_remove.c_str());
  });
  return dir;
}

}  // namespace fuzz
}  // namespace tierfs
