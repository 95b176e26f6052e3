// lru: fast first with least-recently-used eviction on the critical path, the
// eviction CDE and Sibyl use (harmonia.txt, section 3.3). Every new segment is
// taken to be hot and goes to tier 0; when tier 0 has no room for it, the
// writer first makes room there: extra copies on the tier are dropped, least
// recently used first (no data to write), then the least recently used
// segments that are not busy move to the next slower tier, until the new
// segment's bytes are freed. The slower tier is not emptied in turn: a
// migration to it without room is skipped and the new segment spills
// (policy.h). No background migration: data moves only when new data needs
// its room. Parameters: none.
#include "agents/lru_eviction.h"
#include "agents/policies.h"

namespace tierfs {
namespace {

class Lru : public Policy {
 public:
  const char* Name() const override { return "lru"; }
  int Place(const PlacementRequest&, const StorageView&) override { return 0; }
  bool EvictsOnPlacement() const override { return true; }
  void Evict(int tier, uint64_t bytes, const StorageView& view,
             std::vector<Move>* moves) override {
    eviction_.Evict(tier, bytes, view, moves);
  }

 private:
  LruEviction eviction_;  // Evict runs one at a time
};

}  // namespace

std::unique_ptr<Policy> NewLruPolicy(ParamReader&) { return std::make_unique<Lru>(); }

}  // namespace tierfs
