// Writers placing segments at once under the policies that evict on the
// critical path (lru, cde, cde+rl-migr). Their LRU state is changed by every
// eviction; the engine serializes Evict() and Plan() (engine/placement.h), so
// no policy needs a lock of its own. Four writers fill a small fast tier over
// and over, so nearly every placement evicts while the migration thread
// plans; afterwards every byte reads back, the fast tier was never charged
// past its capacity, and the account matches the segment map and the
// backing files (tests/crash_audit.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "env/tier_fs.h"
#include "tests/crash_audit.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

constexpr int kWriters = 4;
constexpr int kFilesPerWriter = 12;
constexpr uint64_t kFileBytes = 6 * (64 << 10);  // six 64 KiB segments
constexpr size_t kAppend = 16 << 10;

std::string FileName(const std::string& dir, int writer, int file) {
  return dir + "/" + std::to_string(writer * 1000 + file) + ".sst";
}

std::string Content(int writer, int file) {
  return test::RandomBytes(kFileBytes, uint32_t(writer * 1000 + file + 1));
}

class ConcurrentWritersTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConcurrentWritersTest, EvictingWritersKeepEveryByteAndTheAccount) {
  test::ScratchDir dir("concurrent-writers");
  // Tier 0 holds about 2.5 files: every writer evicts for nearly every
  // segment. Tier 1 holds them all.
  Options options = test::MakeOptions(dir, {"1M", "64M"},
                                      ";segment_size:64K;policy:" + GetParam() + ";migration:on");
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(options, &fs).ok());
  Store* store = StoreOf(fs.get());
  ASSERT_NE(nullptr, store);
  const std::string db = dir.path() + "/db";
  ASSERT_TRUE(fs->CreateDir(db, IOOptions(), nullptr).ok());

  std::atomic<bool> done{false};
  std::atomic<uint64_t> peak{0};
  std::thread watcher([&] {
    while (!done.load()) {
      const uint64_t used = store->Used(0);
      if (used > peak.load()) peak.store(used);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  std::atomic<int> failures{0};
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int f = 0; f < kFilesPerWriter; ++f) {
        const std::string data = Content(w, f);
        std::unique_ptr<rocksdb::FSWritableFile> file;
        IOStatus s = fs->NewWritableFile(FileName(db, w, f), FileOptions(), &file, nullptr);
        for (size_t off = 0; s.ok() && off < data.size(); off += kAppend) {
          s = file->Append(rocksdb::Slice(data.data() + off, kAppend), IOOptions(), nullptr);
        }
        if (s.ok()) s = file->Sync(IOOptions(), nullptr);
        if (s.ok()) s = file->Close(IOOptions(), nullptr);
        if (!s.ok()) {
          failures++;
          errors[size_t(w)] = FileName(db, w, f) + ": " + s.ToString();
          return;
        }
        // Read what was written, so the LRU order has reads in it too.
        test::ReadAll(fs.get(), FileName(db, w, f / 2));
      }
    });
  }
  for (std::thread& t : writers) t.join();
  done = true;
  watcher.join();
  ASSERT_EQ(0, failures.load()) << errors[0] << errors[1] << errors[2] << errors[3];

  EXPECT_LE(peak.load(), store->Capacity(0));
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs.get(), &stats).ok());
  EXPECT_GT(stats[1].Get(TierTicker::kMovesIn), 0u)
      << "nothing was evicted: the test did not test eviction";
  for (int w = 0; w < kWriters; ++w) {
    for (int f = 0; f < kFilesPerWriter; ++f) {
      ASSERT_EQ(Content(w, f), test::ReadAll(fs.get(), FileName(db, w, f)))
          << GetParam() << ": " << FileName(db, w, f);
    }
  }
  // Quiet the store (no migration thread) and audit it.
  fs.reset();
  options.migration.enabled = false;
  ASSERT_TRUE(NewTierFileSystem(options, &fs).ok());
  const test::Audit audit = test::AuditStore(fs.get(), db);
  EXPECT_EQ("", audit.problems) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EvictingPolicies, ConcurrentWritersTest,
                         ::testing::Values("lru", "cde", "cde+rl-migr"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace tierfs
