// The request clock: numbers every I/O on a segment, the time base of the
// segment statistics and of the policies (StorageView::Now()). Clients (the
// live store's threads, the simulator's streams) take numbers in blocks of
// kBlock, so the clock costs one shared atomic per block: numbers are unique,
// and ordered across clients to within a block. Now() is the end of the
// blocks handed out. The simulator keeps one block per stream, so a replay
// of one thread's trace numbers its requests exactly as the capture did.
#pragma once

#include <atomic>
#include <cstdint>

namespace tierfs {

class RequestClock {
 public:
  static constexpr uint64_t kBlock = 64;

  // A client's current block.
  struct Block {
    uint64_t next = 0, end = 0;
  };

  uint64_t Next(Block* b) {
    if (__builtin_expect(b->next == b->end, 0)) {
      b->next = blocks_end_.fetch_add(kBlock, std::memory_order_relaxed) + 1;
      b->end = b->next + kBlock;
    }
    return b->next++;
  }
  uint64_t Now() const { return blocks_end_.load(std::memory_order_relaxed); }
  // Goes on from `now` (a store reopened: ages and decay continue). Before
  // any client takes a number.
  void Restore(uint64_t now) { blocks_end_.store(now, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> blocks_end_{0};
};

}  // namespace tierfs
