// tierfs-ycsb end to end: command line, properties, workload, RocksDB,
// client threads and report. In the library so tests run it as users do.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tierfs {
namespace ycsb {

// Runs tierfs-ycsb with `args` (without the program name). The report goes to
// *out (unless exportfile redirects it), progress and errors to *err.
// Returns the exit status: 0 done, 1 the phase failed or stopped early, 2 bad
// options or properties. Errors name the option, property, file or key at fault.
int RunTool(const std::vector<std::string>& args, std::ostream* out, std::ostream* err);

}  // namespace ycsb
}  // namespace tierfs
