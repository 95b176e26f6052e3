// The move protocol under load: readers verify every byte they read through
// files held open (as RocksDB's table cache holds them) while movers run
// HintStor's operations (migrate, replicate, prefetch, drop-copy) on random
// segments, the migration thread runs pins and its policy's plans, and
// (in one test) a writer appends to a file whose segments the movers try to
// move. Afterwards the capacity account, the segment map and the backing
// files must agree (tests/crash_audit.h), and a reopen must find every byte
// and the same account, less the PREFETCH copies a restart drops.
//
// TIERFS_STRESS_SECONDS sets how long each stress phase runs at least
// (default 3; a phase runs on until it has done what it is for);
// TIERFS_STRESS_SEED changes the movers' and readers' random choices
// (default fixed, printed on failure).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "env/posix_util.h"
#include "env/tier_fs.h"
#include "tests/crash_audit.h"
#include "tests/crash_files.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

constexpr uint64_t kSegment = 64 << 10;

double StressSeconds() {
  const char* env = getenv("TIERFS_STRESS_SECONDS");
  return env ? atof(env) : 3.0;
}

// Waits `least_seconds`, then on until `done()` (polled every 50 ms), at
// most 120 s in all: a slower build (ASan, TSan, a loaded machine) does less
// in the same time, and a stress run is judged by what it did, not how long.
void StressFor(double least_seconds, const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const Clock::time_point least = start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(least_seconds));
  const Clock::time_point most = start + std::chrono::seconds(120);
  while (Clock::now() < least || (Clock::now() < most && !done())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

uint64_t StressSeed() {
  const char* env = getenv("TIERFS_STRESS_SEED");
  return env ? strtoull(env, nullptr, 10) : 20240601;
}

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

// What the threads of a run saw. Failures keep their first few messages.
struct Tally {
  std::atomic<uint64_t> reads{0}, read_bytes{0};
  std::atomic<uint64_t> ops{0}, ok{0}, no_space{0};
  std::atomic<uint64_t> growing_ops{0}, growing_busy{0};  // on the file being written
  std::atomic<uint64_t> pins{0}, appends{0};
  std::atomic<uint64_t> failures{0};
  std::mutex mu;
  std::vector<std::string> messages;

  void Fail(const std::string& what) {
    failures++;
    std::lock_guard<std::mutex> lock(mu);
    if (messages.size() < 20) messages.push_back(what);
  }
  std::string Report() {
    std::lock_guard<std::mutex> lock(mu);
    std::string s;
    for (const std::string& m : messages) s += "  " + m + "\n";
    return s;
  }
};

// A file the readers read through one handle shared by all of them, up to
// `readable` bytes (the whole file, or what its writer has appended so far).
struct ReadTarget {
  uint32_t number = 0;
  rocksdb::FSRandomAccessFile* file = nullptr;
  const std::atomic<uint64_t>* readable = nullptr;
  bool growing = false;  // reads stay below `readable`; else they may cross the end
};

// Reads random ranges (crossing segment boundaries, sometimes past the end,
// sometimes as a MultiRead) and checks every byte until `stop`.
void ReadLoop(const std::vector<ReadTarget>& targets, uint64_t seed, const std::atomic<bool>& stop,
              Tally* tally) {
  std::mt19937_64 rng(seed);
  std::string scratch(4 * kSegment, '\0'), scratch2(kSegment, '\0');
  while (!stop.load()) {
    const ReadTarget& t = targets[rng() % targets.size()];
    const uint64_t size = t.readable->load();
    if (size == 0) continue;
    const uint64_t off = rng() % size;
    size_t n = size_t(1 + rng() % (rng() % 4 == 0 ? scratch.size() : 2 * kSegment));
    if (t.growing) n = size_t(std::min<uint64_t>(n, size - off));
    const size_t want = size_t(std::min<uint64_t>(n, size - off));
    if (rng() % 8 == 0) {
      rocksdb::FSReadRequest reqs[2];
      reqs[0].offset = off;
      reqs[0].len = want;
      reqs[0].scratch = &scratch[0];
      reqs[1].offset = rng() % size;
      reqs[1].len = size_t(std::min<uint64_t>(scratch2.size(), size - reqs[1].offset));
      reqs[1].scratch = &scratch2[0];
      IOStatus s = t.file->MultiRead(reqs, 2, IOOptions(), nullptr);
      for (auto& r : reqs) {
        if (!s.ok() || !r.status.ok() || r.result.size() != r.len) {
          tally->Fail("multiread of file " + std::to_string(t.number) + " at " +
                      std::to_string(r.offset) + ": " + r.status.ToString() + " " +
                      std::to_string(r.result.size()) + " of " + std::to_string(r.len) + " bytes");
          continue;
        }
        std::string bad = test::CheckPattern(t.number, r.offset, r.result.data(), r.result.size());
        if (!bad.empty()) tally->Fail("multiread: " + bad);
      }
    } else {
      Slice got;
      IOStatus s = t.file->Read(off, n, IOOptions(), &got, &scratch[0], nullptr);
      if (!s.ok() || got.size() != want) {
        tally->Fail("read of file " + std::to_string(t.number) + " at " + std::to_string(off) +
                    ": " + s.ToString() + ", " + std::to_string(got.size()) + " of " +
                    std::to_string(want) + " bytes");
        continue;
      }
      std::string bad = test::CheckPattern(t.number, off, got.data(), got.size());
      if (!bad.empty()) tally->Fail("read: " + bad);
    }
    tally->reads++;
    tally->read_bytes += want;
  }
}

// A file the movers work on. A growing one (a writer may have it open, so its
// moves may be refused as Busy) has `size` bytes so far, and its moves aim at
// its last segments, the ones being written.
struct MoveTarget {
  std::string path;
  uint64_t segments = 0;
  const std::atomic<uint64_t>* size = nullptr;  // set if growing
};

// Runs random HintStor operations (wait = true) over random segment ranges
// until `stop`. Statuses: OK; NoSpace when the destination is full; Busy only
// on a file open for writing.
void MoveLoop(rocksdb::FileSystem* fs, const std::vector<MoveTarget>& targets, int tiers,
              uint64_t seed, const std::atomic<bool>& stop, Tally* tally) {
  static const DataOp kOps[] = {DataOp::kMigrate, DataOp::kMigrate, DataOp::kReplicate,
                                DataOp::kPrefetch, DataOp::kDropCopy};
  std::mt19937_64 rng(seed);
  while (!stop.load()) {
    const MoveTarget& t = targets[rng() % targets.size()];
    const DataOp op = kOps[rng() % 5];
    const int tier = int(rng() % tiers);
    const uint64_t segments = t.size ? (t.size->load() + kSegment - 1) / kSegment : t.segments;
    uint64_t first = rng() % segments, last = first;
    switch (rng() % 10) {
      case 0: first = 0; last = segments - 1; break;    // the whole file
      case 1: case 2: case 3: last = first + rng() % 4; break;
      case 4: case 5: case 6:                           // the end, if growing
        if (t.size) first = last = segments - 1 - rng() % std::min<uint64_t>(2, segments);
        break;
      default: break;                                     // one segment
    }
    rocksdb::Status s = ApplyDataOp(fs, op, t.path, tier, first, last, /*wait=*/true);
    const bool growing = t.size != nullptr;
    tally->ops++;
    if (growing) tally->growing_ops++;
    if (s.ok()) {
      tally->ok++;
    } else if (s.IsNoSpace()) {
      tally->no_space++;
    } else if (s.IsBusy() && growing) {
      tally->growing_busy++;
    } else {
      tally->Fail(std::string(DataOpName(op)) + " " + t.path + " segments " +
                  std::to_string(first) + "-" +
                  std::to_string(last) + " to tier " + std::to_string(tier) + ": " + s.ToString());
    }
  }
}

// Pins random files to random tiers (REDIRECT: the migration thread moves
// their segments) and unpins them, until `stop`; leaves every file unpinned.
void PinLoop(rocksdb::FileSystem* fs, const std::vector<MoveTarget>& targets, int tiers,
             uint64_t seed, const std::atomic<bool>& stop, Tally* tally) {
  std::mt19937_64 rng(seed);
  while (!stop.load()) {
    const MoveTarget& t = targets[rng() % targets.size()];
    rocksdb::Status s = Pin(fs, t.path, "", int(rng() % tiers));
    if (s.ok()) s = WaitForManualMoves(fs, 30000);
    if (s.ok()) s = Pin(fs, t.path, "", -1);
    if (!s.ok()) tally->Fail("pin " + t.path + ": " + s.ToString());
    tally->pins++;
  }
}

// Waits until the migration thread has nothing queued or running, several
// polls in a row (a plan may be computed between two of them).
void WaitForQuietMigrator(rocksdb::FileSystem* fs) {
  int quiet = 0;
  for (int i = 0; i < 2000 && quiet < 4; ++i) {
    MigrationInfo info;
    ASSERT_TRUE(GetMigrationInfo(fs, &info).ok());
    quiet = info.queue.empty() && !info.running ? quiet + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(4, quiet) << "the migration thread never went quiet";
}

// What recovery charges for a placement (store_recovery.cc), per tier.
std::vector<uint64_t> RecoveredUse(const test::PlacementMap& map, int tiers,
                                   const std::map<std::string, uint64_t>& sizes) {
  std::vector<uint64_t> used(tiers, 0);
  std::set<std::pair<std::string, int>> allowances;
  for (const auto& [key, p] : map) {
    const uint64_t start = key.second * kSegment;
    const uint64_t end = std::min(sizes.at(key.first), start + kSegment);
    const uint64_t bytes = end > start ? RoundUp(end - start) : 0;
    used[p.home] += bytes;
    allowances.insert({key.first, p.home});
    if (p.copy >= 0 && !p.volatile_copy) {
      used[p.copy] += bytes;
      allowances.insert({key.first, p.copy});
    }
  }
  for (const auto& fa : allowances) used[fa.second] += kBlockSize;
  return used;
}

// ---------------------------------------------------------------------------
// The device under the store: a wrapper of the backing files that can make
// random-access reads slow (so a read that looked its tier up before a move
// committed is still reading when the move would punch), and can hold one
// read, or one write of a read-write file (a move's copy), inside the device
// until the test lets it go.

struct ReadStall {
  std::mutex mu;
  std::condition_variable cv;
  std::string path;  // the backing file whose next read stalls; "" = none
  bool stalled = false, released = false;

  void Arm(const std::string& p) {
    std::lock_guard<std::mutex> lock(mu);
    path = p;
    stalled = released = false;
  }
  void MaybeStall(const std::string& p) {
    std::unique_lock<std::mutex> lock(mu);
    if (path.empty() || p != path) return;
    path.clear();  // one read only
    stalled = true;
    cv.notify_all();
    cv.wait(lock, [&] { return released; });
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

struct DeviceControl {
  ReadStall stall;        // of random-access reads
  ReadStall write_stall;  // of read-write files' writes
  // One read in `slow_one_in` (0: none) waits 1 to 4 ms before it reads.
  std::atomic<uint32_t> slow_one_in{0};

  void BeforeRead(const std::string& path) {
    stall.MaybeStall(path);
    const uint32_t n = slow_one_in.load(std::memory_order_relaxed);
    if (n == 0) return;
    thread_local std::mt19937 rng(std::hash<std::thread::id>()(std::this_thread::get_id()));
    if (rng() % n == 0) std::this_thread::sleep_for(std::chrono::microseconds(1000 + rng() % 3000));
  }
};

class ControlledFile : public rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  ControlledFile(std::unique_ptr<rocksdb::FSRandomAccessFile> f, std::string path,
                 DeviceControl* control)
      : FSRandomAccessFileOwnerWrapper(std::move(f)), path_(std::move(path)), control_(control) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result, char* scratch,
                rocksdb::IODebugContext* d) const override {
    control_->BeforeRead(path_);  // the data is read after the wait
    return FSRandomAccessFileOwnerWrapper::Read(offset, n, o, result, scratch, d);
  }

 private:
  const std::string path_;
  DeviceControl* const control_;
};

class ControlledRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  ControlledRWFile(std::unique_ptr<rocksdb::FSRandomRWFile> f, std::string path,
                   DeviceControl* control)
      : FSRandomRWFileOwnerWrapper(std::move(f)), path_(std::move(path)), control_(control) {}
  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions& o,
                 rocksdb::IODebugContext* d) override {
    control_->write_stall.MaybeStall(path_);
    return FSRandomRWFileOwnerWrapper::Write(offset, data, o, d);
  }

 private:
  const std::string path_;
  DeviceControl* const control_;
};

