// Hot-page copies: read copies, on tier 0, of hot pages of immutable files
// (SST, blob) whose homes are on slower tiers. Segment placement moves whole
// segments (64 KiB-1 MiB); the hot keys of common workloads are hashed over
// the key space, so a hot segment is mostly cold bytes. A page copy holds only
// what is read (../shared/fast-tier-research.md).
//
// The decisions live here, free of RocksDB, files and threads, so the live
// store (env/) and the simulator (tools/sim/) make the same ones; the owner
// moves the bytes. The cache is set-associative, as flash caches are
// (CacheLib's BigHash): a page may live in one of kWays slots of its set, so a
// lookup reads at most kWays words and the directory is one flat array.
//
//   - Admission and eviction (CopyPolicy, <tierfs/page_copies.h>). The
//     default, TinyLFU (Einziger et al., ACM ToS 2017): every access to a
//     page of a candidate file counts in a frequency sketch that halves
//     itself periodically; a missed page is admitted only if it was read
//     before, and more often than the copy it would replace (the policy may
//     decide otherwise: Policy::AdmitCopy). Scans, compaction input (never
//     counted) and one-time reads never fill the cache. W-TinyLFU and
//     S3-FIFO, the field's baselines, run set by set on the same slots: a
//     copy is in the main part of its set or on probation (W-TinyLFU's
//     window, S3-FIFO's small FIFO), and a miss that needs room first lets
//     the rule settle the set (Prepare); then the lowest Keep() goes.
//   - Eviction is dropping: a copy is never written back.
//   - Invalidation: the copies of a file go when it is deleted or opened for
//     writing.
//   - Across a restart (SaveState, RestoreState): the owner keeps the copies'
//     state beside the copy file at each save point and takes it back at the
//     next open, so a restart does not cool tier 0. The saved state stands
//     only while no saved copy has changed: the first copy unpublished after
//     a save calls the owner's unsaved hook, which removes the saved state
//     durably before that slot's bytes can be reused. A crash therefore finds
//     either a state that matches the copy file byte for byte, or none.
//   - Capacity: copies are charged to tier 0's account within their reserve
//     (engine/capacity.h), one page per slot in use (blocks: the bytes the
//     slot holds).
//   - Blocks (Config::blocks, the default): a copy is the block a read names
//     rather than a page; blocks share their set's bytes (PlaceBlock).
//
// Threads. Find() is lock-free and writes nothing shared: a reader finds a
// slot, reads it, and needs only that the slot is not reused meanwhile.
// Every change that takes a slot from one page to another or frees it first
// unpublishes it, then waits out readers (the owner's `wait_readers`, the
// store's ReadGate), then reuses it. Everything else is under mu_; hits are
// counted through a per-thread buffer (Reader) drained with try_lock, so
// a hit never waits for the lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agents/policy.h"
#include "engine/capacity.h"
#include "tierfs/page_copies.h"  // CopyPolicy
#include "util/mutex.h"

namespace tierfs {

// TinyLFU's frequency estimate (Einziger et al., ACM ToS 2017): a doorkeeper
// (a Bloom filter) that absorbs the first access of a key, and a count-min
// sketch (four counters per key, saturating at 15) that counts the later
// ones. Every 10 additions per expected key the counters halve and the doorkeeper
// clears, so old popularity fades. A key seen once estimates 1, unless the
// doorkeeper errs (about 0.5%). Not thread-safe.
class ByteReader;

class FrequencySketch {
 public:
  // `expected`: about how many distinct keys matter (the cache's slots).
  explicit FrequencySketch(uint64_t expected);
  void Add(uint64_t key);
  uint32_t Estimate(uint64_t key) const;
  // Raises the key's count to at least `count` (saturating), as if it had
  // been seen that often: a compaction output page inheriting its input's.
  void Raise(uint64_t key, uint32_t count);
  // The sketch as bytes, and back: ReadFrom takes only a sketch of the same
  // dimensions (the same `expected`), else returns false and changes nothing.
  void AppendTo(std::string* out) const;
  bool ReadFrom(ByteReader* in);

