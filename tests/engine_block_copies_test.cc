// Block copies (engine/page_copies.h, Config::blocks): a copy holds exactly
// the block a read names, placed in its set's bytes among the others; the
// same admission, eviction, invalidation and capacity rules as page copies.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "agents/policies.h"
#include "engine/page_copies.h"

namespace tierfs {
namespace {

constexpr uint64_t kPage = 8192;
constexpr uint64_t kSetBytes = PageCopies::kWays * kPage;

class BlockCopiesTest : public ::testing::Test {
 protected:
  // A tier 0 of `capacity` bytes whose copy reserve is `reserve`.
  void Make(uint64_t capacity, uint64_t reserve, std::unique_ptr<Policy> policy = nullptr) {
    account_ = std::make_unique<CapacityAccount>(capacity);
    account_->SetCopyReserve(reserve);
    std::string error;
    policy_ = policy ? std::move(policy) : NewPolicy("lru", {}, &error);
    ASSERT_TRUE(policy_) << error;
    PageCopies::Config c;
    c.page = kPage;
    c.slots = reserve / kPage;
    c.blocks = true;
    copies_ = std::make_unique<PageCopies>(
        c, policy_.get(), account_.get(), [this] { waits_++; },
        [this](uint64_t offset, uint64_t length) { punched_.push_back({offset, length}); });
  }
  static uint64_t KeyOf(uint64_t file, uint64_t offset) {
    return PageCopies::Key(file, offset / PageCopies::kBlockUnit);
  }
  // A miss of block [offset, offset + length) of `file`; copies it if
  // admitted. The fill (slot -1 if not admitted).
  PageCopies::Fill Miss(uint64_t file, uint64_t offset, uint64_t length) {
    Policy::CopyCandidate c;
    c.file_id = file;
    c.kind = FileKind::kSst;
    PageCopies::Fill f = copies_->OnMissBlock(c, offset, length, /*blocking=*/true);
    if (f.slot >= 0) {
      EXPECT_TRUE(copies_->Publish(f));
      published_[f.key] = {f, file};
    }
    return f;
  }
  int64_t Find(uint64_t file, uint64_t offset, uint64_t length) {
    return copies_->FindBlock(KeyOf(file, offset), offset, length);
  }
  // The copies readers can find: none overlaps another, each lies in its
  // set's bytes, and tier 0's account holds what the slots are charged.
  void CheckInvariants() {
    std::vector<std::pair<uint64_t, uint64_t>> live;  // (where, end)
    for (const auto& [key, p] : published_) {
      const int64_t s = copies_->FindBlock(key, p.fill.offset, p.fill.length);
      if (s < 0 || copies_->Where(s) != p.fill.where) continue;
      const uint64_t where = p.fill.where;
      live.push_back({where, where + p.fill.length});
      EXPECT_EQ(copies_->SetOf(key), where / kSetBytes) << "a copy outside its set";
      EXPECT_LE(where + p.fill.length, (where / kSetBytes + 1) * kSetBytes);
    }
    std::sort(live.begin(), live.end());
    for (size_t i = 1; i < live.size(); ++i) {
      ASSERT_LE(live[i - 1].second, live[i].first) << "two copies share bytes";
    }
    EXPECT_EQ(copies_->ChargedBytes(), account_->copy_used());
    EXPECT_LE(account_->copy_used(), account_->copy_reserve());
  }

