// The static policies: fast-first, and the two bounds fast-only and slow-only.
#include "agents/policies.h"

namespace tierfs {
namespace {

// The fastest tier with room for the whole segment; tier 0 when none has room
// (the file system then reports which tiers are full).
class FastFirst : public Policy {
 public:
  const char* Name() const override { return "fast-first"; }
  int Place(const PlacementRequest& request, const StorageView& view) override {
    for (int t = 0; t < view.NumTiers(); ++t) {
      if (view.Used(t) + request.bytes <= view.Capacity(t)) return t;
    }
    return 0;
  }
};

// Everything on one fixed end of the hierarchy. `fast-only` is the reference
// every result is normalized to (a fast tier large enough for everything);
// `slow-only` is the other bound. Metadata still goes to tier 0 (the file
// system forces it), so slow-only measures bulk data on the slow device.
class FixedTier : public Policy {
 public:
  FixedTier(const char* name, bool slowest) : name_(name), slowest_(slowest) {}
  const char* Name() const override { return name_; }
  int Place(const PlacementRequest&, const StorageView& view) override {
    return slowest_ ? view.NumTiers() - 1 : 0;
  }
  // slow-only is a bound: its data stays slow.
  bool Fills() const override { return !slowest_; }
  // slow-only is the all-slow reference: no copies either.
  int CopySharePct() const override { return slowest_ ? 0 : -1; }
  // Both are bounds: each places as it says.
  bool KeepsItsPlacement() const override { return true; }

 private:
  const char* const name_;
  const bool slowest_;
};

}  // namespace

std::unique_ptr<Policy> NewFastFirstPolicy(ParamReader&) { return std::make_unique<FastFirst>(); }
std::unique_ptr<Policy> NewFastOnlyPolicy(ParamReader&) {
  return std::make_unique<FixedTier>("fast-only", false);
}
std::unique_ptr<Policy> NewSlowOnlyPolicy(ParamReader&) {
  return std::make_unique<FixedTier>("slow-only", true);
}

}  // namespace tierfs
