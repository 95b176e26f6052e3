// The command-line flags of one of our tools, without librocksdb's.
//
// Debian's librocksdb carries RocksDB's own tools (the trace and block cache
// analyzers), whose gflags register when the library loads, so gflags'
// --help listed some sixty flags no tool of ours reads. ParseOwnFlags
// answers --help with the flags defined under the tool's own source
// directory; --helpfull still lists every flag.
#pragma once

namespace tierfs {

// gflags::ParseCommandLineFlags(argc, argv, true), but --help shows only the
// flags defined in files under `source_dir` (e.g. "tools/sim/"), then exits.
void ParseOwnFlags(int* argc, char*** argv, const char* source_dir);

}  // namespace tierfs
