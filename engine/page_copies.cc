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

const char* CopyPolicyName(CopyPolicy policy) {
  switch (policy) {
    case CopyPolicy::kTinyLfu:
      return "tinylfu";
    case CopyPolicy::kWTinyLfu:
      return "w-tinylfu";
    case CopyPolicy::kS3Fifo:
      return "s3-fifo";
  }
  return "?";
}

bool ParseCopyPolicy(const std::string& name, CopyPolicy* policy) {
  for (CopyPolicy p : {CopyPolicy::kTinyLfu, CopyPolicy::kWTinyLfu, CopyPolicy::kS3Fifo}) {
    if (name == CopyPolicyName(p)) {
      *policy = p;
      return true;
    }
  }
  return false;
}

PageCopies::PageCopies(const Config& config, Policy* policy, CapacityAccount* account,
                       std::function<void()> wait_readers,
                       std::function<void(uint64_t, uint64_t)> free_bytes)
    : config_(config),
      headroom_(config.headroom),
      policy_(policy),
      account_(account),
      wait_readers_(std::move(wait_readers)),
      free_bytes_(std::move(free_bytes)),
      ranks_(config.policy == CopyPolicy::kTinyLfu && policy->RanksCopies()),
      ways_(config.blocks ? kBlockWays : kWays),
      sets_((config.slots + kWays - 1) / kWays),
      set_bytes_(kWays * config.page),
      keys_(new std::atomic<uint64_t>[sets_ * ways_]),
      where_(new std::atomic<uint64_t>[sets_ * ways_]),
      extent_(new std::atomic<uint64_t>[sets_ * ways_]),
      // Blocks: about a page's worth of keys per page of the reserve would
      // undercount them (a block is smaller than a page).
      sketch_(SketchKeys(config)),
      owner_(sets_ * ways_, 0),
      state_(sets_ * ways_, Slot::kFree),
      level_(sets_ * ways_, -1),
      kind_(sets_ * ways_, 0),
      charge_(sets_ * ways_, 0),
      queue_(sets_ * ways_, kMain),
      reuse_(sets_ * ways_, 0),
      stamp_(sets_ * ways_, 0),
      doomed_flag_(sets_ * ways_, 0) {
  if (config.policy == CopyPolicy::kS3Fifo) ghost_ring_.assign(std::max<uint64_t>(1, SlotCount()), 0);
  if (ranks_) policy_->SetCopyCapacity(SketchKeys(config));
  for (uint64_t s = 0; s < sets_ * ways_; ++s) {
    keys_[s].store(0, std::memory_order_relaxed);
    // Pages: a slot is a page of its set's bytes; blocks: set at placement.
    where_[s].store(config.blocks ? 0 : s * config.page, std::memory_order_relaxed);
    extent_[s].store(0, std::memory_order_relaxed);
  }
  // Pages: the last set may have ways beyond `slots`: they are never used,
  // so the copies never hold more than `slots` pages. (Blocks: the last set
  // has fewer bytes, SetLimit.)
  if (!config.blocks) {
    for (uint64_t s = config.slots; s < sets_ * ways_; ++s) state_[s] = Slot::kRetired;
  }
}

uint64_t PageCopies::SlotCount() const {
  return config_.blocks ? sets_ * ways_ : std::min<uint64_t>(config_.slots, sets_ * ways_);
}

uint64_t PageCopies::SetOf(uint64_t key) const {
  return sets_ ? SplitMix64Mix(key ^ 0x5bd1e995ull) % sets_ : 0;
}

void PageCopies::NoteHit(Reader* reader, uint64_t key) {
  if (key == reader->last) return;  // the same visit
  reader->last = key;
  reader->hits[reader->n++] = key;
  if (reader->n < Reader::kSize) return;
  if (mu_.TryLock()) {
    DrainHits(reader);
    mu_.Unlock();
  }
  reader->n = 0;
}

