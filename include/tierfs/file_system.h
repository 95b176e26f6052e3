// TierFS's file system and its options: a RocksDB FileSystem that spreads one
// database over several storage tiers (fast to slow), split into segments.
// Part of the public API, installed as <tierfs/file_system.h>; <tierfs/tierfs.h>
// includes it with the rest (statistics.h, hints.h, trace.h, db.h). The
// options and the URI grammar are in <tierfs/options.h>, which it includes.
//
// Two ways in:
//   1. A URI, for stock tools:  db_bench --fs_uri=tierfs://...  (LD_PRELOAD the
//      library so the `tierfs://` factory is registered), or
//      rocksdb::FileSystem::CreateFromString(cfg, "tierfs://...", &fs).
//   2. NewTierFileSystem(uri or Options) from C++, then NewTierEnv() for
//      rocksdb::Options::env; Close() at the end to see the final save's
//      status.
//
#pragma once

#include <memory>
#include <string>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/status.h>

#include "tierfs/options.h"

namespace tierfs {

// Parses a tierfs:// URI (inline or config:FILE) into *options and validates
// it (see ValidateOptions). Errors name the offending part of the URI.
rocksdb::Status ParseUri(const std::string& uri, Options* options);

// Parses a configuration file (the format in <tierfs/options.h>).
rocksdb::Status ParseConfigFile(const std::string& path, Options* options);

// Checks what can be checked without opening: tier count, capacities, device
// names, segment size, policy, absolute and non-overlapping tier paths, and
// that each tier directory exists and is writable.
rocksdb::Status ValidateOptions(const Options& options);

// Opens (creating or recovering) the TierFS store described by `options`.
// Within one process, opening the same tier-0 root twice shares one store.
rocksdb::Status NewTierFileSystem(const Options& options,
                                  std::shared_ptr<rocksdb::FileSystem>* result);
rocksdb::Status NewTierFileSystem(const std::string& uri,
                                  std::shared_ptr<rocksdb::FileSystem>* result);

// An Env for rocksdb::Options::env that routes file I/O through `fs` and
// everything else (threads, clock) to the default Env.
std::unique_ptr<rocksdb::Env> NewTierEnv(
    const std::shared_ptr<rocksdb::FileSystem>& fs);

// Closes the store behind `fs`, which must have been made by
// NewTierFileSystem (or the tierfs:// factory): stops its admin-channel and
// migration threads and its trace capture, saves its policy's learned state
// (<tier0>/meta/AGENTS), syncs its journal, saves its statistics
// (<tier0>/meta/STATS) and releases its lock. Every step is tried, and each
// failure is written to <tier0>/meta/LOG and counted (`tierfs errors`); the
// status is the first failure, its message naming the step and the file
// ("TierFS close: saving /t0/meta/STATS: ..."), or OK.
//
// Close the database first: a store is shared by every file system opened on
// the same tier 0 in this process, and Close closes it for all of them. After
// Close, every call that reaches the store — through any of those file
// systems, their open files and directories, or the functions of
// <tierfs/statistics.h>, <tierfs/hints.h> and <tierfs/trace.h> — fails with
// an IOError saying the store is closed; giving back what was taken before
// still works (closing an open file, UnlockFile). NewTierFileSystem on the
// same tiers opens the store afresh. A second Close returns the first one's
// status and does nothing else, and destroying the file systems afterwards
// saves nothing again. Without Close the store closes the same way when its
// last file system is destroyed, and a failure there reaches only the log
// and the counters. A read-only store has nothing to save: Close only marks
// it closed. Calls racing Close may complete or fail, but none writes the
// journal after its final sync.
rocksdb::Status Close(rocksdb::FileSystem* fs);

}  // namespace tierfs
