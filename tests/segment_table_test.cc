// SegmentTable: lock-free lookups stay valid while the table grows.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/segment_table.h"

namespace tierfs {
namespace {

TEST(SegmentTableTest, SetGrowsAndKeepsEarlierSlots) {
  SegmentTable t;
  EXPECT_EQ(0u, t.size());
  EXPECT_EQ(kNoTier, t.tier(0));
  EXPECT_EQ(kNoTier, t.tier(1000000));
  t.Set(3, 1, 4096);
  EXPECT_EQ(4u, t.size());
  EXPECT_EQ(kNoTier, t.tier(2));
  t.Set(100, 2, 8192);  // past the initial capacity: a new array
  EXPECT_EQ(101u, t.size());
  EXPECT_EQ(1, t.tier(3));
  EXPECT_EQ(4096u, t.charged(3));
  EXPECT_EQ(2, t.tier(100));
  t.SetCharged(100, 100);
  EXPECT_EQ(2, t.tier(100));
  EXPECT_EQ(100u, t.charged(100));
  t.Clear();
  EXPECT_EQ(0u, t.size());
  EXPECT_EQ(kNoTier, t.tier(3));
}

TEST(SegmentTableTest, ReadersSeeEveryPlacedSegmentWhileItGrows) {
  SegmentTable t;
  std::atomic<uint64_t> placed{0};  // segments [0, placed) are set to tier seg % 3
  std::atomic<bool> done{false};
  std::atomic<uint64_t> wrong{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        uint64_t n = placed.load(std::memory_order_acquire);
        for (uint64_t s = 0; s < n; s += 7) {
          if (t.tier(s) != s % 3) wrong++;
        }
      }
    });
  }
  for (uint64_t s = 0; s < 20000; ++s) {
    t.Set(s, uint8_t(s % 3), s);
    placed.store(s + 1, std::memory_order_release);
  }
  done = true;
  for (auto& th : readers) th.join();
  EXPECT_EQ(0u, wrong.load());
  EXPECT_EQ(20000u, t.size());
}

}  // namespace
}  // namespace tierfs
