// The largest file TierFS holds (env/file_limits.h): writes past it are
// refused, and recovery refuses a journal record placing a segment beyond it
// with an error naming the record, instead of growing the file's segment
// table to it (a record naming segment 2^40 made the open fail with
// std::bad_alloc).
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "env/file_limits.h"
#include "env/journal_format.h"
#include "env/namespace.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

TEST(FileLimitsTest, EveryOffsetBelowTheLargestFileIsInASegmentBelowTheLimit) {
  EXPECT_EQ(MaxSegmentsPerFile(1 << 20), uint64_t(1) << 20);
  EXPECT_EQ(MaxSegmentsPerFile(4096), uint64_t(1) << 28);
  EXPECT_EQ(MaxSegmentsPerFile(0), 1u);  // whole file: one segment
  for (uint64_t seg_size : {uint64_t(4096), uint64_t(12288), uint64_t(3) << 20, uint64_t(1) << 20}) {
    SCOPED_TRACE(seg_size);
    EXPECT_LT((kMaxFileSize - 1) / seg_size, MaxSegmentsPerFile(seg_size));
  }
}

TEST(FileLimitsTest, NamespaceRefusesASegmentBeyondTheLimitBeforeGrowingTheTable) {
  Namespace ns(16);
  ASSERT_TRUE(ns.Apply(JournalRecord::Bind(7, FileKind::kSst, "/db/000007.sst")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Segment(7, 15, 1)).ok());
  for (const JournalRecord& r : {JournalRecord::Segment(7, 16, 1),
                                 JournalRecord::Copy(7, uint64_t(1) << 40, 0)}) {
    rocksdb::Status s = ns.Apply(r);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("file id 7, segment " + std::to_string(r.segment)),
              std::string::npos)
        << s.ToString();
  }
  EXPECT_EQ(ns.FindId(7)->segments.size(), 16u);
}

class FileLimitsStoreTest : public ::testing::Test {
 protected:
  FileLimitsStoreTest() : dir_("limits"), uri_(test::MakeUri(dir_, {"64M"}, ";segment_size:1M")) {}

  test::ScratchDir dir_;
  std::string uri_;
};

TEST_F(FileLimitsStoreTest, WritePastTheLargestFileIsRefusedAndPlacesNothing) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs).ok());
  std::unique_ptr<rocksdb::FSRandomRWFile> f;
  ASSERT_TRUE(fs->NewRandomRWFile("/db/big", FileOptions(), &f, nullptr).ok());
  IOStatus s = f->Write(kMaxFileSize - 1, Slice("ab", 2), IOOptions(), nullptr);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("offset " + std::to_string(kMaxFileSize - 1)), std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("1 TiB"), std::string::npos) << s.ToString();
  s = f->Write(~uint64_t(0) - 1, Slice("ab", 2), IOOptions(), nullptr);  // no wrap-around
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  // The file is still usable below the limit.
  ASSERT_TRUE(f->Write(0, Slice("ok", 2), IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  std::vector<FileInfo> files;
  ASSERT_TRUE(ListFiles(fs.get(), "/", &files).ok());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].segments_per_tier, std::vector<uint64_t>{1});
  ASSERT_TRUE(Close(fs.get()).ok());
  fs.reset();
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs).ok());
  EXPECT_EQ(test::ReadAll(fs.get(), "/db/big"), "ok");
}

TEST_F(FileLimitsStoreTest, RecoveryRefusesASegmentRecordBeyondTheLimitByName) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs).ok());
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs->NewWritableFile("/db/000001.sst", FileOptions(), &w, nullptr).ok());
  ASSERT_TRUE(w->Append("data", IOOptions(), nullptr).ok());
  ASSERT_TRUE(w->Sync(IOOptions(), nullptr).ok());
  ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
  ASSERT_TRUE(Close(fs.get()).ok());
  fs.reset();

  // The file's id is its backing file's name.
  uint64_t id = 0;
  DIR* d = opendir((dir_.path() + "/tier0/data").c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') id = strtoull(e->d_name, nullptr, 16);
  }
  closedir(d);
  ASSERT_NE(id, 0u);

  // A well-formed record (its CRC is right) naming segment 2^40 of the file,
  // appended to the journal in charge (generation 1, the first open's).
  std::string record;
  EncodeRecord(JournalRecord::Segment(id, uint64_t(1) << 40, 0), &record);
  const std::string journal = dir_.path() + "/tier0/meta/JOURNAL-000001";
  int fd = open(journal.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(record.size()), write(fd, record.data(), record.size()));
  close(fd);

  rocksdb::Status s = NewTierFileSystem(uri_, &fs);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("Segment (file id " + std::to_string(id) + ", segment " +
                              std::to_string(uint64_t(1) << 40)),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(s.ToString().find("bad_alloc"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace tierfs
