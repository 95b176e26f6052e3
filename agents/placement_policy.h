// The placement interface: which tier a new segment is written to.
//
// A policy knows nothing of RocksDB or of files on disk. It sees the request that
// needs a new segment and a read-only view of the hybrid storage, and names a
// tier. The file system then honours capacity: if the named tier has no room the
// segment goes to the next tier with room (a "spill"), so a policy never has to
// be right about free space for writes to succeed.
//
// Thread safety: Place() may be called concurrently from many threads; an
// implementation with state must synchronize it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/file_kind.h"

namespace tierfs {

// What the storage looks like to a policy. Tier 0 is the fastest.
class StorageView {
 public:
  virtual ~StorageView() = default;
  virtual int NumTiers() const = 0;
  // Bytes the tier may hold, and bytes charged to it now (resident + reserved).
  virtual uint64_t Capacity(int tier) const = 0;
  virtual uint64_t Used(int tier) const = 0;
};

// A request that needs a tier for a segment not yet placed.
struct PlacementRequest {
  uint64_t file_id = 0;
  FileKind kind = FileKind::kOther;
  uint64_t segment = 0;        // index of the segment within its file
  uint64_t bytes = 0;          // bytes the segment will hold at most
  int lifetime_hint = 0;       // RocksDB's WriteLifeTimeHint: 0 unset .. 5 extreme
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // The name users type in the URI ("fast-first", ...).
  virtual const char* Name() const = 0;
  // Returns the preferred tier, in [0, view.NumTiers()).
  virtual int Place(const PlacementRequest& request,
                    const StorageView& view) = 0;
};

// Creates the policy called `name`. On an unknown name returns nullptr and sets
// *error to a message naming it and listing the known names.
std::unique_ptr<PlacementPolicy> NewPlacementPolicy(const std::string& name,
                                                    std::string* error);

// Names accepted by NewPlacementPolicy, in the order the docs list them.
std::vector<std::string> PlacementPolicyNames();

}  // namespace tierfs
