// tierfs-ycsb: YCSB's client for RocksDB (and RocksDB on TierFS), with YCSB's
// command line, workloads and report. See tools/ycsb/command_line.h and
// `tierfs-ycsb -h`.
#include <iostream>
#include <string>
#include <vector>

#include "tools/ycsb/tool.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return tierfs::ycsb::RunTool(args, &std::cout, &std::cerr);
}