 private:
  static constexpr int kRows = 4;
  static constexpr int kDoorHashes = 3;
  static constexpr uint8_t kMax = 15;
  static constexpr uint64_t kCountersPerKey = 16;
  void Reset();
  bool InDoor(uint64_t key) const;
  std::vector<uint8_t> counters_;  // kRows rows of width_mask_ + 1
  uint64_t width_mask_ = 0;
  std::vector<uint64_t> door_;     // door_mask_ + 1 bits
  uint64_t door_mask_ = 0;
  uint64_t additions_ = 0, sample_ = 0;
};

// copy_policy's names: "tinylfu", "w-tinylfu", "s3-fifo".
const char* CopyPolicyName(CopyPolicy policy);
// False if `name` is none of them.
bool ParseCopyPolicy(const std::string& name, CopyPolicy* policy);

class PageCopies {
 public:
  // Ways per set: pages; blocks (Config::blocks), which are smaller than a
  // page and of any length, get more ways over a set's bytes.
  static constexpr int kWays = 16;
  static constexpr int kBlockWays = 64;
  // Blocks: the live copies of a full set ranked at a miss (a random
  // sample; PlaceBlock), and the Keep of those not ranked (yet).
  static constexpr int kRankSample = 8;
  static constexpr uint64_t kUnranked = ~0ull;
  // Blocks: the unit of their keys and of their space in a set.
  static constexpr uint64_t kBlockUnit = 512;
  // The device-model stream of the copies (DeviceModel::Schedule's `stream`).
  static constexpr uint64_t kStream = ~0ull;
  // The most file ids and pages a key can name (Key() returns 0 beyond).
  static constexpr int kPageBits = 24;
  static constexpr uint64_t kMaxFileId = (1ull << (64 - kPageBits)) - 2;

  struct Config {
    uint64_t page = 8 << 10;   // bytes per copy (pages); a set's bytes / kWays (blocks)
    uint64_t slots = 0;        // the most pages at once (the reserve / page)
    uint64_t headroom = 0;     // bytes of tier 0 a new copy leaves free
    // Copies of blocks instead of pages (PageCopyOptions::unit): a copy holds
    // exactly the bytes a read asked for (a RocksDB block: its offset and
    // length, up to kMaxBlock), keyed by the 512-byte unit it starts in, and
    // takes its length (in units) of its set's bytes, not a whole page. A
    // block straddling two pages costs a page copy both pages; a block copy
    // costs its own bytes (DESIGN.md, "Block copies").
    bool blocks = false;
    CopyPolicy policy = CopyPolicy::kTinyLfu;  // what is admitted and dropped
  };
  // The longest block a copy holds.
  static constexpr uint64_t kMaxBlock = 64 << 10;
  // `account` is tier 0's; `wait_readers` blocks until every read that began
  // before the call has ended; `free_bytes(offset, length)` is told of bytes
  // of the copy file that hold no copy any more (the store punches them; the
  // simulator has nothing to do).
  PageCopies(const Config& config, Policy* policy, CapacityAccount* account,
             std::function<void()> wait_readers,
             std::function<void(uint64_t, uint64_t)> free_bytes);
  PageCopies(const PageCopies&) = delete;
  PageCopies& operator=(const PageCopies&) = delete;

  uint64_t page() const { return config_.page; }
  uint64_t slots() const { return config_.slots; }
  bool blocks() const { return config_.blocks; }
  // The bytes one key names: a page, or a block's first unit.
  uint64_t key_unit() const { return config_.blocks ? kBlockUnit : config_.page; }
  // The bytes of tier 0 a new copy leaves free from now on (Config::headroom
  // at first; the engine's plans follow what new writes need).
  void SetHeadroom(uint64_t bytes) { headroom_.store(bytes, std::memory_order_relaxed); }
  // The key of page `page` of file `file_id`; 0 if the file id or the page
  // is beyond what a key holds (such pages are never copied).
  static uint64_t Key(uint64_t file_id, uint64_t page) {
    if (file_id > kMaxFileId || page >= (1ull << kPageBits)) return 0;
    return ((file_id + 1) << kPageBits) | page;
  }
  static uint64_t FileOf(uint64_t key) { return (key >> kPageBits) - 1; }
  static uint64_t PageOf(uint64_t key) { return key & ((1ull << kPageBits) - 1); }

