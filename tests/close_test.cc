// Close (tierfs/file_system.h): the final save and its status, what a reopen
// sees, and what every call does once the store is closed. A Close whose save
// fails is in fault_injection_test.cc, which has the failing file system.
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <map>

#include "env/store.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::Slice;

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
  // Sum of a counter over the tiers.
  static uint64_t Total(rocksdb::FileSystem* fs, TierTicker t) {
    std::vector<TierStats> stats;
    EXPECT_TRUE(GetTierStats(fs, &stats).ok());
    uint64_t sum = 0;
    for (const TierStats& s : stats) sum += s.Get(t);
    return sum;
  }
  std::string StatsPath() const { return dir_.path() + "/tier0/meta/STATS"; }
  static void ExpectClosed(const rocksdb::Status& s, const std::string& what) {
    EXPECT_TRUE(s.IsIOError()) << what << ": " << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("is closed")) << what << ": " << s.ToString();
  }

  test::ScratchDir dir_;
  const std::string uri_;
};

TEST_F(CloseTest, CloseSavesStatisticsAndAReopenSeesThem) {
  std::shared_ptr<rocksdb::FileSystem> fs = OpenFs();
  ASSERT_TRUE(fs->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(40 << 10, 1);  // 3 segments
  Write(fs.get(), "/db/000001.sst", data);
  const uint64_t writes = Total(fs.get(), TierTicker::kWrites);
  const uint64_t bytes = Total(fs.get(), TierTicker::kWriteBytes);
  ASSERT_EQ(data.size(), bytes);
  ASSERT_GT(writes, 0u);

  rocksdb::Status s = Close(fs.get());
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The old handle is still alive: the reopen gets a new store all the same,
  // with the counters the close saved.
  std::shared_ptr<rocksdb::FileSystem> again = OpenFs();
  ASSERT_TRUE(again);
  EXPECT_EQ(writes, Total(again.get(), TierTicker::kWrites));
  EXPECT_EQ(bytes, Total(again.get(), TierTicker::kWriteBytes));
  EXPECT_EQ(data, test::ReadAll(again.get(), "/db/000001.sst"));
  std::vector<TierStats> stats;
  ExpectClosed(GetTierStats(fs.get(), &stats), "the old handle");
}

TEST_F(CloseTest, EveryCallAfterCloseSaysTheStoreIsClosed) {
  std::shared_ptr<rocksdb::FileSystem> fs = OpenFs();
  std::shared_ptr<rocksdb::FileSystem> shared = OpenFs();  // the same store
  ASSERT_EQ(StoreOf(fs.get()), StoreOf(shared.get()));
  ASSERT_TRUE(fs->CreateDir("/db", IOOptions(), nullptr).ok());
  Write(fs.get(), "/db/000001.sst", test::RandomBytes(20 << 10, 2));
  std::unique_ptr<rocksdb::FSRandomAccessFile> reader;
  ASSERT_TRUE(fs->NewRandomAccessFile("/db/000001.sst", FileOptions(), &reader, nullptr).ok());
  std::unique_ptr<rocksdb::FSWritableFile> writer;
  ASSERT_TRUE(fs->NewWritableFile("/db/000002.log", FileOptions(), &writer, nullptr).ok());
  ASSERT_TRUE(writer->Append("before", IOOptions(), nullptr).ok());
  std::unique_ptr<rocksdb::FSDirectory> dir;
  ASSERT_TRUE(fs->NewDirectory("/db", IOOptions(), &dir, nullptr).ok());

  ASSERT_TRUE(Close(shared.get()).ok());

  std::unique_ptr<rocksdb::FSWritableFile> f;
  ExpectClosed(fs->NewWritableFile("/db/x", FileOptions(), &f, nullptr), "NewWritableFile");
  ExpectClosed(fs->FileExists("/db/000001.sst", IOOptions(), nullptr), "FileExists");
  std::vector<std::string> children;
  ExpectClosed(fs->GetChildren("/db", IOOptions(), &children, nullptr), "GetChildren");
  ExpectClosed(fs->DeleteFile("/db/000001.sst", IOOptions(), nullptr), "DeleteFile");
  ExpectClosed(fs->RenameFile("/db/000001.sst", "/db/y", IOOptions(), nullptr), "RenameFile");
  uint64_t size = 0;
  ExpectClosed(fs->GetFileSize("/db/000001.sst", IOOptions(), &size, nullptr), "GetFileSize");
  std::string abs;
  ExpectClosed(fs->GetAbsolutePath("db", IOOptions(), &abs, nullptr), "GetAbsolutePath");
  ExpectClosed(fs->GetFreeSpace("/db", IOOptions(), &size, nullptr), "GetFreeSpace");
  char scratch[100];
  Slice got;
  ExpectClosed(reader->Read(0, 100, IOOptions(), &got, scratch, nullptr), "Read");
  ExpectClosed(writer->Append("after", IOOptions(), nullptr), "Append");
  ExpectClosed(writer->Sync(IOOptions(), nullptr), "Sync");
  ExpectClosed(dir->Fsync(IOOptions(), nullptr), "directory Fsync");
  EXPECT_TRUE(writer->Close(IOOptions(), nullptr).ok());  // giving a file back still works

  std::vector<TierStats> stats;
  ExpectClosed(GetTierStats(fs.get(), &stats), "GetTierStats");
  std::vector<FileInfo> files;
  ExpectClosed(ListFiles(fs.get(), "/db", &files), "ListFiles");
  ExpectClosed(SetAccessHint(fs.get(), "/db/000001.sst", "", AccessHint::kHot), "SetAccessHint");
  ExpectClosed(Pin(fs.get(), "/db/000001.sst", "", 1), "Pin");
  ExpectClosed(ApplyDataOp(fs.get(), DataOp::kMigrate, "/db/000001.sst", 1, 0, 0, true),
               "ApplyDataOp");
  ExpectClosed(StartTrace(fs.get(), dir_.path() + "/t.trace"), "StartTrace");
  MigrationInfo info;
  ExpectClosed(GetMigrationInfo(fs.get(), &info), "GetMigrationInfo");
  // The second Close returns the first one's status and does nothing more.
  EXPECT_TRUE(Close(fs.get()).ok());
  // Nothing the closed store did after its close reached the tiers.
  std::shared_ptr<rocksdb::FileSystem> again = OpenFs();
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->FileExists("/db/000001.sst", IOOptions(), nullptr).ok());
  EXPECT_TRUE(again->FileExists("/db/x", IOOptions(), nullptr).IsNotFound());
}