class ControlledFS : public rocksdb::FileSystemWrapper {
 public:
  ControlledFS() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "ControlledFS"; }
  IOStatus NewRandomRWFile(const std::string& f, const FileOptions& o,
                           std::unique_ptr<rocksdb::FSRandomRWFile>* r,
                           rocksdb::IODebugContext* d) override {
    std::unique_ptr<rocksdb::FSRandomRWFile> file;
    IOStatus s = target()->NewRandomRWFile(f, o, &file, d);
    if (s.ok()) r->reset(new ControlledRWFile(std::move(file), f, &control));
    return s;
  }
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                               rocksdb::IODebugContext* d) override {
    std::unique_ptr<rocksdb::FSRandomAccessFile> file;
    IOStatus s = target()->NewRandomAccessFile(f, o, &file, d);
    if (s.ok()) r->reset(new ControlledFile(std::move(file), f, &control));
    return s;
  }
  DeviceControl control;
};

class MigrationStressTest : public ::testing::Test {
 protected:
  MigrationStressTest() : dir_("migration-stress"), device_(std::make_shared<ControlledFS>()) {}
  ~MigrationStressTest() override {
    readers_.clear();
    fs_.reset();
  }

  void Open(const std::vector<std::string>& capacities, const std::string& extra) {
    options_ = test::MakeOptions(dir_, capacities, ";segment_size:64K" + extra);
    options_.base = device_;
    rocksdb::Status s = NewTierFileSystem(options_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // Closes every handle and the store, and opens it again without the
  // migration thread (nothing moves while the test looks).
  void Reopen() {
    readers_.clear();
    fs_.reset();
    Options o = options_;
    o.migration.enabled = false;
    rocksdb::Status s = NewTierFileSystem(o, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  Store& store() { return *StoreOf(fs_.get()); }

  // Appends [from, to) of file `n`'s content in uneven pieces through `f`.
  void AppendPattern(rocksdb::FSWritableFile* f, uint32_t n, uint64_t from, uint64_t to,
                     std::mt19937_64* rng) {
    for (uint64_t off = from; off < to;) {
      size_t len = size_t(std::min<uint64_t>(1 + (*rng)() % 50000, to - off));
      ASSERT_TRUE(f->Append(test::Pattern(n, off, len), IOOptions(), nullptr).ok());
      off += len;
    }
  }
  // Writes file `n` whole, syncs and closes it.
  void WriteFile(uint32_t n, uint64_t size) {
    std::mt19937_64 rng(n);
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(test::MoveFileName(n), FileOptions(), &f, nullptr).ok());
    ASSERT_NO_FATAL_FAILURE(AppendPattern(f.get(), n, 0, size, &rng));
    ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
    sizes_[test::MoveFileName(n)] = size;
  }
  void WriteFiles(uint32_t count) {
    ASSERT_TRUE(fs_->CreateDirIfMissing("/moves", IOOptions(), nullptr).ok());
    for (uint32_t n = 0; n < count; ++n) {
      ASSERT_NO_FATAL_FAILURE(WriteFile(n, test::MoveFileSize(n)));
      numbers_.push_back(n);
    }
  }
  // Reads every file whole through a new handle and checks size and content.
  void VerifyAll(const std::string& when) {
    for (const auto& [path, size] : sizes_) {
      std::string data = test::ReadAll(fs_.get(), path);
      ASSERT_EQ(size, data.size())
          << when << ": " << path << (data.compare(0, 7, "<error:") == 0 ? " " + data : "");
      std::string bad = test::CheckPattern(uint32_t(test::MoveFileNumber(path)), 0, data.data(),
                                           data.size());
      ASSERT_EQ("", bad) << when;
    }
  }
  void ExpectCleanAudit(const std::string& when) {
    test::Audit a = test::AuditStore(fs_.get(), "/moves");
    EXPECT_EQ("", a.problems) << when;
  }
  rocksdb::FSRandomAccessFile* Reader(uint32_t n) {
    std::unique_ptr<rocksdb::FSRandomAccessFile> r;
    EXPECT_TRUE(fs_->NewRandomAccessFile(test::MoveFileName(n), FileOptions(), &r, nullptr).ok());
    readers_.push_back(std::move(r));
    return readers_.back().get();
  }
  std::vector<MoveTarget> MoveTargets() {
    std::vector<MoveTarget> targets;
    for (uint32_t n : numbers_) {
      targets.push_back({test::MoveFileName(n), (test::MoveFileSize(n) + kSegment - 1) / kSegment});
    }
    return targets;
  }

  // Closes, reopens, and checks that every byte is back, the placement is the
  // same less the PREFETCH copies, and so is the account.
  void CheckReopen(const std::string& when) {
    const int tiers = store().NumTiers();
    test::PlacementMap before = test::Placements(fs_.get(), "/moves");
    std::vector<uint64_t> expected = RecoveredUse(before, tiers, sizes_);
    for (auto& [key, p] : before) {
      if (p.volatile_copy) {
        p.copy = -1;  // a PREFETCH copy does not survive a restart
        p.volatile_copy = false;
      }
    }
    ASSERT_NO_FATAL_FAILURE(Reopen());
    ASSERT_NO_FATAL_FAILURE(VerifyAll(when + ", after the reopen"));
    ExpectCleanAudit(when + ", after the reopen");
    EXPECT_TRUE(before == test::Placements(fs_.get(), "/moves"))
        << when << ": the placement changed";
    // The account of the homes: hot-page copies come back from a clean
    // close (env/hot_pages.h), charged to tier 0 beside them.
    for (int t = 0; t < tiers; ++t) {
      EXPECT_EQ(expected[t], store().Used(t) - store().tier(t).copy_used())
          << when << ": tier " << t;
    }
  }

  test::ScratchDir dir_;
  std::shared_ptr<ControlledFS> device_;  // under the store
  Options options_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::vector<std::unique_ptr<rocksdb::FSRandomAccessFile>> readers_;
  std::vector<uint32_t> numbers_;
  std::map<std::string, uint64_t> sizes_;  // by path: what each file must hold
};

// Four readers on closed files while two movers, the migration thread (pins,
// and the hintstor policy's plans) all move their segments.
TEST_F(MigrationStressTest, ReadersSeeEveryByteWhileSegmentsMove) {
  // Tier 0 holds a fraction of the data, so moves there are often refused.
  ASSERT_NO_FATAL_FAILURE(Open({"1M", "6M", "64M"},
                               ";policy:hintstor;hintstor.interval:2048;migration_rate:1G;"
                               "migration_idle_ops:1000000000"));
  ASSERT_NO_FATAL_FAILURE(WriteFiles(8));
  device_->control.slow_one_in = 16;
  std::vector<std::atomic<uint64_t>> readable(numbers_.size());
  std::vector<ReadTarget> read_targets;
  for (size_t i = 0; i < numbers_.size(); ++i) {
    readable[i] = test::MoveFileSize(numbers_[i]);
    read_targets.push_back({numbers_[i], Reader(numbers_[i]), &readable[i]});
  }

  const uint64_t seed = StressSeed();
  Tally tally;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { ReadLoop(read_targets, seed + i, stop, &tally); });
  }
  const std::vector<MoveTarget> targets = MoveTargets();
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] { MoveLoop(fs_.get(), targets, 3, seed + 10 + i, stop, &tally); });
  }
  threads.emplace_back([&] { PinLoop(fs_.get(), targets, 3, seed + 20, stop, &tally); });
  uint64_t moves = 0, copies = 0, dropped = 0;
  auto count_moves = [&] {
    std::vector<TierStats> stats;
    if (!GetTierStats(fs_.get(), &stats).ok()) return false;
    moves = copies = dropped = 0;
    for (const TierStats& s : stats) {
      moves += s.Get(TierTicker::kMovesIn);
      copies += s.Get(TierTicker::kCopiesIn);
      dropped += s.Get(TierTicker::kCopiesDropped);
    }
    return true;
  };
  // Until the run did what it is for (checked below).
  StressFor(StressSeconds(), [&] {
    return count_moves() && tally.reads.load() > 100 && moves > 20 && copies > 10 &&
           dropped > 5 && tally.no_space.load() > 0;
  });
  stop = true;
  for (auto& t : threads) t.join();
  device_->control.slow_one_in = 0;
  ASSERT_TRUE(count_moves());
  MigrationInfo info;
  ASSERT_TRUE(GetMigrationInfo(fs_.get(), &info).ok());
  printf("stress (seed %llu): %llu reads (%llu MB), %llu ops (%llu ok, %llu no space), "
         "%llu pins; %llu segments moved, %llu copies made, %llu dropped; migration thread: "
         "%llu done, %llu skipped, %llu given up\n",
         (unsigned long long)seed, (unsigned long long)tally.reads.load(),
         (unsigned long long)(tally.read_bytes.load() >> 20), (unsigned long long)tally.ops.load(),
         (unsigned long long)tally.ok.load(), (unsigned long long)tally.no_space.load(),
         (unsigned long long)tally.pins.load(), (unsigned long long)moves,
         (unsigned long long)copies, (unsigned long long)dropped, (unsigned long long)info.done,
         (unsigned long long)info.skipped, (unsigned long long)info.given_up);
  EXPECT_EQ(0u, tally.failures.load()) << "seed " << seed << ":\n" << tally.Report();
  EXPECT_EQ(0u, info.given_up) << "the migration thread failed moves";
  // The run did what it is for.
  EXPECT_GT(tally.reads.load(), 100u);
  EXPECT_GT(moves, 20u);
  EXPECT_GT(copies, 10u);
  EXPECT_GT(dropped, 5u);
  EXPECT_GT(tally.no_space.load(), 0u) << "no move ever found its destination full";

  ASSERT_NO_FATAL_FAILURE(WaitForQuietMigrator(fs_.get()));
  ExpectCleanAudit("after the stress");
  ASSERT_NO_FATAL_FAILURE(VerifyAll("after the stress"));
  ASSERT_NO_FATAL_FAILURE(WaitForQuietMigrator(fs_.get()));  // the reads above may plan moves
  ASSERT_NO_FATAL_FAILURE(CheckReopen("after the stress"));
}

