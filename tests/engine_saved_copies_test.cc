// Hot-page copies across a restart (engine/page_copies_saved.cc): what
// SaveState writes, RestoreState takes back, slot for slot; what it refuses;
// and the unsaved hook that ends a saved state before any saved slot changes.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agents/policies.h"
#include "engine/page_copies.h"

namespace tierfs {
namespace {

constexpr uint64_t kPage = 8192;

// One tier 0 and its copies, as an owner at one open sees them.
struct Copies {
  Copies(bool blocks, CopyPolicy copy_policy = CopyPolicy::kTinyLfu,
         uint64_t reserve = 256 * kPage) {
    account = std::make_unique<CapacityAccount>(64 << 20);
    account->SetCopyReserve(reserve);
    std::string error;
    policy = NewPolicy("lru", {}, &error);
    PageCopies::Config c;
    c.page = kPage;
    c.slots = reserve / kPage;
    c.blocks = blocks;
    c.policy = copy_policy;
    copies = std::make_unique<PageCopies>(
        c, policy.get(), account.get(), [] {},
        [this](uint64_t offset, uint64_t length) { freed.push_back({offset, length}); });
    // Run under the copies' lock; Find takes none.
    copies->SetUnsavedHook([this] {
      hooks++;
      live_at_hook = Slots(3, 64).size();
    });
  }
  Policy::CopyCandidate Candidate(uint64_t file) const {
    Policy::CopyCandidate c;
    c.file_id = file;
    c.kind = FileKind::kSst;
    c.level = 2;
    return c;
  }
  // Reads (misses) block or page `unit` of `file` until it is copied.
  void Copy(uint64_t file, uint64_t unit) {
    for (int i = 0; i < 3; ++i) {
      PageCopies::Fill f;
      if (copies->blocks()) {
        f = copies->OnMissBlock(Candidate(file), unit * 4096, 3000, /*blocking=*/true);
      } else {
        Policy::CopyCandidate c = Candidate(file);
        c.page = unit;
        f = copies->OnMiss(c, /*blocking=*/true);
      }
      if (f.slot >= 0) {
        ASSERT_TRUE(copies->Publish(f));
        return;
      }
    }
  }
  int64_t Find(uint64_t file, uint64_t unit) const {
    if (copies->blocks()) {
      return copies->FindBlock(PageCopies::Key(file, unit * 4096 / PageCopies::kBlockUnit),
                               unit * 4096, 3000);
    }
    return copies->Find(PageCopies::Key(file, unit));
  }
  // Slot of every (file, unit) in [files) x [units) that has a copy.
  std::map<std::pair<uint64_t, uint64_t>, int64_t> Slots(uint64_t files, uint64_t units) const {
    std::map<std::pair<uint64_t, uint64_t>, int64_t> out;
    for (uint64_t f = 1; f <= files; ++f) {
      for (uint64_t u = 0; u < units; ++u) {
        const int64_t s = Find(f, u);
        if (s >= 0) out[{f, u}] = s;
      }
    }
    return out;
  }
  std::string Save(const PageCopies::FileSizes& files) {
    std::string state;
    EXPECT_TRUE(copies->SaveState(files, [&](const std::string& s) {
      state = s;
      return true;
    }));
    return state;
  }

