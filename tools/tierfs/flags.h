// The tierfs tool's flags (gflags), each defined once in flags.cc. A command
// names the flags it takes (Command::Flags in command.h); main.cc refuses a
// flag given to a command that does not take it, naming both.
#pragma once

#include <gflags/gflags.h>

#include <string>
#include <vector>

DECLARE_string(fs_uri);
DECLARE_string(db);
DECLARE_bool(json);
DECLARE_string(segments);
DECLARE_string(cf);
DECLARE_int32(timeout_ms);
DECLARE_bool(repair);
DECLARE_bool(wait);
DECLARE_string(png);
DECLARE_string(color);
DECLARE_string(trace);
DECLARE_int32(windows);
DECLARE_int32(interval_ms);
DECLARE_int32(count);

namespace tierfs {
namespace tool {

// True if --NAME was given on the command line (even with its default value).
bool FlagGiven(const std::string& name);

// The tool's own flags that were given, by name, --fs_uri included: every
// flag defined under tools/tierfs/, not gflags' own (--flagfile, ...).
std::vector<std::string> GivenToolFlags();

// What usage shows as the flag's value ("URI" for --fs_uri=URI); "" for a
// bool flag.
std::string FlagValueName(const std::string& name);

}  // namespace tool
}  // namespace tierfs
