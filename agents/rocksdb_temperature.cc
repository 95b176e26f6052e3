// rocksdb-temperature: RocksDB's own time-aware tiering, followed rather than
// decided. RocksDB 7.8.3 tells a file system the temperature of each new file
// (FileOptions::temperature): with `last_level_temperature` set, the outputs
// of compactions into the last level are written kWarm or kCold, and every
// other file (flushes, upper levels, WAL, metadata) kUnknown. A file system
// that follows it keeps warm and cold files on the cold device and the rest
// on the hot one. This policy does exactly that: a segment of a file written
// warm or cold goes to the slowest tier, any other to tier 0; when the tier
// is full the file system spills it as for every policy. It never migrates
// and never evicts: RocksDB moves data only by rewriting it, and a file keeps
// the temperature it was written with (a trivial move into the last level
// keeps the old file, and so its tier).
//
// It is the policy of TierFS's emulation-only mode (`placement:rocksdb`,
// tierfs/file_system.h), in which the store first pins every file created under a
// tier's root directory to that tier (RocksDB's db_paths) and this policy
// places the others. Not in PolicyNames(): it decides nothing of its own, so
// comparisons of TierFS's policies leave it out. Parameters: none.
#include "agents/policies.h"

namespace tierfs {
namespace {

class RocksDBTemperature : public Policy {
 public:
  const char* Name() const override { return "rocksdb-temperature"; }
  // Follows RocksDB's placement, which moves nothing.
  bool Fills() const override { return false; }
  int CopySharePct() const override { return 0; }
  bool KeepsItsPlacement() const override { return true; }
  int Place(const PlacementRequest& request, const StorageView& view) override {
    const Temperature t = request.hints.temperature;
    return t == Temperature::kWarm || t == Temperature::kCold ? view.NumTiers() - 1 : 0;
  }
};

}  // namespace

std::unique_ptr<Policy> NewRocksDBTemperaturePolicy(ParamReader&) {
  return std::make_unique<RocksDBTemperature>();
}

}  // namespace tierfs
