// The segments' statistics a store keeps across restarts: the "segments"
// rows of meta/STATS (env/stats_file.h), written at a save and read at the
// next open, and read as well by a replay that starts where a reopened
// store started (tierfs-sim --stats_in): one format, written once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "agents/policy.h"

namespace tierfs {

struct SavedSegment {
  uint64_t id = 0;       // its file's id
  uint64_t segment = 0;  // its index in the file
  SegmentStats stats;
  // The row holds the request times (last access, placed, last migration).
  // Rows of files saved before the store kept its clock have none.
  bool times = false;
};

// [file id, segment, user reads, background reads, writes, migrations, heat
// as of last access, last access, placed, last migration], sequence numbers
// on the store's request clock (saved beside the rows as "seq").
nlohmann::json SavedSegmentToJson(const SavedSegment& s);

// Reads a row written by SavedSegmentToJson (or one without the times).
// False if the row has not that shape (the caller skips and counts it);
// throws std::exception on a value of the wrong type or out of its field's
// range (core/json_number.h).
bool SavedSegmentFromJson(const nlohmann::json& row, SavedSegment* out);

// The rows of a statistics file's text, in its order, malformed rows skipped
// and counted in *skipped. False if the text is not a statistics file
// (nothing read). A damaged row (a value of the wrong type or out of its
// field's range) ends the rows read there: *damage says which and why ("" if
// none), the rows before it are in *rows, as the store's open keeps them.
// Damage in the sections the store reads before these rows (its errors,
// tiers, files and clock: env/stats_file.cc) stops its load before any row;
// it is not looked for here, so a replay takes every row of such a file.
bool ReadSavedSegments(const std::string& text, std::vector<SavedSegment>* rows,
                       uint64_t* skipped, std::string* damage);

}  // namespace tierfs
