// The copies' baselines from the field (engine/page_copies.h, CopyPolicy):
// W-TinyLFU and S3-FIFO, each run set by set on the copies' slots. TinyLFU,
// the default, is engine_page_copies_test's.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "agents/policies.h"
#include "engine/page_copies.h"

namespace tierfs {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kWays = PageCopies::kWays;

class CopyPoliciesTest : public ::testing::Test {
 protected:
  // One set of kWays page slots, under `policy`.
  void Make(CopyPolicy policy) {
    account_ = std::make_unique<CapacityAccount>(1 << 20);
    account_->SetCopyReserve(kWays * kPage);
    std::string error;
    policy_ = NewPolicy("lru", {}, &error);
    ASSERT_TRUE(policy_) << error;
    PageCopies::Config c;
    c.page = kPage;
    c.slots = kWays;
    c.policy = policy;
    copies_ = std::make_unique<PageCopies>(c, policy_.get(), account_.get(), [] {},
                                           [](uint64_t, uint64_t) {});
  }
  // A miss of page `page` of file `file`; copies it if admitted. True if copied.
  bool Miss(uint64_t file, uint64_t page) {
    Policy::CopyCandidate c;
    c.file_id = file;
    c.kind = FileKind::kSst;
    c.page = page;
    PageCopies::Fill f = copies_->OnMiss(c, /*blocking=*/true);
    if (f.slot < 0) return false;
    EXPECT_TRUE(copies_->Publish(f));
    return true;
  }
  bool Held(uint64_t file, uint64_t page) {
    return copies_->Find(PageCopies::Key(file, page)) >= 0;
  }
  // A hit of each page held of file `file` in [0, n), counted at once (the
  // reader's buffer drained by filling it).
  void Hit(uint64_t file, uint64_t n) {
    PageCopies::Reader reader;
    uint64_t noted = 0;
    for (uint64_t p = 0; p < n; ++p) {
      if (!Held(file, p)) continue;
      copies_->NoteHit(&reader, PageCopies::Key(file, p));
      noted++;
    }
    // Pad with hits of a page never copied until the buffer drains.
    for (uint64_t i = 0; noted % PageCopies::Reader::kSize != 0; ++i, ++noted) {
      copies_->NoteHit(&reader, PageCopies::Key(99, i));
    }
  }

