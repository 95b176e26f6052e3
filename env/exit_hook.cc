// The exit handler (exit_hook.h, which explains the order it relies on).
#include "env/exit_hook.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>

#include "env/store.h"

namespace tierfs {

namespace {

struct LiveStores {
  std::mutex mu;
  std::set<Store*> stores;  // guarded by mu
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
  std::lock_guard<std::mutex> lock(live.mu);
  for (Store* store : live.stores) store->SaveAtExit();
}

}  // namespace

void RegisterLiveStore(Store* store) {
  LiveStores& live = Live();
  {
    std::lock_guard<std::mutex> lock(live.mu);
    live.stores.insert(store);
  }
  // Fails only when out of memory; the store then saves at Close as before.
  atexit(OnExit);
}

void UnregisterLiveStore(Store* store) {
  LiveStores& live = Live();
  std::lock_guard<std::mutex> lock(live.mu);
  live.stores.erase(store);
}

bool ProcessExiting() { return exiting.load(); }

}  // namespace tierfs
