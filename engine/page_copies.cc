#include "engine/page_copies.h"

#include <algorithm>

#include "util/splitmix64.h"

namespace tierfs {

// ------------------------------------------------------------ the sketch

FrequencySketch::FrequencySketch(uint64_t expected) {
  uint64_t keys = 256;
  while (keys < expected) keys <<= 1;
  // A sample is 10 additions per expected key; each adds to one counter of
  // every row. With as many counters per row as keys, a counter collected 10
  // foreign additions per sample, more than a hot page's own few: every
  // estimate was noise and admission a coin toss (copies churned, 1 per 8
  // reads, on YCSB C). 16 counters per key keep the noise of a row below
  // one addition per sample, as Caffeine's sketch does (16 4-bit counters per
  // entry); 2^22 per row at most (16 MiB in all).
  const uint64_t width = std::min<uint64_t>(keys * kCountersPerKey, 1ull << 22);
  counters_.assign(width * kRows, 0);
  width_mask_ = width - 1;
  sample_ = 40 * keys;
  // 16 bits per key of a sample: three hashes err about 0.5% of the time.
  const uint64_t bits = sample_ * 16;
  door_.assign(bits / 64, 0);
  door_mask_ = bits - 1;
}

// Hash number i of `key`: independent per row and per doorkeeper hash.
static uint64_t HashOf(uint64_t key, int i) {
  return SplitMix64Mix(key + uint64_t(i + 1) * kSplitMix64Gamma);
}

bool FrequencySketch::InDoor(uint64_t key) const {
  for (int i = 0; i < kDoorHashes; ++i) {
    const uint64_t bit = HashOf(key, kRows + i) & door_mask_;
    if (!(door_[bit / 64] & (1ull << (bit % 64)))) return false;
  }
  return true;
}

void FrequencySketch::Add(uint64_t key) {
  if (!InDoor(key)) {
    for (int i = 0; i < kDoorHashes; ++i) {
      const uint64_t bit = HashOf(key, kRows + i) & door_mask_;
      door_[bit / 64] |= 1ull << (bit % 64);
    }
  } else {
    for (int r = 0; r < kRows; ++r) {
      uint8_t& c = counters_[uint64_t(r) * (width_mask_ + 1) + (HashOf(key, r) & width_mask_)];
      if (c < kMax) c++;
    }
  }
  if (++additions_ >= sample_) Reset();
}

uint32_t FrequencySketch::Estimate(uint64_t key) const {
  uint32_t est = kMax;
  for (int r = 0; r < kRows; ++r) {
    est = std::min<uint32_t>(
        est, counters_[uint64_t(r) * (width_mask_ + 1) + (HashOf(key, r) & width_mask_)]);
  }
  return est + (InDoor(key) ? 1 : 0);
}

void FrequencySketch::Raise(uint64_t key, uint32_t count) {
  if (count == 0) return;
  // The doorkeeper holds the first sighting; the counters the rest.
  for (int i = 0; i < kDoorHashes; ++i) {
    const uint64_t bit = HashOf(key, kRows + i) & door_mask_;
    door_[bit / 64] |= 1ull << (bit % 64);
  }
  const uint8_t c = uint8_t(std::min<uint32_t>(count - 1, kMax));
  for (int r = 0; r < kRows; ++r) {
    uint8_t& v = counters_[uint64_t(r) * (width_mask_ + 1) + (HashOf(key, r) & width_mask_)];
    v = std::max(v, c);
  }
}

void FrequencySketch::Reset() {
  for (uint8_t& c : counters_) c >>= 1;
  std::fill(door_.begin(), door_.end(), 0);
  additions_ /= 2;
}

// ------------------------------------------------------------ the copies

PageCopies::PageCopies(const Config& config, Policy* policy, CapacityAccount* account,
                       std::function<void()> wait_readers, std::function<void(uint64_t)> free_slot)
    : config_(config),
      headroom_(config.headroom),
      policy_(policy),
      account_(account),
      wait_readers_(std::move(wait_readers)),
      free_slot_(std::move(free_slot)),
      sets_((config.slots + kWays - 1) / kWays),
      keys_(new std::atomic<uint64_t>[sets_ * kWays]),
      sketch_(config.slots),
      owner_(sets_ * kWays, 0),
      state_(sets_ * kWays, Slot::kFree),
      level_(sets_ * kWays, -1),
      kind_(sets_ * kWays, 0) {
  for (uint64_t s = 0; s < sets_ * kWays; ++s) keys_[s].store(0, std::memory_order_relaxed);
  // The last set may have ways beyond `slots`: they are never used, so the
  // copies never hold more than `slots` pages.
  for (uint64_t s = config.slots; s < sets_ * kWays; ++s) state_[s] = Slot::kRetired;
}

uint64_t PageCopies::SetOf(uint64_t key) const {
  return sets_ ? SplitMix64Mix(key ^ 0x5bd1e995ull) % sets_ : 0;
}

void PageCopies::NoteHit(Reader* reader, uint64_t key) {
  if (key == reader->last) return;  // the same visit
  reader->last = key;
  reader->hits[reader->n++] = key;
  if (reader->n < Reader::kSize) return;
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (lock.owns_lock()) DrainHits(reader);
  reader->n = 0;
}

void PageCopies::DrainHits(Reader* reader) {
  for (uint32_t i = 0; i < reader->n; ++i) Count(reader->hits[i]);
  counters_.hits += reader->n;
}

PageCopies::Fill PageCopies::OnMiss(const Policy::CopyCandidate& page, bool blocking,
                                    Reader* reader) {
  Fill fill;
  const uint64_t key = Key(page.file_id, page.page);
  if (key == 0 || config_.slots == 0) return fill;
  if (reader) {
    if (key == reader->last) return fill;  // the same visit: no new evidence
    reader->last = key;
  }
  std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
  if (blocking) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return fill;
  }
  counters_.misses++;
  Count(key);
  Policy::CopyCandidate candidate = page;
  candidate.frequency = sketch_.Estimate(key);
  const uint64_t first = SetOf(key) * kWays;
  // A free slot if the account has room; otherwise the set's least frequent
  // live copy (a slot left retired in this set is reused first: its page is
  // gone already).
  int64_t free_slot = -1, retired = -1, victim = -1;
  uint32_t victim_freq = 0;
  for (uint64_t s = first; s < first + kWays; ++s) {
    switch (state_[s]) {
      case Slot::kFree:
        if (free_slot < 0) free_slot = int64_t(s);
        break;
      case Slot::kFilling:
      case Slot::kCanceled:
        if (owner_[s] == key) return fill;  // being copied already
        break;
      case Slot::kLive: {
        if (owner_[s] == key) return fill;  // raced with a copy just made
        const uint32_t f = sketch_.Estimate(owner_[s]);
        if (victim < 0 || f < victim_freq) {
          victim = int64_t(s);
          victim_freq = f;
        }
        break;
      }
      case Slot::kRetired:
        if (s < config_.slots && retired < 0) retired = int64_t(s);
        break;
    }
  }
  int64_t slot = -1;
  const bool charged =
      retired < 0 && free_slot >= 0 && account_->TryChargeCopy(config_.page, headroom_.load(std::memory_order_relaxed));
  if (retired < 0 && free_slot >= 0 && !charged &&
      account_->copy_reserve_left() >= config_.page && policy_->AdmitCopy(candidate, nullptr)) {
    // The set has a free way and the policy wants the page, but tier 0 is
    // full (of homes): ask for room (TakeWantedBytes), and meanwhile see
    // whether a colder copy can make way.
    counters_.no_room++;
    wanted_ += config_.page;
  }
  if (retired >= 0 || charged) {
    if (!policy_->AdmitCopy(candidate, nullptr)) {
      if (retired < 0) account_->ReleaseCopy(config_.page);
      counters_.rejected++;
      return fill;
    }
    if (retired >= 0) {
      slot = retired;
      // Not in retired_ if a Reclaim has taken the list and is waiting out
      // readers; it frees only slots still retired when it is done.
      auto it = std::find(retired_.begin(), retired_.end(), uint64_t(retired));
      if (it != retired_.end()) retired_.erase(it);
      fill.wait = true;
    } else {
      slot = free_slot;
    }
  } else if (victim >= 0) {
    Policy::CopyCandidate v;
    v.file_id = FileOf(owner_[uint64_t(victim)]);
    v.page = PageOf(owner_[uint64_t(victim)]);
    v.level = level_[uint64_t(victim)];
    v.kind = FileKind(kind_[uint64_t(victim)]);
    v.frequency = victim_freq;
    if (!policy_->AdmitCopy(candidate, &v)) {
      counters_.rejected++;
      return fill;
    }
    slot = victim;
    Unpublish(uint64_t(slot));
    Forget(uint64_t(slot));
    counters_.evicted++;
    fill.wait = true;
  } else {
    counters_.rejected++;  // no room, nothing to replace
    return fill;
  }
  const uint64_t s = uint64_t(slot);
  state_[s] = Slot::kFilling;
  owner_[s] = key;
  level_[s] = page.level;
  kind_[s] = uint8_t(page.kind);
  by_file_[page.file_id].insert(s);
  counters_.admitted++;
  admitted_ += config_.page;
  fill.slot = slot;
  fill.key = key;
  return fill;
}

