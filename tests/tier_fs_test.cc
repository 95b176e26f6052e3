// TierFS as a rocksdb::FileSystem: every method RocksDB calls, through the
// segment mapping, and what survives a reopen.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <random>

#include "env/histogram.h"
#include "env/posix_util.h"
#include "env/tier.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"
#include "tierfs/trace.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

using test::RandomBytes;

class TierFsTest : public ::testing::Test {
 protected:
  TierFsTest() : dir_("fs") {}

  // 3 tiers of 64K, 128K, 8M with 16K segments unless told otherwise.
  void Open(const std::vector<std::string>& caps = {"64K", "128K", "8M"},
            const std::string& extra = ";segment_size:16K") {
    uri_ = test::MakeUri(dir_, caps, extra);
    ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  }
  void Reopen() {
    fs_.reset();
    rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  Store& store() { return *static_cast<TierFileSystem*>(fs_.get())->store(); }

  void Write(const std::string& path, const std::string& data, size_t chunk = 5000,
             bool sync = true) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(path, FileOptions(), &f, nullptr).ok());
    for (size_t off = 0; off < data.size(); off += chunk) {
      ASSERT_TRUE(f->Append(Slice(data.data() + off, std::min(chunk, data.size() - off)),
                            IOOptions(), nullptr).ok());
    }
    if (sync) {
      ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
    }
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  }

  std::vector<uint64_t> SegmentsPerTier(const std::string& path) {
    std::vector<FileInfo> files;
    EXPECT_TRUE(ListFiles(fs_.get(), "/", &files).ok());
    for (const FileInfo& f : files) {
      if (f.name == path) return f.segments_per_tier;
    }
    return {};
  }

  test::ScratchDir dir_;
  std::string uri_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
};

TEST_F(TierFsTest, BulkFileSpreadsOverTiersAndReadsBack) {
  Open();
  ASSERT_TRUE(fs_->CreateDirIfMissing("/db", IOOptions(), nullptr).ok());
  std::string data = RandomBytes(300 * 1024 + 123, 1);
  Write("/db/000010.sst", data);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000010.sst"));
  std::vector<uint64_t> per_tier = SegmentsPerTier("/db/000010.sst");
  ASSERT_EQ(3u, per_tier.size());
  EXPECT_GT(per_tier[0], 0u);
  EXPECT_GT(per_tier[1], 0u);
  EXPECT_GT(per_tier[2], 0u);
  EXPECT_EQ(19u, per_tier[0] + per_tier[1] + per_tier[2]);  // ceil(307323 / 16K)

  // Random-access reads that cross segment boundaries and the end of file.
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000010.sst", FileOptions(), &r, nullptr).ok());
  std::mt19937 rng(7);
  std::string scratch(100000, '\0');
  for (int i = 0; i < 200; ++i) {
    uint64_t off = rng() % data.size();
    size_t n = rng() % 70000;
    Slice got;
    ASSERT_TRUE(r->Read(off, n, IOOptions(), &got, &scratch[0], nullptr).ok());
    ASSERT_EQ(data.substr(off, n), got.ToString()) << "offset " << off << " n " << n;
  }
  // MultiRead.
  rocksdb::FSReadRequest reqs[2];
  std::string s1(40000, '\0'), s2(10, '\0');
  reqs[0].offset = 10000; reqs[0].len = 40000; reqs[0].scratch = &s1[0];
  reqs[1].offset = data.size() - 5; reqs[1].len = 10; reqs[1].scratch = &s2[0];
  ASSERT_TRUE(r->MultiRead(reqs, 2, IOOptions(), nullptr).ok());
  EXPECT_EQ(data.substr(10000, 40000), reqs[0].result.ToString());
  EXPECT_EQ(data.substr(data.size() - 5), reqs[1].result.ToString());
}

TEST_F(TierFsTest, MetadataStaysOnFastestTier) {
  Open({"64K", "8M"}, ";segment_size:16K;policy:slow-only");
  Write("/db/MANIFEST-000001", RandomBytes(20000, 2));
  Write("/db/000001.sst", RandomBytes(20000, 3));
  EXPECT_EQ((std::vector<uint64_t>{2, 0}), SegmentsPerTier("/db/MANIFEST-000001"));
  EXPECT_EQ((std::vector<uint64_t>{0, 2}), SegmentsPerTier("/db/000001.sst"));
}

TEST_F(TierFsTest, SequentialFileReadsAndSkips) {
  Open();
  std::string data = RandomBytes(100000, 4);
  Write("/db/000001.log", data);
  std::unique_ptr<rocksdb::FSSequentialFile> f;
  ASSERT_TRUE(fs_->NewSequentialFile("/db/000001.log", FileOptions(), &f, nullptr).ok());
  std::string scratch(30000, '\0');
  Slice got;
  ASSERT_TRUE(f->Read(30000, IOOptions(), &got, &scratch[0], nullptr).ok());
  EXPECT_EQ(data.substr(0, 30000), got.ToString());
  ASSERT_TRUE(f->Skip(20000).ok());
  ASSERT_TRUE(f->Read(30000, IOOptions(), &got, &scratch[0], nullptr).ok());
  EXPECT_EQ(data.substr(50000, 30000), got.ToString());
  ASSERT_TRUE(f->Read(30000, IOOptions(), &got, &scratch[0], nullptr).ok());
  EXPECT_EQ(data.substr(80000), got.ToString());
  ASSERT_TRUE(f->Read(30000, IOOptions(), &got, &scratch[0], nullptr).ok());
  EXPECT_EQ(0u, got.size());
}

