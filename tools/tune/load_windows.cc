// The windows of a workload as the simulator loads it (characterize.h's
// LoadWindows): kept apart from the model so the model's decoder builds
// without the simulator (its fuzzer links no tools/sim).
#include "tools/sim/compare.h"
#include "tools/tune/characterize.h"
#include "tools/tune/window_features.h"

namespace tierfs {
namespace tune {

bool LoadWindows(const std::string& workload, uint64_t requests, uint64_t seed,
                 WorkloadWindows* out, std::string* error) {
  std::vector<TraceRecord> trace;
  if (!sim::LoadWorkload(workload, requests, seed, &trace, error)) {
    *error = "workload '" + workload + "': " + *error;
    return false;
  }
  out->name = workload;
  out->windows = WindowFeatures(trace);
  if (out->windows.empty()) {
    *error = "workload '" + workload + "' has no I/O request to characterize";
    return false;
  }
  return true;
}

}  // namespace tune
}  // namespace tierfs
