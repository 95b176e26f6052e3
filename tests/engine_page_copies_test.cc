// Hot-page copies' decisions (engine/page_copies.h): admission on reuse only,
// eviction by frequency within a set, invalidation, the capacity reserve.
#include "engine/page_copies.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "agents/policies.h"

namespace tierfs {
namespace {

constexpr uint64_t kPage = 4096;

class PageCopiesTest : public ::testing::Test {
 protected:
  // A tier 0 of `capacity` bytes whose copy reserve is `reserve`.
  void Make(uint64_t capacity, uint64_t reserve, uint64_t headroom = 0,
            std::unique_ptr<Policy> policy = nullptr) {
    account_ = std::make_unique<CapacityAccount>(capacity);
    account_->SetCopyReserve(reserve);
    std::string error;
    policy_ = policy ? std::move(policy) : NewPolicy("lru", {}, &error);
    ASSERT_TRUE(policy_) << error;
    PageCopies::Config c;
    c.page = kPage;
    c.slots = reserve / kPage;
    c.headroom = headroom;
    copies_ = std::make_unique<PageCopies>(
        c, policy_.get(), account_.get(), [this] { waits_++; },
        [this](uint64_t offset, uint64_t) { freed_.insert(offset / kPage); });
  }
  Policy::CopyCandidate Page(uint64_t file, uint64_t page) {
    Policy::CopyCandidate c;
    c.file_id = file;
    c.kind = FileKind::kSst;
    c.page = page;
    return c;
  }
  // A miss of the page; copies it if admitted. The slot, or -1.
  int64_t Miss(uint64_t file, uint64_t page, bool* waited = nullptr) {
    PageCopies::Fill f = copies_->OnMiss(Page(file, page), /*blocking=*/true);
    if (waited) *waited = f.wait;
    if (f.slot < 0) return -1;
    EXPECT_TRUE(copies_->Publish(f));
    return f.slot;
  }
  int64_t Find(uint64_t file, uint64_t page) {
    return copies_->Find(PageCopies::Key(file, page));
  }

