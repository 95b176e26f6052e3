// Hot-page copies across a restart: PageCopies::SaveState and RestoreState,
// and the admission sketch's bytes (engine/page_copies.h says when a saved
// state stands). The owner (env/hot_pages.h) keeps the bytes in a file of
// its own, checksummed; this is their layout, every integer little-endian:
//
//   fixed64 version (1)
//   fixed64 page, slots; u8 blocks, u8 copy policy
//   fixed64 clock (the copy policy's admission count)
//   fixed64 files, then per file:  fixed64 id, size
//   fixed64 copies, then per copy: fixed64 slot, key, where, extent, charge,
//                                  stamp, the owner's tag; fixed32 level + 1;
//                                  u8 kind, queue, reuse
//   the sketch: fixed64 additions, width, door words; the counters (bytes);
//                                  the door (fixed64 words)
//
// S3-FIFO's ghosts (keys dropped unread) are not kept: after a restart the
// copy policy starts without them.
#include <zlib.h>

#include <algorithm>

#include "engine/page_copies.h"
#include "util/coding.h"

namespace tierfs {

namespace {
constexpr uint64_t kStateVersion = 1;
constexpr char kStateMagic[8] = {'T', 'F', 'S', 'P', 'A', 'G', 'E', 'S'};

uint32_t Crc(const std::string& bytes) {
  return uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size())));
}

// The header's fields (SaveState's order) and the file list after them.
bool ReadHeader(ByteReader* in, uint64_t* version, uint64_t* page, uint64_t* slots, uint8_t* blocks,
                uint8_t* policy, uint64_t* clock, PageCopies::FileSizes* files) {
  uint64_t n = 0;
  if (!in->U64(version) || !in->U64(page) || !in->U64(slots) || !in->U8(blocks) ||
      !in->U8(policy) || !in->U64(clock) || !in->U64(&n) || n > in->left() / 16) {
    return false;
  }
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t id = 0, size = 0;
    in->U64(&id);
    in->U64(&size);
    (*files)[id] = size;
  }
  return true;
}
}  // namespace

std::string PageCopies::StateFileBytes(const std::string& state) {
  std::string out(kStateMagic, sizeof(kStateMagic));
  PutFixed32(&out, Crc(state));
  return out + state;
}

bool PageCopies::StateFromFileBytes(const std::string& bytes, std::string* state,
                                    std::string* why) {
  if (bytes.size() < sizeof(kStateMagic) + 4 ||
      bytes.compare(0, sizeof(kStateMagic), kStateMagic, sizeof(kStateMagic)) != 0) {
    *why = "not a saved copy state";
    return false;
  }
  state->assign(bytes, sizeof(kStateMagic) + 4, std::string::npos);
  if (Crc(*state) != GetFixed32(bytes.data() + sizeof(kStateMagic))) {
    *why = "its checksum does not match";
    return false;
  }
  return true;
}

bool PageCopies::SavedFiles(const std::string& state, FileSizes* files) {
  ByteReader in(state.data(), state.size());
  uint64_t version = 0, page = 0, slots = 0, clock = 0;
  uint8_t blocks = 0, policy = 0;
  return ReadHeader(&in, &version, &page, &slots, &blocks, &policy, &clock, files) &&
         version == kStateVersion;
}

void FrequencySketch::AppendTo(std::string* out) const {
  PutFixed64(out, additions_);
  PutFixed64(out, width_mask_ + 1);
  PutFixed64(out, door_.size());
  out->append(reinterpret_cast<const char*>(counters_.data()), counters_.size());
  for (uint64_t w : door_) PutFixed64(out, w);
}

bool FrequencySketch::ReadFrom(ByteReader* in) {
  uint64_t additions = 0, width = 0, words = 0;
  if (!in->U64(&additions) || !in->U64(&width) || !in->U64(&words)) return false;
  if (width != width_mask_ + 1 || words != door_.size() || additions >= sample_) return false;
  std::vector<uint8_t> counters(counters_.size());
  if (!in->Bytes(counters.size(), reinterpret_cast<char*>(counters.data()))) return false;
  std::vector<uint64_t> door(words);
  for (uint64_t& w : door) {
    if (!in->U64(&w)) return false;
  }
  for (uint8_t c : counters) {
    if (c > kMax) return false;
  }
  additions_ = additions;
  counters_ = std::move(counters);
  door_ = std::move(door);
  return true;
}

