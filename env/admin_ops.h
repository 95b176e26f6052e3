// The steering operations behind the public API (tierfs/hints.h) on a store: used
// by the API, by the admin channel's server and by the tool's offline path.
// Paths are as the caller gave them (normalized here).
#pragma once

#include <string>

#include <rocksdb/status.h>

#include "env/store.h"
#include "tierfs/hint_types.h"
#include "tierfs/statistics.h"

namespace tierfs {

rocksdb::Status DataOpOn(Store* store, DataOp op, const std::string& path, int tier,
                         uint64_t first, uint64_t last, bool wait);
rocksdb::Status PinOn(Store* store, const std::string& path, const std::string& column_family,
                      int tier);
rocksdb::Status AccessHintOn(Store* store, const std::string& path,
                             const std::string& column_family, AccessHint hint);
void MigrationInfoOf(Store* store, MigrationInfo* info);

}  // namespace tierfs
