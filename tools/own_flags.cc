#include "tools/own_flags.h"

#include <gflags/gflags.h>

#include <cstdlib>
#include <string>

namespace tierfs {

void ParseOwnFlags(int* argc, char*** argv, const char* source_dir) {
  gflags::ParseCommandLineNonHelpFlags(argc, argv, true);
  std::string help;
  if (gflags::GetCommandLineOption("help", &help) && help == "true") {
    gflags::ShowUsageWithFlagsRestrict((*argv)[0], source_dir);
    std::exit(0);
  }
  gflags::HandleCommandLineHelpFlags();  // --helpfull, --helpmatch, --version, ...
}

}  // namespace tierfs