bool PageCopies::SaveState(const FileSizes& files,
                           const std::function<bool(const std::string&)>& write,
                           const std::function<uint64_t(uint64_t)>& tag) {
  MutexLock lock(&mu_);
  std::string out;
  PutFixed64(&out, kStateVersion);
  PutFixed64(&out, config_.page);
  PutFixed64(&out, config_.slots);
  out.push_back(char(config_.blocks ? 1 : 0));
  out.push_back(char(config_.policy));
  PutFixed64(&out, clock_);
  std::vector<uint64_t> live;
  FileSizes kept;
  for (uint64_t s = 0; s < sets_ * ways_; ++s) {
    if (state_[s] != Slot::kLive) continue;
    auto f = files.find(FileOf(owner_[s]));
    if (f == files.end()) continue;  // not sealed at the save (being rewritten): not kept
    live.push_back(s);
    kept.insert(*f);
  }
  PutFixed64(&out, kept.size());
  for (const auto& [id, size] : kept) {
    PutFixed64(&out, id);
    PutFixed64(&out, size);
  }
  PutFixed64(&out, live.size());
  for (uint64_t s : live) {
    PutFixed64(&out, s);
    PutFixed64(&out, owner_[s]);
    PutFixed64(&out, where_[s].load(std::memory_order_relaxed));
    PutFixed64(&out, extent_[s].load(std::memory_order_relaxed));
    PutFixed64(&out, charge_[s]);
    PutFixed64(&out, stamp_[s]);
    PutFixed64(&out, tag ? tag(s) : 0);
    PutFixed32(&out, uint32_t(level_[s] + 1));
    out.push_back(char(kind_[s]));
    out.push_back(char(queue_[s]));
    out.push_back(char(reuse_[s]));
  }
  sketch_.AppendTo(&out);
  saved_ = write(out);
  return saved_;
}

