// Hot-page copies in the live store (env/hot_pages.h, engine/page_copies.h):
// reads served from tier 0 return the file's bytes, copies are made only on
// reuse, go with their file and a rewrite, survive a clean restart but never
// serve a stale byte after a kill, and stay within tier 0's capacity.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <random>
#include <thread>

#include "env/hot_pages.h"
#include "env/posix_util.h"
#include "env/store.h"
#include "env/tier_fs.h"
#include "tests/crash_audit.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::Slice;

constexpr uint64_t kPage = 16 << 10;

bool FileExists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

class HotPagesTest : public ::testing::Test {
 protected:
  HotPagesTest() : dir_("hot_pages") {}

  // Tier 0 of 1 MiB (copies may hold half of it, in 16 KiB pages), tier 1 of 64 MiB; 64 KiB
  // segments; fast-first placement, no migration (WriteSlow puts a file on
  // tier 1). Page copies unless `extra` says copy_unit:block.
  void Open(const std::string& extra = "") {
    uri_ = test::MakeUri(dir_, {"1M", "64M"},
                         ";segment_size:64K;policy:fast-first;migration:off;copy_page:16K;"
                         "copy_unit:page;copy_share:50%" + extra);
    rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void Reopen() {
    fs_.reset();
    rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  Store& store() { return *StoreOf(fs_.get()); }
  HotPages& hot() { return *store().hot_pages(); }

  void Write(const std::string& path, const std::string& data) {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(path, FileOptions(), &f, nullptr).ok());
    ASSERT_TRUE(f->Append(Slice(data), IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  }
  // Writes `data` to `path` with its home on tier 1: tier 0 is filled with a
  // WAL while it is written, and the WAL deleted after (migration is off, so
  // nothing moves up).
  void WriteSlow(const std::string& path, const std::string& data) {
    Write("/db/000001.log", test::RandomBytes(960 << 10, 99));
    Write(path, data);
    ASSERT_TRUE(fs_->DeleteFile("/db/000001.log", IOOptions(), nullptr).ok());
    std::shared_ptr<FileEntry> e = store().Find(path);
    for (uint64_t s = 0; s < e->segments.size(); ++s) ASSERT_EQ(1, e->segments.tier(s)) << s;
    ASSERT_EQ(0u, store().tier(0).copy_used());
  }
  // Reads `len` bytes at `off` of `path` as the application (a user read).
  // `new_visit`: as if the thread had read elsewhere since (another Get),
  // so a page read again counts as reused (PageCopies::Reader).
  std::string Read(const std::string& path, uint64_t off, size_t len, bool new_visit = true) {
    if (new_visit && store().hot_pages()) hot().ThisThread()->last = 0;
    std::unique_ptr<rocksdb::FSRandomAccessFile> f;
    EXPECT_TRUE(fs_->NewRandomAccessFile(path, FileOptions(), &f, nullptr).ok());
    std::string buf(len, '\0');
    Slice got;
    IOOptions io;
    io.rate_limiter_priority = rocksdb::Env::IO_USER;
    EXPECT_TRUE(f->Read(off, len, io, &got, buf.data(), nullptr).ok());
    return got.ToString();
  }
  uint64_t Ticker(TierTicker t) {
    std::vector<TierStats> stats;
    EXPECT_TRUE(GetTierStats(fs_.get(), &stats).ok());
    return stats[0].Get(t);
  }
  // Whether block [off, off + len) of file `file_id` has a copy.
  bool BlockCopied(uint64_t file_id, uint64_t off, uint64_t len) {
    return hot().copies().FindBlock(PageCopies::Key(file_id, off / PageCopies::kBlockUnit), off,
                                    len) >= 0;
  }
  uint64_t CopiesOf(uint64_t file_id, uint64_t pages) {
    uint64_t n = 0;
    for (uint64_t p = 0; p < pages; ++p) n += hot().copies().Find(PageCopies::Key(file_id, p)) >= 0;
    return n;
  }

  // Four files of 256 KiB (PREFIX0.sst .. PREFIX3.sst, random bytes from
  // seed `seed`) on tier 1; three threads read them (`pick(random, file)`:
  // the offset and length of a read) while this thread reopens each for
  // writing, with the same bytes, 30 times, 20 ms apart, so that their
  // copies are invalidated under the readers as others evict them. Counts
  // the reads and those that did not return the file's bytes.
  struct Churn {
    uint64_t reads = 0, bad = 0;
  };
  Churn ReadWhileRewriting(const std::string& prefix, uint32_t seed,
                           const std::function<std::pair<uint64_t, uint64_t>(uint64_t, size_t)>& pick) {
    EXPECT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
    std::vector<std::string> data, names;
    for (int f = 0; f < 4; ++f) {
      data.push_back(test::RandomBytes(256 << 10, seed + uint32_t(f)));
      names.push_back(prefix + std::to_string(f) + ".sst");
      WriteSlow(names.back(), data.back());
    }
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> reads{0}, bad{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
      readers.emplace_back([&, r] {
        std::mt19937_64 rng(uint64_t(r) + 1);
        std::vector<std::unique_ptr<rocksdb::FSRandomAccessFile>> files(4);
        for (size_t f = 0; f < 4; ++f) {
          if (!fs_->NewRandomAccessFile(names[f], FileOptions(), &files[f], nullptr).ok()) {
            bad++;
            return;
          }
        }
        std::string buf(64 << 10, '\0');
        IOOptions io;
        io.rate_limiter_priority = rocksdb::Env::IO_USER;
        while (!stop.load()) {
          const size_t f = size_t(rng() % 4);
          const auto [off, len] = pick(rng(), f);
          Slice got;
          if (!files[f]->Read(off, len, io, &got, buf.data(), nullptr).ok() ||
              got.ToString() != data[f].substr(off, len)) {
            bad++;
          }
          reads++;
        }
      });
    }
    for (int i = 0; i < 30; ++i) {
      std::unique_ptr<rocksdb::FSRandomRWFile> rw;
      EXPECT_TRUE(fs_->NewRandomRWFile(names[size_t(i % 4)], FileOptions(), &rw, nullptr).ok());
      if (rw) {
        EXPECT_TRUE(rw->Write(0, Slice(data[size_t(i % 4)].substr(0, 4096)), IOOptions(), nullptr).ok());
        EXPECT_TRUE(rw->Close(IOOptions(), nullptr).ok());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop = true;
    for (auto& t : readers) t.join();
    return {reads.load(), bad.load()};
  }

  test::ScratchDir dir_;
  std::string uri_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
};

TEST_F(HotPagesTest, AReadPageIsCopiedOnReuseAndServedWithItsBytes) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(512 << 10, 1);
  WriteSlow("/db/000007.sst", data);
  const uint64_t id = store().Find("/db/000007.sst")->id;
  // A block in page 3, read once: no copy. Read again: copied.
  const uint64_t off = 3 * kPage + 1000;
  EXPECT_EQ(data.substr(off, 4000), Read("/db/000007.sst", off, 4000));
  EXPECT_EQ(0u, CopiesOf(id, 32));
  EXPECT_EQ(data.substr(off, 4000), Read("/db/000007.sst", off, 4000));
  EXPECT_EQ(1u, CopiesOf(id, 32));
  EXPECT_EQ(kPage, store().tier(0).copy_used());
  EXPECT_EQ(1u, Ticker(TierTicker::kPagesCopied));
  // Served from the copy now, byte for byte, for any range within the page.
  const uint64_t user_before = Ticker(TierTicker::kUserReads);
  for (int i = 0; i < 40; ++i) {
    const uint64_t o = 3 * kPage + uint64_t(i) * 397 % (kPage - 500);
    ASSERT_EQ(data.substr(o, 500), Read("/db/000007.sst", o, 500)) << o;
  }
  EXPECT_EQ(user_before + 40, Ticker(TierTicker::kUserReads));  // served by tier 0
  // A read across two pages needs both: page 4 is not copied, so it goes to
  // the home (and offers page 4).
  const uint64_t across = 4 * kPage - 100;
  EXPECT_EQ(data.substr(across, 300), Read("/db/000007.sst", across, 300));
  EXPECT_EQ(data.substr(across, 300), Read("/db/000007.sst", across, 300));
  EXPECT_EQ(2u, CopiesOf(id, 32));
  EXPECT_EQ(data.substr(across, 300), Read("/db/000007.sst", across, 300));
  // Background reads (compaction input) never count, nor copy.
  {
    std::unique_ptr<rocksdb::FSRandomAccessFile> f;
    ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000007.sst", FileOptions(), &f, nullptr).ok());
    std::string buf(4096, '\0');
    Slice got;
    IOOptions low;
    low.rate_limiter_priority = rocksdb::Env::IO_LOW;
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(f->Read(10 * kPage, 4096, low, &got, buf.data(), nullptr).ok());
      EXPECT_EQ(data.substr(10 * kPage, 4096), got.ToString());
    }
  }
  EXPECT_EQ(2u, CopiesOf(id, 32));
  // A page whose home is on tier 0 is never copied.
  const std::string small = test::RandomBytes(8000, 5);
  Write("/db/000008.sst", small);
  ASSERT_EQ(0, store().Find("/db/000008.sst")->segments.tier(0));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(small.substr(100, 1000), Read("/db/000008.sst", 100, 1000));
  EXPECT_EQ(0u, CopiesOf(store().Find("/db/000008.sst")->id, 1));
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

TEST_F(HotPagesTest, ScansAndOneTimeReadsCopyNothing) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(2 << 20, 2);
  WriteSlow("/db/000009.sst", data);
  // A scan in 256 KiB reads, twice: more than four pages each, not copied.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t off = 0; off < data.size(); off += 256 << 10) {
      ASSERT_EQ(data.substr(off, 256 << 10), Read("/db/000009.sst", off, 256 << 10));
    }
  }
  // Every block read once, in order: adjacent blocks of a page are one
  // visit, not reuse.
  for (uint64_t off = 0; off + 4096 <= data.size(); off += 4096) {
    ASSERT_EQ(data.substr(off, 4096), Read("/db/000009.sst", off, 4096, /*new_visit=*/false));
  }
  EXPECT_EQ(0u, store().tier(0).copy_used());
}

TEST_F(HotPagesTest, CopiesGoWithTheirFileAndWithARewrite) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(256 << 10, 3);
  WriteSlow("/db/000010.sst", data);
  const uint64_t id = store().Find("/db/000010.sst")->id;
  for (uint64_t p = 0; p < 8; ++p) {
    Read("/db/000010.sst", p * kPage, 4096);
    Read("/db/000010.sst", p * kPage, 4096);
  }
  ASSERT_EQ(8u, CopiesOf(id, 16));
  ASSERT_EQ(8 * kPage, store().tier(0).copy_used());
  // Opened for writing and changed in place: no reader may see the old bytes.
  std::string changed = data;
  for (size_t i = 0; i < 8 * kPage; ++i) changed[i] = char(changed[i] ^ 0x5a);
  {
    std::unique_ptr<rocksdb::FSRandomRWFile> rw;
    ASSERT_TRUE(fs_->NewRandomRWFile("/db/000010.sst", FileOptions(), &rw, nullptr).ok());
    EXPECT_EQ(0u, CopiesOf(id, 16));  // gone when the writer opened it
    ASSERT_TRUE(rw->Write(0, Slice(changed.data(), 8 * kPage), IOOptions(), nullptr).ok());
    ASSERT_TRUE(rw->Close(IOOptions(), nullptr).ok());
  }
  EXPECT_EQ(0u, store().tier(0).copy_used());
  for (uint64_t p = 0; p < 8; ++p) {
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(changed.substr(p * kPage, 4096), Read("/db/000010.sst", p * kPage, 4096));
    }
  }
  EXPECT_EQ(8u, CopiesOf(id, 16));  // copied again, from the new bytes
  // Deleted: its copies go, and their space.
  ASSERT_TRUE(fs_->DeleteFile("/db/000010.sst", IOOptions(), nullptr).ok());
  EXPECT_EQ(0u, CopiesOf(id, 16));
  EXPECT_EQ(0u, store().tier(0).copy_used());
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