bool PageCopies::Publish(const Fill& fill) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t s = uint64_t(fill.slot);
  if (state_[s] == Slot::kCanceled) {
    FreeSlot(s);  // invalidated while copied: no reader ever saw it
    return false;
  }
  state_[s] = Slot::kLive;
  keys_[s].store(fill.key, std::memory_order_release);
  return true;
}

void PageCopies::Abandon(const Fill& fill) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t s = uint64_t(fill.slot);
  if (state_[s] == Slot::kFilling) Forget(s);
  FreeSlot(s);
}

void PageCopies::Unpublish(uint64_t s) { keys_[s].store(0, std::memory_order_release); }

void PageCopies::Forget(uint64_t s) {
  const uint64_t file = FileOf(owner_[s]);
  auto it = by_file_.find(file);
  if (it != by_file_.end()) {
    it->second.erase(s);
    if (it->second.empty()) by_file_.erase(it);
  }
}

void PageCopies::FreeSlot(uint64_t s) {
  state_[s] = Slot::kFree;
  owner_[s] = 0;
  account_->ReleaseCopy(config_.page);
  free_slot_(s);
}

void PageCopies::Invalidate(uint64_t file_id, bool readers_possible) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_file_.find(file_id);
  if (it == by_file_.end()) return;
  for (uint64_t s : it->second) {
    counters_.invalidated++;
    if (state_[s] == Slot::kFilling) {
      state_[s] = Slot::kCanceled;  // its filler frees it
      continue;
    }
    Unpublish(s);
    if (readers_possible) {
      state_[s] = Slot::kRetired;
      retired_.push_back(s);
    } else {
      FreeSlot(s);
    }
  }
  by_file_.erase(it);
}