// A writer appends to a file (closing and reopening it between bursts) while
// the movers try to move its segments: a move of a file open for writing is
// refused (Busy), one that raced with an open does not commit, and whatever
// moved between two bursts carries every byte the writer wrote.
TEST_F(MigrationStressTest, MovesOfAFileBeingAppendedAreRefusedOrSafe) {
  ASSERT_NO_FATAL_FAILURE(Open({"1M", "6M", "128M"}, ";migration:off"));
  ASSERT_NO_FATAL_FAILURE(WriteFiles(4));
  constexpr uint32_t kGrowing = 100;
  constexpr uint64_t kMaxGrowing = 48 << 20;
  const std::string growing = test::MoveFileName(kGrowing);
  std::atomic<uint64_t> written{0};
  std::mt19937_64 wrng(StressSeed() + 99);
  {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile(growing, FileOptions(), &f, nullptr).ok());
    ASSERT_NO_FATAL_FAILURE(AppendPattern(f.get(), kGrowing, 0, 100000, &wrng));
    ASSERT_TRUE(f->Sync(IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
    written = 100000;
  }

  device_->control.slow_one_in = 16;
  std::vector<std::atomic<uint64_t>> readable(numbers_.size());
  std::vector<ReadTarget> read_targets;
  for (size_t i = 0; i < numbers_.size(); ++i) {
    readable[i] = test::MoveFileSize(numbers_[i]);
    read_targets.push_back({numbers_[i], Reader(numbers_[i]), &readable[i]});
  }
  read_targets.push_back({kGrowing, Reader(kGrowing), &written, /*growing=*/true});
  std::vector<MoveTarget> targets = MoveTargets();
  for (int i = 0; i < 3; ++i) targets.push_back({growing, 0, &written});

  const uint64_t seed = StressSeed();
  Tally tally;
  std::atomic<bool> stop{false}, stop_writer{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] { ReadLoop(read_targets, seed + i, stop, &tally); });
  }
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] { MoveLoop(fs_.get(), targets, 3, seed + 10 + i, stop, &tally); });
  }
  // The writer: bursts of appends with syncs, each burst in its own open.
  std::thread writer([&] {
    std::mt19937_64 rng(seed + 30);
    while (!stop_writer.load() && written.load() < kMaxGrowing) {
      std::unique_ptr<rocksdb::FSWritableFile> f;
      IOStatus s = fs_->ReopenWritableFile(growing, FileOptions(), &f, nullptr);
      for (int i = int(1 + rng() % 8); s.ok() && i > 0; --i) {
        uint64_t off = written.load();
        size_t len = size_t(std::min<uint64_t>(1 + rng() % 4000, kMaxGrowing - off));
        s = f->Append(test::Pattern(kGrowing, off, len), IOOptions(), nullptr);
        if (s.ok()) written = off + len;
        if (s.ok() && rng() % 3 == 0) s = f->Sync(IOOptions(), nullptr);
        tally.appends++;
      }
      if (s.ok()) s = f->Sync(IOOptions(), nullptr);
      if (s.ok()) s = f->Close(IOOptions(), nullptr);
      if (!s.ok()) {
        tally.Fail("writer: " + s.ToString());
        return;
      }
      std::this_thread::yield();  // a window in which moves of the closed file may run
    }
  });
  const double seconds = StressSeconds();
  StressFor(seconds * 0.7, [&] {  // until what is checked below happened
    return tally.appends.load() > 20 && tally.growing_busy.load() > 0;
  });
  stop_writer = true;
  writer.join();
  // Moves of the growing file, closed for good now.
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds * 0.3));
  stop = true;
  for (auto& t : threads) t.join();
  device_->control.slow_one_in = 0;
  sizes_[growing] = written.load();

  printf("stress with a writer (seed %llu): %llu reads, %llu appends (%llu bytes), %llu ops "
         "(%llu ok, %llu busy, %llu no space), %llu on the growing file\n",
         (unsigned long long)seed, (unsigned long long)tally.reads.load(),
         (unsigned long long)tally.appends.load(), (unsigned long long)written.load(),
         (unsigned long long)tally.ops.load(), (unsigned long long)tally.ok.load(),
         (unsigned long long)tally.growing_busy.load(), (unsigned long long)tally.no_space.load(),
         (unsigned long long)tally.growing_ops.load());
  EXPECT_EQ(0u, tally.failures.load()) << "seed " << seed << ":\n" << tally.Report();
  EXPECT_GT(tally.growing_busy.load(), 0u) << "no move ever met the writer";
  EXPECT_GT(tally.appends.load(), 20u);

  ExpectCleanAudit("after the stress");
  ASSERT_NO_FATAL_FAILURE(VerifyAll("after the stress"));
  ASSERT_NO_FATAL_FAILURE(CheckReopen("after the stress"));
}

