// What an application knows and a file system cannot see, and what it can
// ask of the data: access hints, the event listener that reports levels and
// column families, pins (REDIRECT), HintStor's data operations (MIGRATE,
// REPLICATE, PREFETCH, drop-copy) and the migration queue. Part of the public
// API, installed as <tierfs/hints.h>; the enums are in <tierfs/hint_types.h>.
// Every function takes a file system made by NewTierFileSystem
// (<tierfs/file_system.h>), or a FileSystemWrapper around one; any other is
// InvalidArgument, a closed store an IOError saying so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <rocksdb/file_system.h>
#include <rocksdb/listener.h>
#include <rocksdb/status.h>

#include "tierfs/hint_types.h"

namespace tierfs {

// Access hints (HintStor's stream hints, tierfs/hint_types.h): AccessHint::kNone
// clears one. For a file, give its path and an empty column family; for a
// column family (every table file the event listener attributes to it, now
// and later), an empty path. Policies read them; hints live until the store
// closes.
rocksdb::Status SetAccessHint(const rocksdb::FileSystem* fs, const std::string& path,
                              const std::string& column_family, AccessHint hint);

// What TierFS's event listener (NewTierFSListener, below) reports of a table
// file: its level and column family. Called before the file is created or
// after; an application that does not use the listener may call it itself.
rocksdb::Status NoteTableFile(const rocksdb::FileSystem* fs, const std::string& path, int level,
                              const std::string& column_family);
// TierFSListener: an EventListener that tells TierFS, for every table file
// RocksDB is about to write, its level and column family. Loadable by name,
// so stock tools can use it: with the plugin preloaded, an OPTIONS file given
// to `db_bench --options_file` containing
//     [DBOptions]
//       listeners={TierFSListener}
// creates it. From C++: options.listeners.push_back(NewTierFSListener()).
// It finds TierFS through the process's open stores; a database not on
// TierFS is left alone.
std::shared_ptr<rocksdb::EventListener> NewTierFSListener();

// REDIRECT: pins a file (path, empty column family) or a column family
// (empty path) to `tier`: new segments are written there and existing ones
// are queued to move there. tier -1 unpins. Pins live until the store closes.
rocksdb::Status Pin(const rocksdb::FileSystem* fs, const std::string& path,
                    const std::string& column_family, int tier);

// HintStor's data operations on segments [first, last] of a file (segments
// past the end of the file are ignored):
//   DataOp::kMigrate    move them to `tier`
//   DataOp::kReplicate  add a durable extra copy on `tier` that serves reads
//   DataOp::kPrefetch   the same copy, not durable (gone after a restart)
//   DataOp::kDropCopy   drop the extra copies (tier ignored)
// With wait, the operation runs now in the caller's thread and the status
// says how it went; without, it is queued for the migration thread (which
// runs it while the devices are idle) and OK means queued (NotSupported if
// the store has no migration thread). A tier that does not exist, an empty
// range or an unknown file is an error naming it.
rocksdb::Status ApplyDataOp(const rocksdb::FileSystem* fs, DataOp op, const std::string& path,
                            int tier, uint64_t first_segment, uint64_t last_segment, bool wait);

// Blocks until the manual operations queued so far have run, at most
// timeout_ms; TimedOut if they have not.
rocksdb::Status WaitForManualMoves(const rocksdb::FileSystem* fs, int timeout_ms);
// Asks the policy to plan now, whatever its cadence (an operator's
// "rebalance now", or a test that wants plans at known points), and waits
// until the moves it queued have run. NotSupported if migration is off,
// TimedOut if moves are still queued after `timeout_ms`.
rocksdb::Status MigrateNow(const rocksdb::FileSystem* fs, int timeout_ms);

}  // namespace tierfs