  // ---- the read path: lock-free ----
  // The slot holding the page of `key`, -1 if none. A caller that reads the
  // slot must have begun its read (entered the store's ReadGate) before this
  // call: the slot then keeps this page until the read ends.
  int64_t Find(uint64_t key) const {
    if (key == 0 || config_.slots == 0) return -1;
    const uint64_t first = SetOf(key) * ways_;
    for (uint64_t s = first; s < first + ways_; ++s) {
      if (keys_[s].load(std::memory_order_acquire) == key) return int64_t(s);
    }
    return -1;
  }
  // Blocks: the slot holding block [offset, offset + length) of the file
  // `key` names (Key(file, offset / kBlockUnit)), -1 if none. A copy of a
  // longer block at the same offset serves a shorter read; one at another
  // offset in the same unit serves nothing. Same contract as Find.
  int64_t FindBlock(uint64_t key, uint64_t offset, uint64_t length) const {
    const int64_t s = Find(key);
    if (s < 0) return -1;
    const uint64_t e = extent_[uint64_t(s)].load(std::memory_order_relaxed);
    return (e >> 20) == offset && (e & kLengthMask) >= length ? s : -1;
  }
  // The set of `key`: its copy's bytes are in [set * kWays * page, + kWays *
  // page) of the copy file.
  uint64_t SetOf(uint64_t key) const;
  // Where slot `s`'s bytes are in the copy file. Valid while the slot is
  // found (after Find, within the read) or being filled (after OnMiss).
  uint64_t Where(int64_t s) const { return where_[uint64_t(s)].load(std::memory_order_relaxed); }
  // What one reading thread (a stream, in the simulator) tells the copies,
  // kept by that thread: the hits not yet added to the sketch, and the last
  // page it read. A read of the page the thread read just before is the same
  // visit (a scan of adjacent blocks), not reuse: it is not counted again.
  struct Reader {
    static constexpr uint32_t kSize = 32;
    uint64_t hits[kSize];
    uint32_t n = 0;
    uint64_t last = 0;
    // Compaction input read since the last output write: the sum of its
    // pages' frequencies, and its bytes (NoteInput, NoteOutput).
    double input_mass = 0;
    uint64_t input_bytes = 0;
  };
  // Heat that follows data through compaction. A compaction thread reads
  // its inputs (background reads, never counted as reuse) and writes its
  // outputs in key order, so the input pages it read since its last output
  // write hold the keys of the bytes it writes now. Each reader (thread)
  // carries that input's recent frequency (sketch estimates of the pages
  // read, as a density per byte) to the output pages it writes: their sketch
  // counts start where their input's stood, so a hot page is copied at its
  // first read after the compaction instead of its second.
  //
  // A background read of [offset, offset + size) of a table file.
  void NoteInput(Reader* reader, uint64_t file_id, uint64_t offset, uint64_t size) EXCLUDES(mu_);
  // A write of [offset, offset + size) of a table file being written: the
  // pages it completes inherit the input's density, and what they took is
  // used up. Flushes (no input read) inherit nothing.
  void NoteOutput(Reader* reader, uint64_t file_id, uint64_t offset, uint64_t size) EXCLUDES(mu_);

  // Counts a hit. Buffered in the reader, added to the sketch when the
  // buffer is full, if the lock is free (else the counts are dropped: the
  // sketch is approximate anyway).
  void NoteHit(Reader* reader, uint64_t key) EXCLUDES(mu_);

  // ---- a miss ----
  // A copy to make: the owner copies the page's bytes into `slot` (after
  // waiting out readers if `wait`: the slot held another page), then calls
  // Publish; or Abandon if the copy failed.
  struct Fill {
    int64_t slot = -1;  // -1: nothing to copy
    uint64_t key = 0;
    bool wait = false;
    uint64_t where = 0;   // where the bytes go in the copy file
    uint64_t offset = 0;  // blocks: the block's offset in its file, and its length
    uint64_t length = 0;
  };
  // A user read of `page` missed tier 0. Counts the access and decides
  // whether to copy it. `blocking`: wait for the lock (the simulator, tests);
  // otherwise a busy lock means no decision this time.
  // `reader`: the reading thread's state (nullptr: count every read).
  Fill OnMiss(const Policy::CopyCandidate& page, bool blocking, Reader* reader = nullptr) EXCLUDES(mu_);
  // Blocks: a user read of block [offset, offset + length) of a file missed
  // tier 0 (`block.page` is ignored: the key is the offset's unit). The owner
  // copies the block's bytes to `Fill::where`.
  Fill OnMissBlock(const Policy::CopyCandidate& block, uint64_t offset, uint64_t length,
                   bool blocking, Reader* reader = nullptr) EXCLUDES(mu_);
  // The slot holds the page's bytes: readers may find it. False if the file
  // was invalidated meanwhile (the slot is freed, nothing published).
  bool Publish(const Fill& fill) EXCLUDES(mu_);
  void Abandon(const Fill& fill) EXCLUDES(mu_);

