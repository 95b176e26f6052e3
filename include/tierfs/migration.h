// TierFS's background migration settings: part of the public API (installed
// as <tierfs/migration.h>, included by <tierfs/file_system.h>), and the one place
// their defaults are written — the file system's Options, the migration
// engine (engine/migration.h) and the simulator's configuration all hold this
// struct. No dependencies.
#pragma once

#include <cstdint>

namespace tierfs {

// The configuration of background migration: the one place its defaults are
// written (the file system's Options and the simulator's configuration both
// hold one).
struct MigrationOptions {
  // A thread that runs the policy's moves, pins and manual moves while the
  // devices are idle. Default: on.
  bool enabled = true;
  // Moves the policy may have queued at once. Default: 10 (Harmonia's).
  uint64_t queue = 10;
  // Most bytes per second migration copies. Default: 64 MiB/s.
  uint64_t rate = 64 << 20;
  // A real (not emulated) device counts as idle while it serves fewer reads
  // than this per millisecond. Default: 8.
  uint64_t idle_ops = 8;
  // When the devices never idle, moves go anyway but take at most this
  // percentage of the time. Default: 10.
  uint64_t busy_share = 10;
  // The policy plans at least this often (milliseconds) while requests come.
  // Default: 1000.
  uint64_t plan_ms = 1000;
  // No idle fast capacity: while slower tiers hold data that is read, each
  // plan also promotes the hottest of it (as the policy ranks it) into free
  // space on tier 0, down to this headroom kept for new writes (WAL, flushes,
  // L0). A percentage of tier 0's capacity unless fast_headroom_bytes is set.
  // fast_headroom_pct 100 turns the fill off.
  uint64_t fast_headroom_pct = 5;
  uint64_t fast_headroom_bytes = 0;
  // Keep more while RocksDB writes: a memtable's worth (the largest WAL
  // lately, so the next flush lands on tier 0 whole), at most half of tier 0,
  // given back as writes stop. Default: true, the URI's
  // `fast_headroom:auto` (5% or a memtable's worth, whichever is more); a
  // value given in the URI is kept as it is.
  bool fast_headroom_auto = true;
  // Room for the upper levels: compaction output of LSM level L >= 1 goes
  // to tier 0 only while tier 0 can also hold the levels above L (their
  // bytes on every tier) beside the tier-0 bytes of levels L and deeper, as
  // RocksDB's db_paths lays levels into paths; otherwise to tier 1.
  // Without it, tier 0 ends up holding the long-lived deepest files, since
  // short-lived upper-level files give their room back to whatever comes
  // next. The upper levels (those that fit in tier 0 whole with the levels
  // above them) also come before the hot-page copies: the policy places
  // their output as if the copies were not there, copies are dropped for
  // it, and their homes are not demoted for copies. Not for policies that
  // emulate RocksDB's placement. URI key `level_room` (on/off). Default: on.
  bool level_room = true;
  // Room for the WAL: a table segment (flush or compaction output) goes to
  // tier 0 only while a memtable's worth of it (the largest WAL lately) stays
  // free beside it, so that the WAL, whose writes the client waits for, does
  // not spill behind table output written in the background. Not for
  // policies that evict on placement (they make their own room) or that
  // emulate RocksDB's placement. URI key `wal_room` (on/off). Default: on.
  bool wal_room = true;
};

}  // namespace tierfs