void PageCopies::Reclaim() {
  std::vector<uint64_t> slots;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (retired_.empty()) return;
    slots.swap(retired_);
  }
  wait_readers_();
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t s : slots) {
    // OnMiss may have taken a retired slot meanwhile; it is not in retired_
    // then, but it was in the list we took: only free what is still retired.
    if (state_[s] == Slot::kRetired) FreeSlot(s);
  }
}

uint64_t PageCopies::Shrink(uint64_t bytes) {
  Reclaim();
  std::vector<uint64_t> victims;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The least frequent copies first; ties by slot, from where the last
    // shrink stopped, so repeated shrinks do not always hit the same sets.
    std::vector<std::pair<uint32_t, uint64_t>> live;  // (frequency, distance from the hand)
    const uint64_t n = config_.slots;
    for (uint64_t s = 0; s < n; ++s) {
      if (state_[s] == Slot::kLive) {
        live.emplace_back(sketch_.Estimate(owner_[s]), (s + n - shrink_hand_) % n);
      }
    }
    std::sort(live.begin(), live.end());
    for (const auto& [freq, distance] : live) {
      if (victims.size() * config_.page >= bytes) break;
      const uint64_t s = (distance + shrink_hand_) % n;
      Unpublish(s);
      Forget(s);
      state_[s] = Slot::kRetired;  // not reusable until readers are out
      victims.push_back(s);
      counters_.evicted++;
    }
    if (!victims.empty()) shrink_hand_ = (victims.back() + 1) % n;
  }
  if (victims.empty()) return 0;
  wait_readers_();
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t freed = 0;
  for (uint64_t s : victims) {
    // OnMiss may have reused a victim meanwhile (for another page).
    if (state_[s] != Slot::kRetired) continue;
    FreeSlot(s);
    freed += config_.page;
  }
  return freed;
}

