// Readers of a file that is being written, while the writer's own tier-full
// relocation moves the segment it appends to (Store::RelocateSegment: copy,
// fsync, commit, wait for readers, punch). RocksDB reads files it is still
// writing: a live WAL in GetUpdatesSince, a checkpoint's copy of it. A reader
// that looked the segment up on its old tier must still get its bytes: the
// relocation may punch the old copy only once no reader can be on it.
//
// Both kinds of tier-full relocation (DESIGN.md, "Capacity"): whole-file
// segments on a tier 0 smaller than the file (each file moves whole when its
// append finds tier 0 unable to grow it), and 64 KiB segments on a tier 0
// whose device says ENOSPC before TierFS's account does (the segment being
// written moves; the file's earlier segments stay). The base file system
// below the store can hold one backing-file read until the test lets it go,
// slow reads down, and fail tier 0's writes with ENOSPC (tests/fault_fs.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "env/posix_util.h"
#include "env/store.h"
#include "env/tier_fs.h"
#include "tests/crash_files.h"
#include "tests/fault_fs.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// Holds the first random-access read of one path until Release(), and sleeps
// before one read in `slow_one_in` (0: none), so a reader that has looked its
// tier up stays on it a while.
struct ReadControl {
  std::mutex mu;
  std::condition_variable cv;
  std::string stall_path;  // guarded by mu; cleared by the read it stalls
  bool stalled = false;
  bool released = false;
  std::atomic<uint32_t> slow_one_in{0};

  void Arm(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu);
    stall_path = path;
  }
  void BeforeRead(const std::string& path) {
    {
      std::unique_lock<std::mutex> lock(mu);
      if (!stall_path.empty() && path == stall_path) {
        stall_path.clear();
        stalled = true;
        cv.notify_all();
        cv.wait(lock, [&] { return released; });
      }
    }
    const uint32_t n = slow_one_in.load(std::memory_order_relaxed);
    if (n == 0) return;
    thread_local std::mt19937 rng(std::hash<std::thread::id>()(std::this_thread::get_id()));
    if (rng() % n == 0) std::this_thread::sleep_for(std::chrono::microseconds(500 + rng() % 1500));
  }
  bool WaitStalled() {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(20), [&] { return stalled; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
    cv.notify_all();
  }
};

class ControlledFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  ControlledFile(std::unique_ptr<rocksdb::FSRandomAccessFile> f, std::string path,
                 ReadControl* control)
      : FSRandomAccessFileOwnerWrapper(std::move(f)), path_(std::move(path)), control_(control) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                rocksdb::IODebugContext* d) const override {
    control_->BeforeRead(path_);  // the data is read after the wait
    return FSRandomAccessFileOwnerWrapper::Read(offset, n, o, result, scratch, d);
  }

 private:
  const std::string path_;
  ReadControl* const control_;
};

class ControlledFS : public rocksdb::FileSystemWrapper {
 public:
  explicit ControlledFS(const std::shared_ptr<rocksdb::FileSystem>& target)
      : FileSystemWrapper(target) {}
  const char* Name() const override { return "ControlledFS"; }
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                               rocksdb::IODebugContext* d) override {
    std::unique_ptr<rocksdb::FSRandomAccessFile> file;
    IOStatus s = target()->NewRandomAccessFile(f, o, &file, d);
    if (s.ok()) r->reset(new ControlledFile(std::move(file), f, &control));
    return s;
  }
  ReadControl control;
};

// A thread joined when its scope ends, after `on_exit` (which makes it
// finish): an assertion that returns early must not leave it running.
class ScopedThread {
 public:
  explicit ScopedThread(std::function<void()> body, std::function<void()> on_exit = nullptr)
      : on_exit_(std::move(on_exit)), thread_(std::move(body)) {}
  ~ScopedThread() { Join(); }
  void Join() {
    if (!thread_.joinable()) return;
    if (on_exit_) on_exit_();
    thread_.join();
  }

 private:
  const std::function<void()> on_exit_;
  std::thread thread_;
};

constexpr uint64_t kTier0 = 256 << 10;

std::string WalName(uint32_t n) {
  char buf[40];
  snprintf(buf, sizeof(buf), "/wal/%06u.log", n);
  return buf;
}

class RelocationReadTest : public ::testing::Test {
 protected:
  RelocationReadTest()
      : dir_("relocation-read"),
        fault_(std::make_shared<test::FaultFS>()),
        device_(std::make_shared<ControlledFS>(fault_)) {}
  ~RelocationReadTest() override { fs_.reset(); }