void PageCopies::DrainHits(Reader* reader) {
  for (uint32_t i = 0; i < reader->n; ++i) Count(reader->hits[i]);
  if (ranks_) {
    for (uint32_t i = 0; i < reader->n; ++i) {
      const uint64_t key = reader->hits[i];
      const int64_t s = Find(key);
      Policy::CopyCandidate hit;
      if (s >= 0) {
        hit = CandidateOf(uint64_t(s));
      } else {  // dropped since the hit
        hit.file_id = FileOf(key);
        hit.page = PageOf(key);
        hit.frequency = sketch_.Estimate(key);
      }
      policy_->NoteCopyAccess(hit);
    }
  }
  if (config_.policy == CopyPolicy::kS3Fifo) {
    for (uint32_t i = 0; i < reader->n; ++i) {
      const int64_t s = Find(reader->hits[i]);
      if (s >= 0 && reuse_[uint64_t(s)] < 3) reuse_[uint64_t(s)]++;
    }
  }
  counters_.hits += reader->n;
}

bool PageCopies::BeginMiss(uint64_t key, bool blocking, Reader* reader) {
  if (reader) {
    if (key == reader->last) return false;  // the same visit: no new evidence
    reader->last = key;
  }
  if (blocking) {
    mu_.Lock();
  } else if (!mu_.TryLock()) {
    return false;
  }
  counters_.misses++;
  Count(key);
  Undoom();
  evict_from_ = kProbation;
  return true;
}

PageCopies::Fill PageCopies::OnMiss(const Policy::CopyCandidate& page, bool blocking,
                                    Reader* reader) {
  Fill fill;
  const uint64_t key = Key(page.file_id, page.page);
  if (config_.blocks || key == 0 || config_.slots == 0) return fill;
  if (!BeginMiss(key, blocking, reader)) return fill;
  fill = PageMiss(page, key);
  mu_.Unlock();
  return fill;
}

PageCopies::Fill PageCopies::PageMiss(const Policy::CopyCandidate& page, uint64_t key) {
  Fill fill;
  Policy::CopyCandidate candidate = page;
  candidate.frequency = sketch_.Estimate(key);
  if (ranks_) policy_->NoteCopyAccess(candidate);
  const uint64_t first = SetOf(key) * kWays;
  // A free slot if the account has room; otherwise the set's least frequent
  // live copy (a slot left retired in this set is reused first: its page is
  // gone already). The victim is ranked only if one is needed: a learned
  // rank costs a prediction per way.
  int64_t free_slot = -1, retired = -1;
  bool live = false;
  for (uint64_t s = first; s < first + kWays; ++s) {
    switch (state_[s]) {
      case Slot::kFree:
        if (free_slot < 0) free_slot = int64_t(s);
        break;
      case Slot::kFilling:
      case Slot::kCanceled:
        if (owner_[s] == key) return fill;  // being copied already
        break;
      case Slot::kLive:
        if (owner_[s] == key) return fill;  // raced with a copy just made
        live = true;
        break;
      case Slot::kRetired:
        if (s < config_.slots && retired < 0) retired = int64_t(s);
        break;
    }
  }
  int64_t slot = -1;
  const bool charged = retired < 0 && free_slot >= 0 &&
                       account_->TryChargeCopy(config_.page,
                                               headroom_.load(std::memory_order_relaxed));
  if (retired < 0 && free_slot >= 0 && !charged &&
      account_->copy_reserve_left() >= config_.page && Admits(candidate, nullptr)) {
    // The set has a free way and the policy wants the page, but tier 0 is
    // full (of homes): ask for room (TakeWantedBytes), and meanwhile see
    // whether a colder copy can make way.
    counters_.no_room++;
    wanted_ += config_.page;
  }
  if (retired >= 0 || charged) {
    if (!Admits(candidate, nullptr)) {
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
      charge_[uint64_t(slot)] = config_.page;
      held_++;
    }
  } else if (live) {
    // The rule settles the set first (TinyLFU has none); then the lowest
    // Keep goes.
    if (config_.policy != CopyPolicy::kTinyLfu) Prepare(SetOf(key), config_.page);
    int64_t victim = -1;
    uint64_t victim_keep = 0;
    for (uint64_t s = first; s < first + kWays; ++s) {
      if (state_[s] != Slot::kLive) continue;
      const uint64_t k = Keep(s);
      if (victim < 0 || k < victim_keep) {
        victim = int64_t(s);
        victim_keep = k;
      }
    }
    const Policy::CopyCandidate v = CandidateOf(uint64_t(victim));
    if (!Admits(candidate, &v)) {
      counters_.rejected++;
      return fill;
    }
    slot = victim;
    Dropped(uint64_t(slot));
    Unpublish(uint64_t(slot));
    Forget(uint64_t(slot));
    counters_.evicted++;
    fill.wait = true;
  } else {
    counters_.rejected++;  // no room, nothing to replace
    return fill;
  }
  Take(uint64_t(slot), key, page, &fill);
  return fill;
}

