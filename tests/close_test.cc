// Closing a store: what its final save writes, and what it must leave alone.
#include <gtest/gtest.h>

#include "env/store.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;

class CloseTest : public ::testing::Test {
 protected:
  CloseTest() : dir_("close"), uri_(test::MakeUri(dir_, {"64K", "8M"}, ";segment_size:16K")) {}

  std::shared_ptr<rocksdb::FileSystem> OpenFs() {
    std::shared_ptr<rocksdb::FileSystem> fs;
    rocksdb::Status s = NewTierFileSystem(uri_, &fs);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return fs;
  }
  static void Write(rocksdb::FileSystem* fs, const std::string& path, const std::string& data) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs->NewWritableFile(path, FileOptions(), &f, nullptr).ok());
    ASSERT_TRUE(f->Append(data, IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  }
  std::string StatsPath() const { return dir_.path() + "/tier0/meta/STATS"; }

  test::ScratchDir dir_;
  const std::string uri_;
};

TEST_F(CloseTest, FailedOpenLeavesTheSavedStateAlone) {
  std::shared_ptr<rocksdb::FileSystem> fs = OpenFs();
  Write(fs.get(), "/000001.sst", test::RandomBytes(20 << 10, 3));
  fs.reset();     // a clean close saves the counters
  fs = OpenFs();  // and this store holds the lock
  auto host = rocksdb::FileSystem::Default();
  std::string saved;
  ASSERT_TRUE(rocksdb::ReadFileToString(host.get(), StatsPath(), &saved).ok());
  // A second store on the same tiers (another process, in life) cannot lock
  // them: its open fails, and what it leaves behind must not replace the
  // counters saved at the last clean close.
  Options options;
  ASSERT_TRUE(ParseUri(uri_, &options).ok());
  std::shared_ptr<Store> second;
  rocksdb::IOStatus s = Store::Open(options, &second);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("in use")) << s.ToString();
  std::string after;
  ASSERT_TRUE(rocksdb::ReadFileToString(host.get(), StatsPath(), &after).ok());
  EXPECT_EQ(saved, after);
}

}  // namespace
}  // namespace tierfs