  // No migration, no hot-page copies: the writer's relocation is the only move.
  void Open(const std::vector<std::string>& capacities, const std::string& segment_size) {
    Options o = test::MakeOptions(dir_, capacities,
                                  ";segment_size:" + segment_size +
                                      ";policy:fast-first;migration:off;copies:off");
    o.base = device_;
    rocksdb::Status s = NewTierFileSystem(o, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(fs_->CreateDirIfMissing("/wal", IOOptions(), nullptr).ok());
  }
  // Whole-file segments on a tier 0 smaller than the files: every file moves
  // to tier 1 while it is written.
  void OpenWholeFiles() { Open({"256K", "64M"}, "whole"); }

  Store& store() { return *StoreOf(fs_.get()); }
  int HomeOf(const std::string& path, uint64_t seg = 0) {
    return store().Find(path)->segments.tier(seg);
  }
  std::string BackingFile(const std::string& path, int tier) {
    return store().tier(tier).DataPath(store().Find(path)->id);
  }

  // Appends [from, to) of file `n`'s content through `f` in uneven pieces,
  // publishing in *written how far it has got.
  static IOStatus AppendPattern(rocksdb::FSWritableFile* f, uint32_t n, uint64_t from, uint64_t to,
                                std::mt19937_64* rng, std::atomic<uint64_t>* written) {
    for (uint64_t off = from; off < to;) {
      const size_t len = size_t(std::min<uint64_t>(1 + (*rng)() % 20000, to - off));
      IOStatus s = f->Append(test::Pattern(n, off, len), IOOptions(), nullptr);
      if (!s.ok()) return s;
      off += len;
      if (written) written->store(off);
    }
    return IOStatus::OK();
  }

  // Writes WalName(n) (`size` bytes of its pattern) while random-access
  // readers and a tailing sequential reader (as a WAL reader follows the log)
  // verify every byte they read below what the writer has acknowledged; then
  // reads the closed file back whole. Reads are slowed at random in the
  // device, so readers sit on a tier they looked up while a relocation
  // commits. Failures go to *failures (the first few to *messages).
  void WriteWithReaders(uint32_t n, uint64_t size, std::atomic<uint64_t>* reads,
                        std::atomic<uint64_t>* failures, std::vector<std::string>* messages) {
    constexpr int kRandomReaders = 3;
    std::mutex msg_mu;
    auto fail = [&](const std::string& what) {
      (*failures)++;
      std::lock_guard<std::mutex> lock(msg_mu);
      if (messages->size() < 10) messages->push_back(what);
    };
    const std::string path = WalName(n);
    std::unique_ptr<rocksdb::FSWritableFile> w;
    ASSERT_TRUE(fs_->NewWritableFile(path, FileOptions(), &w, nullptr).ok());
    std::unique_ptr<rocksdb::FSRandomAccessFile> r;
    ASSERT_TRUE(fs_->NewRandomAccessFile(path, FileOptions(), &r, nullptr).ok());
    std::unique_ptr<rocksdb::FSSequentialFile> seq;
    ASSERT_TRUE(fs_->NewSequentialFile(path, FileOptions(), &seq, nullptr).ok());
    std::atomic<uint64_t> written{0};
    std::atomic<bool> stop{false};
    std::vector<std::unique_ptr<ScopedThread>> readers;
    for (int i = 0; i < kRandomReaders; ++i) {
      readers.push_back(std::make_unique<ScopedThread>(
          [&, i] {
            std::mt19937_64 rng(n * 1000 + uint64_t(i));
            std::string scratch(64 << 10, '\0');
            while (!stop.load()) {
              const uint64_t have = written.load();
              if (have == 0) {
                std::this_thread::yield();
                continue;
              }
              // Mostly near the end, where the writer is: the bytes a
              // relocation has just copied.
              const uint64_t back = 1 + rng() % std::min<uint64_t>(have, rng() % 2 ? 8192 : have);
              const uint64_t off = have - back;
              const size_t len = size_t(std::min<uint64_t>(1 + rng() % scratch.size(), have - off));
              Slice got;
              IOStatus s = r->Read(off, len, IOOptions(), &got, &scratch[0], nullptr);
              (*reads)++;
              if (!s.ok() || got.size() != len) {
                fail(path + ": read of " + std::to_string(len) + " at " + std::to_string(off) +
                     " gave " + std::to_string(got.size()) + " bytes: " + s.ToString());
                continue;
              }
              std::string bad = test::CheckPattern(n, off, got.data(), got.size());
              if (!bad.empty()) fail(path + ": " + bad);
            }
          },
          [&] { stop = true; }));
    }
    readers.push_back(std::make_unique<ScopedThread>(
        [&] {
          // Tails the file: reads what has been acknowledged, then waits for more.
          std::string scratch(16 << 10, '\0');
          uint64_t pos = 0;
          while (pos < size) {
            const uint64_t have = written.load();
            if (have <= pos) {
              if (stop.load()) break;
              std::this_thread::yield();
              continue;
            }
            const size_t len = size_t(std::min<uint64_t>(scratch.size(), have - pos));
            Slice got;
            IOStatus s = seq->Read(len, IOOptions(), &got, &scratch[0], nullptr);
            (*reads)++;
            if (!s.ok() || got.size() != len) {
              fail(path + ": sequential read of " + std::to_string(len) + " at " +
                   std::to_string(pos) + " gave " + std::to_string(got.size()) + " bytes: " +
                   s.ToString());
              break;
            }
            std::string bad = test::CheckPattern(n, pos, got.data(), got.size());
            if (!bad.empty()) {
              fail(path + " (sequential): " + bad);
              break;
            }
            pos += len;
          }
        },
        [&] { stop = true; }));

    std::mt19937_64 rng(n);
    IOStatus s = AppendPattern(w.get(), n, 0, size, &rng, &written);
    readers.clear();  // stops and joins them
    ASSERT_TRUE(s.ok()) << path << ": " << s.ToString();
    ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
    std::string all = test::ReadAll(fs_.get(), path);
    ASSERT_EQ(size, all.size()) << path;
    ASSERT_EQ("", test::CheckPattern(n, 0, all.data(), all.size())) << path;
  }

  test::ScratchDir dir_;
  std::shared_ptr<test::FaultFS> fault_;  // under device_
  std::shared_ptr<ControlledFS> device_;  // under the store
  std::shared_ptr<rocksdb::FileSystem> fs_;
};

std::string Report(const std::vector<std::string>& messages) {
  std::string report;
  for (const std::string& m : messages) report += "  " + m + "\n";
  return report;
}

// Deterministic: a read of the file on tier 0 is held in the device while the
// writer's next append relocates the file to tier 1. The relocation must wait
// for that read before punching tier 0, and the read must get every byte.
TEST_F(RelocationReadTest, RelocationWaitsForAReadOfTheOldHome) {
  ASSERT_NO_FATAL_FAILURE(OpenWholeFiles());
  const uint32_t n = 1;
  const std::string path = WalName(n);
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->NewWritableFile(path, FileOptions(), &w, nullptr).ok());
  std::mt19937_64 rng(n);
  const uint64_t before = 160 << 10, after = 3 * kTier0 + 777;
  ASSERT_TRUE(AppendPattern(w.get(), n, 0, before, &rng, nullptr).ok());
  ASSERT_EQ(0, HomeOf(path)) << "fast-first puts the file on tier 0 while it fits";
  const std::string old_home = BackingFile(path, 0);
  ASSERT_TRUE(HasData(old_home, 0, before));

  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile(path, FileOptions(), &r, nullptr).ok());
  device_->control.Arm(old_home);
  std::string scratch(before, '\0');
  Slice got;
  IOStatus read_status;
  auto release = [&] { device_->control.Release(); };
  ScopedThread reader(
      [&] { read_status = r->Read(0, before, IOOptions(), &got, &scratch[0], nullptr); },
      release);
  ASSERT_TRUE(device_->control.WaitStalled()) << "the read never reached tier 0";

  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  IOStatus write_status;
  ScopedThread writer(
      [&] {
        IOStatus s = AppendPattern(w.get(), n, before, after, &rng, nullptr);
        std::lock_guard<std::mutex> lock(mu);
        write_status = s;
        done = true;
        cv.notify_all();
      },
      release);
  {
    // A correct relocation copies and commits, then waits for the read; given
    // half a second the append must still be waiting, tier 0's copy intact.
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_FALSE(cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return done; }))
        << "the relocating append returned while a read of the old home was in flight";
  }
  EXPECT_TRUE(HasData(old_home, 0, before)) << "the relocation punched a copy being read";
  device_->control.Release();
  reader.Join();
  writer.Join();
  ASSERT_TRUE(read_status.ok()) << read_status.ToString();
  ASSERT_EQ(before, got.size());
  EXPECT_EQ("", test::CheckPattern(n, 0, got.data(), got.size())) << "the read in flight";
  ASSERT_TRUE(write_status.ok()) << write_status.ToString();
  EXPECT_EQ(1, HomeOf(path)) << "the file did not move to tier 1";
  EXPECT_FALSE(HasData(old_home, 0, after)) << "tier 0's old copy was not punched";

  // Every byte, through the handle held across the move and a new one.
  std::string all(after, '\0');
  ASSERT_TRUE(r->Read(0, after, IOOptions(), &got, &all[0], nullptr).ok());
  ASSERT_EQ(after, got.size());
  EXPECT_EQ("", test::CheckPattern(n, 0, got.data(), got.size())) << "the held handle";
  ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
  std::string fresh = test::ReadAll(fs_.get(), path);
  ASSERT_EQ(after, fresh.size());
  EXPECT_EQ("", test::CheckPattern(n, 0, fresh.data(), fresh.size())) << "a new handle";
}

