// Constructors of the built-in policies, one file each; NewPolicy (policy.cc)
// is the only caller. Each reads its tunables from `params` (defaults for
// those not given).
#pragma once

#include <memory>

#include "agents/policy.h"

namespace tierfs {

std::unique_ptr<Policy> NewFastFirstPolicy(ParamReader& params);
std::unique_ptr<Policy> NewFastOnlyPolicy(ParamReader& params);
std::unique_ptr<Policy> NewSlowOnlyPolicy(ParamReader& params);
std::unique_ptr<Policy> NewLruPolicy(ParamReader& params);
std::unique_ptr<Policy> NewCdePolicy(ParamReader& params);
std::unique_ptr<Policy> NewHintStorPolicy(ParamReader& params);
std::unique_ptr<Policy> NewMutantPolicy(ParamReader& params);
std::unique_ptr<Policy> NewRocksDBLevelsPolicy(ParamReader& params);
std::unique_ptr<Policy> NewHarmoniaPolicy(ParamReader& params);
std::unique_ptr<Policy> NewHarmoniaNoCoordPolicy(ParamReader& params);
std::unique_ptr<Policy> NewSapmPolicy(ParamReader& params);
std::unique_ptr<Policy> NewCdeRlMigrPolicy(ParamReader& params);
std::unique_ptr<Policy> NewSibylPolicy(ParamReader& params);
std::unique_ptr<Policy> NewKSvmPolicy(ParamReader& params);
std::unique_ptr<Policy> NewRnnHssPolicy(ParamReader& params);
// Follows RocksDB's temperatures (emulation-only mode); not in PolicyNames().
std::unique_ptr<Policy> NewRocksDBTemperaturePolicy(ParamReader& params);

}  // namespace tierfs