// One reader holds a file open and reads it whole after every step, while
// another reads it without pause: all its segments migrate, get copies, lose
// them, migrate under their copies. No read may ever see a zero.
TEST_F(MigrationStressTest, AnOpenFileReadsTheSameWhileAllItsSegmentsMove) {
  // Copies off: the audit after each step runs while the reader keeps
  // reading, and a hot page copied between its two counts of the copies
  // (the account's and the slots') made it see one page of drift (the ASan
  // stage did, once). Copies under concurrent readers are hot_pages_test's.
  ASSERT_NO_FATAL_FAILURE(Open({"4M", "4M", "4M"}, ";migration:off;copies:off"));
  ASSERT_TRUE(fs_->CreateDirIfMissing("/moves", IOOptions(), nullptr).ok());
  const uint64_t size = 2 * 1024 * 1024 + 12345;
  ASSERT_NO_FATAL_FAILURE(WriteFile(7, size));
  const std::string path = test::MoveFileName(7);
  const uint64_t last = (size - 1) / kSegment;
  rocksdb::FSRandomAccessFile* held = Reader(7);
  device_->control.slow_one_in = 4;
  std::atomic<uint64_t> readable{size};
  Tally tally;
  std::atomic<bool> stop{false};
  ScopedThread hammer([&] { ReadLoop({{7, held, &readable}}, StressSeed(), stop, &tally); },
                      [&] { stop = true; });

  struct Step {
    DataOp op;
    int tier;
  };
  const Step steps[] = {
      {DataOp::kMigrate, 2},  {DataOp::kReplicate, 0}, {DataOp::kDropCopy, 0},
      {DataOp::kPrefetch, 1}, {DataOp::kMigrate, 0},   {DataOp::kReplicate, 2},
      {DataOp::kMigrate, 1},  {DataOp::kPrefetch, 0},  {DataOp::kDropCopy, 0},
      {DataOp::kMigrate, 2},  {DataOp::kReplicate, 1}, {DataOp::kMigrate, 0}};
  std::string scratch(size, '\0');
  uint64_t id = store().Find(path)->id;
  for (const Step& step : steps) {
    const std::string what = std::string(DataOpName(step.op)) + " to tier " +
                             std::to_string(step.tier);
    rocksdb::Status s = ApplyDataOp(fs_.get(), step.op, path, step.tier, 0, last, true);
    ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
    Slice got;
    ASSERT_TRUE(held->Read(0, size, IOOptions(), &got, &scratch[0], nullptr).ok());
    ASSERT_EQ(size, got.size());
    ASSERT_EQ("", test::CheckPattern(7, 0, got.data(), got.size())) << "after " << what;
    ExpectCleanAudit("after " + what);
    // Where no segment lives now, nothing is left (the old copies were punched).
    test::PlacementMap map = test::Placements(fs_.get(), "/moves");
    for (int t = 0; t < 3; ++t) {
      bool used = false;
      for (const auto& kv : map) used |= kv.second.home == t || kv.second.copy == t;
      if (!used) {
        EXPECT_FALSE(HasData(store().tier(t).DataPath(id), 0, size))
            << "tier " << t << " after " << what;
      }
    }
  }
  hammer.Join();
  EXPECT_EQ(0u, tally.failures.load()) << tally.Report();
  EXPECT_GT(tally.reads.load(), 0u);
  ASSERT_NO_FATAL_FAILURE(CheckReopen("after the steps"));
}

