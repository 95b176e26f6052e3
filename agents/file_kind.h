// What a file is, as far as placement cares. The file system derives it from the
// file name; policies see only this enum, never a path.
#pragma once

#include <cstdint>

namespace tierfs {

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

// Files RocksDB streams bulk data into: the only ones split across tiers by
// default. Everything else is metadata and stays on the fastest tier with room.
bool IsBulkKind(FileKind kind);

// Short lower-case name ("sst", "wal", ...), stable: it appears in tool output.
const char* FileKindName(FileKind kind);

}  // namespace tierfs
