// A user read of a sealed table file through the hot-page copies: the read
// plan, written once. Which copies serve the read, when a miss asks the
// admission, what the miss reads from the homes and which of its pages (or
// its block) it copies, and the order of those steps are decided here; the
// live store (env/tier_files.cc) and the simulator (tools/sim/simulator.cc)
// supply the bytes, the time and the bookkeeping through CopyReadIo.
//
//   1. A read longer than the copies' unit allows (more than kMaxCopyReadPages pages,
//      or a block over PageCopies::kMaxBlock) is a scan or a large value:
//      left to the homes. So is a read of bytes tier 0 already serves (a
//      segment at home there, or its segment copy): a page copy of them
//      would only go cold.
//   2. A hit: every page (or the block) has a copy. Found and read inside the
//      read gate, so no slot is reused under the read; counted as reuse.
//   3. A miss: the admission (PageCopies::OnMiss) decides page by page. If
//      nothing is admitted the read is left to the homes. Otherwise the
//      homes are read once (whole pages, or the block), the caller is served
//      from them, and each admitted page is copied and published, or
//      abandoned if its copy cannot be made.
#pragma once

#include <cstdint>

#include "agents/policy.h"
#include "engine/page_copies.h"

namespace tierfs {

// What a read through the copies needs of its owner, for one user read of
// [offset, end) of one file. The I/O calls return false on an error the
// owner keeps for its caller.
class CopyReadIo {
 public:
  virtual ~CopyReadIo() = default;

  // Whether a segment of [offset, end) is read from tier 0 already (its home
  // or its segment copy there).
  virtual bool ReadFromTierZero(uint64_t offset, uint64_t end) const = 0;
  // Whether copies may serve [offset, end): the simulator meets segments
  // read before any write placed them, which only the homes serve.
  virtual bool Placed(uint64_t offset, uint64_t end) const = 0;
  // Around finding slots and reading them: the live store's ReadGate, so a
  // slot found is not reused before the read of it is done.
  virtual void EnterGate() = 0;
  virtual void LeaveGate() = 0;
  // Reads the caller's bytes [offset, end) from the copies: slot i holds the
  // bytes from first + i * unit, up to unit of them. Pays tier 0's device.
  virtual bool ReadCopies(const int64_t* slots, int n, uint64_t first, uint64_t unit,
                          uint64_t offset, uint64_t end) = 0;
  // After a hit left the gate: statistics and the policy see tier 0 serve
  // [offset, end), and the copies of `keys` count a hit each.
  virtual void Served(uint64_t offset, uint64_t end, const uint64_t* keys, int n) = 0;
  // The miss: the slots of fills that held other pages have readers to wait
  // out before they are written.
  virtual void WaitForReaders() = 0;
  // Reads [lo, hi) of the file from its homes as a user read (a range past
  // the file's end stops there), serving the caller's bytes from it.
  virtual bool ReadHomes(uint64_t lo, uint64_t hi) = 0;
  // Writes bytes [start, start + length) of the file, which ReadHomes read,
  // into `fill`'s slot. False if the copy cannot be made: it is abandoned.
  virtual bool WriteCopy(const PageCopies::Fill& fill, uint64_t start, uint64_t length) = 0;
  // A copy of the page (or block unit) `index` was published.
  virtual void Copied(uint64_t index) = 0;
  // The reading thread's (or stream's) state, and whether the admission
  // waits for the copies' lock (the simulator) or skips a busy one (live).
  virtual PageCopies::Reader* reader() = 0;
  virtual bool blocking() const = 0;
};

enum class CopyRead {
  kLeft,    // the copies took no part: the caller reads the homes
  kServed,  // the caller's bytes are in place (from copies or the homes)
  kFailed,  // an I/O call failed; the owner holds the error
};

// The most pages a read served by page copies spans; longer reads are scans.
constexpr uint64_t kMaxCopyReadPages = 4;

// A user read of [offset, end) of a sealed file of `size` bytes (end <=
// size), described by `file` (its id, kind and level; `page` is ignored).
CopyRead ReadThroughCopies(PageCopies& copies, const Policy::CopyCandidate& file,
                           uint64_t offset, uint64_t end, uint64_t size, CopyReadIo& io);

}  // namespace tierfs
