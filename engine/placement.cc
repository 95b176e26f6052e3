#include "engine/placement.h"

namespace tierfs {

int PlacementEngine::Choose(const PlacementRequest& request, bool bulk, uint64_t bytes,
                            const StorageView& view,
                            const std::function<void(const Move&)>& execute) {
  const int tiers = view.NumTiers();
  if (request.hints.pinned_tier >= 0 && request.hints.pinned_tier < tiers) {
    return request.hints.pinned_tier;  // REDIRECT
  }
  if (!bulk) return 0;
  int want = policy_->Place(request, view);
  if (want < 0 || want >= tiers) want = 0;
  if (!policy_->EvictsOnPlacement() || view.Free(want) >= bytes) return want;
  std::lock_guard<std::mutex> lock(decide_mu_);
  // Another writer may have made the room while this one waited.
  if (view.Free(want) >= bytes) return want;
  victims_.clear();
  policy_->Evict(want, bytes - view.Free(want), view, &victims_);
  for (const Move& m : victims_) {
    // A victim that cannot move now (written, or no room below) is skipped;
    // if room is still short, the new segment spills.
    execute(m);
    if (view.Free(want) >= bytes) break;
  }
  return want;
}

void PlacementEngine::Plan(const StorageView& view, size_t max, std::vector<Move>* moves) {
  std::lock_guard<std::mutex> lock(decide_mu_);
  policy_->Plan(view, max, moves);
}

MoveStep FirstStep(const Move& move, int tiers, int home, int copy) {
  if (move.op == Move::kDropCopy) return copy < 0 ? MoveStep::kNothing : MoveStep::kDropCopy;
  if (move.to < 0 || move.to >= tiers) return MoveStep::kInvalid;
  if (move.to == home) return MoveStep::kNothing;
  if (move.op != Move::kMigrate && copy == move.to) return MoveStep::kNothing;
  return MoveStep::kCarry;
}

}  // namespace tierfs