// Under load, whole files: files are appended past tier 0 one after another,
// each relocated once while readers verify it (WriteWithReaders). Bounded by
// relocations done, not time.
TEST_F(RelocationReadTest, ReadersOfAFileBeingWrittenSeeEveryByteAcrossRelocations) {
  ASSERT_NO_FATAL_FAILURE(OpenWholeFiles());
  constexpr uint32_t kFiles = 24;
  device_->control.slow_one_in = 3;
  std::atomic<uint64_t> reads{0}, failures{0};
  std::vector<std::string> messages;
  uint32_t files = 0, relocated = 0;
  for (uint32_t n = 1; n <= kFiles && failures.load() == 0; ++n) {
    const uint64_t size = 2 * kTier0 + (uint64_t(n) * 7919) % kTier0;
    ASSERT_NO_FATAL_FAILURE(WriteWithReaders(n, size, &reads, &failures, &messages));
    files++;
    if (HomeOf(WalName(n)) == 1) relocated++;
    // Tier 0 must have room for the next file to start there.
    ASSERT_TRUE(fs_->DeleteFile(WalName(n), IOOptions(), nullptr).ok());
  }
  ASSERT_EQ(0u, failures.load()) << Report(messages);
  EXPECT_EQ(kFiles, files);
  EXPECT_EQ(files, relocated) << "a file was not relocated while written";
  EXPECT_GT(reads.load(), 0u);
  printf("%u files relocated while written, %llu reads verified\n", relocated,
         (unsigned long long)reads.load());
}