  // Forgets the copies of file `file_id` (deleted, or opened for writing):
  // readers no longer find them when this returns. `readers_possible`: a
  // reader may still be reading one (the file has open handles), so their
  // slots wait for Reclaim; otherwise they are freed at once.
  void Invalidate(uint64_t file_id, bool readers_possible) EXCLUDES(mu_);
  // Frees the slots Invalidate left (waits out readers once if there are).
  void Reclaim() EXCLUDES(mu_);
  // Drops copies, least frequent first, until `bytes` of tier 0 are released
  // or none is left; returns the bytes released. For a home that has
  // nowhere else to go.
  uint64_t Shrink(uint64_t bytes) EXCLUDES(mu_);
  // Forgets every copy (before the store's close; nothing is written).
  void Clear() EXCLUDES(mu_);

  // ---- across a restart (engine/page_copies_saved.cc) ----
  // The sizes of the files whose copies may be saved, by file id: a copy is
  // saved only if its file is listed, and restored only if its file is still
  // there, sealed, with the same size (the owner's `file_ok`).
  using FileSizes = std::unordered_map<uint64_t, uint64_t>;
  // Encodes the live copies (each one's key, bytes in the copy file, level,
  // kind and place in the copy policy), their files' sizes and the admission
  // sketch, and hands the bytes to `write`, under the lock: no copy can be
  // unpublished between the encoding and the write. If `write` returns true
  // the copies are saved (saved()) until the first copy is unpublished,
  // which first calls the unsaved hook. Returns what `write` returned.
  // `tag(slot)`, if given, is the owner's word for each copy (the live
  // store's: its bytes' checksum and length), kept with it.
  bool SaveState(const FileSizes& files, const std::function<bool(const std::string&)>& write,
                 const std::function<uint64_t(uint64_t slot)>& tag = nullptr) EXCLUDES(mu_);
  // At open, before any reader: takes back the copies SaveState encoded in
  // `bytes` whose file is in `files` with the size it had at the save, and
  // whose bytes tier 0's account can charge; *restored counts them. False
  // (nothing restored, *why says what) if the bytes are malformed or were
  // saved under another configuration (page, slots, unit, copy policy). The
  // bytes of the copy file that no restored copy holds go to `free_bytes`,
  // so the owner must have removed the saved state first. The copies are
  // not saved() after it: the owner saves them again. `accept(slot, where,
  // tag)`, if given, must also take each copy (the live store reads its
  // bytes and checks them against the tag).
  bool RestoreState(const std::string& bytes, const FileSizes& files, uint64_t* restored,
                    std::string* why,
                    const std::function<bool(uint64_t slot, uint64_t where, uint64_t tag)>&
                        accept = nullptr) EXCLUDES(mu_);
  // The saved state's file (the owner's PAGES.state; the simulator reads
  // one): the magic "TFSPAGES", the CRC-32 of the state, the state.
  static std::string StateFileBytes(const std::string& state);
  // The state in a file's bytes; false and *why if they are not a saved copy
  // state or fail their checksum.
  static bool StateFromFileBytes(const std::string& bytes, std::string* state, std::string* why);
  // The files a state kept copies of, with their sizes at the save; false
  // if the state is malformed.
  static bool SavedFiles(const std::string& state, FileSizes* files);
  // Every slot index is below this.
  uint64_t slot_limit() const { return sets_ * ways_; }
  // `hook` runs, under the copies' lock, when a copy is unpublished while the
  // copies are saved: the owner removes the saved state, durably, there.
  void SetUnsavedHook(std::function<void()> hook) EXCLUDES(mu_);
  bool saved() const EXCLUDES(mu_);

  // Bytes of pages the policy would have copied but tier 0 had no room for
  // (homes filled it) since the last call: what the copies ask the
  // placement engine to free (PlacementEngine::Plan demotes cold homes).
  uint64_t TakeWantedBytes() EXCLUDES(mu_);
  // Bytes of pages admitted since the last call: how fast the copies grow.
  uint64_t TakeAdmittedBytes() EXCLUDES(mu_);
  // The copies' reserve they do not hold yet, and the bytes they hold
  // (engine/capacity.h).
  uint64_t reserve_left() const { return account_->copy_reserve_left(); }
  uint64_t used_bytes() const { return account_->copy_used(); }

