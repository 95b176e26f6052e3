#include "env/read_gate.h"
#include "util/mutex.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tierfs {
namespace {

// True if the kernel runs a memory barrier on every running thread of this
// process for us (membarrier(2), private expedited: registered here, kept
// across fork, about 0.2 us a call on this project's machines): readers then
// need only a compiler barrier, and the waiter pays for both sides. Decided
// before main; only a refusal later turns it off (WaiterFence).
bool RegisterAsymmetricFence() {
  const long commands = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  constexpr long kNeeded = MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_GLOBAL;
  if (commands < 0 || (commands & kNeeded) != kNeeded) return false;
  return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}
// Cleared for good if membarrier is ever refused (WaiterFence).
std::atomic<bool> asymmetric_fence{RegisterAsymmetricFence()};

// A reader's side of the store-load fence between its slot and its lookup.
inline void ReaderFence() {
  if (asymmetric_fence.load(std::memory_order_relaxed)) {
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler's order only
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

// The waiter's side: a full barrier on every thread of the process now
// running (membarrier), or, where readers fence themselves, a fence of its
// own. Registered private expedited membarrier does not fail, but a seccomp
// filter installed after load could refuse it, and then the global command
// too: readers fence themselves from then on, and the readers already in
// the gate get a millisecond for their slot stores to leave the store
// buffer, which takes far less (not a guarantee, as the barrier is).
void WaiterFence() {
  if (asymmetric_fence.load(std::memory_order_relaxed)) {
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 ||
        syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0) {
      return;
    }
    asymmetric_fence.store(false, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

struct alignas(64) Slot {
  std::atomic<uint64_t> epoch{0};  // 0: not reading
  std::atomic<bool> in_use{false};
};

// Slots are never freed: a thread that exits hands its slot to the next new
// thread, so the registry is bounded by the most threads alive at once.
struct Registry {
  std::atomic<uint64_t> epoch{1};
  Mutex mu;
  std::vector<Slot*> slots GUARDED_BY(mu);  // grows only

  Slot* Acquire() {
    MutexLock lock(&mu);
    for (Slot* s : slots) {
      bool expected = false;
      if (s->in_use.compare_exchange_strong(expected, true)) return s;
    }
    slots.push_back(new Slot);
    slots.back()->in_use = true;
    return slots.back();
  }
};

// Outlives every thread's slot owner; made before main (a static
// initializer), so the read path needs no initialization guard.
Registry* const the_registry = new Registry;
Registry& registry() { return *the_registry; }

// The calling thread's slot: a plain thread_local pointer (no initialization
// guard on the read path), set on the thread's first read; `owner` hands the
// slot back when the thread exits.
thread_local Slot* my_slot = nullptr;

struct SlotOwner {
  Slot* slot = nullptr;
  ~SlotOwner() {
    if (!slot) return;
    slot->epoch.store(0, std::memory_order_release);
    slot->in_use.store(false, std::memory_order_release);
    my_slot = nullptr;
  }
};
thread_local SlotOwner owner;

Slot* MySlot() {
  Slot* s = my_slot;
  if (__builtin_expect(s == nullptr, 0)) {
    s = registry().Acquire();
    owner.slot = s;
    my_slot = s;
  }
  return s;
}

}  // namespace

void ReadGate::Enter() {
  Slot* s = MySlot();
  // Acquire: a reader that sees the epoch a waiter advanced sees the new
  // tier the waiter published before it (the first fence in WaitForReaders),
  // and is not waited for.
  s->epoch.store(the_registry->epoch.load(std::memory_order_acquire), std::memory_order_relaxed);
  // Orders the slot store before the reader's tier lookup; pairs with the
  // waiter's fence after the epoch advance: either the waiter sees the slot,
  // or the lookup sees the new tier.
  ReaderFence();
}

void ReadGate::Exit() { my_slot->epoch.store(0, std::memory_order_release); }

void ReadGate::WaitForReaders() {
  Registry& r = registry();
  // Orders the caller's new-tier store before the epoch advance and the scan.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const uint64_t now = r.epoch.fetch_add(1) + 1;
  WaiterFence();
  std::vector<Slot*> slots;
  {
    MutexLock lock(&r.mu);
    slots = r.slots;
  }
  for (Slot* s : slots) {
    for (int spins = 0;; ++spins) {
      uint64_t e = s->epoch.load(std::memory_order_acquire);
      if (e == 0 || e >= now) break;
      if (spins < 64) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
  }
}

}  // namespace tierfs
