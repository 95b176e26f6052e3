#include "env/hot_pages.h"

#include <fcntl.h>
#include <zlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "env/posix_util.h"
#include "env/read_gate.h"
#include "util/coding.h"

namespace tierfs {

using rocksdb::IOStatus;

bool HotPages::ReadSavedState(const std::string& path, std::string* state, std::string* why) {
  why->clear();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) *why = "cannot open it: " + PosixError(path, errno).ToString();
    return false;
  }
  std::string bytes;
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = "cannot read it: " + PosixError(path, errno).ToString();
      close(fd);
      return false;
    }
    bytes.append(buf, size_t(n));
  }
  close(fd);
  return PageCopies::StateFromFileBytes(bytes, state, why);
}

HotPages::HotPages(Tier* tier0, std::string path, int fd)
    : tier0_(tier0), path_(std::move(path)), state_path_(path_ + ".state"), fd_(fd),
      instance_([] {
        static std::atomic<uint64_t> next{1};
        return next.fetch_add(1);
      }()) {}

HotPages::~HotPages() {
  // The charges go with the store; only the descriptor is ours. No reader is
  // left (the store is being destroyed). Saved copies stay for the next
  // open. Unsaved ones die with the store: their blocks go back now, so that
  // a store at rest holds no page that no state names (`tierfs check`
  // reports a PAGES file that holds some: its process ended without saving).
  // Best effort: the next open empties it anyway.
  if (!copies_->saved()) {
    RemoveFileDurably(state_path_).PermitUncheckedError();  // none, unless a save failed
    const int emptied = ftruncate(fd_, 0);
    (void)emptied;
  }
  close(fd_);
}

void HotPages::ForgetSaved() {
  IOStatus s = RemoveFileDurably(state_path_);
  if (!s.ok() && TruncatePath(state_path_, 0).ok() && SyncPath(state_path_).ok()) {
    return;  // an empty state is no state
  }
  if (!s.ok() && report_) {
    report_(IOStatus::IOError("removing the saved copies' state " + state_path_ +
                              " before a copy changed (a crash now could restore it)",
                              s.ToString()));
  }
}

IOStatus HotPages::Save(const PageCopies::FileSizes& files) {
  // No copy, nothing to keep: no state (and the destructor empties the file).
  if (copies_->counters().used_slots == 0) return RemoveFileDurably(state_path_);
  IOStatus s;
  const auto tag = [this](uint64_t slot) { return tags_[slot].load(std::memory_order_relaxed); };
  copies_->SaveState(files, [&](const std::string& state) {
    // The copies' bytes are durable before the state that names them.
    if (fdatasync(fd_) != 0) {
      s = PosixError("TierFS: syncing the page copy file " + path_, errno);
    } else {
      s = WriteFileDurably(state_path_, PageCopies::StateFileBytes(state));
    }
    if (!s.ok()) {
      // The failed save's state must not outlive it; if it cannot be
      // removed, the next open's checksum still refuses bytes it does not
      // name.
      IOStatus rs = RemoveFileDurably(state_path_);
      if (!rs.ok() && report_) {
        report_(IOStatus::IOError("removing the saved copies' state " + state_path_ +
                                      " after a failed save",
                                  rs.ToString()));
      }
    }
    return s.ok();
  }, tag);
  return s;
}

bool HotPages::Holds(uint64_t slot, uint64_t where, uint64_t tag) {
  const uint64_t n = tag & 0xffffffffull;
  if (n == 0 || n > PageCopies::kMaxBlock) return false;
  std::string bytes(n, '\0');
  if (!ReadSlotAt(where, n, bytes.data()).ok()) return false;
  const uint32_t crc =
      uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size())));
  if (crc != uint32_t(tag >> 32)) return false;
  tags_[slot].store(tag, std::memory_order_relaxed);
  return true;
}

