// The base of the inspection commands (inspect_commands.cc, heatmap_command.cc):
// each opens the store read-only, so it changes nothing and works beside a
// running database, and sees the I/O counters only up to the store's last
// clean close (what its STATS file holds).
#pragma once

#include <memory>

#include "tierfs/file_system.h"
#include "tools/tierfs/command.h"
#include "tools/tierfs/diagnostics.h"

namespace tierfs {
namespace tool {

// The group `tierfs help` lists the inspection commands under.
constexpr const char* kInspectGroup = "inspect the store (read-only, beside a running database)";

// The store's options from --fs_uri, read-only.
inline Options ReadOnlyOptions(const Invocation& inv) {
  Options options = inv.options;
  options.read_only = true;
  return options;
}

// Opens the store of `inv` read-only into *fs; false (the error logged) if it
// does not open.
inline bool OpenReadOnly(const Invocation& inv, std::shared_ptr<rocksdb::FileSystem>* fs) {
  rocksdb::Status s = NewTierFileSystem(ReadOnlyOptions(inv), fs);
  if (!s.ok()) LOG(ERROR) << s.ToString();
  return s.ok();
}

// Opens the store read-only and hands it to Inspect.
class InspectCommand : public Command {
 public:
  const char* Group() const override { return kInspectGroup; }
  int Run(const Invocation& inv) const override {
    std::shared_ptr<rocksdb::FileSystem> fs;
    if (!OpenReadOnly(inv, &fs)) return kExitFailed;
    return Inspect(*fs, ReadOnlyOptions(inv));
  }

 protected:
  // `options`: the store's, as parsed from --fs_uri (read-only).
  virtual int Inspect(const rocksdb::FileSystem& fs, const Options& options) const = 0;
};

}  // namespace tool
}  // namespace tierfs