TEST_F(TierFsTest, NamespaceOperations) {
  Open();
  IOOptions io;
  ASSERT_TRUE(fs_->CreateDir("/db", io, nullptr).ok());
  EXPECT_FALSE(fs_->CreateDir("/db", io, nullptr).ok());
  EXPECT_TRUE(fs_->CreateDirIfMissing("/db", io, nullptr).ok());
  Write("/db/a.sst", "aaaa");
  Write("/db/b.sst", "bbbbbb");
  ASSERT_TRUE(fs_->CreateDir("/db/sub", io, nullptr).ok());
  Write("/db/sub/c", "c");

  std::vector<std::string> children;
  ASSERT_TRUE(fs_->GetChildren("/db/", io, &children, nullptr).ok());
  std::sort(children.begin(), children.end());
  EXPECT_EQ((std::vector<std::string>{"a.sst", "b.sst", "sub"}), children);
  std::vector<rocksdb::FileAttributes> attrs;
  ASSERT_TRUE(fs_->GetChildrenFileAttributes("/db", io, &attrs, nullptr).ok());
  ASSERT_EQ(2u, attrs.size());
  EXPECT_TRUE(fs_->GetChildren("/nothere", io, &children, nullptr).IsPathNotFound());  // as POSIX

  bool is_dir = false;
  ASSERT_TRUE(fs_->IsDirectory("/db/sub", io, &is_dir, nullptr).ok());
  EXPECT_TRUE(is_dir);
  ASSERT_TRUE(fs_->IsDirectory("/db/a.sst", io, &is_dir, nullptr).ok());
  EXPECT_FALSE(is_dir);
  EXPECT_TRUE(fs_->FileExists("/db//a.sst", io, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists("/db/zzz", io, nullptr).IsNotFound());
  EXPECT_FALSE(fs_->DeleteDir("/db/sub", io, nullptr).ok());  // not empty

  // Rename replaces the target.
  ASSERT_TRUE(fs_->RenameFile("/db/a.sst", "/db/b.sst", io, nullptr).ok());
  EXPECT_EQ("aaaa", test::ReadAll(fs_.get(), "/db/b.sst"));
  EXPECT_TRUE(fs_->FileExists("/db/a.sst", io, nullptr).IsNotFound());

  // Links share the file.
  ASSERT_TRUE(fs_->LinkFile("/db/b.sst", "/db/l.sst", io, nullptr).ok());
  uint64_t links = 0;
  ASSERT_TRUE(fs_->NumFileLinks("/db/l.sst", io, &links, nullptr).ok());
  EXPECT_EQ(2u, links);
  bool same = false;
  ASSERT_TRUE(fs_->AreFilesSame("/db/b.sst", "/db/l.sst", io, &same, nullptr).ok());
  EXPECT_TRUE(same);
  EXPECT_FALSE(fs_->LinkFile("/db/b.sst", "/db/l.sst", io, nullptr).ok());
  ASSERT_TRUE(fs_->DeleteFile("/db/b.sst", io, nullptr).ok());
  EXPECT_EQ("aaaa", test::ReadAll(fs_.get(), "/db/l.sst"));

  uint64_t size = 0;
  ASSERT_TRUE(fs_->GetFileSize("/db/l.sst", io, &size, nullptr).ok());
  EXPECT_EQ(4u, size);
  uint64_t mtime = 0;
  ASSERT_TRUE(fs_->GetFileModificationTime("/db/l.sst", io, &mtime, nullptr).ok());
  EXPECT_GT(mtime, 1600000000u);
  EXPECT_TRUE(fs_->DeleteFile("/db/nothere", io, nullptr).IsPathNotFound());

  ASSERT_TRUE(fs_->DeleteFile("/db/sub/c", io, nullptr).ok());
  EXPECT_TRUE(fs_->DeleteDir("/db/sub", io, nullptr).ok());

  std::string abs;
  ASSERT_TRUE(fs_->GetAbsolutePath("/db/./x/../y", io, &abs, nullptr).ok());
  EXPECT_EQ("/db/y", abs);

  // Everything above survives a reopen.
  Reopen();
  ASSERT_TRUE(fs_->GetChildren("/db", io, &children, nullptr).ok());
  EXPECT_EQ((std::vector<std::string>{"l.sst"}), children);
  EXPECT_EQ("aaaa", test::ReadAll(fs_.get(), "/db/l.sst"));
}

TEST_F(TierFsTest, DeletedFileStaysReadableWhileOpenThenFreesSpace) {
  Open();
  std::string data = RandomBytes(200000, 5);
  Write("/db/000007.sst", data);
  uint64_t used_before = store().Used(0) + store().Used(1) + store().Used(2);
  EXPECT_GE(used_before, data.size());
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000007.sst", FileOptions(), &r, nullptr).ok());
  ASSERT_TRUE(fs_->DeleteFile("/db/000007.sst", IOOptions(), nullptr).ok());
  std::string scratch(data.size(), '\0');
  Slice got;
  ASSERT_TRUE(r->Read(0, data.size(), IOOptions(), &got, &scratch[0], nullptr).ok());
  EXPECT_EQ(data, got.ToString());
  r.reset();
  EXPECT_EQ(0u, store().Used(0) + store().Used(1) + store().Used(2));
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(0u, test::AllocatedOnTier(dir_.path() + "/tier" + std::to_string(t)));
  }
}