  std::unique_ptr<CapacityAccount> account;
  std::unique_ptr<Policy> policy;
  std::unique_ptr<PageCopies> copies;
  std::vector<std::pair<uint64_t, uint64_t>> freed;
  int hooks = 0;
  uint64_t live_at_hook = 0;  // copies findable when the hook ran
};

// Three files of 1 MiB, 64 units each read until copied.
const PageCopies::FileSizes kFiles = {{1, 1 << 20}, {2, 1 << 20}, {3, 1 << 20}};

void CopySome(Copies* c) {
  for (uint64_t f = 1; f <= 3; ++f) {
    for (uint64_t u = 0; u < 40; u += 1 + f) c->Copy(f, u);
  }
}

class SavedCopiesTest : public ::testing::TestWithParam<bool> {};  // blocks?

TEST_P(SavedCopiesTest, ARestoreTakesBackEveryCopySlotForSlot) {
  Copies before(GetParam());
  CopySome(&before);
  const auto slots = before.Slots(3, 64);
  ASSERT_GT(slots.size(), 30u);
  const std::string state = before.Save(kFiles);
  EXPECT_TRUE(before.copies->saved());

  Copies after(GetParam());
  uint64_t restored = 0;
  std::string why;
  ASSERT_TRUE(after.copies->RestoreState(state, kFiles, &restored, &why)) << why;
  EXPECT_EQ(slots.size(), restored);
  EXPECT_EQ(slots, after.Slots(3, 64));
  for (const auto& [unit, s] : slots) EXPECT_EQ(before.copies->Where(s), after.copies->Where(s));
  EXPECT_EQ(before.account->copy_used(), after.account->copy_used());
  EXPECT_EQ(after.copies->ChargedBytes(), after.account->copy_used());
  EXPECT_EQ(slots.size(), after.copies->counters().used_slots);
  EXPECT_FALSE(after.copies->saved());  // the owner saves again
  // Every byte no copy holds was handed back (punched), none a copy holds.
  for (const auto& [offset, length] : after.freed) {
    for (const auto& [unit, s] : slots) {
      const uint64_t w = after.copies->Where(s);
      EXPECT_TRUE(offset + length <= w || offset >= w + 3000) << offset << " " << w;
    }
  }
  EXPECT_FALSE(after.freed.empty());
}

TEST_P(SavedCopiesTest, TheSketchComesBack) {
  Copies before(GetParam());
  // Read once each: not copied (no evidence of reuse yet).
  for (uint64_t u = 0; u < 8; ++u) {
    Policy::CopyCandidate c = before.Candidate(9);
    c.page = u;
    if (GetParam()) {
      before.copies->OnMissBlock(c, u * 4096, 3000, true);
    } else {
      before.copies->OnMiss(c, true);
    }
  }
  const std::string state = before.Save(kFiles);
  Copies after(GetParam());
  uint64_t restored = 0;
  std::string why;
  ASSERT_TRUE(after.copies->RestoreState(state, kFiles, &restored, &why)) << why;
  // One more read admits each: the sketch remembers the first.
  for (uint64_t u = 0; u < 8; ++u) {
    PageCopies::Fill f;
    Policy::CopyCandidate c = after.Candidate(9);
    c.page = u;
    f = GetParam() ? after.copies->OnMissBlock(c, u * 4096, 3000, true)
                   : after.copies->OnMiss(c, true);
    EXPECT_GE(f.slot, 0) << u;
    if (f.slot >= 0) after.copies->Abandon(f);
  }
}

TEST_P(SavedCopiesTest, OnlyFilesStillAsTheyWereComeBack) {
  Copies before(GetParam());
  CopySome(&before);
  const auto slots = before.Slots(3, 64);
  // File 3 was not sealed at the save: its copies are not kept.
  const std::string state = before.Save({{1, 1 << 20}, {2, 1 << 20}});
  // At the next open file 2 has another size (not the file saved).
  Copies after(GetParam());
  uint64_t restored = 0;
  std::string why;
  ASSERT_TRUE(after.copies->RestoreState(state, {{1, 1 << 20}, {2, 4096}, {3, 1 << 20}},
                                         &restored, &why))
      << why;
  uint64_t of_file_1 = 0;
  for (const auto& [unit, s] : slots) of_file_1 += unit.first == 1;
  EXPECT_EQ(of_file_1, restored);
  for (const auto& [unit, s] : after.Slots(3, 64)) EXPECT_EQ(1u, unit.first);
  EXPECT_EQ(after.copies->ChargedBytes(), after.account->copy_used());
}

TEST_P(SavedCopiesTest, TheOwnersTagsGoWithTheCopiesAndItMayRefuseOne) {
  Copies before(GetParam());
  CopySome(&before);
  const auto slots = before.Slots(3, 64);
  std::string state;
  ASSERT_TRUE(before.copies->SaveState(
      kFiles,
      [&](const std::string& s) {
        state = s;
        return true;
      },
      [](uint64_t slot) { return slot * 7 + 1; }));
  // The owner checks each copy by its tag, and refuses one: it does not come
  // back, and its bytes are freed.
  const int64_t refused = slots.begin()->second;
  Copies after(GetParam());
  uint64_t restored = 0, checked = 0;
  std::string why;
  ASSERT_TRUE(after.copies->RestoreState(
      state, kFiles, &restored, &why,
      [&](uint64_t slot, uint64_t where, uint64_t tag) {
        EXPECT_EQ(slot * 7 + 1, tag);
        EXPECT_EQ(before.copies->Where(int64_t(slot)), where);
        checked++;
        return int64_t(slot) != refused;
      }))
      << why;
  EXPECT_EQ(slots.size(), checked);
  EXPECT_EQ(slots.size() - 1, restored);
  EXPECT_EQ(-1, after.Find(slots.begin()->first.first, slots.begin()->first.second));
  const uint64_t w = before.copies->Where(refused);
  bool freed = false;
  for (const auto& [offset, length] : after.freed) freed |= offset <= w && w < offset + length;
  EXPECT_TRUE(freed) << "the refused copy's bytes were not handed back";
}

TEST_P(SavedCopiesTest, AnotherConfigurationOrDamageIsRefusedWhole) {
  Copies before(GetParam());
  CopySome(&before);
  const std::string state = before.Save(kFiles);
  uint64_t restored = 0;
  std::string why;
  {  // another reserve: other slots
    Copies after(GetParam(), CopyPolicy::kTinyLfu, 128 * kPage);
    EXPECT_FALSE(after.copies->RestoreState(state, kFiles, &restored, &why));
    EXPECT_NE(std::string::npos, why.find("another configuration")) << why;
    EXPECT_EQ(0u, after.account->copy_used());
  }
  {  // another unit
    Copies after(!GetParam());
    EXPECT_FALSE(after.copies->RestoreState(state, kFiles, &restored, &why));
  }
  {  // another copy policy
    Copies after(GetParam(), CopyPolicy::kS3Fifo);
    EXPECT_FALSE(after.copies->RestoreState(state, kFiles, &restored, &why));
  }
  // Cut anywhere, or a slot moved to another set: refused, nothing restored.
  for (size_t cut : {size_t(0), size_t(7), size_t(40), state.size() / 2, state.size() - 1}) {
    Copies after(GetParam());
    EXPECT_FALSE(after.copies->RestoreState(state.substr(0, cut), kFiles, &restored, &why))
        << cut;
    EXPECT_EQ(0u, after.account->copy_used());
    EXPECT_EQ(0u, after.Slots(3, 64).size());
  }
}

TEST_P(SavedCopiesTest, TheFirstCopyUnpublishedAfterASaveEndsItFirst) {
  Copies c(GetParam());
  CopySome(&c);
  // Unsaved: changes call nothing.
  c.copies->Invalidate(3, /*readers_possible=*/false);
  EXPECT_EQ(0, c.hooks);
  c.Save(kFiles);
  // New copies into free room do not touch a saved slot.
  c.Copy(1, 50);
  EXPECT_TRUE(c.copies->saved());
  EXPECT_EQ(0, c.hooks);
  // A file's copies going do: once, before the first is unpublished.
  const uint64_t live = c.Slots(3, 64).size();
  c.copies->Invalidate(2, /*readers_possible=*/true);
  EXPECT_EQ(1, c.hooks);
  EXPECT_EQ(live, c.live_at_hook);
  EXPECT_FALSE(c.copies->saved());
  c.copies->Reclaim();
  c.copies->Invalidate(1, false);
  EXPECT_EQ(1, c.hooks);
  // Saved again, then a shrink for homes.
  CopySome(&c);
  c.Save(kFiles);
  EXPECT_GT(c.copies->Shrink(kPage), 0u);
  EXPECT_EQ(2, c.hooks);
}

TEST_P(SavedCopiesTest, EvictionOfASavedCopyEndsTheSavedState) {
  // A small reserve, full of copies; then hotter pages replace them.
  Copies c(GetParam(), CopyPolicy::kTinyLfu, 16 * kPage);
  for (uint64_t u = 0; u < 400; ++u) c.Copy(1, u);
  c.Save(kFiles);
  for (int round = 0; round < 6 && c.hooks == 0; ++round) {
    for (uint64_t u = 0; u < 400; ++u) c.Copy(2, u);
  }
  EXPECT_EQ(1, c.hooks);
  EXPECT_FALSE(c.copies->saved());
}

INSTANTIATE_TEST_SUITE_P(PagesAndBlocks, SavedCopiesTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "blocks" : "pages";
                         });

TEST(SavedCopiesPolicyTest, TheCopyPolicysPlacesComeBack) {
  for (CopyPolicy p : {CopyPolicy::kWTinyLfu, CopyPolicy::kS3Fifo}) {
    Copies before(false, p, 32 * kPage);
    for (int round = 0; round < 3; ++round) {
      for (uint64_t u = 0; u < 64; ++u) before.Copy(1 + u % 3, u);
    }
    const std::string state = before.Save(kFiles);
    Copies after(false, p, 32 * kPage);
    uint64_t restored = 0;
    std::string why;
    ASSERT_TRUE(after.copies->RestoreState(state, kFiles, &restored, &why)) << why;
    EXPECT_EQ(before.Slots(3, 64), after.Slots(3, 64));
    // W-TinyLFU makes the same next decisions: its window, main and sketch
    // came back. (S3-FIFO's ghosts do not, so its next ones may differ.)
    if (p != CopyPolicy::kWTinyLfu) continue;
    for (uint64_t u = 64; u < 120; ++u) {
      before.Copy(1, u);
      after.Copy(1, u);
    }
    EXPECT_EQ(before.Slots(3, 120), after.Slots(3, 120)) << CopyPolicyName(p);
  }
}

}  // namespace
}  // namespace tierfs