TEST_F(HotPagesTest, ACleanRestartKeepsItsCopies) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(256 << 10, 4);
  WriteSlow("/db/000011.sst", data);
  const uint64_t id = store().Find("/db/000011.sst")->id;
  for (uint64_t p = 0; p < 8; ++p) {
    for (int i = 0; i < 2; ++i) Read("/db/000011.sst", p * kPage + 100, 4096);
  }
  ASSERT_EQ(8u, CopiesOf(id, 16));
  const std::string state = hot().state_path();
  EXPECT_FALSE(FileExists(state));  // saved at a save point only
  Reopen();
  // Saved at close, taken back at open and saved again: the copies, their
  // charge and their bytes, served by tier 0.
  EXPECT_TRUE(FileExists(state));
  EXPECT_TRUE(hot().copies().saved());
  EXPECT_EQ(8u, CopiesOf(id, 16));
  EXPECT_EQ(8 * kPage, store().tier(0).copy_used());
  const uint64_t served = Ticker(TierTicker::kUserReads);
  for (uint64_t p = 0; p < 8; ++p) {
    ASSERT_EQ(data.substr(p * kPage + 50, 3000), Read("/db/000011.sst", p * kPage + 50, 3000));
  }
  EXPECT_EQ(served + 8, Ticker(TierTicker::kUserReads));
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
  // A copy going ends the saved state first; the rest stay.
  std::unique_ptr<rocksdb::FSRandomRWFile> rw;
  ASSERT_TRUE(fs_->NewRandomRWFile("/db/000011.sst", FileOptions(), &rw, nullptr).ok());
  EXPECT_FALSE(FileExists(state));
  EXPECT_EQ(0u, CopiesOf(id, 16));
  ASSERT_TRUE(rw->Close(IOOptions(), nullptr).ok());
}

