#include "env/hot_pages.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "env/posix_util.h"
#include "env/read_gate.h"

namespace tierfs {

using rocksdb::IOStatus;

HotPages::HotPages(Tier* tier0, std::string path, int fd)
    : tier0_(tier0), path_(std::move(path)), fd_(fd), instance_([] {
        static std::atomic<uint64_t> next{1};
        return next.fetch_add(1);
      }()) {}

HotPages::~HotPages() {
  // The charges go with the store; only the descriptor is ours. No reader is
  // left (the store is being destroyed), and the copies die with it: give
  // their blocks back now, so that a store at rest holds no page the account
  // does not charge (`tierfs check` reports a PAGES file that still holds
  // some: its process ended without destroying the store). Best effort: the
  // next open empties it anyway.
  const int emptied = ftruncate(fd_, 0);
  (void)emptied;
  close(fd_);
}

IOStatus HotPages::Open(const PageCopyOptions& options, int share_pct, Policy* policy,
                        Tier* tier0, uint64_t headroom, const std::string& path,
                        std::unique_ptr<HotPages>* out) {
  out->reset();
  const uint64_t page = options.page;
  const uint64_t reserve = tier0->capacity() / 100 * uint64_t(share_pct) / page * page;
  if (!options.enabled || share_pct <= 0 || reserve == 0) return IOStatus::OK();
  // O_TRUNC: copies are volatile, whatever a crash left is forgotten.
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("TierFS: creating the page copy file " + path, errno);
  std::unique_ptr<HotPages> hot(new HotPages(tier0, path, fd));
  hot->inherit_ = options.inherit;
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
  *out = std::move(hot);
  return IOStatus::OK();
}

IOStatus HotPages::ReadSlot(int64_t slot, uint64_t offset, size_t n, char* scratch) const {
  const off_t at = off_t(copies_->Where(slot) + offset);
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