// ---------------------------------------------------------------------------
// A read in flight on a segment's old copy: the move must not punch that copy
// until the read is done. The device holds one backing-file read until the
// test lets it go.

class ReadInFlightTest : public MigrationStressTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Open({"4M", "4M", "4M"}, ";migration:off;policy:fast-first"));
    ASSERT_TRUE(fs_->CreateDirIfMissing("/moves", IOOptions(), nullptr).ok());
    ASSERT_NO_FATAL_FAILURE(WriteFile(3, kSize));
    path_ = test::MoveFileName(3);
    id_ = store().Find(path_)->id;
  }

  // Stalls a whole-file read of the held file on tier `read_tier`, runs `op`
  // on all segments, and checks that the op waits for the read, the read gets
  // every byte, and the old copy on `read_tier` is gone once the op returns.
  void RunWithReadInFlight(int read_tier, DataOp op, int to) {
    rocksdb::FSRandomAccessFile* held = Reader(3);
    const std::string old_copy = store().tier(read_tier).DataPath(id_);
    ASSERT_TRUE(HasData(old_copy, 0, kSize));
    device_->control.stall.Arm(old_copy);
    std::string scratch(kSize, '\0');
    Slice got;
    IOStatus read_status;
    auto release = [&] { device_->control.stall.Release(); };
    ScopedThread reader(
        [&] { read_status = held->Read(0, kSize, IOOptions(), &got, &scratch[0], nullptr); },
        release);
    ASSERT_TRUE(device_->control.stall.WaitStalled())
        << "the read never reached tier " << read_tier;

    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    rocksdb::Status op_status;
    ScopedThread mover(
        [&] {
          rocksdb::Status s = ApplyDataOp(fs_.get(), op, path_, to, 0, kSize / kSegment, true);
          std::lock_guard<std::mutex> lock(mu);
          op_status = s;
          done = true;
          cv.notify_all();
        },
        release);
    {
      // A correct move copies and commits, then waits for the read; given
      // half a second it must still be waiting, its old copy intact.
      std::unique_lock<std::mutex> lock(mu);
      EXPECT_FALSE(cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return done; }))
          << DataOpName(op) << " returned while a read of its old copy was in flight";
    }
    EXPECT_TRUE(HasData(old_copy, 0, kSegment)) << DataOpName(op) << " punched a copy being read";
    device_->control.stall.Release();
    reader.Join();
    mover.Join();
    ASSERT_TRUE(read_status.ok()) << read_status.ToString();
    ASSERT_EQ(kSize, got.size());
    EXPECT_EQ("", test::CheckPattern(3, 0, got.data(), got.size())) << "the read in flight";
    ASSERT_TRUE(op_status.ok()) << op_status.ToString();
    EXPECT_FALSE(HasData(old_copy, 0, kSize)) << "the old copy was not punched";
    ExpectCleanAudit(std::string("after ") + DataOpName(op));
  }

  static constexpr uint64_t kSize = 300 * 1024 + 5;
  std::string path_;
  uint64_t id_ = 0;
};