TEST_F(HotPagesTest, CopiesSavedUnderAnotherConfigurationOrDamagedAreForgotten) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(256 << 10, 14);
  WriteSlow("/db/000012.sst", data);
  const uint64_t id = store().Find("/db/000012.sst")->id;
  for (int i = 0; i < 2; ++i) Read("/db/000012.sst", 0, 4096);
  ASSERT_EQ(1u, CopiesOf(id, 16));
  const std::string pages = hot().path(), state = hot().state_path();
  fs_.reset();
  ASSERT_TRUE(FileExists(state));
  // Another copy share: other slots. Forgotten, the copy file emptied.
  uri_ += ";copy_share:25%";
  Reopen();
  EXPECT_EQ(0u, CopiesOf(id, 16));
  EXPECT_EQ(0u, store().tier(0).copy_used());
  EXPECT_EQ(0u, AllocatedBytes(pages));
  EXPECT_EQ(data.substr(0, 4096), Read("/db/000012.sst", 0, 4096));
  for (int i = 0; i < 2; ++i) Read("/db/000012.sst", 0, 4096);
  ASSERT_EQ(1u, CopiesOf(id, 16));
  fs_.reset();
  // The copy file lost (a crash took its entry, or its blocks), the state
  // kept: the copies' bytes do not match their checksums, none comes back.
  Reopen();
  ASSERT_EQ(1u, CopiesOf(id, 16));
  fs_.reset();
  ASSERT_TRUE(FileExists(state));
  ASSERT_EQ(0, truncate(pages.c_str(), 0));
  Reopen();
  EXPECT_EQ(0u, CopiesOf(id, 16));
  EXPECT_EQ(0u, store().tier(0).copy_used());
  EXPECT_EQ(data.substr(0, 4096), Read("/db/000012.sst", 0, 4096));
  for (int i = 0; i < 2; ++i) Read("/db/000012.sst", 0, 4096);
  ASSERT_EQ(1u, CopiesOf(id, 16));
  fs_.reset();
  // A flipped byte in the state: forgotten, never served.
  std::string bytes;
  ASSERT_TRUE(rocksdb::ReadFileToString(rocksdb::Env::Default(), state, &bytes).ok());
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 1);
  ASSERT_TRUE(rocksdb::WriteStringToFile(rocksdb::Env::Default(), bytes, state).ok());
  Reopen();
  EXPECT_EQ(0u, CopiesOf(id, 16));
  EXPECT_EQ(0u, AllocatedBytes(pages));
  EXPECT_FALSE(FileExists(state));
  EXPECT_EQ(data.substr(0, 4096), Read("/db/000012.sst", 0, 4096));
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