TEST_F(CloseTest, DestructionAfterCloseSavesNothingMore) {
  std::shared_ptr<rocksdb::FileSystem> fs = OpenFs();
  Write(fs.get(), "/000001.sst", "data");
  ASSERT_TRUE(Close(fs.get()).ok());
  auto host = rocksdb::FileSystem::Default();
  ASSERT_TRUE(host->FileExists(StatsPath(), IOOptions(), nullptr).ok());
  ASSERT_TRUE(host->DeleteFile(StatsPath(), IOOptions(), nullptr).ok());
  fs.reset();  // the last handle: the store is destroyed
  EXPECT_TRUE(host->FileExists(StatsPath(), IOOptions(), nullptr).IsNotFound());
}

TEST_F(CloseTest, FailedOpenLeavesTheSavedStateAlone) {
  std::shared_ptr<rocksdb::FileSystem> fs = OpenFs();
  Write(fs.get(), "/000001.sst", test::RandomBytes(20 << 10, 3));
  ASSERT_TRUE(Close(fs.get()).ok());  // saves the counters
  fs = OpenFs();                      // and this store holds the lock
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

// The threads of this process by name (/proc/self/task/*/comm).
std::map<std::string, int> ThreadNames() {
  std::map<std::string, int> names;
  DIR* d = opendir("/proc/self/task");
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name)) names[name]++;
  }
  closedir(d);
  return names;
}

TEST_F(CloseTest, BackgroundThreadsAreNamedAndJoinedAtClose) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  const std::string uri = uri_ + ";stats_log:" + dir_.path() + "/stats.jsonl";
  ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
  // Named by their starters: there before the open returns.
  std::map<std::string, int> names = ThreadNames();
  EXPECT_EQ(1, names["tierfs-migrate"]);
  EXPECT_EQ(1, names["tierfs-stats"]);
  EXPECT_EQ(1, names["tierfs-admin"]);
  ASSERT_TRUE(Close(fs.get()).ok());
  // Close joined them, with the file system still held: none is left.
  names = ThreadNames();
  EXPECT_EQ(0, names.count("tierfs-migrate"));
  EXPECT_EQ(0, names.count("tierfs-stats"));
  EXPECT_EQ(0, names.count("tierfs-admin"));
}

}  // namespace
}  // namespace tierfs
