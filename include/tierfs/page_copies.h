// TierFS's hot-page copies: read copies, on the fastest tier, of the hot pages
// of immutable files (SST and blob files). Part of the public API (installed
// as <tierfs/page_copies.h>, included by <tierfs/file_system.h>) and the one
// place their defaults are written: the file system's Options and the
// simulator's configuration both hold this struct. No dependencies.
#pragma once

#include <cstdint>

namespace tierfs {

// How the copies choose what to admit and what to drop (URI key copy_policy).
// Each works set by set, as the copies are set-associative (DESIGN.md,
// "Hot-page copies"):
//   kTinyLfu   tinylfu: a miss is admitted only if it was read before and more
//              often than the copy it replaces (Einziger et al., ACM ToS
//              2017); the policy may decide otherwise (Policy::AdmitCopy)
//   kWTinyLfu  w-tinylfu: every miss enters a window (1% of the set's bytes,
//              at least its newest copy); the window's oldest copy stays only
//              if it was read more often than the set's least frequent copy,
//              which then goes (Caffeine's W-TinyLFU, without its hill climber)
//   kS3Fifo    s3-fifo: every miss enters a small FIFO (10% of the set's
//              bytes); a copy read again there moves to the main FIFO, the
//              others go and are remembered as ghosts, whose next miss enters
//              main; main reinserts a copy read since its last pass
//              (Yang et al., SOSP 2023)
// Only tinylfu asks the policy; the other two are the field's baselines.
enum class CopyPolicy : uint8_t { kTinyLfu = 0, kWTinyLfu, kS3Fifo };

struct PageCopyOptions {
  // Copies on tier 0 of hot pages of SST and blob files that live on slower
  // tiers: admitted only on evidence of reuse, dropped (never written back)
  // when cold or when new data needs the space, kept across a clean restart
  // (validated at open, else forgotten).
  // URI key copies:on|off. Default: on.
  bool enabled = true;
  // The copy unit, a power of two from 4 KiB to 64 KiB. URI key copy_page.
  // Default: 8 KiB (measured against 4, 16 and 64 KiB, docs/lab-notebook.md,
  // "Page size and share, in the simulator": a RocksDB block straddles two
  // 4 KiB pages, and larger pages carry cold bytes).
  uint64_t page = 8 << 10;
  // What a copy holds: `page` (copy_unit:page), or the block a read asks
  // for, at its offset and of its length (copy_unit:block): RocksDB reads a
  // block at the offset its index names, so the same read comes again, and a
  // block copy holds none of its neighbours' bytes. Blocks share sets of 16
  // pages of tier 0 in 512-byte units. URI key copy_unit:page|block.
  // Default: block (tierfs-sim on 7 captured YCSB and db_bench traces, 3
  // policies: 18 of 21 runs faster, by up to 17%; docs/lab-notebook.md
  // "Block copies").
  bool blocks = true;
  // The percentage of tier 0's capacity copies may hold; the fill of segment
  // homes (MigrationOptions::fast_headroom) leaves it to them. New writes may
  // still take it (copies drop for free). A policy may choose its own share
  // (Policy::CopySharePct). URI key copy_share, e.g. 50%. Default: 75.
  uint64_t share_pct = 75;
  // Heat follows data through compaction: a compaction's output pages start
  // with the access counts of the input it read just before writing them.
  // URI key copy_inherit:on|off. Default: on.
  bool inherit = true;
  // What is admitted and what is dropped (CopyPolicy above). URI key
  // copy_policy:tinylfu|w-tinylfu|s3-fifo. Default: tinylfu.
  CopyPolicy policy = CopyPolicy::kTinyLfu;
};

}  // namespace tierfs