void PageCopies::Take(uint64_t s, uint64_t key, const Policy::CopyCandidate& c, Fill* fill) {
  state_[s] = Slot::kFilling;
  owner_[s] = key;
  level_[s] = c.level;
  kind_[s] = uint8_t(c.kind);
  by_file_[c.file_id].insert(s);
  reuse_[s] = 0;
  stamp_[s] = ++clock_;
  queue_[s] = config_.policy == CopyPolicy::kTinyLfu ? kMain : kProbation;
  if (config_.policy == CopyPolicy::kS3Fifo) {
    auto ghost = ghosts_.find(key);
    if (ghost != ghosts_.end()) {  // dropped unread not long ago, and missed again: main
      ghosts_.erase(ghost);
      queue_[s] = kMain;
    }
  } else if (config_.policy == CopyPolicy::kWTinyLfu) {
    // The window's overflow moves to main as it is, as Caffeine's does while
    // the cache is not full: where the set was full, Prepare's duels have
    // emptied the window already (but for the doomed, which are to go).
    const uint64_t first = s / ways_ * ways_, end = first + ways_;
    const uint64_t limit = SetLimit(s / ways_) / 100;
    uint64_t window = charge_[s];
    for (uint64_t t = first; t < end; ++t) {
      if (t != s && state_[t] == Slot::kLive && queue_[t] == kProbation && !doomed_flag_[t]) {
        window += charge_[t];
      }
    }
    while (window > limit) {
      int64_t o = -1;
      for (uint64_t t = first; t < end; ++t) {
        if (t != s && state_[t] == Slot::kLive && queue_[t] == kProbation && !doomed_flag_[t] &&
            (o < 0 || stamp_[t] < stamp_[uint64_t(o)])) {
          o = int64_t(t);
        }
      }
      if (o < 0) break;
      queue_[uint64_t(o)] = kMain;
      window -= charge_[uint64_t(o)];
    }
  }
  counters_.admitted++;
  admitted_ += charge_[s];
  fill->slot = int64_t(s);
  fill->key = key;
  fill->where = where_[s].load(std::memory_order_relaxed);
}

PageCopies::Fill PageCopies::OnMissBlock(const Policy::CopyCandidate& block, uint64_t offset,
                                         uint64_t length, bool blocking, Reader* reader) {
  Fill fill;
  const uint64_t key = Key(block.file_id, offset / kBlockUnit);
  if (!config_.blocks || key == 0 || config_.slots == 0 || length == 0 ||
      length > kMaxBlock || (offset >> 44) != 0) {
    return fill;
  }
  if (!BeginMiss(key, blocking, reader)) return fill;
  fill = BlockMiss(block, key, offset, length);
  mu_.Unlock();
  return fill;
}

PageCopies::Fill PageCopies::BlockMiss(const Policy::CopyCandidate& block, uint64_t key,
                                       uint64_t offset, uint64_t length) {
  Fill fill;
  Policy::CopyCandidate candidate = block;
  candidate.page = offset / kBlockUnit;
  candidate.frequency = sketch_.Estimate(key);
  if (ranks_) policy_->NoteCopyAccess(candidate);
  const uint64_t set = SetOf(key);
  for (uint64_t s = set * ways_; s < (set + 1) * ways_; ++s) {
    // Being copied, or copied (another block of the same unit holds the key).
    if (state_[s] != Slot::kFree && state_[s] != Slot::kRetired && owner_[s] == key) return fill;
  }
  // No window scan for what the policy would not copy anywhere.
  if (!Admits(candidate, nullptr)) {
    counters_.rejected++;
    return fill;
  }
  const uint64_t bytes = (length + kBlockUnit - 1) / kBlockUnit * kBlockUnit;
  if (!PlaceBlock(set, candidate, bytes, &fill)) return fill;
  fill.offset = offset;
  fill.length = length;
  return fill;
}

