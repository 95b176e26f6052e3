#include "engine/copy_read.h"

#include <algorithm>

namespace tierfs {

namespace {

// Finds the copies of every unit of the read and reads them, inside the
// gate. True if all were there (*failed if their read failed).
bool ReadHit(PageCopies& copies, CopyReadIo& io, const uint64_t* keys, int n, uint64_t first,
             uint64_t unit, uint64_t offset, uint64_t end, bool* failed) {
  if (!io.Placed(offset, end)) return false;
  int64_t slots[kMaxCopyReadPages];
  io.EnterGate();
  bool all = true;
  for (int i = 0; i < n && all; ++i) {
    // A block's copy serves only a read of the block it holds (or less).
    slots[i] = copies.blocks() ? copies.FindBlock(keys[i], offset, end - offset)
                               : copies.Find(keys[i]);
    all = slots[i] >= 0;
  }
  if (all) *failed = !io.ReadCopies(slots, n, first, unit, offset, end);
  io.LeaveGate();
  return all;
}

// Copies the admitted `fills` from the homes' bytes [lo, hi), which serve
// the caller too.
CopyRead CopyFromHomes(PageCopies& copies, CopyReadIo& io, const PageCopies::Fill* fills,
                       int n, uint64_t lo, uint64_t hi, uint64_t size) {
  bool wait = false;
  for (int i = 0; i < n; ++i) wait |= fills[i].wait;
  if (wait) io.WaitForReaders();
  const bool read = io.ReadHomes(lo, hi);
  for (int i = 0; i < n; ++i) {
    const PageCopies::Fill& f = fills[i];
    uint64_t start, length, index;
    if (copies.blocks()) {
      start = f.offset;
      length = f.length;
      index = f.offset / PageCopies::kBlockUnit;
    } else {
      index = PageCopies::PageOf(f.key);
      start = index * copies.page();
      length = std::min(start + copies.page(), size) - start;
    }
    const bool ok = read && io.WriteCopy(f, start, length);
    if (ok && copies.Publish(f)) {
      io.Copied(index);
    } else if (!ok) {
      copies.Abandon(f);
    }
  }
  return read ? CopyRead::kServed : CopyRead::kFailed;
}

}  // namespace

CopyRead ReadThroughCopies(PageCopies& copies, const Policy::CopyCandidate& file,
                           uint64_t offset, uint64_t end, uint64_t size, CopyReadIo& io) {
  if (end <= offset) return CopyRead::kLeft;
  uint64_t keys[kMaxCopyReadPages];
  PageCopies::Fill fills[kMaxCopyReadPages];
  int n = 0, nf = 0;
  bool failed = false;
  if (copies.blocks()) {
    const uint64_t length = end - offset;
    if (length > PageCopies::kMaxBlock) return CopyRead::kLeft;  // a scan or a large value
    if (io.ReadFromTierZero(offset, end)) return CopyRead::kLeft;
    keys[n++] = PageCopies::Key(file.file_id, offset / PageCopies::kBlockUnit);
    if (ReadHit(copies, io, keys, n, offset, length, offset, end, &failed)) {
      if (failed) return CopyRead::kFailed;
      io.Served(offset, end, keys, n);
      return CopyRead::kServed;
    }
    const PageCopies::Fill f =
        copies.OnMissBlock(file, offset, length, io.blocking(), io.reader());
    if (f.slot < 0) return CopyRead::kLeft;
    fills[nf++] = f;
    return CopyFromHomes(copies, io, fills, nf, offset, end, size);
  }

  const uint64_t page = copies.page();
  const uint64_t p0 = offset / page, p1 = (end - 1) / page;
  if (p1 - p0 >= kMaxCopyReadPages) return CopyRead::kLeft;  // a scan or a large value
  if (io.ReadFromTierZero(offset, end)) return CopyRead::kLeft;
  for (uint64_t p = p0; p <= p1; ++p) keys[n++] = PageCopies::Key(file.file_id, p);
  if (ReadHit(copies, io, keys, n, p0 * page, page, offset, end, &failed)) {
    if (failed) return CopyRead::kFailed;
    io.Served(offset, end, keys, n);
    return CopyRead::kServed;
  }
  // A miss: which of its pages to copy (the policy's admission).
  for (int i = 0; i < n; ++i) {
    Policy::CopyCandidate c = file;
    c.page = p0 + uint64_t(i);
    const PageCopies::Fill f = copies.OnMiss(c, io.blocking(), io.reader());
    if (f.slot >= 0) fills[nf++] = f;
  }
  if (nf == 0) return CopyRead::kLeft;
  // Whole pages, read once: the caller's bytes and the admitted copies.
  return CopyFromHomes(copies, io, fills, nf, p0 * page, (p1 + 1) * page, size);
}

}  // namespace tierfs
