#include "env/thread_index.h"
#include "util/mutex.h"

#include <vector>

namespace tierfs {
namespace {

// Made before main and never destroyed: a thread may exit, and give its
// number back, during static destruction.
struct Numbers {
  Mutex mu;
  std::vector<bool> taken GUARDED_BY(mu);

  int Take() {
    MutexLock lock(&mu);
    for (size_t i = 0; i < taken.size(); ++i) {
      if (!taken[i]) {
        taken[i] = true;
        return int(i);
      }
    }
    taken.push_back(true);
    return int(taken.size() - 1);
  }
  void Give(int i) {
    MutexLock lock(&mu);
    taken[size_t(i)] = false;
  }
};
Numbers* const the_numbers = new Numbers;

// A plain thread_local int on the fast path (no initialization guard); the
// owner object gives the number back at thread exit.
// -1: none yet; kExited: given back at exit, none taken again (a later
// thread_local destructor of this thread may still do I/O).
constexpr int kExited = -2;
thread_local int my_index = -1;
struct Owner {
  int index = -1;
  ~Owner() {
    if (index < 0) return;
    the_numbers->Give(index);
    my_index = kExited;
  }
};
thread_local Owner owner;

}  // namespace

int ThreadIndex() {
  int i = my_index;
  if (__builtin_expect(i < 0, 0)) {
    if (i == kExited) return -1;
    i = the_numbers->Take();
    owner.index = i;
    my_index = i;
  }
  return i;
}

}  // namespace tierfs