void PageCopies::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t s = 0; s < config_.slots; ++s) {
    if (state_[s] == Slot::kFree) continue;
    Unpublish(s);
    if (state_[s] == Slot::kFilling) {
      state_[s] = Slot::kCanceled;
      continue;
    }
    FreeSlot(s);
  }
  by_file_.clear();
  retired_.clear();
}

void PageCopies::NoteInput(Reader* reader, uint64_t file_id, uint64_t offset, uint64_t size) {
  if (size == 0 || config_.slots == 0) return;
  const uint64_t first = offset / config_.page, last = (offset + size - 1) / config_.page;
  uint64_t mass = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t p = first; p <= last; ++p) {
      const uint64_t key = Key(file_id, p);
      if (key == 0) continue;
      // A page seen once is no evidence (the doorkeeper's 1); reuse is.
      const uint32_t f = sketch_.Estimate(key);
      if (f >= 2) mass += f;
    }
  }
  reader->input_mass += double(mass);
  reader->input_bytes += (last - first + 1) * config_.page;
}

void PageCopies::NoteOutput(Reader* reader, uint64_t file_id, uint64_t offset, uint64_t size) {
  if (size == 0 || config_.slots == 0 || reader->input_bytes == 0) return;
  // The input this write consumed, in proportion to its bytes, and its
  // frequency per page: what each output page it completes inherits. A page
  // is complete once its last byte is written (table files are written in
  // order): pages [offset / page, end / page).
  const double used = std::min(1.0, double(size) / double(reader->input_bytes));
  const double mass = reader->input_mass * used;
  const double per_page = mass / (double(reader->input_bytes) * used) * double(config_.page);
  reader->input_mass -= mass;
  reader->input_bytes -= uint64_t(double(reader->input_bytes) * used);
  if (mass <= 0) return;
  // At least one sighting: the output of reused input needs one read to be
  // copied, not two; more if the input was hotter on average.
  const uint32_t count = std::max<uint32_t>(1, uint32_t(per_page + 0.5));
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t p = offset / config_.page; p < (offset + size) / config_.page; ++p) {
    const uint64_t key = Key(file_id, p);
    if (key == 0) continue;
    sketch_.Raise(key, count);
    counters_.inherited++;
  }
}

uint64_t PageCopies::ChargedSlots() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  for (uint64_t s = 0; s < config_.slots; ++s) n += state_[s] != Slot::kFree;
  return n;
}

uint64_t PageCopies::TakeWantedBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t w = wanted_;
  wanted_ = 0;
  return w;
}

uint64_t PageCopies::TakeAdmittedBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t a = admitted_;
  admitted_ = 0;
  return a;
}

PageCopies::Counters PageCopies::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  Counters c = counters_;
  c.used_slots = account_->copy_used() / config_.page;
  return c;
}

}  // namespace tierfs
