// The read through the hot-page copies (engine/copy_read.h), against an
// owner that records what it is asked: which reads are left to the homes,
// what a miss reads and copies, what a hit reads, and what a failure leaves.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "agents/policies.h"
#include "engine/copy_read.h"

namespace tierfs {
namespace {

constexpr uint64_t kPage = 8192;
constexpr uint64_t kFile = 7;

// Records each call as a line; fails the calls it is told to.
class RecordingIo : public CopyReadIo {
 public:
  bool tier_zero = false;  // ReadFromTierZero's answer
  bool placed = true;      // Placed's answer
  bool fail_copies = false, fail_homes = false, fail_write = false;
  std::vector<std::string> calls;
  int gate = 0;  // entries minus exits
  PageCopies::Reader state;

  bool ReadFromTierZero(uint64_t, uint64_t) const override { return tier_zero; }
  bool Placed(uint64_t, uint64_t) const override { return placed; }
  void EnterGate() override {
    EXPECT_EQ(0, gate) << "the gate is not reentrant";
    gate++;
  }
  void LeaveGate() override { gate--; }
  bool ReadCopies(const int64_t* slots, int n, uint64_t first, uint64_t unit, uint64_t offset,
                  uint64_t end) override {
    EXPECT_EQ(1, gate) << "copies read outside the gate";
    for (int i = 0; i < n; ++i) EXPECT_GE(slots[i], 0);
    Log("copies " + std::to_string(n) + " " + std::to_string(first) + "+" +
        std::to_string(unit) + " [" + std::to_string(offset) + "," + std::to_string(end) + ")");
    return !fail_copies;
  }
  void Served(uint64_t offset, uint64_t end, const uint64_t*, int n) override {
    EXPECT_EQ(0, gate) << "a hit counted inside the gate";
    Log("served " + std::to_string(n) + " [" + std::to_string(offset) + "," +
        std::to_string(end) + ")");
  }
  void WaitForReaders() override { Log("wait"); }
  bool ReadHomes(uint64_t lo, uint64_t hi) override {
    Log("homes [" + std::to_string(lo) + "," + std::to_string(hi) + ")");
    return !fail_homes;
  }
  bool WriteCopy(const PageCopies::Fill&, uint64_t start, uint64_t length) override {
    Log("write " + std::to_string(start) + "+" + std::to_string(length));
    return !fail_write;
  }
  void Copied(uint64_t index) override { Log("copied " + std::to_string(index)); }
  PageCopies::Reader* reader() override { return &state; }
  bool blocking() const override { return true; }

 private:
  void Log(const std::string& line) { calls.push_back(line); }
};

class CopyReadTest : public ::testing::Test {
 protected:
  // Copies of pages (or blocks) in a reserve of `pages` pages.
  void Make(bool blocks, uint64_t pages = 256) {
    account_ = std::make_unique<CapacityAccount>(1ull << 30);
    account_->SetCopyReserve(pages * kPage);
    std::string error;
    policy_ = NewPolicy("lru", {}, &error);
    ASSERT_TRUE(policy_) << error;
    PageCopies::Config c;
    c.page = kPage;
    c.slots = pages;
    c.blocks = blocks;
    copies_ = std::make_unique<PageCopies>(
        c, policy_.get(), account_.get(), [] {}, [](uint64_t, uint64_t) {});
  }
  // A user read of [offset, end) of kFile, of `size` bytes, with a fresh
  // recording owner (`io` set up by `setup`).
  CopyRead Read(uint64_t offset, uint64_t end, uint64_t size, RecordingIo* io) {
    Policy::CopyCandidate file;
    file.file_id = kFile;
    file.kind = FileKind::kSst;
    file.level = 2;
    const CopyRead r = ReadThroughCopies(*copies_, file, offset, end, size, *io);
    EXPECT_EQ(0, io->gate) << "the gate was left entered";
    return r;
  }
  CopyRead Read(uint64_t offset, uint64_t end, uint64_t size = 1 << 20) {
    io_ = RecordingIo();
    return Read(offset, end, size, &io_);
  }
  using Calls = std::vector<std::string>;

