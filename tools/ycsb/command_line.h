// YCSB's command line: -P FILE (several, later files win), -p KEY=VALUE
// (overrides every file), -load | -run (or -t), -threads N, -target N, -s,
// -l LABEL, plus -json FILE (a JSON copy of the report). As in YCSB, the
// options other than -P become properties that override the files'
// (threadcount, target, dotransactions, status, label).
#pragma once

#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "tools/ycsb/properties.h"

namespace tierfs {
namespace ycsb {

struct CommandLine {
  Properties props;       // files, then the command line's overrides
  std::string json_path;  // -json; "" for none
  bool help = false;      // -h: print Usage() and do nothing else
};

// Parses the arguments (without the program name). InvalidArgument names an
// unknown option, a missing or malformed value; IOError an unreadable -P file.
rocksdb::Status ParseCommandLine(const std::vector<std::string>& args, CommandLine* result);

// The usage text, generated from the option table.
std::string Usage();

}  // namespace ycsb
}  // namespace tierfs
