// The public calls that steer a running store: hints, pins, HintStor's data
// operations, trace capture and the migration queue (tierfs/hints.h,
// tierfs/trace.h, tierfs/statistics.h).
#include "env/admin_ops.h"
#include "env/migrator.h"
#include "env/tier_fs.h"

namespace tierfs {

using rocksdb::Status;

namespace {

// Runs `moves` in the calling thread, at once; the first failure ends them.
// `progress` (may be empty) hears before the first and after each.
Status RunHere(Store* store, const std::vector<Move>& moves, bool skip_busy,
               const MovesProgressFn& progress) {
  MovesProgress p;
  p.total = moves.size();
  if (progress) progress(p);
  for (const Move& m : moves) {
    uint64_t bytes = 0;
    rocksdb::IOStatus s = store->ExecuteMove(m, MoveCause::kManual, nullptr, &bytes);
    if (!s.ok() && !(skip_busy && s.IsBusy())) return s;
    ++p.done;
    p.bytes += s.ok() ? bytes : 0;
    if (progress) progress(p);
  }
  return Status::OK();
}

}  // namespace

Status ListSegments(const rocksdb::FileSystem* fs, const std::string& dir,
                    std::vector<SegmentReport>* segments) {
  Store* store;
  Status s = OpenStoreOf(fs, "ListSegments", &store);
  if (s.ok()) store->ListSegments(TierFileSystem::Normalize(dir), segments);
  return s;
}

Status SetAccessHint(const rocksdb::FileSystem* fs, const std::string& path,
                     const std::string& column_family, AccessHint hint) {
  Store* store;
  Status s = OpenStoreOf(fs, "SetAccessHint", &store);
  return s.ok() ? AccessHintOn(store, path, column_family, hint) : s;
}

Status AccessHintOn(Store* store, const std::string& path, const std::string& column_family,
                    AccessHint hint) {
  if (uint8_t(hint) > uint8_t(AccessHint::kArchival)) {
    return Status::InvalidArgument("unknown access hint " + std::to_string(int(hint)));
  }
  if (path.empty() == column_family.empty()) {
    return Status::InvalidArgument("SetAccessHint: give a path or a column family, not both");
  }
  return store->SetAccessHint(path.empty() ? "" : TierFileSystem::Normalize(path), column_family,
                              hint);
}

Status NoteTableFile(const rocksdb::FileSystem* fs, const std::string& path, int level,
                     const std::string& column_family) {
  Store* store;
  Status s = OpenStoreOf(fs, "NoteTableFile", &store);
  if (s.ok()) store->NoteTableFile(TierFileSystem::Normalize(path), level, column_family);
  return s;
}

Status Pin(const rocksdb::FileSystem* fs, const std::string& path,
           const std::string& column_family, int tier) {
  Store* store;
  Status s = OpenStoreOf(fs, "Pin", &store);
  return s.ok() ? PinOn(store, path, column_family, tier) : s;
}

Status PinOn(Store* store, const std::string& path, const std::string& column_family, int tier,
             const MovesProgressFn& progress) {
  if (path.empty() == column_family.empty()) {
    return Status::InvalidArgument("Pin: give a path or a column family, not both");
  }
  std::vector<Move> moves;
  Status s = store->Pin(path.empty() ? "" : TierFileSystem::Normalize(path), column_family, tier,
                        &moves);
  if (!s.ok()) return s;
  // Without a migration thread the pin's moves run now; a segment of a file
  // being written stays where it is (its new data follows the pin).
  if (!store->migrator()) return RunHere(store, moves, /*skip_busy=*/true, progress);
  store->migrator()->SubmitManual(moves);
  return Status::OK();
}

Status ApplyDataOp(const rocksdb::FileSystem* fs, DataOp op, const std::string& path, int tier,
                   uint64_t first, uint64_t last, bool wait) {
  Store* store;
  Status s = OpenStoreOf(fs, "ApplyDataOp", &store);
  return s.ok() ? DataOpOn(store, op, path, tier, first, last, wait) : s;
}

Status DataOpOn(Store* store, DataOp op, const std::string& path, int tier, uint64_t first,
                uint64_t last, bool wait, const MovesProgressFn& progress) {
  if (uint8_t(op) > uint8_t(DataOp::kDropCopy)) {
    return Status::InvalidArgument("unknown data operation " + std::to_string(int(op)));
  }
  if (first > last) {
    return Status::InvalidArgument("segment range " + std::to_string(first) + "-" +
                                   std::to_string(last) + " is empty");
  }
  std::vector<Move> moves;
  rocksdb::IOStatus s =
      store->SegmentsToMove(TierFileSystem::Normalize(path), op, tier, first, last, &moves);
  if (!s.ok()) return s;
  if (wait) return RunHere(store, moves, /*skip_busy=*/false, progress);
  if (!store->migrator()) {
    return Status::NotSupported("migration is off in this store: run the operation with wait");
  }
  store->migrator()->SubmitManual(moves);
  return Status::OK();
}

Status StartTrace(const rocksdb::FileSystem* fs, const std::string& path) {
  Store* store;
  Status s = OpenStoreOf(fs, "StartTrace", &store);
  if (!s.ok()) return s;
  if (store->read_only()) return Status::NotSupported("trace capture on a read-only store");
  return store->StartTrace(path);
}

Status StopTrace(const rocksdb::FileSystem* fs, uint64_t* records) {
  Store* store;
  Status s = OpenStoreOf(fs, "StopTrace", &store);
  return s.ok() ? store->StopTrace(records) : s;
}

Status GetMigrationInfo(const rocksdb::FileSystem* fs, MigrationInfo* info) {
  Store* store;
  Status s = OpenStoreOf(fs, "GetMigrationInfo", &store);
  if (s.ok()) MigrationInfoOf(store, info);
  return s;
}

void MigrationInfoOf(Store* store, MigrationInfo* info) {
  *info = MigrationInfo();
  info->policy_state = store->policy_state();
  Migrator* m = store->migrator();
  if (!m) return;
  Migrator::Info i = m->GetInfo();
  info->enabled = true;
  for (const Move& mv : i.manual) info->queue.push_back(MoveExecutor::Info(mv, /*manual=*/true));
  for (const Move& mv : i.planned) info->queue.push_back(MoveExecutor::Info(mv, /*manual=*/false));
  if (i.running) info->running = MoveExecutor::Info(i.current, i.running_manual);
  info->done = i.done;
  info->bytes = i.bytes;
  info->skipped = i.skipped;
  info->given_up = i.given_up;
  info->waits = i.waits;
}

Status GetStoreErrors(const rocksdb::FileSystem* fs, StoreErrorCounts* counts,
                      std::string* info_log) {
  Store* store;
  Status s = OpenStoreOf(fs, "GetStoreErrors", &store);
  if (!s.ok()) return s;
  *counts = store->errors();
  if (info_log) *info_log = store->info_log_path();
  return s;
}

Status WaitForManualMoves(const rocksdb::FileSystem* fs, int timeout_ms) {
  Store* store;
  Status s = OpenStoreOf(fs, "WaitForManualMoves", &store);
  if (!s.ok() || !store->migrator()) return s;
  return store->migrator()->WaitManual(timeout_ms)
             ? Status::OK()
             : Status::TimedOut("manual moves still queued after " + std::to_string(timeout_ms) + " ms");
}

Status MigrateNow(const rocksdb::FileSystem* fs, int timeout_ms) {
  Store* store;
  Status s = OpenStoreOf(fs, "MigrateNow", &store);
  if (!s.ok()) return s;
  if (!store->migrator()) return Status::NotSupported("migration is off in this store");
  return store->migrator()->PlanNow(timeout_ms)
             ? Status::OK()
             : Status::TimedOut("planned moves still queued after " + std::to_string(timeout_ms) +
                                " ms");
}

}  // namespace tierfs