TEST_F(TierFsTest, CapacityIsNeverExceededAndFullStoreSaysWhichTiers) {
  Open({"64K", "128K"});
  std::string data = RandomBytes(150 * 1024, 6);
  Write("/db/000001.sst", data);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000001.sst"));
  for (int t = 0; t < 2; ++t) {
    std::string root = dir_.path() + "/tier" + std::to_string(t);
    EXPECT_LE(test::AllocatedOnTier(root), store().Capacity(t)) << "tier " << t;
    EXPECT_LE(store().Used(t), store().Capacity(t));
  }
  // Nothing has room for another 100K: the error names the tiers.
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000002.sst", FileOptions(), &f, nullptr).ok());
  IOStatus s;
  std::string more = RandomBytes(100 * 1024, 7);
  for (size_t off = 0; s.ok() && off < more.size(); off += 4096) {
    s = f->Append(Slice(more.data() + off, 4096), IOOptions(), nullptr);
  }
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("tier 0"));
  EXPECT_NE(std::string::npos, s.ToString().find("tier 1"));
  f.reset();
  // Deleting frees room again.
  ASSERT_TRUE(fs_->DeleteFile("/db/000001.sst", IOOptions(), nullptr).ok());
  Write("/db/000003.sst", more);
  EXPECT_EQ(more, test::ReadAll(fs_.get(), "/db/000003.sst"));
}

