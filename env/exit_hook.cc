// The exit handler (exit_hook.h, which explains the order it relies on).
#include "env/exit_hook.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <vector>

#include "env/store.h"

namespace tierfs {

namespace {

struct LiveStores {
  // Held while the handler saves each store (Store::SaveAtExit takes the
  // store's close_mu_): env/store.h gives the lock order.
  Mutex mu;
  // The process that opened each store: a child forked without exec that
  // calls exit() has a copy of the store but not its lock (fcntl locks are
  // not inherited), and must not save it.
  std::map<Store*, pid_t> stores GUARDED_BY(mu);
};

// Never destroyed: the handler and the last stores' destructors use it
// during static destruction.
LiveStores& Live() {
  static LiveStores* live = new LiveStores();
  return *live;
}

std::atomic<bool> exiting{false};

// Armed once per open (atexit): each run after the first finds the stores
// already saved (SaveAtExit does its work once) or gone.
void OnExit() {
  exiting.store(true);
  LiveStores& live = Live();
  MutexLock lock(&live.mu);
  const pid_t self = getpid();
  for (const auto& [store, pid] : live.stores) {
    if (pid == self) store->SaveAtExit();
  }
}

}  // namespace

void RegisterLiveStore(Store* store) {
  LiveStores& live = Live();
  {
    MutexLock lock(&live.mu);
    live.stores[store] = getpid();
  }
  // Fails only when out of memory; the store then saves at Close as before.
  atexit(OnExit);
}

void UnregisterLiveStore(Store* store) {
  LiveStores& live = Live();
  MutexLock lock(&live.mu);
  live.stores.erase(store);
}

bool ProcessExiting() { return exiting.load(); }

void KeepUntilExit(std::shared_ptr<void> object) {
  static Mutex* mu = new Mutex;
  static auto* kept = new std::vector<std::shared_ptr<void>>;
  MutexLock lock(mu);
  kept->push_back(std::move(object));
}

}  // namespace tierfs
