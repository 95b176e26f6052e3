// The public parsers (ParseUri, ParseConfigFile): the grammar of
// core/config.cc, then validation of tierfs::Options against the machine.
#include "core/config.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/policy.h"
#include "core/device_model.h"
#include "tierfs/file_system.h"

namespace tierfs {

using rocksdb::Status;

namespace {

bool IsUnder(const std::string& a, const std::string& b) {
  // True if path a equals b or lies below it.
  if (a == b) return true;
  std::string prefix = b.back() == '/' ? b : b + "/";
  return a.compare(0, prefix.size(), prefix) == 0;
}

// The directory as the kernel sees it (symlinks and '..' resolved), so two
// spellings of one directory are caught; the path as given if it does not
// exist (that error is reported separately).
std::string Resolved(const std::string& p) {
  char buf[PATH_MAX];
  std::string r = realpath(p.c_str(), buf) ? buf : p;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return r;
}

}  // namespace

Status ParseConfigFile(const std::string& path, Options* options) {
  ParseStatus s = ParseConfigFileUnchecked(path, options);
  return s.ok() ? ValidateOptions(*options) : Status::InvalidArgument(s.message());
}

Status ParseUri(const std::string& uri, Options* options) {
  ParseStatus s = ParseUriUnchecked(uri, options);
  return s.ok() ? ValidateOptions(*options) : Status::InvalidArgument(s.message());
}

Status ValidateOptions(const Options& options) {
  if (options.tiers.empty() || options.tiers.size() > kMaxTiers) {
    return Status::InvalidArgument("TierFS needs 1 to 8 tiers, got " +
                                   std::to_string(options.tiers.size()));
  }
  if (options.segment_size % kBlockSize != 0) {
    return Status::InvalidArgument("segment_size " + std::to_string(options.segment_size) +
                                   " is not a multiple of 4096");
  }
  if (options.placement != Placement::kTierFS && options.placement != Placement::kRocksDB) {
    return Status::InvalidArgument("bad placement " + std::to_string(int(options.placement)) +
                                   " (expected Placement::kTierFS or kRocksDB)");
  }
  if (options.placement == Placement::kRocksDB && (options.policy != kFollowerPolicy || options.migration.enabled)) {
    return Status::InvalidArgument(
        std::string("placement rocksdb follows RocksDB's placement: it needs policy ") +
        kFollowerPolicy + " (got '" + options.policy + "') and migration off" +
        (options.migration.enabled ? " (got on)" : ""));
  }
  std::string error;
  PolicyParams params;
  for (const auto& [key, value] : options.policy_params) {
    std::string owner = key.substr(0, key.find('.'));
    if (owner != options.policy) {
      return Status::InvalidArgument("parameter '" + key + "' is for policy " + owner +
                                     ", but the policy is " + options.policy);
    }
    params[key.substr(key.find('.') + 1)] = value;
  }
  if (!NewPolicy(options.policy, params, &error)) {
    return Status::InvalidArgument(error);
  }
  for (size_t i = 0; i < options.tiers.size(); ++i) {
    const TierOptions& t = options.tiers[i];
    std::string name = "tier " + std::to_string(i) + " (" + t.path + ")";
    if (t.path.empty() || t.path[0] != '/') {
      return Status::InvalidArgument(name + ": path must be absolute");
    }
    if (t.capacity == 0) {
      return Status::InvalidArgument(name + ": capacity must be greater than zero");
    }
    DeviceParams device;
    ParseStatus s = ParseDeviceParams(t.device, &device);
    if (!s.ok()) return Status::InvalidArgument(name + ": " + s.message());
    for (size_t j = 0; j < i; ++j) {
      std::string a = Resolved(t.path);
      std::string b = Resolved(options.tiers[j].path);
      if (IsUnder(a, b) || IsUnder(b, a)) {
        return Status::InvalidArgument(name + " overlaps tier " + std::to_string(j) +
                                       " (" + options.tiers[j].path + ")");
      }
    }
    struct stat st;
    if (stat(t.path.c_str(), &st) != 0) {
      return Status::InvalidArgument(name + ": directory does not exist");
    }
    if (!S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(name + ": not a directory");
    }
    if (access(t.path.c_str(), W_OK | X_OK) != 0 && !options.read_only) {
      return Status::InvalidArgument(name + ": directory is not writable");
    }
  }
  return Status::OK();
}

}  // namespace tierfs
