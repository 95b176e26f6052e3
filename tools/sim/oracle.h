// The oracle: a policy that reads the future of the trace. The simulator's
// reference point, as in Harmonia (harmonia.txt, section 3; Meswani et al.,
// "Heterogeneous memory architectures", HPCA 2015): it knows when every
// segment is next accessed, and the device models of the tiers. It exists
// only in the simulator (the rule is in oracle.cc).
#pragma once

#include <memory>
#include <vector>

#include "agents/policy.h"
#include "core/device_model.h"

namespace tierfs {
namespace sim {

class FutureIndex;

constexpr const char* kOracleName = "oracle";

// The oracle over `future` (which the simulator keeps at the request being
// replayed) and the tiers' `devices`, fastest first. Parameters: interval
// (requests between plans, 64), reserve (fraction of tier 0 kept free for
// new data, 0.05), horizon (future accesses counted per decision, 32).
std::unique_ptr<Policy> NewOraclePolicy(const FutureIndex* future,
                                        std::vector<DeviceParams> devices, ParamReader& params);

}  // namespace sim
}  // namespace tierfs
