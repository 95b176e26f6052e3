// The simulator's configuration: the live grammar (core/config.cc), read
// without the checks that only make sense for directories on disk.
#include <string>

#include "core/config.h"
#include "tools/sim/simulator.h"

namespace tierfs {
namespace sim {

bool ParseSimConfig(const std::string& uri, SimConfig* config, std::string* error) {
  Options options;
  ParseStatus s = ParseUriUnchecked(uri, &options);
  if (!s.ok()) {
    *error = s.ToString();
    return false;
  }
  if (options.tiers.empty() || options.tiers.size() > kMaxTiers) {
    *error = "configuration '" + uri + "' needs 1 to 8 tiers, has " +
             std::to_string(options.tiers.size());
    return false;
  }
  SimConfig out;
  for (size_t i = 0; i < options.tiers.size(); ++i) {
    const TierOptions& t = options.tiers[i];
    SimTier tier;
    tier.name = t.path;
    tier.capacity = t.capacity;
    s = ParseDeviceParams(t.device, &tier.device);
    if (!s.ok() || t.capacity == 0) {
      *error = "tier " + std::to_string(i) + " (" + t.path + "): " +
               (s.ok() ? std::string("capacity must be greater than zero") : s.message());
      return false;
    }
    out.tiers.push_back(tier);
  }
  if (options.segment_size == 0 || options.segment_size % kBlockSize != 0) {
    *error = "segment_size must be a positive multiple of 4096 in the simulator (whole-file "
             "segments are not simulated)";
    return false;
  }
  out.segment_size = options.segment_size;
  out.policy = options.policy;
  for (const auto& [key, value] : options.policy_params) {
    const std::string owner = key.substr(0, key.find('.'));
    if (owner != options.policy) {
      *error = "parameter '" + key + "' is for policy " + owner + ", but the policy is " +
               options.policy;
      return false;
    }
    out.policy_params[key.substr(key.find('.') + 1)] = value;
  }
  out.migration = options.migration;
  out.copies = options.copies;
  *config = out;
  return true;
}

std::string DescribeTiers(const SimConfig& config) {
  std::string out;
  for (const SimTier& t : config.tiers) {
    if (!out.empty()) out += ",";
    out += t.name + ":" + FormatSize(t.capacity) + ":" + t.device.name;
  }
  return out;
}

}  // namespace sim
}  // namespace tierfs
