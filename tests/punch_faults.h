// Hole punches that fail on demand. TierFS punches holes with fallocate(2) on
// a backing file's path (env/posix_util.h: PunchHole), beside
// rocksdb::FileSystem, so the FaultFS wrapper (fault_fs.h) never sees them. A
// test binary linked with punch_faults.cc defines fallocate itself, and the
// dynamic linker binds libtierfs's calls to it ahead of glibc's: a punch
// (FALLOC_FL_PUNCH_HOLE) of a file whose path contains the switch's string
// fails with EOPNOTSUPP, as on a file system that cannot punch; every other
// call goes to the kernel unchanged.
#pragma once

#include <string>

namespace tierfs {
namespace test {

// Punches of paths containing `substring` fail from now on; "" (the
// default): none does. Thread-safe.
void FailPunchesOf(const std::string& substring);

// Punches failed so far, and all punches seen (failed or not).
int PunchesFailed();
int PunchesSeen();

}  // namespace test
}  // namespace tierfs
