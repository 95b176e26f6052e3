// ThreadIndex (env/thread_index.h) and the tier's per-thread read shards
// built on it (Tier::AccountRead): numbers are distinct among live threads
// and reused after exit, and reads counted from more threads than there are
// owned shards, all at once, sum exactly.
#include "env/thread_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "env/tier.h"

namespace tierfs {
namespace {

// Runs fn(i) on n threads at once: each starts once all have started, and
// stays alive until all are done.
template <typename Fn>
void OnThreadsAliveTogether(int n, Fn fn) {
  std::atomic<int> started{0}, done{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      started.fetch_add(1);
      while (started.load() < n) std::this_thread::yield();
      fn(i);
      done.fetch_add(1);
      while (done.load() < n) std::this_thread::yield();
    });
  }
  for (auto& t : threads) t.join();
}

TEST(ThreadIndexTest, LiveThreadsHaveDistinctNumbersAndExitedOnesAreReused) {
  const int mine = ThreadIndex();
  EXPECT_EQ(mine, ThreadIndex()) << "a thread keeps its number";
  constexpr int kThreads = 40;
  std::vector<int> got(kThreads, -1);
  OnThreadsAliveTogether(kThreads, [&](int i) { got[size_t(i)] = ThreadIndex(); });
  std::set<int> distinct(got.begin(), got.end());
  distinct.insert(mine);
  EXPECT_EQ(distinct.size(), size_t(kThreads + 1)) << "two live threads shared a number";
  EXPECT_EQ(*distinct.begin(), 0);
  // All forty have exited: a new thread takes one of their numbers, not a
  // forty-second.
  int later = -1;
  std::thread([&] { later = ThreadIndex(); }).join();
  EXPECT_GE(later, 0);
  EXPECT_LE(later, kThreads);
  EXPECT_NE(later, mine);
}

TEST(ThreadIndexTest, ReadsFromMoreThreadsThanShardsSumExactly) {
  TierOptions options;
  options.path = "/nonexistent-tier";  // the account and statistics only: no I/O
  options.capacity = 1 << 20;
  Tier tier(0, options, DeviceParams());
  // 24 threads alive together: 16 count in shards of their own, the rest in
  // the shared one (some threads' numbers are taken by this process's
  // others, so more may share it).
  constexpr int kThreads = 24, kReads = 100000;
  OnThreadsAliveTogether(kThreads, [&](int i) {
    for (int r = 0; r < kReads; ++r) {
      tier.AccountRead(uint64_t(i), 0, 100, DeviceModel::NowNanos(), /*user=*/r % 2 == 0);
    }
  });
  TierStats stats;
  tier.Snapshot(&stats);
  EXPECT_EQ(stats.tickers[size_t(TierTicker::kReads)], uint64_t(kThreads) * kReads);
  EXPECT_EQ(stats.tickers[size_t(TierTicker::kReadBytes)], uint64_t(kThreads) * kReads * 100);
  EXPECT_EQ(stats.tickers[size_t(TierTicker::kUserReads)], uint64_t(kThreads) * kReads / 2);
  const LatencyHistogram& h = stats.histograms[size_t(TierHistogram::kReadLatency)];
  EXPECT_EQ(h.count, uint64_t(kThreads) * kReads);
  uint64_t in_buckets = 0;
  for (uint64_t b : h.buckets) in_buckets += b;
  EXPECT_EQ(in_buckets, uint64_t(kThreads) * kReads);
}

}  // namespace
}  // namespace tierfs