  std::unique_ptr<CapacityAccount> account_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<PageCopies> copies_;
  int waits_ = 0;
  std::set<uint64_t> freed_;
};

TEST_F(PageCopiesTest, AdmitsOnlyAPageReadBefore) {
  Make(1 << 20, 64 * kPage);
  EXPECT_EQ(-1, Miss(7, 3));  // first read: no evidence of reuse
  EXPECT_EQ(-1, Find(7, 3));
  const int64_t slot = Miss(7, 3);  // read again: admitted
  ASSERT_GE(slot, 0);
  EXPECT_EQ(slot, Find(7, 3));
  EXPECT_EQ(-1, Find(7, 4));
  EXPECT_EQ(-1, Find(8, 3));
  EXPECT_EQ(kPage, account_->copy_used());
  EXPECT_EQ(kPage, account_->used());
  // A page already copied is not copied twice.
  EXPECT_EQ(-1, copies_->OnMiss(Page(7, 3), true).slot);
}

TEST_F(PageCopiesTest, OneTimeReadsAreAlmostNeverAdmitted) {
  Make(1 << 20, 64 * kPage);
  for (uint64_t p = 0; p < 10000; ++p) Miss(1, p);
  // Only the doorkeeper's rare errors get in (about 0.5%).
  EXPECT_LT(copies_->counters().admitted, 100u);
}

TEST_F(PageCopiesTest, ReadsOfThePageJustReadAreOneVisit) {
  Make(1 << 20, 64 * kPage);
  PageCopies::Reader reader;
  // Blocks of page 0, then of page 1, read in order: no reuse.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(-1, copies_->OnMiss(Page(1, 0), true, &reader).slot);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(-1, copies_->OnMiss(Page(1, 1), true, &reader).slot);
  EXPECT_EQ(0u, copies_->counters().admitted);
  // Back to page 0 after page 1: reused, copied.
  EXPECT_GE(copies_->OnMiss(Page(1, 0), true, &reader).slot, 0);
}

TEST_F(PageCopiesTest, AScanDoesNotDisplaceHotPages) {
  Make(1 << 20, 16 * kPage);  // one set of 16 ways
  for (uint64_t p = 0; p < 16; ++p) {
    Miss(1, p);
    ASSERT_GE(Miss(1, p), 0);
  }
  // The hot pages keep being read (hits), while a scan passes through.
  PageCopies::Reader reader;
  for (uint64_t round = 0; round < 500; ++round) {
    for (uint64_t p = 0; p < 16; ++p) {
      ASSERT_GE(Find(1, p), 0) << "round " << round << " page " << p;
      copies_->NoteHit(&reader, PageCopies::Key(1, p));
    }
    for (uint64_t i = 0; i < 16; ++i) Miss(2, round * 16 + i);
  }
  for (uint64_t p = 0; p < 16; ++p) EXPECT_GE(Find(1, p), 0) << p;
}

TEST_F(PageCopiesTest, NeverHoldsMoreThanItsReserve) {
  Make(1 << 20, 16 * kPage);  // one set of 16 ways
  std::set<int64_t> slots;
  for (uint64_t p = 0; p < 100; ++p) {
    Miss(1, p);
    const int64_t s = Miss(1, p);
    if (s >= 0) slots.insert(s);
    EXPECT_LE(account_->copy_used(), 16 * kPage);
  }
  EXPECT_EQ(16u, slots.size());  // every way used, none beyond
  for (int64_t s : slots) EXPECT_LT(s, 16);
  EXPECT_EQ(16 * kPage, account_->copy_used());
}

TEST_F(PageCopiesTest, ReplacesTheLeastFrequentCopyOnlyForAMoreFrequentPage) {
  Make(1 << 20, 16 * kPage);
  // Fill the set: pages 0..15, page p read p+2 times (p+1 before its copy).
  for (uint64_t p = 0; p < 16; ++p) {
    for (uint64_t i = 0; i < p + 2; ++i) Miss(1, p);
    ASSERT_GE(Find(1, p), 0) << p;
  }
  const int64_t victim_slot = Find(1, 0);  // page 0: read twice, the coldest
  // A page read twice does not beat page 0 (read twice): rejected.
  Miss(2, 0);
  EXPECT_EQ(-1, Miss(2, 0));
  EXPECT_GE(Find(1, 0), 0);
  // Read once more, it replaces page 0, in page 0's slot, after readers of
  // that slot are waited out.
  bool waited = false;
  const int64_t slot = Miss(2, 0, &waited);
  ASSERT_GE(slot, 0);
  EXPECT_EQ(victim_slot, slot);
  EXPECT_TRUE(waited);
  EXPECT_EQ(-1, Find(1, 0));
  EXPECT_EQ(slot, Find(2, 0));
  EXPECT_EQ(16 * kPage, account_->copy_used());  // the slot changed hands, the charge stayed
}

TEST_F(PageCopiesTest, InvalidateWithoutReadersFreesAtOnce) {
  Make(1 << 20, 64 * kPage);
  for (uint64_t p = 0; p < 5; ++p) {
    Miss(3, p);
    ASSERT_GE(Miss(3, p), 0);
  }
  Miss(4, 0);
  ASSERT_GE(Miss(4, 0), 0);
  copies_->Invalidate(3, /*readers_possible=*/false);
  for (uint64_t p = 0; p < 5; ++p) EXPECT_EQ(-1, Find(3, p));
  EXPECT_GE(Find(4, 0), 0);  // another file's copy stays
  EXPECT_EQ(kPage, account_->copy_used());
  EXPECT_EQ(5u, freed_.size());  // handed back to be punched
  EXPECT_EQ(0, waits_);
}

TEST_F(PageCopiesTest, InvalidateWithReadersWaitsBeforeFreeing) {
  Make(1 << 20, 64 * kPage);
  Miss(3, 0);
  const int64_t slot = Miss(3, 0);
  ASSERT_GE(slot, 0);
  copies_->Invalidate(3, /*readers_possible=*/true);
  EXPECT_EQ(-1, Find(3, 0));            // no new reader finds it
  EXPECT_EQ(kPage, account_->copy_used());  // but a reader may be reading it
  EXPECT_TRUE(freed_.empty());
  copies_->Reclaim();
  EXPECT_EQ(1, waits_);
  EXPECT_EQ(0u, account_->copy_used());
  EXPECT_EQ(1u, freed_.count(uint64_t(slot)));
}

TEST_F(PageCopiesTest, ACopyOfAFileInvalidatedWhileCopiedIsNeverPublished) {
  Make(1 << 20, 64 * kPage);
  Miss(5, 9);
  PageCopies::Fill f = copies_->OnMiss(Page(5, 9), true);
  ASSERT_GE(f.slot, 0);
  copies_->Invalidate(5, /*readers_possible=*/true);  // e.g. opened for writing
  EXPECT_FALSE(copies_->Publish(f));
  EXPECT_EQ(-1, Find(5, 9));
  EXPECT_EQ(0u, account_->copy_used());
}

TEST_F(PageCopiesTest, ShrinkDropsTheColdestFirst) {
  Make(1 << 20, 64 * kPage);
  for (uint64_t p = 0; p < 4; ++p) {
    Miss(6, p);
    ASSERT_GE(Miss(6, p), 0);
  }
  for (int i = 0; i < 5; ++i) Miss(6, 3);  // page 3 is hot (its misses count as reads)
  EXPECT_EQ(2 * kPage, copies_->Shrink(2 * kPage));
  EXPECT_EQ(2 * kPage, account_->copy_used());
  EXPECT_GE(Find(6, 3), 0);
  EXPECT_EQ(1, waits_);
}

TEST_F(PageCopiesTest, CopiesStayWithinTheirReserveAndTheHeadroom) {
  // 20 pages of tier 0; copies may hold 8, and leave 4 free.
  Make(20 * kPage, 8 * kPage, 4 * kPage);
  // New data may use all of tier 0 (the reserve is only the copies' bound).
  EXPECT_EQ(20 * kPage, account_->free());
  EXPECT_TRUE(account_->TryCharge(10 * kPage));
  int copied = 0;
  for (uint64_t p = 0; p < 8; ++p) {
    Miss(1, p);
    if (Miss(1, p) >= 0) copied++;
  }
  // 10 of homes + 6 of copies + 4 of headroom = 20.
  EXPECT_EQ(6, copied);
  EXPECT_EQ(16 * kPage, account_->used());
  EXPECT_EQ(6 * kPage, account_->copy_used());
  EXPECT_EQ(2 * kPage, account_->copy_reserve_left());
  // Two pages the policy wanted found no room: the copies ask for them.
  EXPECT_EQ(2 * kPage, copies_->TakeWantedBytes());
  EXPECT_EQ(0u, copies_->TakeWantedBytes());  // asked once
  EXPECT_EQ(2u, copies_->counters().no_room);
}

TEST_F(PageCopiesTest, CopiesAtTheirReserveAskForNothing) {
  Make(1 << 20, 16 * kPage);
  for (uint64_t p = 0; p < 16; ++p) {
    Miss(1, p);
    ASSERT_GE(Miss(1, p), 0);
  }
  // A seventeenth page: the set is full and the reserve used up. It may
  // replace a colder copy, never ask tier 0 for more.
  Miss(2, 0);
  Miss(2, 0);
  EXPECT_EQ(0u, copies_->TakeWantedBytes());
  EXPECT_LE(account_->copy_used(), 16 * kPage);
}

TEST_F(PageCopiesTest, CompactionOutputInheritsItsInputsHeat) {
  Make(1 << 20, 64 * kPage);
  // Pages 0..3 of input file 1 were read three times each (user reads).
  for (int round = 0; round < 3; ++round) {
    for (uint64_t p = 0; p < 4; ++p) copies_->OnMiss(Page(1, p), true);
  }
  // A compaction thread reads those four pages, then writes four pages of
  // output file 2: each output page starts as read before, so its first
  // read copies it.
  PageCopies::Reader compaction;
  copies_->NoteInput(&compaction, 1, 0, 4 * kPage);
  copies_->NoteOutput(&compaction, 2, 0, 4 * kPage);
  EXPECT_EQ(4u, copies_->counters().inherited);
  EXPECT_GE(Miss(2, 1), 0);
  // Output written after cold input (never read by users) inherits nothing,
  // nor does a flush (no input read at all).
  PageCopies::Reader cold, flush;
  copies_->NoteInput(&cold, 3, 0, 4 * kPage);
  copies_->NoteOutput(&cold, 4, 0, 4 * kPage);
  copies_->NoteOutput(&flush, 5, 0, 4 * kPage);
  EXPECT_EQ(4u, copies_->counters().inherited);
  EXPECT_EQ(-1, Miss(4, 1));
  EXPECT_EQ(-1, Miss(5, 1));
  // The input is used up by what was written from it.
  copies_->NoteOutput(&compaction, 6, 0, 4 * kPage);
  EXPECT_EQ(4u, copies_->counters().inherited);
}

// A policy that ranks the copies (Policy::RanksCopies): values by page,
// admits every page, and records what it is told.
class RankingPolicy : public Policy {
 public:
  const char* Name() const override { return "ranking"; }
  int Place(const PlacementRequest&, const StorageView&) override { return 0; }
  bool RanksCopies() const override { return true; }
  void SetCopyCapacity(uint64_t objects) override { capacity = objects; }
  void NoteCopyAccess(const CopyCandidate& page) override {
    accesses.push_back(page.file_id << 32 | page.page);
  }
  double CopyValue(const CopyCandidate& page) override {
    values_asked++;
    auto it = value.find(page.page);
    return it == value.end() ? 0.5 : it->second;
  }
  bool AdmitCopy(const CopyCandidate&, const CopyCandidate*) override { return true; }
  uint64_t capacity = 0;
  uint64_t values_asked = 0;
  std::vector<uint64_t> accesses;
  std::map<uint64_t, double> value;
};

TEST_F(PageCopiesTest, APolicyThatRanksCopiesChoosesTheVictims) {
  auto owned = std::make_unique<RankingPolicy>();
  RankingPolicy* policy = owned.get();
  Make(1 << 20, 16 * kPage, 0, std::move(owned));  // one set of 16 ways
  EXPECT_EQ(16u, policy->capacity);
  // Pages 0..15, the most frequent the lowest valued: page 3 read 10 times.
  for (uint64_t p = 0; p < 16; ++p) {
    policy->value[p] = 0.5 + 0.01 * double(p);
    ASSERT_GE(Miss(1, p), 0) << p;  // admitted at once: the policy says so
  }
  policy->value[3] = 0.1;
  for (int i = 0; i < 10; ++i) copies_->OnMiss(Page(1, 3), true);
  EXPECT_EQ(16u + 10, policy->accesses.size());  // every counted miss, before its admission
  // Hits are told too, as they are drained.
  PageCopies::Reader reader;
  for (uint32_t i = 0; i < PageCopies::Reader::kSize; ++i) {
    copies_->NoteHit(&reader, PageCopies::Key(1, i % 2 == 0 ? 4 : 5));
  }
  EXPECT_EQ(16u + 10 + PageCopies::Reader::kSize, policy->accesses.size());
  EXPECT_EQ(uint64_t(1) << 32 | 5, policy->accesses.back());
  // The next miss replaces page 3, lowest valued though most frequent
  // (TinyLFU's order would drop page 0, read once).
  const int64_t slot3 = Find(1, 3);
  EXPECT_EQ(slot3, Miss(2, 0));
  EXPECT_EQ(-1, Find(1, 3));
  EXPECT_GE(Find(1, 0), 0);
  // Shrink drops by value too: page 0 (0.5) before page 15 (0.65).
  EXPECT_EQ(kPage, copies_->Shrink(kPage));
  EXPECT_EQ(-1, Find(1, 0));
  EXPECT_GE(Find(1, 15), 0);
}

TEST_F(PageCopiesTest, TheRankIsAskedOnlyWhenAVictimIsNeeded) {
  // A learned rank costs a prediction per way: a miss that finds a free way
  // with room asks for none; one that must replace asks for every live way.
  auto owned = std::make_unique<RankingPolicy>();
  RankingPolicy* policy = owned.get();
  Make(1 << 20, 16 * kPage, 0, std::move(owned));  // one set of 16 ways
  for (uint64_t p = 0; p < 16; ++p) ASSERT_GE(Miss(1, p), 0) << p;
  EXPECT_EQ(0u, policy->values_asked);
  ASSERT_GE(Miss(2, 0), 0);
  EXPECT_EQ(16u, policy->values_asked);
}

TEST_F(PageCopiesTest, OtherCopyPoliciesKeepTheirOwnOrder) {
  auto owned = std::make_unique<RankingPolicy>();
  RankingPolicy* policy = owned.get();
  account_ = std::make_unique<CapacityAccount>(1 << 20);
  account_->SetCopyReserve(16 * kPage);
  policy_ = std::move(owned);
  PageCopies::Config c;
  c.page = kPage;
  c.slots = 16;
  c.policy = CopyPolicy::kS3Fifo;
  copies_ = std::make_unique<PageCopies>(c, policy_.get(), account_.get(), [] {},
                                         [](uint64_t, uint64_t) {});
  Miss(1, 1);
  Miss(1, 1);
  EXPECT_EQ(0u, policy->capacity);
  EXPECT_TRUE(policy->accesses.empty());
}

TEST(FrequencySketchTest, CountsAndForgets) {
  FrequencySketch sketch(1024);
  for (int i = 0; i < 5; ++i) sketch.Add(42);
  EXPECT_GE(sketch.Estimate(42), 5u);
  EXPECT_LE(sketch.Estimate(43), 1u);  // never added: at most a collision
  // Many other additions halve the counts: old popularity fades.
  for (uint64_t k = 1000; k < 1000 + 100000; ++k) sketch.Add(k);
  EXPECT_LT(sketch.Estimate(42), 5u);
}

// A sample's worth of additions over many more keys than the sketch expects
// (the pages a workload reads, against the copies' slots) must leave the
// estimates of the keys read a few times apart from those read once or never.
// The first sketch had one counter per expected key per row: each counter
// collected about ten foreign additions per sample, every estimate was noise
// and admission a coin toss.
TEST(FrequencySketchTest, EstimatesStayApartUnderManyKeys) {
  const uint64_t expected = 1024;
  FrequencySketch sketch(expected);
  // Within one sample (10 x expected additions): 4,000 keys read twice (the
  // doorkeeper takes the first reads, the counters the second) and 100 read
  // four times, interleaved.
  for (int round = 0; round < 2; ++round) {
    for (uint64_t k = 0; k < 4000; ++k) {
      sketch.Add(100000 + k);
      if (k % 40 == 0) {
        sketch.Add(k / 40);
        sketch.Add(k / 40);
      }
    }
  }
  uint64_t hot_sum = 0, twice_sum = 0, never_sum = 0;
  for (uint64_t k = 0; k < 100; ++k) hot_sum += sketch.Estimate(k);
  for (uint64_t k = 0; k < 4000; ++k) {
    twice_sum += sketch.Estimate(100000 + k);
    never_sum += sketch.Estimate(900000 + k);
  }
  EXPECT_GE(hot_sum, 4u * 100);           // count-min never underestimates
  EXPECT_LT(twice_sum, 4000u * 22 / 10);  // read twice: 2, and few collisions
  EXPECT_LT(never_sum, 4000u / 10);       // never read: almost always 0
}

}  // namespace
}  // namespace tierfs