  struct Published {
    PageCopies::Fill fill;
    uint64_t file;
  };
  std::unique_ptr<CapacityAccount> account_;
  std::unique_ptr<Policy> policy_;
  std::unique_ptr<PageCopies> copies_;
  int waits_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> punched_;
  std::map<uint64_t, Published> published_;
};

TEST_F(BlockCopiesTest, AdmitsABlockReadBeforeAndFindsItByItsOffsetAndLength) {
  Make(1 << 20, 64 * kPage);
  EXPECT_LT(Miss(7, 12345, 4100).slot, 0);  // first read: no evidence of reuse
  EXPECT_LT(Find(7, 12345, 4100), 0);
  const PageCopies::Fill f = Miss(7, 12345, 4100);  // read again: admitted
  ASSERT_GE(f.slot, 0);
  EXPECT_EQ(12345u, f.offset);
  EXPECT_EQ(4100u, f.length);
  EXPECT_EQ(f.slot, Find(7, 12345, 4100));
  EXPECT_EQ(f.slot, Find(7, 12345, 100));   // a shorter read of the same block
  EXPECT_LT(Find(7, 12345, 4101), 0);       // bytes the copy does not hold
  EXPECT_LT(Find(7, 12346, 4000), 0);       // another offset of the same unit
  EXPECT_LT(Find(8, 12345, 4100), 0);       // another file
  // Charged in whole units: 4100 bytes take 4608.
  EXPECT_EQ(4608u, account_->copy_used());
  EXPECT_EQ(4608u, account_->used());
  // A block already copied is not copied twice.
  EXPECT_LT(Miss(7, 12345, 4100).slot, 0);
  CheckInvariants();
}

TEST_F(BlockCopiesTest, NeitherPagesNorLongReadsAreCopied) {
  Make(1 << 20, 64 * kPage);
  Policy::CopyCandidate c;
  c.file_id = 1;
  c.kind = FileKind::kSst;
  c.page = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_LT(copies_->OnMiss(c, true).slot, 0);  // the page interface is off
    EXPECT_LT(Miss(1, 0, PageCopies::kMaxBlock + 1).slot, 0);
  }
  EXPECT_EQ(0u, account_->copy_used());
}

TEST_F(BlockCopiesTest, BlocksOfManySizesPackASetWithoutOverlapOrExcess) {
  Make(1 << 20, 16 * kPage);  // one set of 128 KiB
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> size(300, 9000), block(0, 199);
  std::vector<uint64_t> lengths(200);
  for (uint64_t& l : lengths) l = size(rng);
  for (int i = 0; i < 20000; ++i) {
    // Skewed: low-numbered blocks are read far more often.
    const uint64_t b = std::min(block(rng), block(rng));
    Miss(1, b * 65536, lengths[b]);
    if (i % 97 == 0) CheckInvariants();
  }
  CheckInvariants();
  // The set is used: more than half its bytes hold copies.
  EXPECT_GT(account_->copy_used(), kSetBytes / 2);
  EXPECT_GT(copies_->counters().evicted, 0u);
}

TEST_F(BlockCopiesTest, ReplacesCopiesOnlyForAMoreFrequentBlock) {
  Make(1 << 20, 16 * kPage);  // one set: 128 KiB, 32 blocks of 4 KiB
  for (uint64_t b = 0; b < 32; ++b) {
    for (int i = 0; i < 3; ++i) Miss(1, b * 4096, 4096);
    ASSERT_GE(Find(1, b * 4096, 4096), 0) << b;
  }
  EXPECT_EQ(kSetBytes, account_->copy_used());
  // A block read twice is less frequent than any copy: not admitted.
  Miss(2, 0, 4096);
  EXPECT_LT(Miss(2, 0, 4096).slot, 0);
  // Read more often than the copies were, it replaces one of them, and its
  // filler must wait out readers of the bytes it takes.
  PageCopies::Fill f;
  for (int i = 0; i < 6 && f.slot < 0; ++i) f = Miss(2, 0, 4096);
  ASSERT_GE(f.slot, 0);
  EXPECT_TRUE(f.wait);
  EXPECT_GE(Find(2, 0, 4096), 0);
  int gone = 0;
  for (uint64_t b = 0; b < 32; ++b) gone += Find(1, b * 4096, 4096) < 0;
  EXPECT_EQ(1, gone);
  EXPECT_EQ(kSetBytes, account_->copy_used());
  CheckInvariants();
}

// A policy that ranks the copies (Policy::RanksCopies) by the block's unit
// in its file (a higher file above every block of a lower one), records
// what it is asked about (file << 32 | unit), and admits every block.
class RankingPolicy : public Policy {
 public:
  const char* Name() const override { return "ranking"; }
  int Place(const PlacementRequest&, const StorageView&) override { return 0; }
  bool RanksCopies() const override { return true; }
  void NoteCopyAccess(const CopyCandidate&) override { accesses++; }
  double CopyValue(const CopyCandidate& page) override {
    asked.push_back(page.file_id << 32 | page.page);
    return 0.5 * double(page.file_id) + 0.001 * double(page.page % 256);
  }
  bool AdmitCopy(const CopyCandidate&, const CopyCandidate* victim) override {
    if (victim) victims.push_back(victim->file_id << 32 | victim->page);
    return true;
  }
  int accesses = 0;
  std::vector<uint64_t> asked, victims;
};

// A miss of a full set ranks a random sample of its copies, not every way
// (a learned rank costs a prediction each), and replaces the least valued
// of the sample.
TEST_F(BlockCopiesTest, APolicyThatRanksCopiesChoosesTheVictimAmongASample) {
  auto owned = std::make_unique<RankingPolicy>();
  RankingPolicy* policy = owned.get();
  Make(1 << 20, 16 * kPage, std::move(owned));  // one set: 32 blocks of 4 KiB
  constexpr uint64_t kUnits = 4096 / PageCopies::kBlockUnit;
  std::set<uint64_t> held;  // file 1's blocks copied, as asked about
  for (uint64_t b = 0; b < 32; ++b) {
    ASSERT_GE(Miss(1, b * 4096, 4096).slot, 0) << b;
    held.insert(1ull << 32 | b * kUnits);
  }
  EXPECT_EQ(32, policy->accesses);
  std::set<uint64_t> ever_asked;
  for (uint64_t m = 0; m < 8; ++m) {
    policy->asked.clear();
    ASSERT_GE(Miss(2, m * 4096, 4096).slot, 0) << m;  // file 2's blocks are valued above all
    ASSERT_EQ(size_t(PageCopies::kRankSample), policy->asked.size()) << m;
    // File 1's blocks are valued in unit order, below file 2's.
    const uint64_t least = *std::min_element(policy->asked.begin(), policy->asked.end());
    for (uint64_t block : policy->asked) ever_asked.insert(block);
    ASSERT_TRUE(held.count(least)) << "the least valued asked about is not held: " << least;
    // Exactly the least valued of the sample is gone.
    for (uint64_t block : std::set<uint64_t>(held)) {
      const uint64_t offset = (block & 0xffffffff) * PageCopies::kBlockUnit;
      const bool gone = Find(1, offset, 4096) < 0;
      EXPECT_EQ(block == least, gone) << "miss " << m << ", offset " << offset;
      if (gone) held.erase(block);
    }
    EXPECT_EQ(31 - m, held.size());
    CheckInvariants();
  }
  // The samples differ from miss to miss (8 misses of a set of 32).
  EXPECT_GT(ever_asked.size(), size_t(2 * PageCopies::kRankSample));
}

// A block larger than the copies it replaces takes a window over several;
// where every window covers a copy the sample left unranked, the victim the
// policy is asked about is still the most valued copy the window replaces.
TEST_F(BlockCopiesTest, AWindowOverUnrankedCopiesOffersItsMostValuedVictim) {
  auto owned = std::make_unique<RankingPolicy>();
  RankingPolicy* policy = owned.get();
  Make(1 << 20, 16 * kPage, std::move(owned));  // one set: 32 blocks of 4 KiB
  std::set<uint64_t> held;  // copies, as asked about: file << 32 | unit
  for (uint64_t b = 0; b < 32; ++b) {
    ASSERT_GE(Miss(1, b * 4096, 4096).slot, 0) << b;
    held.insert(1ull << 32 | b * (4096 / PageCopies::kBlockUnit));
  }
  auto value = [](uint64_t block) { return 0.5 * double(block >> 32) + 0.001 * double(block % 256); };
  int ranked_more = 0;  // misses that ranked copies beyond the sample
  for (uint64_t m = 0; m < 6; ++m) {
    policy->asked.clear();
    policy->victims.clear();
    const PageCopies::Fill f = Miss(2, m * 16384, 16384);  // over four 4 KiB copies or more
    ASSERT_GE(f.slot, 0) << m;
    ranked_more += policy->asked.size() > size_t(PageCopies::kRankSample);
    std::vector<uint64_t> gone;
    for (uint64_t block : std::set<uint64_t>(held)) {
      const uint64_t offset = (block & 0xffffffff) * PageCopies::kBlockUnit;
      const uint64_t length = (block >> 32) == 1 ? 4096 : 16384;
      if (Find(block >> 32, offset, length) < 0) {
        gone.push_back(block);
        held.erase(block);
      }
    }
    held.insert(2ull << 32 | m * (16384 / PageCopies::kBlockUnit));
    ASSERT_FALSE(gone.empty()) << m;
    ASSERT_EQ(1u, policy->victims.size()) << m;
    double most = 0;
    for (uint64_t block : gone) most = std::max(most, value(block));
    EXPECT_DOUBLE_EQ(most, value(policy->victims[0])) << "miss " << m;
    CheckInvariants();
  }
  EXPECT_GT(ranked_more, 0);  // the unranked case came up
}

TEST_F(BlockCopiesTest, InvalidationAndShrinkFreeTheirBytes) {
  Make(1 << 20, 64 * kPage);
  for (uint64_t b = 0; b < 8; ++b) {
    Miss(1, b * 5000, 4500);
    Miss(2, b * 5000, 4500);
    ASSERT_GE(Miss(1, b * 5000, 4500).slot + 0 * Miss(2, b * 5000, 4500).slot, 0);
  }
  const uint64_t used = account_->copy_used();
  ASSERT_EQ(16u * 4608, used);
  copies_->Invalidate(1, /*readers_possible=*/false);
  for (uint64_t b = 0; b < 8; ++b) EXPECT_LT(Find(1, b * 5000, 4500), 0);
  EXPECT_EQ(8u * 4608, account_->copy_used());
  uint64_t punched = 0;
  for (const auto& [offset, length] : punched_) punched += length;
  EXPECT_EQ(8u * 4608, punched);
  // Shrink drops the rest, after waiting out readers once.
  const int waits = waits_;
  EXPECT_EQ(8u * 4608, copies_->Shrink(1 << 20));
  EXPECT_EQ(waits + 1, waits_);
  EXPECT_EQ(0u, account_->copy_used());
  EXPECT_EQ(0u, copies_->ChargedBytes());
}

TEST_F(BlockCopiesTest, AFullTierZeroTakesNoNewBytesButCopiesStillRotate) {
  // Tier 0 of one set's bytes, its reserve as large: homes take half.
  Make(kSetBytes, kSetBytes);
  ASSERT_TRUE(account_->TryCharge(kSetBytes / 2));
  for (uint64_t b = 0; b < 40; ++b) {
    for (int i = 0; i < 3; ++i) Miss(1, b * 4096, 4096);
  }
  EXPECT_EQ(kSetBytes / 2, account_->copy_used());
  EXPECT_GT(copies_->TakeWantedBytes(), 0u);  // what the copies ask homes for
  // A hotter block replaces a copy: no new bytes.
  PageCopies::Fill f;
  for (int i = 0; i < 8 && f.slot < 0; ++i) f = Miss(3, 0, 4096);
  ASSERT_GE(f.slot, 0);
  EXPECT_EQ(kSetBytes / 2, account_->copy_used());
  EXPECT_EQ(kSetBytes, account_->used());
  CheckInvariants();
}

}  // namespace
}  // namespace tierfs