  // Bytes charged to tier 0 now, counted slot by slot (live, being filled,
  // or waiting out readers): what an audit checks the account against.
  uint64_t ChargedBytes() const EXCLUDES(mu_);

  struct Counters {
    uint64_t hits = 0, misses = 0, admitted = 0, rejected = 0, evicted = 0, invalidated = 0;
    uint64_t no_room = 0;  // admitted by the policy, but tier 0 was full
    uint64_t shrunk = 0;   // of `evicted`, dropped by Shrink for homes
    uint64_t inherited = 0;  // output pages given their input's frequency
    uint64_t used_slots = 0;  // copies held (pages or blocks)
  };
  Counters counters() const EXCLUDES(mu_);

 private:
  enum class Slot : uint8_t {
    kFree,      // uncharged, no page
    kFilling,   // charged, reserved for keys_owner_[s], being copied
    kCanceled,  // kFilling whose file was invalidated: freed at Publish/Abandon
    kLive,      // charged, published
    kRetired,   // charged, unpublished, a reader may still read it: Reclaim frees it
  };
  static constexpr uint64_t kLengthMask = (1ull << 20) - 1;
  uint64_t SlotCount() const;              // the slots that may hold a copy
  uint64_t SetLimit(uint64_t set) const;   // blocks: the bytes of set `set`
  // Blocks: where in set `set` a block of `bytes` (whole units) goes; fills
  // `fill` and returns true, or false (counted) if nowhere is worth it.
  bool PlaceBlock(uint64_t set, const Policy::CopyCandidate& candidate, uint64_t bytes,
                  Fill* fill) REQUIRES(mu_);
  // The start of either miss: a read of the key the reader read just before
  // is the same visit (false); otherwise takes mu_ (waits only if
  // `blocking`, else false when busy), counts the access and returns true
  // with mu_ held.
  bool BeginMiss(uint64_t key, bool blocking, Reader* reader) TRY_ACQUIRE(true, mu_);
  // The decisions of OnMiss and OnMissBlock once BeginMiss has counted the
  // access.
  Fill PageMiss(const Policy::CopyCandidate& page, uint64_t key) REQUIRES(mu_);
  Fill BlockMiss(const Policy::CopyCandidate& block, uint64_t key, uint64_t offset,
                 uint64_t length) REQUIRES(mu_);
  // Takes slot `s` for `key` (being filled).
  void Take(uint64_t s, uint64_t key, const Policy::CopyCandidate& c, Fill* fill) REQUIRES(mu_);
  void Count(uint64_t key) REQUIRES(mu_) { sketch_.Add(key); }
  void FreeSlot(uint64_t s) REQUIRES(mu_);     // charged -> kFree
  void Unpublish(uint64_t s) REQUIRES(mu_);    // kLive -> no longer findable
  void Forget(uint64_t s) REQUIRES(mu_);       // drop from by_file_
  void DrainHits(Reader* reader) REQUIRES(mu_);

  // ---- the copy policy (Config::policy) ----
  // Where a copy is in its set: TinyLFU has only kMain.
  enum Queue : uint8_t { kMain = 0, kProbation = 1 };
  // The policy admits `candidate` over `victim` (nullptr: into room).
  // TinyLFU asks the policy; the others admit every miss.
  bool Admits(const Policy::CopyCandidate& candidate, const Policy::CopyCandidate* victim)
      REQUIRES(mu_);
  // A miss needs `bytes` of set `set` and the set has fewer free: the
  // rule's own steps before a victim is chosen (W-TinyLFU's duels of the
  // window's oldest with main's least frequent; S3-FIFO's promotions and
  // reinsertions up to the copy it drops).
  void Prepare(uint64_t set, uint64_t bytes) REQUIRES(mu_);
  // W-TinyLFU's losers of this miss's duels go first.
  void Doom(uint64_t s) REQUIRES(mu_);
  void Undoom() REQUIRES(mu_);
  // The order in which live copies go, lowest first (TinyLFU: the sketch's
  // frequency).
  uint64_t Keep(uint64_t s) const REQUIRES(mu_);
  // What live slot `s` holds, as the policy is asked about it.
  Policy::CopyCandidate CandidateOf(uint64_t s) const REQUIRES(mu_);
  // About how many distinct keys matter: the sketch's width, the capacity a
  // ranking policy is told. Blocks are smaller than a page: about one per
  // 4 KiB of the reserve.
  static uint64_t SketchKeys(const Config& config) {
    return config.blocks ? config.slots * config.page / (4 << 10) : config.slots;
  }
  // Live slot `s` is dropped to make room (S3-FIFO remembers a copy never
  // read on probation as a ghost).
  void Dropped(uint64_t s) REQUIRES(mu_);
  // The bytes set `set`'s slots hold now.
  uint64_t SetUsed(uint64_t set) const REQUIRES(mu_);

