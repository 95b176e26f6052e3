// The steering operations behind the public API (tierfs/hints.h) on a store: used
// by the API, by the admin channel's server and by the tool's offline path.
// Paths are as the caller gave them (normalized here).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <rocksdb/status.h>

#include "env/store.h"
#include "tierfs/hint_types.h"
#include "tierfs/statistics.h"

namespace tierfs {

// How far the moves of a data operation or a pin run in the caller's thread
// are: `done` of `total` moves (one per segment) finished, carrying `bytes`.
// The callback is called once before the first move and after each; it
// runs in the caller's thread and must not call into the store.
struct MovesProgress {
  uint64_t done = 0, total = 0;
  uint64_t bytes = 0;
};
using MovesProgressFn = std::function<void(const MovesProgress&)>;

// `progress` (may be empty) follows the moves when they run in this thread
// (`wait`, or a store without a migration thread); queued moves report none.
rocksdb::Status DataOpOn(Store* store, DataOp op, const std::string& path, int tier,
                         uint64_t first, uint64_t last, bool wait,
                         const MovesProgressFn& progress = nullptr);
rocksdb::Status PinOn(Store* store, const std::string& path, const std::string& column_family,
                      int tier, const MovesProgressFn& progress = nullptr);
rocksdb::Status AccessHintOn(Store* store, const std::string& path,
                             const std::string& column_family, AccessHint hint);
void MigrationInfoOf(Store* store, MigrationInfo* info);

}  // namespace tierfs