// Saved copies reopened with copies off: the copy file is emptied, and if
// that fails (here the path is a directory), the open goes on and the failure
// is logged and counted, not dropped.
TEST_F(HotPagesTest, ACopyFileNotEmptiedWhenCopiesGoOffIsReported) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  WriteSlow("/db/000014.sst", test::RandomBytes(256 << 10, 16));
  const uint64_t id = store().Find("/db/000014.sst")->id;
  for (int i = 0; i < 2; ++i) Read("/db/000014.sst", 0, 4096);
  ASSERT_EQ(1u, CopiesOf(id, 16));
  const std::string pages = hot().path(), state = hot().state_path();
  fs_.reset();
  ASSERT_TRUE(FileExists(state));
  ASSERT_EQ(0, unlink(pages.c_str()));
  ASSERT_EQ(0, mkdir(pages.c_str(), 0755));
  uri_ += ";copies:off";
  Reopen();
  EXPECT_EQ(1u, store().errors()[size_t(StoreError::kCopyState)]);
  EXPECT_FALSE(FileExists(state));
  EXPECT_EQ(test::RandomBytes(256 << 10, 16).substr(0, 4096), Read("/db/000014.sst", 0, 4096));
}

// A process that ends without a save (killed) after a copy changed: the
// next open finds no state and serves no old byte. Without a change, it
// finds the state its open saved and takes the copies back.
TEST_F(HotPagesTest, AfterAKillNoCopyIsStale) {
  Open();
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(256 << 10, 15);
  WriteSlow("/db/000013.sst", data);
  const uint64_t id = store().Find("/db/000013.sst")->id;
  for (uint64_t p = 0; p < 8; ++p) {
    for (int i = 0; i < 2; ++i) Read("/db/000013.sst", p * kPage, 4096);
  }
  ASSERT_EQ(8u, CopiesOf(id, 16));
  fs_.reset();  // saved
  std::string changed = data;
  for (size_t i = 0; i < 8 * kPage; ++i) changed[i] = char(changed[i] ^ 0x3c);
  for (bool change : {false, true}) {
    SCOPED_TRACE(change ? "a copy changed before the kill" : "nothing changed");
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // the child: open, read (and change), die without a save
      int code = 0;
      std::shared_ptr<rocksdb::FileSystem> fs;
      if (!NewTierFileSystem(uri_, &fs).ok()) _exit(10);
      fs_ = fs;
      if (CopiesOf(id, 16) != 8) code = 11;
      if (Read("/db/000013.sst", 0, 4096) != data.substr(0, 4096)) code = 12;
      if (change) {
        std::unique_ptr<rocksdb::FSRandomRWFile> rw;
        if (!fs->NewRandomRWFile("/db/000013.sst", FileOptions(), &rw, nullptr).ok() ||
            !rw->Write(0, Slice(changed.data(), 8 * kPage), IOOptions(), nullptr).ok() ||
            !rw->Sync(IOOptions(), nullptr).ok() || !rw->Close(IOOptions(), nullptr).ok()) {
          code = 13;
        }
        // Copies of half the new bytes, made after the state was removed;
        // the other half's slots were punched. A state taken back now
        // would serve zeros there.
        for (uint64_t p = 0; p < 4; ++p) {
          for (int i = 0; i < 2; ++i) Read("/db/000013.sst", p * kPage, 4096);
        }
        if (CopiesOf(id, 16) != 4) code = 14;
      }
      _exit(code);  // no destructor, no exit handler: as a kill
    }
    int status = 0;
    ASSERT_EQ(pid, waitpid(pid, &status, 0));
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(0, WEXITSTATUS(status));
    Reopen();
    const std::string& now = change ? changed : data;
    EXPECT_EQ(change ? 0u : 8u, CopiesOf(id, 16));
    for (uint64_t p = 0; p < 8; ++p) {
      for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(now.substr(p * kPage, 4096) == Read("/db/000013.sst", p * kPage, 4096))
            << "page " << p << " is not the file's";
      }
    }
    EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
    fs_.reset();
  }
}