TEST_F(TierFsTest, ReopenRestoresPlacementAndAccount) {
  Open();
  std::string a = RandomBytes(250000, 8), b = RandomBytes(70000, 9);
  Write("/db/000001.sst", a);
  Write("/db/000002.log", b, 333, /*sync=*/false);
  std::vector<uint64_t> placement = SegmentsPerTier("/db/000001.sst");
  std::vector<uint64_t> used = {store().Used(0), store().Used(1), store().Used(2)};
  Reopen();
  EXPECT_EQ(a, test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ(b, test::ReadAll(fs_.get(), "/db/000002.log"));
  EXPECT_EQ(placement, SegmentsPerTier("/db/000001.sst"));
  EXPECT_EQ(used, (std::vector<uint64_t>{store().Used(0), store().Used(1), store().Used(2)}));
}

TEST_F(TierFsTest, RecoveryRemovesOrphansAndHalfCopies) {
  Open({"64K", "8M"});
  std::string data = RandomBytes(40000, 10);
  Write("/db/000001.sst", data);  // 3 segments, all on tier 0
  ASSERT_EQ((std::vector<uint64_t>{3, 0}), SegmentsPerTier("/db/000001.sst"));
  uint64_t id = store().Find("/db/000001.sst")->id;
  std::string tier1_copy = store().tier(1).DataPath(id);
  std::string orphan = store().tier(1).DataPath(0xdead);
  fs_.reset();

  // A half-done copy of segment 1 on tier 1 and a backing file of no file.
  std::string junk = RandomBytes(16384, 11);
  int fd = open(tier1_copy.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(junk.size()), pwrite(fd, junk.data(), junk.size(), 16384));
  close(fd);
  fd = open(orphan.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_EQ(5, write(fd, "stale", 5));
  close(fd);

  Reopen();
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_FALSE(HasData(tier1_copy, 0, 1 << 20));  // the half copy was punched out
  EXPECT_NE(0, access(orphan.c_str(), F_OK));
  EXPECT_EQ(0u, store().Used(1));
}

// After a power cut a never-synced file's home can hold less than a copy a
// failed relocation synced elsewhere (then punched, keeping its size): the
// file's size comes from the data its homes hold, not from that longer
// backing file, or the file would read zeros past its home's data.
TEST_F(TierFsTest, RecoverySizesAFileFromItsHomesNotAFailedRelocationsCopy) {
  Open({"64K", "8M"});
  std::string data = RandomBytes(20000, 12);
  Write("/db/000007.log", data, 5000, /*sync=*/false);  // segments 0 and 1 on tier 0
  ASSERT_EQ((std::vector<uint64_t>{2, 0}), SegmentsPerTier("/db/000007.log"));
  uint64_t id = store().Find("/db/000007.log")->id;
  std::string home = store().tier(0).DataPath(id);
  std::string copy = store().tier(1).DataPath(id);
  fs_.reset();
  // The cut took the home's unsynced tail; the relocation's copy of segment
  // 1 on tier 1 was synced, then punched when the relocation failed.
  ASSERT_EQ(0, truncate(home.c_str(), 18000));
  int fd = open(copy.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(data.size() - 16384), pwrite(fd, data.data() + 16384, data.size() - 16384, 16384));
  close(fd);
  ASSERT_TRUE(PunchHole(copy, 16384, 4096).ok());
  Reopen();
  uint64_t size = 0;
  ASSERT_TRUE(fs_->GetFileSize("/db/000007.log", IOOptions(), &size, nullptr).ok());
  EXPECT_EQ(18000u, size);
  EXPECT_TRUE(data.substr(0, 18000) == test::ReadAll(fs_.get(), "/db/000007.log"));
}

// A move's synced copy outlives its home's unsynced data when the power goes
// before the commit: past the size the home gives the file (here 0), the
// copy is still neither home nor copy, and is punched (found by
// power_loss_test, on RocksDB's info LOG moved down).
TEST_F(TierFsTest, RecoveryPunchesAnUncommittedMovesCopyPastTheFilesSize) {
  Open({"64K", "8M"});
  std::string data = RandomBytes(5000, 14);
  Write("/db/LOG", data, 5000, /*sync=*/false);  // segment 0 on tier 0
  ASSERT_EQ((std::vector<uint64_t>{1, 0}), SegmentsPerTier("/db/LOG"));
  uint64_t id = store().Find("/db/LOG")->id;
  std::string home = store().tier(0).DataPath(id);
  std::string copy = store().tier(1).DataPath(id);
  fs_.reset();
  // The cut took the home's unsynced data; the move's copy was synced.
  ASSERT_EQ(0, truncate(home.c_str(), 0));
  int fd = open(copy.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(data.size()), pwrite(fd, data.data(), data.size(), 0));
  close(fd);
  Reopen();
  uint64_t size = 1;
  ASSERT_TRUE(fs_->GetFileSize("/db/LOG", IOOptions(), &size, nullptr).ok());
  EXPECT_EQ(0u, size);
  EXPECT_FALSE(HasData(copy, 0, 1 << 20));
  EXPECT_EQ(0u, store().Used(1));
}

// Data of a segment whose Segment record a power cut took (possible only
// where a device kept an unsynced write) is adopted, and counts for the size.
TEST_F(TierFsTest, RecoveryAdoptsASegmentWithNoRecordAndSizesTheFileByIt) {
  Open({"64K", "8M"});
  std::string data = RandomBytes(20000, 13);
  Write("/db/000008.log", data.substr(0, 16384));  // segment 0 on tier 0
  uint64_t id = store().Find("/db/000008.log")->id;
  std::string other = store().tier(1).DataPath(id);
  fs_.reset();
  int fd = open(other.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(data.size() - 16384), pwrite(fd, data.data() + 16384, data.size() - 16384, 16384));
  close(fd);
  Reopen();
  EXPECT_TRUE(data == test::ReadAll(fs_.get(), "/db/000008.log"));
  EXPECT_EQ((std::vector<uint64_t>{1, 1}), SegmentsPerTier("/db/000008.log"));
}

TEST_F(TierFsTest, CorruptJournalIsRefusedWithItsName) {
  Open();
  for (int i = 0; i < 20; ++i) Write("/db/" + std::to_string(100 + i) + ".sst", "x");
  fs_.reset();
  // Reopen once so the records sit in JOURNAL-000002 after a snapshot... then
  // damage a record in the middle of the journal of the newest generation.
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  for (int i = 0; i < 20; ++i) Write("/db/" + std::to_string(200 + i) + ".sst", "y");
  fs_.reset();
  std::string journal = dir_.path() + "/tier0/meta/JOURNAL-000002";
  int fd = open(journal.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c;
  ASSERT_EQ(1, pread(fd, &c, 1, 200));
  c ^= 0x40;
  ASSERT_EQ(1, pwrite(fd, &c, 1, 200));
  close(fd);
  rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("JOURNAL-000002")) << s.ToString();
}

TEST_F(TierFsTest, TornJournalTailIsDropped) {
  Open();
  Write("/db/000001.sst", "synced");
  fs_.reset();
  std::string journal = dir_.path() + "/tier0/meta/JOURNAL-000002";
  // Not there yet: generation 2 starts at the next open. Append half a record.
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  Write("/db/000002.sst", "also synced");
  fs_.reset();
  int fd = open(journal.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(6, write(fd, "\x12\x34\x56\x78\x40\x00", 6));
  close(fd);
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  EXPECT_EQ("synced", test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ("also synced", test::ReadAll(fs_.get(), "/db/000002.sst"));
}

TEST_F(TierFsTest, ReopenReuseAndTruncateWritableFiles) {
  Open();
  IOOptions io;
  Write("/db/000001.log", "hello ");
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->ReopenWritableFile("/db/000001.log", FileOptions(), &f, nullptr).ok());
  ASSERT_TRUE(f->Append("world", io, nullptr).ok());
  ASSERT_TRUE(f->Close(io, nullptr).ok());
  EXPECT_EQ("hello world", test::ReadAll(fs_.get(), "/db/000001.log"));

  // WAL recycling: the old log is renamed and overwritten from offset 0.
  ASSERT_TRUE(fs_->ReuseWritableFile("/db/000009.log", "/db/000001.log", FileOptions(), &f, nullptr).ok());
  ASSERT_TRUE(f->Append("HELLO", io, nullptr).ok());
  EXPECT_EQ(5u, f->GetFileSize(io, nullptr));
  ASSERT_TRUE(f->Close(io, nullptr).ok());
  EXPECT_TRUE(fs_->FileExists("/db/000001.log", io, nullptr).IsNotFound());
  EXPECT_EQ("HELLO world", test::ReadAll(fs_.get(), "/db/000009.log"));

  ASSERT_TRUE(fs_->Truncate("/db/000009.log", 3, io, nullptr).ok());
  EXPECT_EQ("HEL", test::ReadAll(fs_.get(), "/db/000009.log"));

  // Positioned writes through a RandomRW file.
  std::unique_ptr<rocksdb::FSRandomRWFile> rw;
  ASSERT_TRUE(fs_->NewRandomRWFile("/db/000009.log", FileOptions(), &rw, nullptr).ok());
  ASSERT_TRUE(rw->Write(40000, "far", io, nullptr).ok());
  ASSERT_TRUE(rw->Sync(io, nullptr).ok());
  std::string scratch(8, '\0');
  Slice got;
  ASSERT_TRUE(rw->Read(39999, 8, io, &got, &scratch[0], nullptr).ok());
  EXPECT_EQ(std::string("\0far", 4), got.ToString());
  ASSERT_TRUE(rw->Close(io, nullptr).ok());
  std::string all = test::ReadAll(fs_.get(), "/db/000009.log");
  ASSERT_EQ(40003u, all.size());
  EXPECT_EQ(std::string(100, '\0'), all.substr(10000, 100));  // a hole reads as zeros
}

TEST_F(TierFsTest, DirectReadsAreAligned) {
  Open();
  std::string data = RandomBytes(100000, 12);
  Write("/db/000001.sst", data);
  FileOptions fo;
  fo.use_direct_reads = true;
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  IOStatus s = fs_->NewRandomAccessFile("/db/000001.sst", fo, &r, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(r->use_direct_io());
  size_t align = r->GetRequiredBufferAlignment();
  char* buf = static_cast<char*>(aligned_alloc(align, 65536));
  Slice got;
  // Aligned offset, aligned length crossing segments and the end of file.
  ASSERT_TRUE(r->Read(12288, 65536, IOOptions(), &got, buf, nullptr).ok());
  EXPECT_EQ(data.substr(12288, 65536), got.ToString());
  ASSERT_TRUE(r->Read(98304, 8192, IOOptions(), &got, buf, nullptr).ok());
  EXPECT_EQ(data.substr(98304), got.ToString());
  free(buf);
}

TEST_F(TierFsTest, MmapIsRefusedWithAReason) {
  Open();
  Write("/db/000001.sst", "x");
  FileOptions fo;
  fo.use_mmap_reads = true;
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  IOStatus s = fs_->NewRandomAccessFile("/db/000001.sst", fo, &r, nullptr);
  EXPECT_TRUE(s.IsNotSupported());
  EXPECT_NE(std::string::npos, s.ToString().find("allow_mmap_reads"));
}

TEST_F(TierFsTest, WholeFileSegmentsKeepEachFileOnOneTier) {
  // A whole-file segment reserves 64K at a time: the second file finds no
  // room on tier 0 and goes whole to tier 1.
  Open({"100K", "8M"}, ";segment_size:whole");
  Write("/db/000001.sst", RandomBytes(50000, 13));
  Write("/db/000002.sst", RandomBytes(50000, 14));
  EXPECT_EQ((std::vector<uint64_t>{1, 0}), SegmentsPerTier("/db/000001.sst"));
  EXPECT_EQ((std::vector<uint64_t>{0, 1}), SegmentsPerTier("/db/000002.sst"));
}

TEST_F(TierFsTest, DeviceModelAddsServiceTime) {
  // custom: 2000 us per I/O, so every read takes at least that long.
  Open({"8M:custom-2000-2000-1000"}, ";segment_size:16K");
  Write("/db/000001.sst", RandomBytes(16384, 15));
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000001.sst", FileOptions(), &r, nullptr).ok());
  std::string scratch(4096, '\0');
  Slice got;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(r->Read(uint64_t(i) * 3000, 4096, IOOptions(), &got, &scratch[0], nullptr).ok());
  }
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_EQ(5u, stats[0].Get(TierTicker::kReads));
  EXPECT_GE(stats[0].Get(TierHistogram::kReadLatency).Average(), 2000.0);
  EXPECT_EQ("custom-2000-2000-1000", stats[0].device);
}

TEST_F(TierFsTest, WithoutADeviceModelEveryReadCountsAndASampleIsTimed) {
  // No device model and a policy that does not learn from latencies: the
  // clock is read for one read in Tier::kTimedEvery per thread, and every
  // read is counted. While a trace runs (it records latencies) every read is
  // timed.
  Open({"8M"}, ";segment_size:16K;policy:fast-first");
  Write("/db/000001.sst", RandomBytes(16384, 15));
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000001.sst", FileOptions(), &r, nullptr).ok());
  std::string scratch(512, '\0');
  Slice got;
  auto read_times = [&](int n) {
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(r->Read(uint64_t(i % 32) * 512, 512, IOOptions(), &got, &scratch[0], nullptr).ok());
    }
  };
  constexpr int kReads = 4 * int(Tier::kTimedEvery);
  read_times(kReads);
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_EQ(uint64_t(kReads), stats[0].Get(TierTicker::kReads));
  // Any kReads reads in a row of one thread hold exactly four timed ones.
  EXPECT_EQ(4u, stats[0].Get(TierHistogram::kReadLatency).count);

  ASSERT_TRUE(StartTrace(fs_.get(), dir_.path() + "/reads.trace").ok());
  read_times(kReads);
  uint64_t records = 0;
  ASSERT_TRUE(StopTrace(fs_.get(), &records).ok());
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_EQ(uint64_t(2 * kReads), stats[0].Get(TierTicker::kReads));
  EXPECT_EQ(uint64_t(4 + kReads), stats[0].Get(TierHistogram::kReadLatency).count);
}

TEST_F(TierFsTest, BufferedWritesAreWrittenBackAndSyncWaitsForTheDevice) {
  Open({"8M:custom-2000-2000-1000"}, ";segment_size:16K");
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.log", FileOptions(), &f, nullptr).ok());
  const int64_t begin = DeviceModel::NowNanos();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(f->Append(std::string(100, 'x'), IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
  const int64_t elapsed_us = (DeviceModel::NowNanos() - begin) / 1000;
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_EQ(10u, stats[0].Get(TierTicker::kWrites));
  // Ten writes of 2 ms each queue on the device; the writer did not wait for
  // them, the sync did: it returns only after all ten and its own 2 ms flush
  // (less the model's 200 us pacing slack). How much of that the sync itself
  // waited depends on how long the appends took, so bound the whole.
  EXPECT_LT(stats[0].Get(TierHistogram::kWriteLatency).Average(), 2000.0);
  EXPECT_EQ(1u, stats[0].Get(TierTicker::kSyncs));
  EXPECT_GE(stats[0].Get(TierHistogram::kSyncLatency).Average(), 2000.0 - 200.0);
  EXPECT_GE(elapsed_us, 11 * 2000 - 200);
}

TEST_F(TierFsTest, DirectWritesWaitForTheDevice) {
  Open({"8M:custom-2000-2000-1000"}, ";segment_size:16K");
  FileOptions fo;
  fo.use_direct_writes = true;
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.sst", fo, &f, nullptr).ok());
  EXPECT_TRUE(f->use_direct_io());
  std::string block(4096, 'd');
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(f->PositionedAppend(block, uint64_t(i) * 4096, IOOptions(), nullptr).ok());
  }
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  std::vector<TierStats> stats;
  ASSERT_TRUE(GetTierStats(fs_.get(), &stats).ok());
  EXPECT_GE(stats[0].Get(TierHistogram::kWriteLatency).Average(), 2000.0);
  EXPECT_EQ(std::string(3 * 4096, 'd'), test::ReadAll(fs_.get(), "/db/000001.sst"));
}

TEST_F(TierFsTest, SameStoreIsSharedAndConflictingConfigRefused) {
  Open();
  std::shared_ptr<rocksdb::FileSystem> again;
  ASSERT_TRUE(NewTierFileSystem(uri_, &again).ok());
  Write("/db/000001.sst", "shared");
  EXPECT_EQ("shared", test::ReadAll(again.get(), "/db/000001.sst"));
  std::shared_ptr<rocksdb::FileSystem> other;
  rocksdb::Status s = NewTierFileSystem(test::MakeUri(dir_, {"64K", "128K", "9M"}, ";segment_size:16K"), &other);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(TierFsTest, TiersCannotBeReordered) {
  Open({"64K", "8M"});
  Write("/db/000001.sst", "x");
  fs_.reset();
  std::string swapped = "tierfs://" + dir_.path() + "/tier1:8M," + dir_.path() + "/tier0:64K;segment_size:16K";
  rocksdb::Status s = NewTierFileSystem(swapped, &fs_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("tier 0")) << s.ToString();
}

TEST_F(TierFsTest, LoggerWritesThroughTierFs) {
  Open();
  ASSERT_TRUE(fs_->CreateDirIfMissing("/db", IOOptions(), nullptr).ok());
  std::shared_ptr<rocksdb::Logger> log;
  ASSERT_TRUE(fs_->NewLogger("/db/LOG", IOOptions(), &log, nullptr).ok());
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "hello %d", 42);
  log.reset();
  std::string text = test::ReadAll(fs_.get(), "/db/LOG");
  EXPECT_NE(std::string::npos, text.find("hello 42\n")) << text;
}

TEST_F(TierFsTest, LockExcludesASecondLocker) {
  Open();
  rocksdb::FileLock* lock = nullptr;
  ASSERT_TRUE(fs_->LockFile("/db/LOCK", IOOptions(), &lock, nullptr).ok());
  rocksdb::FileLock* lock2 = nullptr;
  EXPECT_FALSE(fs_->LockFile("/db/LOCK", IOOptions(), &lock2, nullptr).ok());
  ASSERT_TRUE(fs_->UnlockFile(lock, IOOptions(), nullptr).ok());
  ASSERT_TRUE(fs_->LockFile("/db/LOCK", IOOptions(), &lock2, nullptr).ok());
  ASSERT_TRUE(fs_->UnlockFile(lock2, IOOptions(), nullptr).ok());
}

TEST_F(TierFsTest, FreeSpaceComesFromTheAccount) {
  Open({"64K", "128K"});
  uint64_t before = 0, after = 0;
  ASSERT_TRUE(fs_->GetFreeSpace("/db", IOOptions(), &before, nullptr).ok());
  EXPECT_EQ(192u * 1024, before);
  Write("/db/000001.sst", RandomBytes(40000, 16));
  ASSERT_TRUE(fs_->GetFreeSpace("/db", IOOptions(), &after, nullptr).ok());
  EXPECT_LT(after, before - 40000);
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

TEST_F(TierFsTest, WholeFileOutgrowingItsTierMovesWhole) {
  Open({"100K", "8M"}, ";segment_size:whole");
  std::string data = RandomBytes(150000, 17);
  Write("/db/000001.sst", data, 10000);
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ((std::vector<uint64_t>{0, 1}), SegmentsPerTier("/db/000001.sst"));
  EXPECT_LE(store().Used(0), 4096u);  // the empty backing file's block allowance
  EXPECT_FALSE(HasData(store().tier(0).DataPath(store().Find("/db/000001.sst")->id), 0, 1 << 20));
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

TEST_F(TierFsTest, JournalRotatesWhileRunningAndRecoversAcrossGenerations) {
  Open();
  IOOptions io;
  // 70,000+ records: past the 65,536 that start a new generation.
  for (int i = 0; i < 36000; ++i) {
    std::string name = "/db/" + std::to_string(i) + ".sst";
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(name, FileOptions(), &f, nullptr).ok());
    f.reset();
    if (i % 100 != 0) {
      ASSERT_TRUE(fs_->DeleteFile(name, io, nullptr).ok());
    }
  }
  Write("/db/last.sst", "after the rotation");
  std::vector<std::string> meta;
  ASSERT_TRUE(rocksdb::FileSystem::Default()->GetChildren(dir_.path() + "/tier0/meta", io, &meta, nullptr).ok());
  EXPECT_NE(meta.end(), std::find(meta.begin(), meta.end(), "SNAPSHOT-000002")) << "no rotation happened";
  Reopen();
  std::vector<std::string> children;
  ASSERT_TRUE(fs_->GetChildren("/db", io, &children, nullptr).ok());
  EXPECT_EQ(361u, children.size());
  EXPECT_EQ("after the rotation", test::ReadAll(fs_.get(), "/db/last.sst"));
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

// A store killed while it was first being created opens: a half-written
// marker (only ever in TIERFS-TIER.tmp) is ignored, and a tier whose marker
// exists but whose data/ does not is completed.
TEST_F(TierFsTest, StoreKilledDuringCreationOpens) {
  std::string t0 = dir_.Sub("tier0"), t1 = dir_.Sub("tier1");
  int fd = open((t0 + "/TIERFS-TIER.tmp").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_EQ(7, write(fd, "tierfs-", 7));
  close(fd);
  Open({"64K", "8M"});
  Write("/db/000001.sst", "first");
  fs_.reset();
  ASSERT_EQ(0, system(("rm -rf '" + t1 + "/data'").c_str()));
  Reopen();
  EXPECT_EQ("first", test::ReadAll(fs_.get(), "/db/000001.sst"));
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

TEST_F(TierFsTest, StatisticsSurviveACleanCloseAndAreShownReadOnly) {
  Open({"64K", "8M"});
  Write("/db/000001.sst", RandomBytes(100000, 18));
  ASSERT_EQ(100000u, test::ReadAll(fs_.get(), "/db/000001.sst").size());
  std::vector<TierStats> before;
  ASSERT_TRUE(GetTierStats(fs_.get(), &before).ok());
  ASSERT_GT(before[0].Get(TierTicker::kReads) + before[1].Get(TierTicker::kReads), 0u);
  ASSERT_GT(before[1].Get(TierTicker::kWrites), 0u);
  fs_.reset();  // clean close: counters saved
  Options ro = test::MakeOptions(dir_, {"64K", "8M"}, ";segment_size:16K");
  ro.read_only = true;
  ASSERT_TRUE(NewTierFileSystem(ro, &fs_).ok());
  std::vector<TierStats> after;
  ASSERT_TRUE(GetTierStats(fs_.get(), &after).ok());
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(before[t].Get(TierTicker::kReads), after[t].Get(TierTicker::kReads)) << t;
    EXPECT_EQ(before[t].Get(TierTicker::kReadBytes), after[t].Get(TierTicker::kReadBytes)) << t;
    EXPECT_EQ(before[t].Get(TierTicker::kWrites), after[t].Get(TierTicker::kWrites)) << t;
    EXPECT_EQ(before[t].Get(TierHistogram::kReadLatency).count,
              after[t].Get(TierHistogram::kReadLatency).count) << t;
    EXPECT_EQ(before[t].used_bytes, after[t].used_bytes) << t;
    EXPECT_EQ(before[t].Get(TierTicker::kSegments), after[t].Get(TierTicker::kSegments)) << t;
  }
  // Read-only: nothing may change.
  std::unique_ptr<rocksdb::FSWritableFile> f;
  EXPECT_TRUE(fs_->NewWritableFile("/db/x", FileOptions(), &f, nullptr).IsNotSupported());
}

TEST(LatencyHistogramTest, PercentileIsTheBucketBound) {
  LatencyHistogram h;
  for (int i = 0; i < 99; ++i) RecordLatency(&h, 3);  // bucket [2, 4)
  RecordLatency(&h, 1000);                            // bucket [512, 1024)
  EXPECT_EQ(100u, h.count);
  EXPECT_DOUBLE_EQ((99 * 3 + 1000) / 100.0, h.Average());
  EXPECT_EQ(4.0, h.Percentile(50));
  EXPECT_EQ(4.0, h.Percentile(99));
  EXPECT_EQ(1024.0, h.Percentile(100));
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

TEST_F(TierFsTest, SegmentSizeCannotChangeUnderAStore) {
  Open({"64K", "8M"});
  Write("/db/000001.sst", "x");
  fs_.reset();
  rocksdb::Status s = NewTierFileSystem(test::MakeUri(dir_, {"64K", "8M"}, ";segment_size:1M"), &fs_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("created with segment_size 16384")) << s.ToString();
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

// A writer that goes on writing after another thread removed the file's last
// name journals segments of a file with no name; the store must still open.
TEST_F(TierFsTest, WriterOfADeletedFileLeavesAnOpenableStore) {
  Open();
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.log", FileOptions(), &f, nullptr).ok());
  ASSERT_TRUE(f->Append(RandomBytes(20000, 19), IOOptions(), nullptr).ok());
  ASSERT_TRUE(fs_->DeleteFile("/db/000001.log", IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Append(RandomBytes(40000, 20), IOOptions(), nullptr).ok());  // new segments
  ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  f.reset();
  EXPECT_EQ(0u, store().Used(0) + store().Used(1) + store().Used(2));
  Reopen();
  EXPECT_TRUE(fs_->FileExists("/db/000001.log", IOOptions(), nullptr).IsNotFound());
  EXPECT_EQ(0u, store().Used(0) + store().Used(1) + store().Used(2));
}

// A second handle closing must not hand back the reservation the first
// writer is still appending into.
TEST_F(TierFsTest, OnlyTheLastWriterSettlesTheReservation) {
  Open({"8M"});
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.log", FileOptions(), &w, nullptr).ok());
  ASSERT_TRUE(w->Append("abc", IOOptions(), nullptr).ok());
  uint64_t reserved = store().Used(0);
  EXPECT_GE(reserved, 16384u);  // the whole first segment
  std::unique_ptr<rocksdb::FSRandomRWFile> rw;
  ASSERT_TRUE(fs_->NewRandomRWFile("/db/000001.log", FileOptions(), &rw, nullptr).ok());
  ASSERT_TRUE(rw->Close(IOOptions(), nullptr).ok());
  rw.reset();
  EXPECT_EQ(reserved, store().Used(0));
  ASSERT_TRUE(w->Append(std::string(10000, 'x'), IOOptions(), nullptr).ok());
  ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
  EXPECT_EQ(12288u + 4096u, store().Used(0));  // 10003 bytes in 4K blocks + the file's block
}

}  // namespace
}  // namespace tierfs

namespace tierfs {
namespace {

// The first write of a whole-file segment is larger than what its tier can
// still reserve: the segment moves before it holds any data.
TEST_F(TierFsTest, WholeFileFirstWriteLargerThanTheTierRoomMovesAnEmptySegment) {
  Open({"100K", "8M"}, ";segment_size:whole");
  std::string data = RandomBytes(200000, 21);
  Write("/db/000001.sst", data, data.size());  // one Append of 200 KB
  EXPECT_EQ(data, test::ReadAll(fs_.get(), "/db/000001.sst"));
  EXPECT_EQ((std::vector<uint64_t>{0, 1}), SegmentsPerTier("/db/000001.sst"));
}

}  // namespace
}  // namespace tierfs
