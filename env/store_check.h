// An fsck of a TierFS store at rest (`tierfs check [--repair]`).
//
// The check reads the store as its own open does: Journal::Load for the
// newest snapshot and journal, then Store::Open read-only (markers, replay,
// sizes and the capacity account, as recovery builds them). Against that map
// it examines the devices:
//   - every placed segment's home holds data over the segment's bytes (a hole
//     there is data lost: kMissingSegment, which repair refuses);
//   - every backing file in data/ belongs to a file of the map (kOrphanFile),
//     and holds data only where the map puts a home or a copy (kStrayData: a
//     half-done move, a PREFETCH copy, a copy dropped but never punched);
//   - the blocks each backing file occupies are what the map charges for it,
//     so that the account recovery rebuilds from the map is what the device
//     holds (kAccountDrift: preallocated blocks past a file's end; a tier
//     whose map outgrows its capacity; an account recovery got wrong);
//   - every durable copy (REPLICATE) holds data and the same bytes as its
//     home (kStaleCopy); the hot-page copy file <tier0>/meta/PAGES holds no
//     blocks at rest unless its saved state (PAGES.state) names them
//     (kStalePageCopies);
//   - every tier has its TIERFS-TIER marker (kMarker).
// A store the open refuses (unreadable journal or snapshot, inconsistent
// markers) is one finding, kJournal or kMarker, and nothing more is examined.
//
// Repair fixes what loses no data: it deletes orphan backing files, punches
// stray data, frees blocks past a backing file's end, empties PAGES, drops
// stale copies (journaled, through the store's own drop-copy) and lets the
// store's open write missing markers. Then it checks again. If any finding
// cannot be repaired without losing data (a missing segment, a store that
// does not open), repair changes nothing at all: the store's own recovery,
// which the repair runs, punches data on tiers that are neither home nor
// copy, and that data may be the lost segment's only trace.
//
// The store must be at rest: the check takes <tier0>/meta/LOCK for its whole
// run and refuses (Busy, naming the process that holds it) a store that is
// open elsewhere. Repairs are logged to <tier0>/meta/LOG.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "tierfs/file_system.h"

namespace tierfs {

enum class CheckKind {
  kJournal,           // the journal or snapshot cannot be read, or replay refuses it
  kMarker,            // a tier's TIERFS-TIER marker is missing or inconsistent
  kOrphanFile,        // a backing file of no file in the map
  kForeignFile,       // a name in data/ TierFS never writes (left alone)
  kStrayData,         // data on a tier that is neither the segment's home nor its copy
  kMissingSegment,    // a placed segment whose home holds none (or part) of its bytes
  kAccountDrift,      // blocks on a device the map does not charge, or a map over capacity
  kStaleCopy,         // a durable copy holding no data, or bytes other than its home's
  kStalePageCopies,   // meta/PAGES holds hot-page copies at rest, and no state names them
};
// "journal", "marker", "orphan_file", ...: as the report and JSON say it.
const char* CheckKindName(CheckKind kind);

// What the check can do about a finding.
enum class CheckAction {
  kRepair,     // repair fixes it without losing data
  kRefuse,     // only with data lost (or not at all): repair refuses, and changes nothing
  kLeaveAlone, // not TierFS's to change (a foreign file, a configuration matter)
};

// What repair did about a finding.
enum class RepairOutcome {
  kNone,     // no repair asked, or a finding repair leaves alone
  kFixed,    // repaired, and the check after repair no longer finds it
  kFailed,   // repair tried and failed, or the check after repair still finds it
  kRefused,  // not repaired: `note` says why
};
const char* RepairOutcomeName(RepairOutcome outcome);

struct CheckFinding {
  CheckKind kind = CheckKind::kJournal;
  CheckAction action = CheckAction::kRepair;
  int tier = -1;           // the tier it is on, -1 if none
  std::string file;        // the logical file (a name of it), "" if none
  uint64_t file_id = 0;    // its id (also the backing file's name), 0 if none
  int64_t segment = -1;    // the segment, -1 if none
  std::string path;        // the local path it concerns (backing file, marker, PAGES)
  uint64_t bytes = 0;      // the bytes concerned (orphaned, stray, missing, drifted)
  uint64_t offset = 0;     // stray data: the range of `path` repair punches
  uint64_t length = 0;
  std::string detail;      // what is wrong, in a sentence
  RepairOutcome outcome = RepairOutcome::kNone;
  std::string note;        // what repair did, or why it did not
};

// Per tier: what the map charges and what the device holds.
struct CheckTierSummary {
  int index = 0;
  std::string root;
  uint64_t capacity = 0;
  uint64_t charged = 0;     // what the map charges (recovery's account)
  uint64_t allocated = 0;   // blocks of its backing files on the device
  uint64_t backing_files = 0;
  uint64_t homes = 0, copies = 0;
};

struct CheckReport {
  std::string store;          // tier 0's root
  uint64_t generation = 0;    // the journal generation read
  uint64_t records = 0;       // snapshot and journal records replayed
  bool torn_tail = false;     // an incomplete last record (dropped at the next open)
  uint64_t files = 0;         // files in the map
  uint64_t segments = 0;      // placed segments
  uint64_t bytes_checked = 0; // segment bytes examined (extents) and copy bytes compared
  std::vector<CheckTierSummary> tiers;
  std::vector<CheckFinding> findings;
  // With repair: whether it ran (false: refused, or nothing to do), and
  // what the check after it found.
  bool repaired = false;
  std::vector<CheckFinding> remaining;

  bool clean() const { return findings.empty(); }
};

struct CheckProgress {
  uint64_t bytes_done = 0;   // segment bytes examined so far
  uint64_t bytes_total = 0;  // of the store's placed segment bytes
};

struct CheckOptions {
  bool repair = false;
  // Called now and then from the checking thread (at most every 64 MiB
  // examined and at the end); may be empty.
  std::function<void(const CheckProgress&)> progress;
};

// Checks (and with options.repair, repairs) the store `options` describes.
// Findings go in *report; the status is not OK only when the check could not
// run: Busy if another process (or this one) has the store open, naming the
// process; NotFound if there is no store at tier 0; InvalidArgument for
// options that do not validate; IOError if a directory cannot be listed.
rocksdb::Status CheckStore(const Options& options, const CheckOptions& check,
                           CheckReport* report);

}  // namespace tierfs
