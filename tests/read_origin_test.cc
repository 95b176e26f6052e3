// Which reads are the application's: RocksDB's pool threads are known by
// their names, whatever priority their reads carry (env/read_origin.h).
#include "env/read_origin.h"

#include <pthread.h>

#include <thread>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

TEST(ReadOriginTest, RocksDbPoolNamesAreBackground) {
  EXPECT_TRUE(IsRocksDbPoolThreadName("rocksdb:low"));
  EXPECT_TRUE(IsRocksDbPoolThreadName("rocksdb:high"));
  EXPECT_TRUE(IsRocksDbPoolThreadName("rocksdb:bottom"));
  EXPECT_FALSE(IsRocksDbPoolThreadName("db_bench"));
  EXPECT_FALSE(IsRocksDbPoolThreadName("rocksdb"));
  EXPECT_FALSE(IsRocksDbPoolThreadName(""));
}

// Runs `body` on a new thread named `name` (set before the body runs).
template <typename F>
void OnThreadNamed(const char* name, F body) {
  std::thread t([&] {
    pthread_setname_np(pthread_self(), name);
    body();
  });
  t.join();
}

TEST(ReadOriginTest, APoolThreadsReadsAreBackgroundAtAnyPriority) {
  rocksdb::IOOptions user, total, low;
  user.rate_limiter_priority = rocksdb::Env::IO_USER;
  total.rate_limiter_priority = rocksdb::Env::IO_TOTAL;
  low.rate_limiter_priority = rocksdb::Env::IO_LOW;
  OnThreadNamed("rocksdb:low", [&] {
    EXPECT_TRUE(OnRocksDbBackgroundThread());
    EXPECT_FALSE(IsUserRead(user, false));
    EXPECT_FALSE(IsUserRead(total, false));
    EXPECT_FALSE(IsUserRead(low, false));
  });
  OnThreadNamed("app-worker", [&] {
    EXPECT_FALSE(OnRocksDbBackgroundThread());
    EXPECT_TRUE(IsUserRead(user, false));
    EXPECT_TRUE(IsUserRead(total, false));
    EXPECT_FALSE(IsUserRead(low, false));
    EXPECT_FALSE(IsUserRead(total, /*sequential=*/true));
  });
}

// A pool thread is named by its creator just after it starts: a thread whose
// first read comes before its name is still known as a pool thread after.
TEST(ReadOriginTest, ANameSetAfterTheFirstReadIsSeen) {
  OnThreadNamed("app-worker", [&] {
    EXPECT_FALSE(OnRocksDbBackgroundThread());
    pthread_setname_np(pthread_self(), "rocksdb:high");
    EXPECT_TRUE(OnRocksDbBackgroundThread());
  });
}

}  // namespace
}  // namespace tierfs
