// What a file is, as far as placement cares: the enum is the public API's
// (FileKind, <tierfs/hint_types.h>); here what the policies make of it.
#pragma once

#include <cstdint>

#include "tierfs/hint_types.h"

namespace tierfs {

// Files RocksDB streams bulk data into: the only ones split across tiers by
// default. Everything else is metadata and stays on the fastest tier with room.
bool IsBulkKind(FileKind kind);

}  // namespace tierfs