// Under load, segments: tier 0's device says ENOSPC part way into a segment,
// before TierFS's account is full. The writer moves that segment to tier 1
// (copying what it holds so far) while readers verify the file, whose earlier
// segments stay on tier 0 in the same backing file the relocation punches.
TEST_F(RelocationReadTest, ReadersSeeEveryByteWhenAFullDeviceRelocatesTheSegmentBeingWritten) {
  constexpr uint64_t kSegment = 64 << 10;
  ASSERT_NO_FATAL_FAILURE(Open({"64M", "64M"}, "64K"));
  fault_->faults.enospc_prefix = dir_.path() + "/tier0/data/";
  constexpr uint32_t kFiles = 16;
  device_->control.slow_one_in = 3;
  std::atomic<uint64_t> reads{0}, failures{0};
  std::vector<std::string> messages;
  uint32_t files = 0;
  for (uint32_t n = 1; n <= kFiles && failures.load() == 0; ++n) {
    // The device takes `fits` bytes of this file, then fails: the write that
    // crosses it is inside segment `full` (never on its first byte).
    const uint64_t fits = kSegment * (1 + n % 3) + 1000 + (uint64_t(n) * 7919) % 60000;
    const uint64_t full = fits / kSegment;
    const uint64_t size = 6 * kSegment + (uint64_t(n) * 104729) % kSegment;
    const int injected = fault_->faults.injected.load();
    fault_->faults.enospc_after = int64_t(fits);
    ASSERT_NO_FATAL_FAILURE(WriteWithReaders(n, size, &reads, &failures, &messages));
    files++;
    const std::string path = WalName(n);
    EXPECT_GT(fault_->faults.injected.load(), injected) << path << ": the device never said ENOSPC";
    for (uint64_t seg = 0; seg < full; ++seg) {
      EXPECT_EQ(0, HomeOf(path, seg)) << path << " segment " << seg << " should have stayed";
    }
    // Placed on tier 0 before the device said no, so moved by the writer.
    EXPECT_EQ(1, HomeOf(path, full)) << path << " segment " << full << " was not relocated";
    EXPECT_FALSE(HasData(BackingFile(path, 0), full * kSegment, kSegment))
        << path << ": tier 0's old copy of segment " << full << " was not punched";
    // Deleting frees tier 0's device (and clears its full mark) for the next file.
    fault_->faults.enospc_after = -1;
    ASSERT_TRUE(fs_->DeleteFile(path, IOOptions(), nullptr).ok());
  }
  ASSERT_EQ(0u, failures.load()) << Report(messages);
  EXPECT_EQ(kFiles, files);
  EXPECT_GT(reads.load(), 0u);
  printf("%u segments relocated by a full device while written, %llu reads verified\n", files,
         (unsigned long long)reads.load());
}

}  // namespace
}  // namespace tierfs