uint64_t PageCopies::SetLimit(uint64_t set) const {
  const uint64_t total = config_.slots * config_.page, base = set * set_bytes_;
  return base >= total ? 0 : std::min(set_bytes_, total - base);
}

// A block goes to a window of its set's bytes: at the set's start or where
// a copy ends or begins. The copies it overlaps make way: the window with the
// least frequent of them wins (then the fewest live bytes lost, then the
// least waste), as TinyLFU replaces its victim only for a more frequent
// candidate. The new copy holds the union of its window and the copies it
// replaced (their readers may still read any of it until they are waited
// out), so it is charged for that union and leaves no gap a concurrent fill
// could write into under a reader.
bool PageCopies::PlaceBlock(uint64_t set, const Policy::CopyCandidate& candidate, uint64_t bytes,
                            Fill* fill) {
  const uint64_t base = set * set_bytes_, limit = SetLimit(set);
  if (bytes > limit) {
    counters_.rejected++;
    return false;
  }
  if (config_.policy != CopyPolicy::kTinyLfu && SetUsed(set) + bytes > limit) Prepare(set, bytes);
  struct Used {
    uint64_t start, end, slot;
    uint64_t keep;
  };
  Used used[kBlockWays];
  int n = 0;
  uint64_t free_ways = 0;
  int64_t a_free_way = -1;
  for (uint64_t s = set * ways_; s < (set + 1) * ways_; ++s) {
    if (state_[s] == Slot::kFree) {
      free_ways++;
      if (a_free_way < 0) a_free_way = int64_t(s);
      continue;
    }
    const uint64_t start = where_[s].load(std::memory_order_relaxed) - base;
    used[n++] = {start, start + charge_[s], s, 0};
  }
  std::sort(used, used + n, [](const Used& a, const Used& b) { return a.start < b.start; });
  // The live copies' Keep. TinyLFU asks its sketch or the policy for each,
  // up to 64 at every miss of a full set (every miss, in the steady state):
  // it ranks a random sample of kRankSample of them instead, as LRB and
  // Redis sample their eviction candidates. A window that would replace an
  // unranked copy (kUnranked) loses to any other; if every window would,
  // the chosen one's copies are ranked below before its victim is.
  int live[kBlockWays];
  int live_n = 0;
  for (int i = 0; i < n; ++i) {
    if (state_[used[i].slot] == Slot::kLive) live[live_n++] = i;
  }
  if (config_.policy == CopyPolicy::kTinyLfu && live_n > kRankSample) {
    for (int j = 0; j < kRankSample; ++j) {
      const int pick = j + int(SplitMix64(&rank_draws_) % uint64_t(live_n - j));
      std::swap(live[j], live[pick]);
    }
    for (int j = kRankSample; j < live_n; ++j) used[live[j]].keep = kUnranked;
    live_n = kRankSample;
  }
  for (int j = 0; j < live_n; ++j) used[live[j]].keep = Keep(used[live[j]].slot);
  struct Window {
    uint64_t lo = 0, hi = 0;      // the union held
    uint64_t max_keep = 0;        // of the live copies replaced
    uint64_t live = 0, freed = 0;  // their live bytes; the bytes of all replaced
    int victim = -1;              // the live copy replaced last to go (index in used)
    int first = 0, last = -1;     // the copies replaced: used[first..last]
    // Live copy used[i], of Keep `keep`, is replaced: the victim is the one
    // kept longest.
    void Weigh(int i, uint64_t keep) {
      if (victim < 0 || keep > max_keep) {
        victim = i;
        max_keep = keep;
      }
    }
    bool Better(const Window& o) const {
      if (max_keep != o.max_keep) return max_keep < o.max_keep;
      if (live != o.live) return live < o.live;
      return hi - lo < o.hi - o.lo;
    }
  };
  const uint64_t headroom = headroom_.load(std::memory_order_relaxed);
  // The best window overall, and the best needing no new charge (for when
  // tier 0 has no room: replacing copies frees what the new one takes).
  Window best, best_free;
  bool have = false, have_free = false;
  auto consider = [&](uint64_t a) {
    mu_.AssertHeld();  // run here, under it
    if (a + bytes > limit) return;
    Window w;
    w.lo = a;
    w.hi = a + bytes;
    w.first = n;
    for (int i = 0; i < n; ++i) {
      const Used& u = used[i];
      if (u.start >= a + bytes || u.end <= a) continue;
      if (state_[u.slot] == Slot::kFilling || state_[u.slot] == Slot::kCanceled) return;
      w.first = std::min(w.first, i);
      w.last = i;
      w.lo = std::min(w.lo, u.start);
      w.hi = std::max(w.hi, u.end);
      w.freed += u.end - u.start;
      if (state_[u.slot] == Slot::kLive) {
        w.live += u.end - u.start;
        w.Weigh(i, u.keep);
      }
    }
    // Copies sorted by start do not overlap: the ones replaced are a run.
    const uint64_t replaced = w.last >= w.first ? uint64_t(w.last - w.first + 1) : 0;
    if (free_ways + replaced == 0) return;  // no way for the key
    if (!have || w.Better(best)) {
      best = w;
      have = true;
    }
    if ((w.hi - w.lo) <= w.freed && (!have_free || w.Better(best_free))) {
      best_free = w;
      have_free = true;
    }
  };
  consider(0);
  for (int i = 0; i < n; ++i) {
    consider(used[i].start);
    consider(used[i].end);
  }
  if (!have) {
    counters_.rejected++;  // every window is being filled
    return false;
  }
  // The union's bytes not already charged to the copies it replaces.
  Window w = best;
  uint64_t charged = 0;
  if ((w.hi - w.lo) > w.freed && account_->TryChargeCopy((w.hi - w.lo) - w.freed, headroom)) {
    charged = (w.hi - w.lo) - w.freed;
  } else if ((w.hi - w.lo) > w.freed) {
    if (account_->copy_reserve_left() >= bytes) {
      // Tier 0 is full of homes: ask for room (TakeWantedBytes), and
      // meanwhile see whether colder copies can make way.
      counters_.no_room++;
      wanted_ += bytes;
    }
    if (!have_free) {
      counters_.rejected++;
      return false;
    }
    w = best_free;
  }
  if (w.max_keep == kUnranked) {
    // Every window replaces a copy the sample left unranked: this one's
    // victim is the most valued of the copies it replaces, ranked now.
    w.victim = -1;
    w.max_keep = 0;
    for (int i = w.first; i <= w.last; ++i) {
      Used& u = used[i];
      if (state_[u.slot] != Slot::kLive) continue;
      if (u.keep == kUnranked) u.keep = Keep(u.slot);
      w.Weigh(i, u.keep);
    }
  }
  if (w.victim >= 0) {
    const uint64_t vs = used[w.victim].slot;
    const Policy::CopyCandidate v = CandidateOf(vs);
    if (!Admits(candidate, &v)) {
      if (charged) account_->ReleaseCopy(charged);
      counters_.rejected++;
      return false;
    }
  }
  // The copies replaced give their bytes (and their charge) to the new one.
  int64_t slot = -1;
  for (int i = w.first; i <= w.last; ++i) {
    const uint64_t s = used[i].slot;
    if (state_[s] == Slot::kLive) {
      Dropped(s);
      Unpublish(s);
      Forget(s);
      counters_.evicted++;
    } else {  // kRetired: a Reclaim may hold it in its list; it frees only what is still retired
      auto it = std::find(retired_.begin(), retired_.end(), s);
      if (it != retired_.end()) retired_.erase(it);
    }
    fill->wait = true;  // readers may be reading it
    state_[s] = Slot::kFree;
    owner_[s] = 0;
    charge_[s] = 0;
    held_--;
    if (slot < 0) slot = int64_t(s);
  }
  if (slot < 0) slot = a_free_way;
  const uint64_t s = uint64_t(slot);
  charge_[s] = w.hi - w.lo;  // >= the bytes replaced: they are inside it
  held_++;
  where_[s].store(base + w.lo, std::memory_order_relaxed);
  Take(s, Key(candidate.file_id, candidate.page), candidate, fill);
  return true;
}