TEST_F(HotPagesTest, TheShareAndTheHeadroomHold) {
  Open(";copy_share:25%");
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(4 << 20, 6);
  WriteSlow("/db/000012.sst", data);
  // Many hot pages, each read three times: far more than the share holds.
  for (int round = 0; round < 3; ++round) {
    for (uint64_t p = 0; p < data.size() / kPage; ++p) Read("/db/000012.sst", p * kPage, 4096);
  }
  Tier& t0 = store().tier(0);
  EXPECT_GT(t0.copy_used(), 0u);
  EXPECT_LE(t0.copy_used(), (1u << 20) / 4);  // the share
  EXPECT_LE(t0.used(), t0.capacity());
  // Homes may still take free space: a new file of 64 KiB goes to tier 0.
  if (t0.free() >= (128 << 10)) {
    Write("/db/000013.log", test::RandomBytes(60 << 10, 7));
    EXPECT_EQ(0, store().Find("/db/000013.log")->segments.tier(0));
  }
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

TEST_F(HotPagesTest, CopiesOffOrAOneTierStoreKeepNone) {
  Open(";copies:off");
  EXPECT_EQ(nullptr, store().hot_pages());
  EXPECT_EQ(0u, store().tier(0).copy_reserve());
  fs_.reset();
  test::ScratchDir one("hot_pages_one");
  ASSERT_TRUE(NewTierFileSystem(test::MakeUri(one, {"8M"}), &fs_).ok());
  EXPECT_EQ(nullptr, store().hot_pages());
  fs_.reset();
  test::ScratchDir slow("hot_pages_slow");
  ASSERT_TRUE(NewTierFileSystem(test::MakeUri(slow, {"1M", "8M"}, ";policy:slow-only"), &fs_).ok());
  EXPECT_EQ(nullptr, store().hot_pages());  // the all-slow reference keeps its data slow
}

// Readers hammer hot pages while a writer keeps invalidating them (the file
// reopened for writing, each time with the same bytes) and other files'
// copies evict them: every read returns the file's bytes.
TEST_F(HotPagesTest, ReadersNeverSeeAnotherPagesBytes) {
  Open(";copy_share:10%");  // 102 KiB: six pages, one set; constant eviction
  const Churn c = ReadWhileRewriting("/db/00002", 10, [](uint64_t r, size_t) {
    return std::pair<uint64_t, uint64_t>((r % 12) * 9000, 5000);  // a few hot blocks per file
  });
  EXPECT_EQ(0u, c.bad) << "of " << c.reads << " reads";
  EXPECT_GT(Ticker(TierTicker::kPageHits), 0u);
  EXPECT_GT(Ticker(TierTicker::kPagesCopied), 6u);
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

// ---- block copies (copy_unit:block, the default) ----

TEST_F(HotPagesTest, ABlockIsCopiedOnReuseAndServedOnlyForItsOwnRead) {
  Open(";copy_unit:block");
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(512 << 10, 21);
  WriteSlow("/db/000031.sst", data);
  const uint64_t id = store().Find("/db/000031.sst")->id;
  // A block as RocksDB reads one: 4,101 bytes at an offset its index names.
  const uint64_t off = 3 * 4101 + 777, len = 4101;
  EXPECT_EQ(data.substr(off, len), Read("/db/000031.sst", off, len));
  EXPECT_FALSE(BlockCopied(id, off, len));
  EXPECT_EQ(data.substr(off, len), Read("/db/000031.sst", off, len));
  EXPECT_TRUE(BlockCopied(id, off, len));
  EXPECT_EQ(4608u, store().tier(0).copy_used());  // its bytes in 512-byte units
  EXPECT_EQ(1u, Ticker(TierTicker::kPagesCopied));
  EXPECT_EQ(len, Ticker(TierTicker::kPageCopiedBytes));  // the block's bytes written
  // Served from the copy, byte for byte: the block, and a shorter read of it.
  const uint64_t user_before = Ticker(TierTicker::kUserReads);
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(data.substr(off, len), Read("/db/000031.sst", off, len));
    ASSERT_EQ(data.substr(off, 100), Read("/db/000031.sst", off, 100));
  }
  EXPECT_EQ(user_before + 80, Ticker(TierTicker::kUserReads));  // tier 0's: the home is slow
  EXPECT_GE(Ticker(TierTicker::kPageHits), 64u);  // counted in batches of 32
  // Reads the copy does not hold in full go to the home, with the home's
  // bytes: past its end, or from another offset.
  EXPECT_EQ(data.substr(off, len + 10), Read("/db/000031.sst", off, len + 10));
  EXPECT_EQ(data.substr(off + 1, 500), Read("/db/000031.sst", off + 1, 500));
  // Reads longer than a block (scans) are never copied.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(data.substr(0, 128 << 10), Read("/db/000031.sst", 0, 128 << 10));
  }
  EXPECT_FALSE(BlockCopied(id, 0, 128 << 10));
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

TEST_F(HotPagesTest, BlockCopiesGoWithTheirFileARewriteAndARestart) {
  Open(";copy_unit:block");
  ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
  const std::string data = test::RandomBytes(256 << 10, 22);
  WriteSlow("/db/000032.sst", data);
  const uint64_t id = store().Find("/db/000032.sst")->id;
  for (uint64_t b = 0; b < 8; ++b) {
    Read("/db/000032.sst", b * 5000, 4600);
    Read("/db/000032.sst", b * 5000, 4600);
  }
  for (uint64_t b = 0; b < 8; ++b) EXPECT_TRUE(BlockCopied(id, b * 5000, 4600)) << b;
  ASSERT_EQ(8u * 4608, store().tier(0).copy_used());  // 4,600 bytes in 512-byte units
  // Opened for writing and changed in place: no reader may see the old bytes.
  std::string changed = data;
  for (size_t i = 0; i < 64 << 10; ++i) changed[i] = char(changed[i] ^ 0x5a);
  {
    std::unique_ptr<rocksdb::FSRandomRWFile> rw;
    ASSERT_TRUE(fs_->NewRandomRWFile("/db/000032.sst", FileOptions(), &rw, nullptr).ok());
    for (uint64_t b = 0; b < 8; ++b) EXPECT_FALSE(BlockCopied(id, b * 5000, 4600)) << b;
    ASSERT_TRUE(rw->Write(0, Slice(changed.data(), 64 << 10), IOOptions(), nullptr).ok());
    ASSERT_TRUE(rw->Close(IOOptions(), nullptr).ok());
  }
  EXPECT_EQ(0u, store().tier(0).copy_used());
  for (uint64_t b = 0; b < 8; ++b) {
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(changed.substr(b * 5000, 4600), Read("/db/000032.sst", b * 5000, 4600));
    }
    EXPECT_TRUE(BlockCopied(id, b * 5000, 4600)) << b;  // copied again, from the new bytes
  }
  // A clean restart keeps them, with their bytes.
  const uint64_t used = store().tier(0).copy_used();
  Reopen();
  EXPECT_EQ(used, store().tier(0).copy_used());
  for (uint64_t b = 0; b < 8; ++b) EXPECT_TRUE(BlockCopied(id, b * 5000, 4600)) << b;
  const uint64_t served = Ticker(TierTicker::kUserReads);
  for (uint64_t b = 0; b < 8; ++b) {
    ASSERT_EQ(changed.substr(b * 5000, 4600), Read("/db/000032.sst", b * 5000, 4600));
  }
  EXPECT_EQ(served + 8, Ticker(TierTicker::kUserReads));
  // Deleted: its copies go, and their space.
  ASSERT_TRUE(BlockCopied(id, 0, 4600));
  ASSERT_TRUE(fs_->DeleteFile("/db/000032.sst", IOOptions(), nullptr).ok());
  EXPECT_FALSE(BlockCopied(id, 0, 4600));
  EXPECT_EQ(0u, store().tier(0).copy_used());
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

// Readers hammer hot blocks of many sizes while a writer keeps invalidating
// them and other blocks' copies take their bytes (a new copy may span the
// bytes of several it replaced): every read returns the file's bytes.
TEST_F(HotPagesTest, ReadersNeverSeeAnotherBlocksBytes) {
  Open(";copy_unit:block;copy_share:10%");  // 102 KiB: one set; constant eviction
  const Churn c = ReadWhileRewriting("/db/00004", 30, [](uint64_t r, size_t f) {
    const uint64_t b = r % 16;  // a few hot blocks per file, of their own sizes
    return std::pair<uint64_t, uint64_t>(b * 9100 + f * 37, 700 + (b * 1237 + f * 311) % 8000);
  });
  EXPECT_EQ(0u, c.bad) << "of " << c.reads << " reads";
  EXPECT_GT(Ticker(TierTicker::kPageHits), 0u);
  EXPECT_GT(Ticker(TierTicker::kPagesCopied), 10u);
  EXPECT_GT(store().hot_pages()->copies().counters().evicted, 0u);
  EXPECT_EQ("", test::AuditStore(fs_.get(), "/db").problems);
}

}  // namespace
}  // namespace tierfs
