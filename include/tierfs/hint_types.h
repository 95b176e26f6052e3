// The values of TierFS's hints, data operations and file kinds: part of the
// public API (installed as <tierfs/hint_types.h>, included by <tierfs/hints.h>
// and <tierfs/statistics.h>) and the one definition of each enum. No dependencies beyond the standard library,
// so the policies (agents/, which build without RocksDB) hold the same enums
// the application passes.
#pragma once

#include <cstdint>
#include <string>

namespace tierfs {

// What a file is, as far as placement cares: TierFS derives it from the file's
// name (FileInfo::kind), and the policies see only this, never a path.
enum class FileKind : uint8_t {
  kOther = 0,
  kWal,       // NNNNNN.log: written once, read back only at recovery
  kSst,       // NNNNNN.sst: immutable table file
  kBlob,      // NNNNNN.blob
  kManifest,  // MANIFEST-NNNNNN
  kCurrent,   // CURRENT
  kOptions,   // OPTIONS-NNNNNN
  kIdentity,  // IDENTITY
  kLock,      // LOCK
  kInfoLog,   // LOG, LOG.old.*
  kTemp,      // *.dbtmp
  kVolume,    // a block device's address space (a replayed block trace), not a RocksDB file
};

// Short lower-case name ("sst", "wal", "blob", "manifest", "current",
// "options", "identity", "lock", "log", "temp", "volume", "other"), stable: the
// admin tool writes it.
const char* FileKindName(FileKind kind);

// An application's access-pattern hint for a column family or a file:
// HintStor's stream hints (hintstor.txt, section 4.2). Policies read them
// (hintstor, cde); the others ignore them.
enum class AccessHint : uint8_t {
  kNone = 0,        // no hint (clears one given before)
  kHot,             // keep on the fastest tier that has room
  kCold,            // keep on the slowest tier
  kWriteIntensive,  // written often: fast tier, never replicated
  kReadIntensive,   // read often: fast tier, or a replica there
  kArchival,        // written once, rarely read: slowest tier
};

// The name of a hint as the admin tool and `tierfs ls` write it: "none",
// "hot", "cold", "write-intensive", "read-intensive", "archival".
const char* AccessHintName(AccessHint hint);
// The inverse of AccessHintName; false (and *hint unchanged) for any other
// string.
bool ParseAccessHint(const std::string& name, AccessHint* hint);

// HintStor's data operations on placed segments. REDIRECT, the fifth, is
// placement (a pin, see Pin() in <tierfs/hints.h>).
enum class DataOp : uint8_t {
  kMigrate = 0,  // move the segment's home to the given tier
  kReplicate,    // a durable extra copy on the given tier, which serves reads; the home stays
  kPrefetch,     // the same copy, not durable: forgotten at a restart
  kDropCopy,     // drop the extra copy (writes no data: the home is current)
};

// The name of an operation as the admin tool takes it: "migrate",
// "replicate", "prefetch", "drop-copy".
const char* DataOpName(DataOp op);
// The inverse of DataOpName; false (and *op unchanged) for any other string.
bool ParseDataOp(const std::string& name, DataOp* op);

}  // namespace tierfs