TEST_F(ReadInFlightTest, MigrateWaitsForAReadOfTheOldHome) {
  ASSERT_EQ(0, store().Find(path_)->segments.tier(0));  // fast-first: all on tier 0
  ASSERT_NO_FATAL_FAILURE(RunWithReadInFlight(0, DataOp::kMigrate, 2));
  ASSERT_NO_FATAL_FAILURE(VerifyAll("after the migration"));
  ASSERT_NO_FATAL_FAILURE(CheckReopen("after the migration"));
}

TEST_F(ReadInFlightTest, DropCopyWaitsForAReadOfTheCopy) {
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kMigrate, path_, 2, 0, kSize / kSegment, true).ok());
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kReplicate, path_, 1, 0, kSize / kSegment, true).ok());
  ASSERT_NO_FATAL_FAILURE(RunWithReadInFlight(1, DataOp::kDropCopy, 0));
  ASSERT_NO_FATAL_FAILURE(CheckReopen("after the drop"));
}

TEST_F(ReadInFlightTest, MigrateUnderAPrefetchedCopyWaitsForAReadOfTheCopy) {
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kMigrate, path_, 2, 0, kSize / kSegment, true).ok());
  ASSERT_TRUE(ApplyDataOp(fs_.get(), DataOp::kPrefetch, path_, 0, 0, kSize / kSegment, true).ok());
  // The home moves from tier 2 to tier 1; the copy on tier 0 is dropped first.
  ASSERT_NO_FATAL_FAILURE(RunWithReadInFlight(0, DataOp::kMigrate, 1));
  ASSERT_NO_FATAL_FAILURE(CheckReopen("after the migration"));
}

