// The statistics file, <tier0>/meta/STATS: the store's counters kept across
// a clean close, so that they cover the store's life. Written at the store's
// save points (Store::SavePoint: close, the last database closed, process
// exit), added back by Open. It holds
//   - every tier's counters (not its gauges, which recovery rebuilds) and
//     latency histograms, by the rows of kTierTickers and kTierHistograms;
//   - every placed segment's statistics (heat, accesses, moves), so that
//     policies and `tierfs segments` keep them across restarts;
//   - each table file's level and column family, as the event listener told
//     them (RocksDB does not restate them for files that exist);
//   - the request clock, so that ages and decay go on where they stopped;
//   - the error counters (env/store_errors.h);
//   - when it was saved, so the next open can say what it misses.
//
// STATS, version 1 (JSON; written via STATS.tmp + rename):
//   {"version": 1,
//    "seq":      the request clock at close,
//    "tiers":    [one object per tier, by index:
//                 {<name>: n, ... for every counter (TickerKind::kCounter) of
//                                 kTierTickers; gauges are not saved,
//                  <name>: {"count": n, "sum_us": n, "buckets": [32 counts]}, ...
//                                 for every row of kTierHistograms}],
//    "segments": [[file id, segment, user reads, background reads, writes,
//                  migrations, heat, last access, placed, last migration], ...],
//                 (heat as of the last access; times on the request clock)
//    "files":    [[file id, level, column family name], ...],
//    "errors":   {<name>: n, ... for every row of kStoreErrors (store_errors.h)},
//    "saved_at": the save point: "close", "last database closed", "exit",
//    "generation": the journal generation then (env/journal.h)}
// A key missing loads as zero (a file written before the statistic existed);
// unknown keys are ignored. Column families are saved by name: their ids are
// the hint table's, given anew at each open.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>
#include <rocksdb/io_status.h>

namespace tierfs {

class Store;

// The moments the store saves AGENTS and STATS and syncs the journal
// (env/store_close.cc). STATS records which, with the journal generation, so
// the next open can say in the LOG what the saved state misses.
enum class SavePoint {
  kClose,               // Close() or the store's destructor: nothing follows
  kLastDatabaseClosed,  // the last database on the store gave its lock back;
                        // the store stays open (a later save supersedes it)
  kExit,                // the process exits (or the library unloads) with the
                        // store still open: I/O after it is not counted
};
// "close", "last database closed", "exit": as STATS and the LOG say it.
const char* SavePointName(SavePoint point);

// The format alone: the state is the store's, collected and restored by its
// calls (Store::CollectSaved, RestoreSaved, RestoreClock, AddSavedErrors),
// which take its locks.
class StatsFile {
 public:
  // Writes `store`'s statistics to its STATS, saying they were saved at
  // `point`; with POSIX calls alone if `posix` (Store::WriteMetaFile). The
  // write or rename's error, if any; the previous STATS stays until the
  // rename.
  static rocksdb::IOStatus Save(Store& store, SavePoint point, bool posix);
  // Adds the statistics saved in `store`'s STATS to the live ones and
  // restores the clock, levels and column families. OK if there is no STATS
  // (the store never closed cleanly). Otherwise the read's error, or
  // Corruption naming the file and what was not loaded: all of it (not a
  // statistics file), the rest of the file after a value of the wrong type,
  // or the count of malformed rows skipped. What was read before the damage
  // stays added, up to the last whole row; a row is read whole before its
  // file is looked up, so a value of the wrong type is damage even in the
  // row of a file deleted since. Open calls it before starting any thread,
  // so nothing the store does can come between its rows.
  // *missing (if given) says what the statistics loaded miss, for the LOG:
  // "" if they were saved when the store was last closed, else which save
  // they come from and why later activity is not in them (the process was
  // killed, exited with the store open, ...).
  static rocksdb::IOStatus Load(Store& store, std::string* missing = nullptr);

 private:
  // Load's reading of the parsed file, row by row, in the file's order;
  // counts rows of the wrong shape in *skipped. Throws on a value of the
  // wrong type.
  static void LoadDocument(Store& store, const nlohmann::json& doc, uint64_t* skipped);
};

}  // namespace tierfs
