// See read_origin.h.
#include "env/read_origin.h"

#include <sys/prctl.h>

#include <cstring>

namespace tierfs {

bool IsRocksDbPoolThreadName(const char* name) {
  return std::strncmp(name, "rocksdb:", 8) == 0;
}

bool OnRocksDbBackgroundThread() {
  // A pool thread is named by the thread that starts it, just after it
  // starts; an answer of "no" is therefore asked again for a thread's first
  // few reads before it is kept. "Yes" never changes.
  constexpr int kChecks = 16;
  thread_local int checked = 0;
  thread_local bool background = false;
  if (background || checked >= kChecks) return background;
  ++checked;
  char name[17] = {};
  if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0) background = IsRocksDbPoolThreadName(name);
  return background;
}

}  // namespace tierfs
