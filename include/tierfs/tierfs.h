// TierFS's public API, all of it: a RocksDB FileSystem that spreads one
// database over several storage tiers (fast to slow), split into segments.
// Installed as <tierfs/tierfs.h>; each part can be included alone:
//
//   <tierfs/file_system.h>  Options, TierOptions, URI and configuration-file
//                           parsing, NewTierFileSystem, NewTierEnv, Close
//   <tierfs/migration.h>    MigrationOptions (background migration settings)
//   <tierfs/statistics.h>   per-tier statistics (TierStats, the ticker and
//                           histogram tables), ListFiles, ListSegments,
//                           GetMigrationInfo
//   <tierfs/hint_types.h>   the AccessHint and DataOp enums (no dependencies)
//   <tierfs/hints.h>        SetAccessHint, the event listener, Pin,
//                           ApplyDataOp, WaitForManualMoves, MigrateNow
//   <tierfs/trace.h>        StartTrace, StopTrace
//   <tierfs/db.h>           OpenDB: RocksDB on TierFS in one call
#pragma once

#include "tierfs/db.h"
#include "tierfs/file_system.h"
#include "tierfs/hint_types.h"
#include "tierfs/hints.h"
#include "tierfs/migration.h"
#include "tierfs/statistics.h"
#include "tierfs/trace.h"
