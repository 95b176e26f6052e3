// The live store's half of hot-page copies (engine/page_copies.h decides):
// the file on tier 0 that holds the copies (a page per slot, or blocks), and the reads
// and writes of it. The engine's decisions are the simulator's too.
//
// The copy file is <tier 0>/meta/PAGES. A freed slot is punched, so the
// device gets its space back.
//
// Copies survive a restart. At each save point the store calls Save: the
// copy file is synced, then the copies' state (PageCopies::SaveState: which
// page of which file each slot holds) is written durably beside it, as
// <tier 0>/meta/PAGES.state (magic, a CRC-32, the state). The next open
// reads it, removes it durably, takes back the copies whose file is still
// there with the size it had and whose bytes in the copy file still have the
// checksum they were written with (RestoreState), and saves them again. The
// state stands only while it is true: the first copy unpublished after a
// save removes it, durably, before that slot's bytes can change (the copies'
// unsaved hook). So a crash leaves either a state that matches the copy
// file, or none, and then the open empties the copy file: a copy is never
// stale. A store destroyed with its copies unsaved empties the copy file.
//
// Threads: ReadSlot runs on every read a copy serves, without locks; the
// caller holds a ReadGuard across Find() and ReadSlot(). WriteSlot runs on a
// reader that made a miss into a copy, never on a slot readers can find.
#pragma once

#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <rocksdb/io_status.h>

#include "engine/page_copies.h"
#include "env/tier.h"
#include "tierfs/page_copies.h"

namespace tierfs {

class HotPages {
 public:
  // Creates (or empties) the copy file at `path`, sets tier 0's reserve for
  // copies, and starts with none. `headroom`: bytes of tier 0 a new copy
  // leaves free. Copies are off (*out null, OK) if the share is 0.
  // Whether compaction output inherits its input's heat (copy_inherit).
  bool inherit() const { return inherit_; }

  // `files`: the sealed files and their sizes, whose saved copies may come
  // back. `report` is told of each failure to save or remove the state
  // while the store runs (the unsaved hook has no caller to tell). *note
  // says what became of a saved state ("" if there was none).
  static rocksdb::IOStatus Open(const PageCopyOptions& options, int share_pct, Policy* policy,
                                Tier* tier0, uint64_t headroom, const std::string& path,
                                const PageCopies::FileSizes& files,
                                std::function<void(const rocksdb::IOStatus&)> report,
                                std::unique_ptr<HotPages>* out, std::string* note);
  ~HotPages();

  PageCopies& copies() { return *copies_; }
  uint64_t page() const { return copies_->page(); }
  Tier& tier() { return *tier0_; }
  const std::string& path() const { return path_; }

  // Reads `n` bytes at `offset` within slot `slot`. REQUIRES: a ReadGuard
  // held since before the Find() that returned the slot.
  rocksdb::IOStatus ReadSlot(int64_t slot, uint64_t offset, size_t n, char* scratch) const;
  // Writes a page's (or block's) bytes where `fill` says (its slot is not
  // findable yet), paying tier 0's device model as a buffered write.
  rocksdb::IOStatus WriteSlot(const PageCopies::Fill& fill, const char* data, size_t n);
  // Counts a read served from copies of `keys` (admission evidence, and the
  // page_hits ticker in batches of kHitBatch), in per-thread buffers: no
  // shared write per hit. A thread's last partial batch is not counted.
  void NoteHits(const uint64_t* keys, int n);
  // This thread's reader state (PageCopies::Reader), for OnMiss.
  PageCopies::Reader* ThisThread();
  static constexpr uint32_t kHitBatch = 32;

  // The saved state in `path` (PAGES.state), its magic and checksum checked:
  // true with *state set, or false with *why set ("" if there is no file).
  static bool ReadSavedState(const std::string& path, std::string* state, std::string* why);

  // Keeps the copies of `files` (sealed, with their sizes) across a restart:
  // syncs the copy file, then writes the state durably (POSIX calls alone:
  // safe at process exit). On failure the state is removed.
  rocksdb::IOStatus Save(const PageCopies::FileSizes& files);
  const std::string& state_path() const { return state_path_; }


 private:
  HotPages(Tier* tier0, std::string path, int fd);
  // The unsaved hook: removes the saved state, durably.
  void ForgetSaved();
  // RestoreState's check of a saved copy: its `tag`'s bytes at `where` of the
  // copy file have the tag's checksum (then slot `slot` keeps the tag).
  bool Holds(uint64_t slot, uint64_t where, uint64_t tag);
  rocksdb::IOStatus ReadSlotAt(uint64_t where, size_t n, char* scratch) const;

  Tier* const tier0_;
  const std::string path_;
  const std::string state_path_;  // path_ + ".state"
  std::function<void(const rocksdb::IOStatus&)> report_;
  const int fd_;  // closed by the destructor: readers hold the store alive
  const uint64_t instance_;  // unique per HotPages in the process: keys thread buffers
  // Per slot, what WriteSlot wrote there: CRC-32 << 32 | bytes. Saved with
  // the copies and checked against the copy file's bytes when they come
  // back, so a copy file that lost them (a crash took its entry, or its
  // blocks) restores nothing stale. Written by the slot's one filler.
  std::unique_ptr<std::atomic<uint64_t>[]> tags_;
  bool inherit_ = true;
  std::unique_ptr<PageCopies> copies_;
};

}  // namespace tierfs
