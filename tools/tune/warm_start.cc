// Stored configurations first (warm_start.h).
#include "tools/tune/warm_start.h"

namespace tierfs {
namespace tune {

bool WarmStart(const Space& space, const std::vector<std::string>& uris, Budget* budget,
               std::vector<std::string>* skipped) {
  for (const std::string& uri : uris) {
    Point p;
    if (!space.PointOf(uri, &p)) {
      if (skipped) skipped->push_back(uri);
      continue;
    }
    if (budget->Done()) break;
    double value;
    budget->Evaluate(p, &value);
    if (budget->failed()) return false;
  }
  return true;
}

bool RunWarm(Optimizer* optimizer, const Space& space, uint64_t seed,
             const std::vector<std::string>& uris, Budget* budget,
             std::vector<std::string>* skipped) {
  if (!WarmStart(space, uris, budget, skipped)) return false;
  if (!budget->Done()) optimizer->Run(space, seed, budget);
  return !budget->failed();
}

}  // namespace tune
}  // namespace tierfs
