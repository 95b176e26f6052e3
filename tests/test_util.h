// Helpers shared by the tests: scratch directories and TierFS URIs over them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/file_system.h>

#include "tierfs/tierfs.h"

namespace tierfs {
namespace test {

// A fresh directory under `parent` (default $TMPDIR, or /tmp), removed by the
// destructor.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag, const std::string& parent = "");
  ~ScratchDir();
  const std::string& path() const { return path_; }
  // Creates and returns <path>/<name>.
  std::string Sub(const std::string& name) const;

 private:
  std::string path_;
};

// Tiers <dir>/tier0, <dir>/tier1, ... with the given capacities.
Options MakeOptions(const ScratchDir& dir, const std::vector<std::string>& capacities,
                    const std::string& extra_uri_options = "");
std::string MakeUri(const ScratchDir& dir, const std::vector<std::string>& capacities,
                    const std::string& extra_uri_options = "");

// Bytes allocated to the backing files of tier `tier` (st_blocks), i.e. what
// the device really holds, independent of TierFS's own account.
uint64_t AllocatedOnTier(const std::string& tier_root);

// n pseudo-random bytes, the same for the same seed.
std::string RandomBytes(size_t n, uint32_t seed);

// Reads a whole logical file through `fs`.
std::string ReadAll(rocksdb::FileSystem* fs, const std::string& path);

// The lines of a file on the local disk; empty if it cannot be read.
std::vector<std::string> ReadLines(const std::string& path);

// The admin tool's path in the build tree (build target tierfs_tool).
std::string ToolPath();
// Runs the admin tool with `args` (shell words), its stderr folded into
// *output; returns its exit status, -1 if it could not be run.
int RunTool(const std::string& args, std::string* output);

// Everything written to file descriptor 2 — stdio, write(2), any library —
// from construction until Finish(), which restores it.
class StderrCapture {
 public:
  StderrCapture();
  ~StderrCapture();
  std::string Finish();

 private:
  int saved_ = -1;
  int fd_ = -1;
  std::string path_;
};

}  // namespace test
}  // namespace tierfs