bool PageCopies::Publish(const Fill& fill) {
  MutexLock lock(&mu_);
  const uint64_t s = uint64_t(fill.slot);
  if (state_[s] == Slot::kCanceled) {
    FreeSlot(s);  // invalidated while copied: no reader ever saw it
    return false;
  }
  state_[s] = Slot::kLive;
  if (config_.blocks) {
    extent_[s].store(fill.offset << 20 | fill.length, std::memory_order_relaxed);
  }
  keys_[s].store(fill.key, std::memory_order_release);
  return true;
}

void PageCopies::Abandon(const Fill& fill) {
  MutexLock lock(&mu_);
  const uint64_t s = uint64_t(fill.slot);
  if (state_[s] == Slot::kFilling) Forget(s);
  FreeSlot(s);
}

void PageCopies::Unpublish(uint64_t s) {
  if (saved_) {  // the saved state goes before the slot can be reused
    saved_ = false;
    if (unsaved_) unsaved_();
  }
  keys_[s].store(0, std::memory_order_release);
}

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
  account_->ReleaseCopy(charge_[s]);
  free_bytes_(where_[s].load(std::memory_order_relaxed), charge_[s]);
  charge_[s] = 0;
  held_--;
}

void PageCopies::Invalidate(uint64_t file_id, bool readers_possible) {
  MutexLock lock(&mu_);
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
    MutexLock lock(&mu_);
    if (retired_.empty()) return;
    slots.swap(retired_);
  }
  wait_readers_();
  MutexLock lock(&mu_);
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
    MutexLock lock(&mu_);
    // The lowest Keep first (TinyLFU: the least frequent copies); ties by
    // slot, from where the last shrink stopped, so repeated shrinks do not
    // always hit the same sets.
    Undoom();
    evict_from_ = kProbation;
    std::vector<std::pair<uint64_t, uint64_t>> live;  // (Keep, distance from the hand)
    const uint64_t n = SlotCount();
    for (uint64_t s = 0; s < n; ++s) {
      if (state_[s] == Slot::kLive) live.emplace_back(Keep(s), (s + n - shrink_hand_) % n);
    }
    std::sort(live.begin(), live.end());
    uint64_t chosen = 0;
    for (const auto& [freq, distance] : live) {
      if (chosen >= bytes) break;
      const uint64_t s = (distance + shrink_hand_) % n;
      chosen += charge_[s];
      Dropped(s);
      Unpublish(s);
      Forget(s);
      state_[s] = Slot::kRetired;  // not reusable until readers are out
      victims.push_back(s);
      counters_.evicted++;
      counters_.shrunk++;
    }
    if (!victims.empty()) shrink_hand_ = (victims.back() + 1) % n;
  }
  if (victims.empty()) return 0;
  wait_readers_();
  MutexLock lock(&mu_);
  uint64_t freed = 0;
  for (uint64_t s : victims) {
    // OnMiss may have reused a victim meanwhile (for another page).
    if (state_[s] != Slot::kRetired) continue;
    freed += charge_[s];
    FreeSlot(s);
  }
  return freed;
}