  const Config config_;
  std::atomic<uint64_t> headroom_;  // SetHeadroom
  Policy* const policy_;
  CapacityAccount* const account_;
  const std::function<void()> wait_readers_;
  const std::function<void(uint64_t, uint64_t)> free_bytes_;
  // The policy ranks the copies (Policy::RanksCopies; TinyLFU only).
  const bool ranks_;
  const uint64_t ways_;       // kWays or kBlockWays
  const uint64_t sets_;
  const uint64_t set_bytes_;  // a set's share of the copy file
  // The directory, read lock-free: the key of the live page of each slot, 0
  // if none. Written under mu_.
  const std::unique_ptr<std::atomic<uint64_t>[]> keys_;
  // Per slot, read lock-free with keys_: where its bytes are in the copy file
  // (pages: fixed), and (blocks) the block it holds, offset << 20 | length.
  // Written under mu_ only while the slot cannot be found.
  const std::unique_ptr<std::atomic<uint64_t>[]> where_;
  const std::unique_ptr<std::atomic<uint64_t>[]> extent_;

  mutable Mutex mu_;
  FrequencySketch sketch_ GUARDED_BY(mu_);
  std::vector<uint64_t> owner_ GUARDED_BY(mu_);  // the key a slot holds or fills
  std::vector<Slot> state_ GUARDED_BY(mu_);
  std::vector<int32_t> level_ GUARDED_BY(mu_);  // the owner's file level (victims)
  std::vector<uint8_t> kind_ GUARDED_BY(mu_);
  std::vector<uint64_t> charge_ GUARDED_BY(mu_);  // bytes charged (slot not free)
  uint64_t held_ GUARDED_BY(mu_) = 0;  // slots not free
  std::unordered_map<uint64_t, std::unordered_set<uint64_t>> by_file_ GUARDED_BY(mu_);
  std::vector<uint64_t> retired_ GUARDED_BY(mu_);
  uint64_t shrink_hand_ GUARDED_BY(mu_) = 0;  // where Shrink starts among ties
  Counters counters_ GUARDED_BY(mu_);  // hits as drained (approximate)
  uint64_t wanted_ GUARDED_BY(mu_) = 0;  // TakeWantedBytes
  uint64_t admitted_ GUARDED_BY(mu_) = 0;  // TakeAdmittedBytes
  // Per slot, for W-TinyLFU and S3-FIFO: its Queue, the reads since it was
  // admitted or last passed over (S3-FIFO, at most 3; counted as hits are
  // drained, so a live store whose lock was busy misses some, as the sketch
  // does), and when it entered its queue (admissions so far: FIFO order).
  std::vector<uint8_t> queue_ GUARDED_BY(mu_);
  std::vector<uint8_t> reuse_ GUARDED_BY(mu_);
  std::vector<uint64_t> stamp_ GUARDED_BY(mu_);
  uint64_t clock_ GUARDED_BY(mu_) = 0;
  uint64_t rank_draws_ GUARDED_BY(mu_) = 0;  // PlaceBlock's sample (SplitMix64's state)
  // W-TinyLFU: the losers of this miss's duels (slots), and a flag per slot.
  std::vector<uint64_t> doomed_ GUARDED_BY(mu_);
  std::vector<uint8_t> doomed_flag_ GUARDED_BY(mu_);
  Queue evict_from_ GUARDED_BY(mu_) = kProbation;  // S3-FIFO's queue this miss drops from
  // S3-FIFO's ghosts: keys dropped from probation unread, as many as slots,
  // oldest forgotten first.
  std::unordered_map<uint64_t, uint64_t> ghosts_ GUARDED_BY(mu_);  // key -> its place in ghost_ring_
  std::vector<uint64_t> ghost_ring_ GUARDED_BY(mu_);
  uint64_t ghost_next_ GUARDED_BY(mu_) = 0;
  // SaveState's state stands for the copies (no copy unpublished since), and
  // what runs when that ends.
  bool saved_ GUARDED_BY(mu_) = false;
  std::function<void()> unsaved_ GUARDED_BY(mu_);
};

}  // namespace tierfs