  std::unique_ptr<CapacityAccount> account_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<PageCopies> copies_;
  RecordingIo io_;
};

TEST_F(CopyReadTest, ScansAndEmptyReadsAreLeftUntouched) {
  Make(/*blocks=*/false);
  // Five pages: a scan, whatever the copies hold.
  EXPECT_EQ(CopyRead::kLeft, Read(100, 100 + 4 * kPage + 1));
  EXPECT_EQ(Calls{}, io_.calls);
  EXPECT_EQ(CopyRead::kLeft, Read(100, 100));
  EXPECT_EQ(Calls{}, io_.calls);
  // Blocks: longer than the longest block copy.
  Make(/*blocks=*/true);
  EXPECT_EQ(CopyRead::kLeft, Read(0, PageCopies::kMaxBlock + 1));
  EXPECT_EQ(Calls{}, io_.calls);
}

TEST_F(CopyReadTest, BytesTierZeroServesAreNeverCopied) {
  Make(/*blocks=*/false);
  for (int i = 0; i < 5; ++i) {
    RecordingIo io;
    io.tier_zero = true;
    EXPECT_EQ(CopyRead::kLeft, Read(3 * kPage, 3 * kPage + 100, 1 << 20, &io));
    EXPECT_EQ(Calls{}, io.calls);
  }
  EXPECT_EQ(0u, copies_->counters().admitted);
}

TEST_F(CopyReadTest, AMissIsCopiedFromOneReadOfWholePagesThenHits) {
  Make(/*blocks=*/false);
  // Pages 3 and 4. First read: counted, not admitted (TinyLFU: read before).
  const uint64_t offset = 3 * kPage + 4000, end = 4 * kPage + 100;
  EXPECT_EQ(CopyRead::kLeft, Read(offset, end));
  EXPECT_EQ(Calls{}, io_.calls);
  // Read again: both admitted, the homes read once, page-aligned.
  EXPECT_EQ(CopyRead::kServed, Read(offset, end));
  EXPECT_EQ((Calls{"homes [24576,40960)", "write 24576+8192", "copied 3", "write 32768+8192",
                   "copied 4"}),
            io_.calls);
  // Then served from the copies: both slots, inside the gate, then counted.
  EXPECT_EQ(CopyRead::kServed, Read(offset, end));
  EXPECT_EQ((Calls{"copies 2 24576+8192 [28576,32868)", "served 2 [28576,32868)"}), io_.calls);
}

TEST_F(CopyReadTest, TheLastPageIsCopiedUpToTheFilesEnd) {
  Make(/*blocks=*/false);
  const uint64_t size = 5 * kPage + 300;
  Read(5 * kPage, size, size);
  EXPECT_EQ(CopyRead::kServed, Read(5 * kPage, size, size));
  EXPECT_EQ((Calls{"homes [40960,49152)", "write 40960+300", "copied 5"}), io_.calls);
}

TEST_F(CopyReadTest, AFailedHomeReadFailsAndAbandonsTheCopies) {
  Make(/*blocks=*/false);
  Read(0, 100);
  RecordingIo io;
  io.fail_homes = true;
  EXPECT_EQ(CopyRead::kFailed, Read(0, 100, 1 << 20, &io));
  EXPECT_EQ(Calls{"homes [0,8192)"}, io.calls);  // nothing written, nothing published
  EXPECT_LT(copies_->Find(PageCopies::Key(kFile, 0)), 0);
  EXPECT_EQ(0u, account_->copy_used()) << "the abandoned fill's charge stayed";
}

TEST_F(CopyReadTest, ACopyThatCannotBeWrittenIsAbandonedButTheReadIsServed) {
  Make(/*blocks=*/false);
  Read(0, 100);
  RecordingIo io;
  io.fail_write = true;
  EXPECT_EQ(CopyRead::kServed, Read(0, 100, 1 << 20, &io));  // from the homes' bytes
  EXPECT_EQ((Calls{"homes [0,8192)", "write 0+8192"}), io.calls);
  EXPECT_LT(copies_->Find(PageCopies::Key(kFile, 0)), 0);
  EXPECT_EQ(0u, account_->copy_used());
}

TEST_F(CopyReadTest, AFailedCopyReadFailsTheReadAndLeavesTheGate) {
  Make(/*blocks=*/false);
  Read(0, 100);
  Read(0, 100);
  RecordingIo io;
  io.fail_copies = true;
  EXPECT_EQ(CopyRead::kFailed, Read(0, 100, 1 << 20, &io));
  EXPECT_EQ(Calls{"copies 1 0+8192 [0,100)"}, io.calls);  // not counted as a hit
}

TEST_F(CopyReadTest, CopiesDoNotServeSegmentsTheOwnerHasNotPlaced) {
  Make(/*blocks=*/false);
  Read(0, 100);
  Read(0, 100);
  ASSERT_GE(copies_->Find(PageCopies::Key(kFile, 0)), 0);
  RecordingIo io;
  io.placed = false;
  Read(0, 100, 1 << 20, &io);
  for (const std::string& call : io.calls) EXPECT_NE(0u, call.rfind("copies", 0)) << call;
}

TEST_F(CopyReadTest, AFillOverAnotherPagesSlotWaitsOutItsReadersFirst) {
  // One set of 16 slots, filled; then a page read more often than any of
  // them takes a slot that held another page.
  Make(/*blocks=*/false, /*pages=*/PageCopies::kWays);
  for (uint64_t p = 0; p < PageCopies::kWays; ++p) {
    Read(p * kPage, p * kPage + 100);
    ASSERT_EQ(CopyRead::kServed, Read(p * kPage, p * kPage + 100)) << p;
  }
  const uint64_t hot = 100 * kPage;
  bool copied = false;
  for (int i = 0; i < 6 && !copied; ++i) {
    Read(hot, hot + 100);
    for (size_t c = 0; c < io_.calls.size(); ++c) {
      if (io_.calls[c] != "homes [819200,827392)") continue;
      ASSERT_GE(c, 1u);
      EXPECT_EQ("wait", io_.calls[c - 1]) << "a slot of another page written without a wait";
      copied = true;
    }
  }
  EXPECT_TRUE(copied) << "the hot page never took a slot";
  EXPECT_GE(copies_->Find(PageCopies::Key(kFile, 100)), 0);
}

TEST_F(CopyReadTest, ABlockCopyServesItsBlockAndNoOtherAtItsUnit) {
  Make(/*blocks=*/true);
  const uint64_t offset = 10 * PageCopies::kBlockUnit, end = offset + 3000;
  Read(offset, end);
  EXPECT_EQ(CopyRead::kServed, Read(offset, end));
  // The caller's own range read once from the homes, copied whole.
  EXPECT_EQ((Calls{"homes [5120,8120)", "write 5120+3000", "copied 10"}), io_.calls);
  EXPECT_EQ(CopyRead::kServed, Read(offset, end));
  EXPECT_EQ((Calls{"copies 1 5120+3000 [5120,8120)", "served 1 [5120,8120)"}), io_.calls);
  // A shorter read of the same block: served by its copy.
  EXPECT_EQ(CopyRead::kServed, Read(offset, offset + 1000));
  EXPECT_EQ(Calls{"copies 1 5120+1000 [5120,6120)"}, Calls{io_.calls[0]});
  // Another offset in the same unit: not this copy's.
  Read(offset + 8, end);
  for (const std::string& call : io_.calls) EXPECT_NE(0u, call.rfind("copies", 0)) << call;
}

}  // namespace
}  // namespace tierfs
