// The leak audit the crash test runs after its last kill (AuditEveryFile in
// tests/crash_audit.h) passes a quiet store, metadata files included, and
// finds each kind of leak it is there for: a backing file of no file,
// preallocated blocks left past a segment's content, data on a tier that is
// neither a segment's home nor its copy, and a charge no file holds.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include "tests/crash_audit.h"
#include "tests/crash_files.h"
#include "tests/test_util.h"
#include "tierfs/file_system.h"

namespace tierfs {
namespace {

class CrashAuditTest : public ::testing::Test {
 protected:
  // A store of two tiers holding a table file of four segments and a MANIFEST
  // (metadata, on tier 0), both synced and closed.
  void SetUp() override {
    uri_ = test::MakeUri(dir_, {"1M", "16M"}, ";segment_size:64K");
    ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
    ASSERT_TRUE(fs_->CreateDirIfMissing("/db", rocksdb::IOOptions(), nullptr).ok());
    Write("/db/000007.sst", 0, 200000);
    Write("/db/MANIFEST-000001", 1, 5000);
    store_ = StoreOf(fs_.get());
    ASSERT_NE(nullptr, store_);
  }

  void Write(const std::string& name, uint32_t pattern, size_t size) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(name, rocksdb::FileOptions(), &f, nullptr).ok());
    ASSERT_TRUE(f->Append(test::Pattern(pattern, 0, size), rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Sync(rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(rocksdb::IOOptions(), nullptr).ok());
  }

  // The backing file of `name` on tier `t`, and its segment 0's home.
  std::string DataPath(const std::string& name, int t) {
    return store_->tier(t).DataPath(store_->Find(name)->id);
  }
  int Home(const std::string& name) { return store_->Find(name)->segments.tier(0); }

  // Writes `bytes` at offset 0 of `path` behind the store's back.
  static void WriteRaw(const std::string& path, const std::string& bytes) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(fd, 0) << path;
    ASSERT_EQ(ssize_t(bytes.size()), pwrite(fd, bytes.data(), bytes.size(), 0)) << path;
    close(fd);
  }

  test::ScratchDir dir_{"crash-audit"};
  std::string uri_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  Store* store_ = nullptr;
};

TEST_F(CrashAuditTest, QuietStorePasses) {
  test::Audit a = test::AuditEveryFile(fs_.get());
  EXPECT_EQ("", a.problems);
  uint64_t homes = 0;
  for (uint64_t h : a.homes) homes += h;
  EXPECT_EQ(5u, homes) << "four segments of the table file, one of the MANIFEST";
  EXPECT_GT(a.used[0], 0u) << "the MANIFEST is on tier 0";
  fs_.reset();
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  EXPECT_EQ("", test::AuditEveryFile(fs_.get()).problems) << "after a recovery";
}

TEST_F(CrashAuditTest, FindsABackingFileOfNoFile) {
  const std::string orphan = store_->tier(1).data_dir + "/00000000000000ff";
  ASSERT_NO_FATAL_FAILURE(WriteRaw(orphan, test::Pattern(2, 0, 8192)));
  test::Audit a = test::AuditEveryFile(fs_.get());
  EXPECT_NE(std::string::npos, a.problems.find("data/00000000000000ff belongs to no file"))
      << a.problems;
}

TEST_F(CrashAuditTest, FindsPreallocatedBlocksPastTheContent) {
  const std::string path = DataPath("/db/MANIFEST-000001", Home("/db/MANIFEST-000001"));
  int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, 8192, 65536 - 8192));
  close(fd);
  test::Audit a = test::AuditEveryFile(fs_.get());
  EXPECT_NE(std::string::npos, a.problems.find("the backing files' data occupies"))
      << a.problems;
}

TEST_F(CrashAuditTest, FindsDataOnATierThatHoldsNeitherHomeNorCopy) {
  const int other = 1 - Home("/db/000007.sst");
  ASSERT_NO_FATAL_FAILURE(WriteRaw(DataPath("/db/000007.sst", other), test::Pattern(0, 0, 4096)));
  test::Audit a = test::AuditEveryFile(fs_.get());
  EXPECT_NE(std::string::npos, a.problems.find("which is neither its home nor its copy"))
      << a.problems;
}

TEST_F(CrashAuditTest, FindsAChargeNoFileHolds) {
  store_->tier(1).ForceCharge(kBlockSize);
  test::Audit a = test::AuditEveryFile(fs_.get());
  EXPECT_NE(std::string::npos, a.problems.find("tier 1: account says")) << a.problems;
  store_->tier(1).Release(kBlockSize);
}

}  // namespace
}  // namespace tierfs