IOStatus HotPages::Open(const PageCopyOptions& options, int share_pct, Policy* policy,
                        Tier* tier0, uint64_t headroom, const std::string& path,
                        const PageCopies::FileSizes& files,
                        std::function<void(const IOStatus&)> report,
                        std::unique_ptr<HotPages>* out, std::string* note) {
  out->reset();
  note->clear();
  // A saved state is read, then removed before anything changes the copy
  // file: from here to the next save, a crash finds none.
  const std::string state_path = path + ".state";
  std::string state, why;
  const bool have = ReadSavedState(state_path, &state, &why);
  if (!have && !why.empty()) *note = "forgot the saved copies (" + state_path + ": " + why + ")";
  IOStatus s = RemoveFileDurably(state_path);
  if (!s.ok()) return s;
  const uint64_t page = options.page;
  const uint64_t reserve = tier0->capacity() / 100 * uint64_t(share_pct) / page * page;
  if (!options.enabled || share_pct <= 0 || reserve == 0) {
    if (have) {
      *note = "forgot the saved copies: copies are off";
      // Best effort: no state names its bytes.
      IOStatus ts = TruncatePath(path, 0);
      if (!ts.ok() && report) {
        report(IOStatus::IOError("emptying the page copy file " + path +
                                     " (copies off; its space stays allocated)",
                                 ts.ToString()));
      }
    }
    return IOStatus::OK();
  }
  // Without a state, whatever the file holds is forgotten.
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | (have ? 0 : O_TRUNC), 0644);
  if (fd < 0) return PosixError("TierFS: creating the page copy file " + path, errno);
  std::unique_ptr<HotPages> hot(new HotPages(tier0, path, fd));
  hot->inherit_ = options.inherit;
  hot->report_ = std::move(report);
  tier0->SetCopyReserve(reserve);
  PageCopies::Config config;
  config.page = page;
  config.slots = reserve / page;
  config.headroom = headroom;
  config.blocks = options.blocks;
  config.policy = options.policy;
  HotPages* raw = hot.get();
  hot->copies_ = std::make_unique<PageCopies>(
      config, policy, tier0, [] { ReadGate::WaitForReaders(); },
      [raw](uint64_t offset, uint64_t length) {
        // Best effort: bytes not punched keep their blocks until reused.
        fallocate(raw->fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset),
                  off_t(length));
      });
  hot->copies_->SetUnsavedHook([raw] { raw->ForgetSaved(); });
  hot->tags_.reset(new std::atomic<uint64_t>[hot->copies_->slot_limit()]);
  for (uint64_t i = 0; i < hot->copies_->slot_limit(); ++i) {
    hot->tags_[i].store(0, std::memory_order_relaxed);
  }
  if (have) {
    uint64_t restored = 0;
    const auto holds = [raw](uint64_t slot, uint64_t where, uint64_t tag) {
      return raw->Holds(slot, where, tag);
    };
    if (!hot->copies_->RestoreState(state, files, &restored, &why, holds)) {
      *note = "forgot the saved copies (" + state_path + ": " + why + ")";
    } else {
      *note = "took back " + std::to_string(restored) + " saved copies (" +
              std::to_string(tier0->copy_used()) + " bytes)";
    }
    // Saved again at once: a crash before the next save point keeps them.
    if (restored > 0) {
      s = hot->Save(files);
      if (!s.ok()) *note += "; saving them again failed: " + s.ToString();
    } else if (ftruncate(fd, 0) != 0) {
      return PosixError("TierFS: emptying the page copy file " + path, errno);
    }
  }
  *out = std::move(hot);
  return IOStatus::OK();
}

IOStatus HotPages::ReadSlot(int64_t slot, uint64_t offset, size_t n, char* scratch) const {
  return ReadSlotAt(copies_->Where(slot) + offset, n, scratch);
}

IOStatus HotPages::ReadSlotAt(uint64_t where, size_t n, char* scratch) const {
  const off_t at = off_t(where);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = pread(fd_, scratch + done, n - done, at + off_t(done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return PosixError("TierFS: reading page copy file " + path_, errno);
    if (r == 0) return IOStatus::Corruption("TierFS: page copy file " + path_ + " is short");
    done += size_t(r);
  }
  return IOStatus::OK();
}

IOStatus HotPages::WriteSlot(const PageCopies::Fill& fill, const char* data, size_t n) {
  const off_t at = off_t(fill.where);
  const int64_t start = tier0_->StartIo(/*every=*/true);
  size_t done = 0;
  while (done < n) {
    const ssize_t w = pwrite(fd_, data + done, n - done, at + off_t(done));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return PosixError("TierFS: writing page copy file " + path_, errno);
    done += size_t(w);
  }
  tags_[uint64_t(fill.slot)].store(
      uint64_t(crc32(0L, reinterpret_cast<const Bytef*>(data), uInt(n))) << 32 | n,
      std::memory_order_relaxed);
  uint64_t micros;
  tier0_->ModelWrite(PageCopies::kStream, uint64_t(at), n, start, /*direct=*/false, &micros);
  tier0_->Add(TierTicker::kPagesCopied);
  tier0_->Add(TierTicker::kPageCopiedBytes, n);
  return IOStatus::OK();
}

namespace {
struct ThreadState {
  uint64_t instance = 0;
  uint32_t requests = 0;  // hits not yet added to the page_hits ticker
  PageCopies::Reader reader;
};
// The calling thread's state for the HotPages numbered `instance`: reset when
// the thread reads another store's copies.
ThreadState& StateFor(uint64_t instance) {
  thread_local ThreadState state;
  if (state.instance != instance) state = ThreadState{instance, 0, {}};
  return state;
}
}  // namespace

PageCopies::Reader* HotPages::ThisThread() { return &StateFor(instance_).reader; }

void HotPages::NoteHits(const uint64_t* keys, int n) {
  ThreadState& b = StateFor(instance_);
  for (int i = 0; i < n; ++i) copies_->NoteHit(&b.reader, keys[i]);
  if (++b.requests == kHitBatch) {
    tier0_->Add(TierTicker::kPageHits, kHitBatch);
    b.requests = 0;
  }
}

}  // namespace tierfs