bool PageCopies::RestoreState(const std::string& bytes, const FileSizes& now, uint64_t* restored,
                              std::string* why,
                              const std::function<bool(uint64_t, uint64_t, uint64_t)>& accept) {
  MutexLock lock(&mu_);
  *restored = 0;
  ByteReader in(bytes.data(), bytes.size());
  auto bad = [&](const std::string& what) {
    *why = what;
    return false;
  };
  uint64_t version = 0, page = 0, slots = 0, clock = 0, n_copies = 0;
  uint8_t blocks = 0, policy = 0;
  FileSizes files;
  const bool whole = ReadHeader(&in, &version, &page, &slots, &blocks, &policy, &clock, &files);
  if (version != kStateVersion) return bad("unknown version");
  if (!whole) return bad("truncated header or file list");
  if (page != config_.page || slots != config_.slots || (blocks != 0) != config_.blocks ||
      policy != uint8_t(config_.policy)) {
    return bad("saved with another configuration (page " + std::to_string(page) + ", slots " +
               std::to_string(slots) + ", " + (blocks ? "blocks" : "pages") + ", copy policy " +
               std::to_string(policy) + ")");
  }
  struct Saved {
    uint64_t slot, key, where, extent, charge, stamp, tag;
    uint32_t level;
    uint8_t kind, queue, reuse;
  };
  constexpr uint64_t kEntryBytes = 7 * 8 + 4 + 3;
  if (!in.U64(&n_copies) || n_copies > in.left() / kEntryBytes) return bad("truncated copy list");
  std::vector<Saved> saved(n_copies);
  for (Saved& e : saved) {
    in.U64(&e.slot);
    in.U64(&e.key);
    in.U64(&e.where);
    in.U64(&e.extent);
    in.U64(&e.charge);
    in.U64(&e.stamp);
    in.U64(&e.tag);
    in.U32(&e.level);
    in.U8(&e.kind);
    in.U8(&e.queue);
    in.U8(&e.reuse);
  }
  FrequencySketch sketch = sketch_;
  if (!sketch.ReadFrom(&in) || !in.Done()) return bad("malformed sketch");
  // Every copy where the copies would have put it: its slot in its key's
  // set, its bytes in the set's share of the file (blocks: no two
  // overlapping), charged what it holds.
  std::vector<uint8_t> taken(sets_ * ways_, 0);
  std::vector<std::pair<uint64_t, uint64_t>> extents;  // blocks: [where, where + charge)
  for (const Saved& e : saved) {
    const uint64_t set = e.key ? SetOf(e.key) : 0;
    const bool in_set = e.slot < SlotCount() && e.key != 0 && e.slot / ways_ == set;
    bool placed;
    if (config_.blocks) {
      const uint64_t length = e.extent & kLengthMask;
      placed = e.charge > 0 && e.where >= set * set_bytes_ &&
               e.where + e.charge <= set * set_bytes_ + SetLimit(set) && length > 0 &&
               length <= e.charge && (e.extent >> 20) / kBlockUnit == PageOf(e.key);
      extents.emplace_back(e.where, e.where + e.charge);
    } else {
      placed = e.where == e.slot * config_.page && e.charge == config_.page && e.extent == 0;
    }
    if (!in_set || !placed || taken[e.slot] || e.queue > kProbation || e.reuse > 3 ||
        e.stamp > clock || files.count(FileOf(e.key)) == 0) {
      return bad("copy in slot " + std::to_string(e.slot) + " is malformed");
    }
    taken[e.slot] = 1;
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i].first < extents[i - 1].second) return bad("overlapping block copies");
  }
  // The state is sound: take back each copy whose file is as it was.
  for (const Saved& e : saved) {
    const uint64_t file = FileOf(e.key), size = files[file];
    const uint64_t end = config_.blocks ? (e.extent >> 20) + (e.extent & kLengthMask)
                                        : PageOf(e.key) * config_.page + 1;
    auto it = now.find(file);
    if (end > size || it == now.end() || it->second != size ||
        (accept && !accept(e.slot, e.where, e.tag)) || !account_->TryChargeCopy(e.charge, 0)) {
      continue;
    }
    const uint64_t s = e.slot;
    state_[s] = Slot::kLive;
    owner_[s] = e.key;
    level_[s] = int32_t(e.level) - 1;
    kind_[s] = e.kind;
    charge_[s] = e.charge;
    queue_[s] = e.queue;
    reuse_[s] = e.reuse;
    stamp_[s] = e.stamp;
    held_++;
    by_file_[file].insert(s);
    where_[s].store(e.where, std::memory_order_relaxed);
    extent_[s].store(e.extent, std::memory_order_relaxed);
    keys_[s].store(e.key, std::memory_order_release);
    ++*restored;
  }
  sketch_ = std::move(sketch);
  clock_ = clock;
  // The copy file's bytes no copy holds now.
  if (config_.blocks) {
    for (uint64_t set = 0; set < sets_; ++set) {
      std::vector<std::pair<uint64_t, uint64_t>> held;
      for (uint64_t s = set * ways_; s < (set + 1) * ways_; ++s) {
        if (state_[s] == Slot::kLive) {
          const uint64_t w = where_[s].load(std::memory_order_relaxed);
          held.emplace_back(w, w + charge_[s]);
        }
      }
      std::sort(held.begin(), held.end());
      uint64_t at = set * set_bytes_;
      for (const auto& [b, e] : held) {
        if (b > at) free_bytes_(at, b - at);
        at = e;
      }
      const uint64_t end = set * set_bytes_ + SetLimit(set);
      if (end > at) free_bytes_(at, end - at);
    }
  } else {
    for (uint64_t s = 0; s < SlotCount(); ++s) {
      if (state_[s] != Slot::kLive) free_bytes_(s * config_.page, config_.page);
    }
  }
  return true;
}

void PageCopies::SetUnsavedHook(std::function<void()> hook) {
  MutexLock lock(&mu_);
  unsaved_ = std::move(hook);
}

bool PageCopies::saved() const {
  MutexLock lock(&mu_);
  return saved_;
}

}  // namespace tierfs