// A file is truncated while a move of its last segment is copying (the copy
// has read the segment and is about to write it): the move must not commit,
// and must not leave the destination's backing file longer than the file, as
// recovery takes a file's size from its backing files. (Found by this test:
// Truncate did not wait for moves, so the copy's write landed after the cut
// and a reopen gave the file its old size back, zeros past the cut.)
TEST_F(MigrationStressTest, AMoveThatLosesToATruncateLeavesTheSizeAlone) {
  ASSERT_NO_FATAL_FAILURE(Open({"4M", "4M", "4M"}, ";migration:off;policy:fast-first"));
  ASSERT_TRUE(fs_->CreateDirIfMissing("/moves", IOOptions(), nullptr).ok());
  const uint64_t size = 300 * 1024 + 5;
  ASSERT_NO_FATAL_FAILURE(WriteFile(5, size));
  const std::string path = test::MoveFileName(5);
  const uint64_t last = (size - 1) / kSegment;
  const std::string dst = store().tier(1).DataPath(store().Find(path)->id);
  device_->control.write_stall.Arm(dst);
  rocksdb::Status op_status;
  auto release = [&] { device_->control.write_stall.Release(); };
  ScopedThread mover(
      [&] { op_status = ApplyDataOp(fs_.get(), DataOp::kMigrate, path, 1, last, last, true); }, release);
  ASSERT_TRUE(device_->control.write_stall.WaitStalled()) << "the move never wrote its copy";
  // The truncate may wait for the move (then the copy's write goes first) or
  // not; either way the copy's write is let go once the truncate is done or
  // has waited half a second.
  const uint64_t cut = 100000;
  std::mutex mu;
  std::condition_variable cv;
  bool truncated = false;
  IOStatus s;
  ScopedThread truncater(
      [&] {
        IOStatus t = fs_->Truncate(path, cut, IOOptions(), nullptr);
        std::lock_guard<std::mutex> lock(mu);
        s = t;
        truncated = true;
        cv.notify_all();
      },
      release);
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return truncated; });
  }
  device_->control.write_stall.Release();
  mover.Join();
  truncater.Join();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(op_status.IsBusy()) << op_status.ToString();
  sizes_[path] = cut;
  ASSERT_NO_FATAL_FAILURE(VerifyAll("after the truncate"));
  uint64_t backing = 0;
  ASSERT_TRUE(
      rocksdb::FileSystem::Default()->GetFileSize(dst, IOOptions(), &backing, nullptr).ok());
  EXPECT_LE(backing, cut)
      << "the abandoned copy left the backing file on tier 1 longer than the file";
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(VerifyAll("after the truncate and a reopen"));
}

}  // namespace
}  // namespace tierfs
