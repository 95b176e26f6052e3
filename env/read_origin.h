// Whose read is it: the application's, or RocksDB's own background work?
//
// TierFS judges the fast tier by its share of user reads, and only user reads
// heat segments and offer pages to the hot-page copies. RocksDB 7.8 marks most
// of its background reads with a rate-limiter priority below IO_USER
// (compaction input IO_LOW, flush IO_HIGH), but not all of them:
//   - compaction reads its input at IO_USER while writes are delayed or
//     stopped (CompactionJob::GetRateLimiterPriority), which is most of a
//     write-heavy load on a small tier 0;
//   - the table opens that check a flush's or a compaction's output read the
//     footer, index and filter at IO_TOTAL, as a user's Get does.
// Measured on db_bench fillrandom (100,000 x 400 B, 1 MiB write buffers, an
// 8 MiB tier 0): of its 14,700 reads, 8,200 reached TierFS at IO_USER or
// IO_TOTAL, all from RocksDB's own threads.
//
// RocksDB's thread pools name their threads "rocksdb:low", "rocksdb:high"
// and "rocksdb:bottom" (ThreadPoolImpl, through pthread_setname_np), so a
// read from such a thread is background whatever its priority. Threads the
// application starts keep their own names (a thread inherits its creator's
// name, so a thread a pool thread starts counts as background too).
//
// Threads: any; each thread caches its own answer (thread_local), so the
// read path makes no shared write and, after a thread's first reads, no
// system call.
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

namespace tierfs {

// True if the calling thread belongs to one of RocksDB's background pools
// (its name starts with "rocksdb:").
bool OnRocksDbBackgroundThread();

// True if the name is one RocksDB gives its pool threads; for tests.
bool IsRocksDbPoolThreadName(const char* name);

// The classification every read of a table or log passes: a user read is a
// random-access read at IO_USER or IO_TOTAL (the default) from a thread of
// the application. Sequential reads (recovery, MANIFEST) are background.
inline bool IsUserRead(const rocksdb::IOOptions& options, bool sequential) {
  return !sequential && options.rate_limiter_priority >= rocksdb::Env::IO_USER &&
         !OnRocksDbBackgroundThread();
}

}  // namespace tierfs
