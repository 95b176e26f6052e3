// `tierfs check [--repair]`: the fsck of a store at rest (env/store_check.h),
// as the admin tool prints it.
#pragma once

#include <string>

namespace tierfs {

// Checks the store `fs_uri` names and prints what it found: a table, or with
// `json` one JSON object. With `repair`, repairs what can be repaired without
// losing data and says, per finding, what it did or why it refused. Progress
// (bytes examined, rate) goes to stderr when stdout and stderr are terminals.
// Returns the exit status: 0 the store is clean (after repair, if repaired),
// 1 findings remain, 2 the check could not run (a bad URI, no store, the
// store open in another process).
int RunCheck(const std::string& fs_uri, bool repair, bool json);

}  // namespace tierfs