void PageCopies::Clear() {
  MutexLock lock(&mu_);
  for (uint64_t s = 0; s < SlotCount(); ++s) {
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
  const uint64_t unit = key_unit();
  const uint64_t first = offset / unit, last = (offset + size - 1) / unit;
  uint64_t mass = 0;
  {
    MutexLock lock(&mu_);
    for (uint64_t p = first; p <= last; ++p) {
      const uint64_t key = Key(file_id, p);
      if (key == 0) continue;
      // A page seen once is no evidence (the doorkeeper's 1); reuse is.
      const uint32_t f = sketch_.Estimate(key);
      if (f >= 2) mass += f;
    }
  }
  reader->input_mass += double(mass);
  reader->input_bytes += (last - first + 1) * unit;
}

void PageCopies::NoteOutput(Reader* reader, uint64_t file_id, uint64_t offset, uint64_t size) {
  if (size == 0 || config_.slots == 0 || reader->input_bytes == 0) return;
  // The input this write consumed, in proportion to its bytes, and its
  // frequency per page: what each output page it completes inherits. A page
  // is complete once its last byte is written (table files are written in
  // order): pages [offset / page, end / page).
  const double used = std::min(1.0, double(size) / double(reader->input_bytes));
  const double mass = reader->input_mass * used;
  const uint64_t unit = key_unit();
  const double per_page = mass / (double(reader->input_bytes) * used) * double(unit);
  reader->input_mass -= mass;
  reader->input_bytes -= uint64_t(double(reader->input_bytes) * used);
  if (mass <= 0) return;
  // At least one sighting: the output of reused input needs one read to be
  // copied, not two; more if the input was hotter on average.
  const uint32_t count = std::max<uint32_t>(1, uint32_t(per_page + 0.5));
  MutexLock lock(&mu_);
  for (uint64_t p = offset / unit; p < (offset + size) / unit; ++p) {
    const uint64_t key = Key(file_id, p);
    if (key == 0) continue;
    sketch_.Raise(key, count);
    counters_.inherited++;
  }
}

// ------------------------------------------------------------ the copy policy

bool PageCopies::Admits(const Policy::CopyCandidate& candidate,
                        const Policy::CopyCandidate* victim) {
  return config_.policy != CopyPolicy::kTinyLfu || policy_->AdmitCopy(candidate, victim);
}

uint64_t PageCopies::SetUsed(uint64_t set) const {
  uint64_t used = 0;
  for (uint64_t s = set * ways_; s < (set + 1) * ways_; ++s) {
    if (state_[s] != Slot::kFree) used += charge_[s];
  }
  return used;
}

void PageCopies::Undoom() {
  for (uint64_t s : doomed_) doomed_flag_[s] = 0;
  doomed_.clear();
}

void PageCopies::Doom(uint64_t s) {
  if (doomed_flag_[s]) return;
  doomed_flag_[s] = 1;
  doomed_.push_back(s);
}

void PageCopies::Prepare(uint64_t set, uint64_t bytes) {
  Undoom();
  evict_from_ = kProbation;
  const uint64_t first = set * ways_, end = first + ways_;
  // The oldest live copy of queue q in the set, -1 if none.
  auto oldest = [&](Queue q) {
    mu_.AssertHeld();  // run here, under it
    int64_t o = -1;
    for (uint64_t s = first; s < end; ++s) {
      if (state_[s] == Slot::kLive && queue_[s] == q && (o < 0 || stamp_[s] < stamp_[uint64_t(o)])) {
        o = int64_t(s);
      }
    }
    return o;
  };
  if (config_.policy == CopyPolicy::kWTinyLfu) {
    // The new copy enters the window (1% of the set); while the window then
    // holds more, its oldest copy leaves it: to main if it was read more
    // often than main's least frequent copy (not doomed yet), which is then
    // doomed, else doomed itself. The doomed go first (Keep).
    uint64_t window = bytes;
    for (uint64_t s = first; s < end; ++s) {
      if (state_[s] == Slot::kLive && queue_[s] == kProbation) window += charge_[s];
    }
    const uint64_t limit = SetLimit(set) / 100;
    while (window > limit) {
      int64_t c = -1;
      for (uint64_t s = first; s < end; ++s) {
        if (state_[s] == Slot::kLive && queue_[s] == kProbation && !doomed_flag_[s] &&
            (c < 0 || stamp_[s] < stamp_[uint64_t(c)])) {
          c = int64_t(s);
        }
      }
      if (c < 0) break;  // the window holds only the new copy
      int64_t v = -1;
      uint32_t v_freq = 0;
      for (uint64_t s = first; s < end; ++s) {
        if (state_[s] != Slot::kLive || queue_[s] != kMain || doomed_flag_[s]) continue;
        const uint32_t f = sketch_.Estimate(owner_[s]);
        if (v < 0 || f < v_freq) {
          v = int64_t(s);
          v_freq = f;
        }
      }
      window -= charge_[uint64_t(c)];
      if (v < 0 || sketch_.Estimate(owner_[uint64_t(c)]) > v_freq) {
        queue_[uint64_t(c)] = kMain;
        stamp_[uint64_t(c)] = ++clock_;
        if (v >= 0) Doom(uint64_t(v));
      } else {
        Doom(uint64_t(c));
      }
    }
    return;
  }
  if (config_.policy != CopyPolicy::kS3Fifo) return;
  // S3-FIFO drops from the small FIFO while it holds 10% of the set or
  // more (or main is empty), else from main. Small's oldest copy moves to
  // main if it was read there; main's oldest is reinserted if it was read
  // since its last pass, one read forgotten. The first unread oldest is the
  // one that goes (Keep puts it first). Each pass either moves a copy out of
  // small or takes a read from it: at most 4 per copy.
  uint64_t small = 0;
  for (uint64_t s = first; s < end; ++s) {
    if (state_[s] == Slot::kLive && queue_[s] == kProbation) small += charge_[s];
  }
  Queue q = small * 10 >= SetLimit(set) || oldest(kMain) < 0 ? kProbation : kMain;
  for (uint64_t pass = 0; pass < 4 * (end - first); ++pass) {
    if (q == kProbation && oldest(kProbation) < 0) q = kMain;
    const int64_t o = oldest(q);
    if (o < 0 || reuse_[uint64_t(o)] == 0) break;
    const uint64_t s = uint64_t(o);
    if (q == kProbation) {
      queue_[s] = kMain;
      reuse_[s] = 0;
    } else {
      reuse_[s]--;
    }
    stamp_[s] = ++clock_;
  }
  evict_from_ = q;
}

Policy::CopyCandidate PageCopies::CandidateOf(uint64_t s) const {
  Policy::CopyCandidate c;
  c.file_id = FileOf(owner_[s]);
  c.page = PageOf(owner_[s]);
  c.level = level_[s];
  c.kind = FileKind(kind_[s]);
  c.frequency = sketch_.Estimate(owner_[s]);
  return c;
}

uint64_t PageCopies::Keep(uint64_t s) const {
  constexpr uint64_t kLater = 1ull << 61, kLast = 1ull << 62;
  switch (config_.policy) {
    case CopyPolicy::kTinyLfu:
      if (ranks_) return uint64_t(std::clamp(policy_->CopyValue(CandidateOf(s)), 0.0, 1e12) * 1e6);
      break;
    case CopyPolicy::kWTinyLfu:
      if (doomed_flag_[s]) return 0;
      // Main by frequency; the window's copies go last.
      return queue_[s] == kMain ? 1 + sketch_.Estimate(owner_[s]) : kLast + stamp_[s];
    case CopyPolicy::kS3Fifo:
      // The unread of the queue being dropped from, oldest first; then
      // the other unread; then the read.
      if (reuse_[s] == 0) return (queue_[s] == evict_from_ ? 1 : kLater) + stamp_[s];
      return kLast + stamp_[s];
  }
  return sketch_.Estimate(owner_[s]);
}

void PageCopies::Dropped(uint64_t s) {
  if (config_.policy != CopyPolicy::kS3Fifo || queue_[s] != kProbation || reuse_[s] != 0) return;
  // Remembered as a ghost in the ring's next place; the key it held goes
  // unless it was remembered again since.
  const uint64_t at = ghost_next_++ % ghost_ring_.size();
  const uint64_t old = ghost_ring_[at];
  auto it = ghosts_.find(old);
  if (old != 0 && it != ghosts_.end() && it->second == at) ghosts_.erase(it);
  ghost_ring_[at] = owner_[s];
  ghosts_[owner_[s]] = at;
}

uint64_t PageCopies::ChargedBytes() const {
  MutexLock lock(&mu_);
  uint64_t n = 0;
  for (uint64_t s = 0; s < SlotCount(); ++s) n += state_[s] != Slot::kFree ? charge_[s] : 0;
  return n;
}

uint64_t PageCopies::TakeWantedBytes() {
  MutexLock lock(&mu_);
  const uint64_t w = wanted_;
  wanted_ = 0;
  return w;
}

uint64_t PageCopies::TakeAdmittedBytes() {
  MutexLock lock(&mu_);
  const uint64_t a = admitted_;
  admitted_ = 0;
  return a;
}

PageCopies::Counters PageCopies::counters() const {
  MutexLock lock(&mu_);
  Counters c = counters_;
  c.used_slots = held_;
  return c;
}

}  // namespace tierfs