  std::unique_ptr<CapacityAccount> account_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<PageCopies> copies_;
};

TEST(CopyPolicyNames, RoundTripAndRejectTheUnknown) {
  for (CopyPolicy p : {CopyPolicy::kTinyLfu, CopyPolicy::kWTinyLfu, CopyPolicy::kS3Fifo}) {
    CopyPolicy parsed = CopyPolicy::kTinyLfu;
    ASSERT_TRUE(ParseCopyPolicy(CopyPolicyName(p), &parsed)) << CopyPolicyName(p);
    EXPECT_EQ(p, parsed);
  }
  CopyPolicy parsed = CopyPolicy::kS3Fifo;
  EXPECT_FALSE(ParseCopyPolicy("lfu", &parsed));
  EXPECT_FALSE(ParseCopyPolicy("", &parsed));
  EXPECT_EQ(CopyPolicy::kS3Fifo, parsed);
}

TEST_F(CopyPoliciesTest, TinyLfuNeedsASecondReadTheOthersDoNot) {
  Make(CopyPolicy::kTinyLfu);
  EXPECT_FALSE(Miss(1, 0));
  EXPECT_TRUE(Miss(1, 0));
  for (CopyPolicy p : {CopyPolicy::kWTinyLfu, CopyPolicy::kS3Fifo}) {
    Make(p);
    EXPECT_TRUE(Miss(1, 0)) << CopyPolicyName(p);
    EXPECT_TRUE(Held(1, 0)) << CopyPolicyName(p);
  }
}

// W-TinyLFU: every miss enters the window, but leaves it for main only if
// read more often than main's least frequent copy: pages read many times
// keep their place while a scan of pages read once passes through.
TEST_F(CopyPoliciesTest, WTinyLfuKeepsFrequentPagesThroughAScan) {
  Make(CopyPolicy::kWTinyLfu);
  // Eight hot pages, each read 6 times (copied at the first).
  for (int i = 0; i < 6; ++i) {
    for (uint64_t p = 0; p < 8; ++p) Miss(1, p);
  }
  for (uint64_t p = 0; p < 8; ++p) ASSERT_TRUE(Held(1, p)) << p;
  // A scan of 200 pages, each read once: each enters the window.
  uint64_t entered = 0;
  for (uint64_t p = 0; p < 200; ++p) entered += Miss(2, p) ? 1 : 0;
  EXPECT_EQ(200u, entered);
  for (uint64_t p = 0; p < 8; ++p) EXPECT_TRUE(Held(1, p)) << p;
  // The scan kept at most the other half of the set.
  uint64_t scan_held = 0;
  for (uint64_t p = 0; p < 200; ++p) scan_held += Held(2, p) ? 1 : 0;
  EXPECT_LE(scan_held, kWays - 8);
  EXPECT_GE(scan_held, 1u);  // the window's newest at least
}

// W-TinyLFU: a page of the window read more often than main's least
// frequent copy takes that copy's place.
TEST_F(CopyPoliciesTest, WTinyLfuPromotesAWindowPageMoreFrequentThanMainsLeast) {
  Make(CopyPolicy::kWTinyLfu);
  for (uint64_t p = 0; p < kWays; ++p) Miss(1, p);  // fills the set, all read once
  // Page 100 missed often: it enters the window at its first miss and its
  // count grows with every later miss (the sketch counts each access).
  Miss(2, 100);
  for (int i = 0; i < 5; ++i) {
    PageCopies::Reader reader;
    copies_->NoteHit(&reader, PageCopies::Key(2, 100));
    for (uint64_t k = 1; k < PageCopies::Reader::kSize; ++k) {
      copies_->NoteHit(&reader, PageCopies::Key(98, k));
    }
  }
  // The next misses push it out of the window: it beats every page read once.
  for (uint64_t p = 0; p < 4; ++p) Miss(3, p);
  EXPECT_TRUE(Held(2, 100));
}

// S3-FIFO: a page read again while in the small FIFO moves to main and
// survives a scan; the scan's pages churn the small FIFO only.
TEST_F(CopyPoliciesTest, S3FifoKeepsPagesReadAgainThroughAScan) {
  Make(CopyPolicy::kS3Fifo);
  for (uint64_t p = 0; p < 8; ++p) ASSERT_TRUE(Miss(1, p));
  Hit(1, 8);  // read again while on probation
  uint64_t entered = 0;
  for (uint64_t p = 0; p < 300; ++p) entered += Miss(2, p) ? 1 : 0;
  EXPECT_EQ(300u, entered);  // every miss is admitted (to the small FIFO)
  for (uint64_t p = 0; p < 8; ++p) EXPECT_TRUE(Held(1, p)) << p;
}

// S3-FIFO: a page dropped from the small FIFO unread is remembered as a
// ghost; missed again, it goes to main and survives the next scan, which a
// page never seen before does not.
TEST_F(CopyPoliciesTest, S3FifoSendsAGhostToMain) {
  Make(CopyPolicy::kS3Fifo);
  ASSERT_TRUE(Miss(1, 0));
  // The set fills, then page 0, the oldest, is dropped unread (the ghosts
  // are as many as the slots: a longer scan would push it out of them).
  for (uint64_t p = 0; p < kWays; ++p) Miss(2, p);
  ASSERT_FALSE(Held(1, 0));
  ASSERT_TRUE(Miss(1, 0));  // a ghost: into main
  ASSERT_TRUE(Miss(1, 1));  // new: into the small FIFO
  for (uint64_t p = 0; p < 3 * kWays; ++p) Miss(3, p);
  EXPECT_TRUE(Held(1, 0));
  EXPECT_FALSE(Held(1, 1));
}

// S3-FIFO: main reinserts a copy read since its last pass, so of main's
// copies the unread go first.
TEST_F(CopyPoliciesTest, S3FifoMainDropsTheUnreadFirst) {
  Make(CopyPolicy::kS3Fifo);
  // Twelve pages into main, through the ghost path: a scan of 16 pages
  // drops them unread, then they are missed again (and drop the scan's
  // first 12 from the small FIFO, which become ghosts in turn).
  for (uint64_t p = 0; p < 12; ++p) Miss(1, p);
  for (uint64_t p = 0; p < kWays; ++p) Miss(2, p);
  for (uint64_t p = 0; p < 12; ++p) ASSERT_FALSE(Held(1, p)) << p;
  for (uint64_t p = 0; p < 12; ++p) ASSERT_TRUE(Miss(1, p));
  // Pages 0-5 read again; 6-11 not. The scan's ghosts, missed again, enter
  // main: once the small FIFO is empty, each drops a copy of main.
  Hit(1, 6);
  for (uint64_t p = 0; p < 12; ++p) ASSERT_TRUE(Miss(2, p));
  for (uint64_t p = 0; p < 6; ++p) EXPECT_TRUE(Held(1, p)) << p;
  for (uint64_t p = 6; p < 12; ++p) EXPECT_FALSE(Held(1, p)) << p;
}

}  // namespace
}  // namespace tierfs
