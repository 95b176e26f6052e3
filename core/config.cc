// The configuration grammar: tierfs:// URIs and configuration files.
#include "core/config.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "engine/page_copies.h"

namespace tierfs {

using Status = ParseStatus;

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) parts.push_back(cur);
  if (!s.empty() && s.back() == sep) parts.push_back("");
  return parts;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// One tier: fields already split. `where` prefixes error messages.
Status ParseTier(const std::vector<std::string>& fields, const std::string& where,
                 TierOptions* tier) {
  if (fields.size() < 2 || fields.size() > 3) {
    return Status::InvalidArgument(where + ": expected PATH:CAPACITY[:DEVICE]");
  }
  tier->path = fields[0];
  if (!ParseSize(fields[1], &tier->capacity)) {
    return Status::InvalidArgument(where + ": bad capacity '" + fields[1] +
                                   "' (expected e.g. 512M, 10G, 1T)");
  }
  tier->device = fields.size() == 3 ? fields[2] : "none";
  return Status::OK();
}

// Applies KEY, VALUE (both trimmed) to *options.
Status ApplyKey(const std::string& key, const std::string& value,
                const std::string& where, Options* options) {
  if (key == "segment_size") {
    if (value == "whole") {
      options->segment_size = 0;
      return Status::OK();
    }
    if (!ParseSize(value, &options->segment_size) || options->segment_size == 0) {
      return Status::InvalidArgument(where + ": bad segment_size '" + value +
                                     "' (expected a size such as 1M, or 'whole')");
    }
    return Status::OK();
  }
  if (key == "policy") {
    if (options->placement == Placement::kRocksDB && value != kFollowerPolicy) {
      return Status::InvalidArgument(where + ": policy '" + value +
                                     "' with placement:rocksdb, which follows RocksDB's placement "
                                     "(its policy is " + kFollowerPolicy + "); drop one of them");
    }
    options->policy = value;
    return Status::OK();
  }
  if (key == "placement") {
    // placement:rocksdb is the emulation-only mode (Options::placement): it
    // brings its policy and turns migration off, and refuses settings that
    // contradict it whichever order they come in.
    if (value == "tierfs") {
      options->placement = Placement::kTierFS;
      return Status::OK();
    }
    if (value != "rocksdb") {
      return Status::InvalidArgument(where + ": bad placement '" + value +
                                     "' (expected tierfs, or rocksdb to follow RocksDB's db_paths "
                                     "and temperatures)");
    }
    if (options->policy != Options().policy && options->policy != kFollowerPolicy) {
      return Status::InvalidArgument(where + ": placement:rocksdb with policy '" + options->policy +
                                     "': in this mode RocksDB decides placement (the policy is " +
                                     kFollowerPolicy + "); drop one of them");
    }
    options->placement = Placement::kRocksDB;
    options->policy = kFollowerPolicy;
    options->migration.enabled = false;
    return Status::OK();
  }
  // Files the store writes outside the tiers, and their intervals.
  static const struct {
    const char* key;
    std::string Options::*path;
  } kFileKeys[] = {{"trace", &Options::trace},
                   {"stats_log", &Options::stats_log},
                   {"metrics_file", &Options::metrics_file}};
  for (const auto& k : kFileKeys) {
    if (key != k.key) continue;
    if (value.empty() || value[0] != '/') {
      return Status::InvalidArgument(where + ": bad " + key + " '" + value +
                                     "' (expected an absolute file path outside the tiers)");
    }
    options->*k.path = value;
    return Status::OK();
  }
  static const struct {
    const char* key;
    uint64_t Options::*ms;
  } kIntervalKeys[] = {{"stats_log_ms", &Options::stats_log_ms}, {"metrics_ms", &Options::metrics_ms}};
  for (const auto& k : kIntervalKeys) {
    if (key != k.key) continue;
    uint64_t v;
    if (!ParseSize(value, &v) || v == 0) {
      return Status::InvalidArgument(where + ": bad " + key + " '" + value +
                                     "' (expected milliseconds, > 0)");
    }
    options->*k.ms = v;
    return Status::OK();
  }
  if (key == "migration") {
    if (value != "on" && value != "off") {
      return Status::InvalidArgument(where + ": bad migration '" + value + "' (expected on or off)");
    }
    if (value == "on" && options->placement == Placement::kRocksDB) {
      return Status::InvalidArgument(where + ": migration:on with placement:rocksdb, which never "
                                     "moves data (RocksDB decides placement)");
    }
    options->migration.enabled = value == "on";
    return Status::OK();
  }
  if (key == "migration_busy_share") {
    uint64_t v;
    if (!ParseSize(value, &v) || v == 0 || v > 100) {
      return Status::InvalidArgument(where + ": bad migration_busy_share '" + value +
                                     "' (expected a percentage, 1 to 100)");
    }
    options->migration.busy_share = v;
    return Status::OK();
  }
  if (key == "fast_headroom") {
    // "auto" (the default), a percentage of tier 0 ("5%") or a size ("64M").
    uint64_t v;
    if (value == "auto") {
      options->migration.fast_headroom_auto = true;
      options->migration.fast_headroom_pct = MigrationOptions().fast_headroom_pct;
      options->migration.fast_headroom_bytes = 0;
      return Status::OK();
    }
    options->migration.fast_headroom_auto = false;
    if (!value.empty() && value.back() == '%') {
      if (!ParseSize(value.substr(0, value.size() - 1), &v) || v > 100) {
        return Status::InvalidArgument(where + ": bad fast_headroom '" + value +
                                       "' (expected auto, a percentage of tier 0, 0% to 100%, or a size)");
      }
      options->migration.fast_headroom_pct = v;
      options->migration.fast_headroom_bytes = 0;
    } else {
      if (!ParseSize(value, &v)) {
        return Status::InvalidArgument(where + ": bad fast_headroom '" + value +
                                       "' (expected auto, a percentage of tier 0, e.g. 5%, or a size, e.g. 64M)");
      }
      options->migration.fast_headroom_bytes = v;
      options->migration.fast_headroom_pct = 0;  // "0" means no headroom, not the default
    }
    return Status::OK();
  }
  // The plain on/off switches (migration has rules of its own, above).
  bool* const flag = key == "copies"         ? &options->copies.enabled
                     : key == "copy_inherit" ? &options->copies.inherit
                     : key == "level_room"   ? &options->migration.level_room
                     : key == "wal_room"     ? &options->migration.wal_room
                                             : nullptr;
  if (flag) {
    if (value != "on" && value != "off") {
      return Status::InvalidArgument(where + ": bad " + key + " '" + value +
                                     "' (expected on or off)");
    }
    *flag = value == "on";
    return Status::OK();
  }
  if (key == "copy_page") {
    uint64_t v;
    if (!ParseSize(value, &v) || v < 4096 || v > (64 << 10) || (v & (v - 1)) != 0) {
      return Status::InvalidArgument(where + ": bad copy_page '" + value +
                                     "' (expected a power of two from 4K to 64K)");
    }
    options->copies.page = v;
    return Status::OK();
  }
  if (key == "copy_unit") {
    if (value != "page" && value != "block") {
      return Status::InvalidArgument(where + ": bad copy_unit '" + value +
                                     "' (expected page or block)");
    }
    options->copies.blocks = value == "block";
    return Status::OK();
  }
  if (key == "copy_policy") {
    CopyPolicy policy;
    if (!ParseCopyPolicy(value, &policy)) {
      return Status::InvalidArgument(where + ": bad copy_policy '" + value +
                                     "' (expected tinylfu, w-tinylfu or s3-fifo)");
    }
    options->copies.policy = policy;
    return Status::OK();
  }
  if (key == "copy_share") {
    uint64_t v;
    const std::string pct = !value.empty() && value.back() == '%' ? value.substr(0, value.size() - 1)
                                                                   : value;
    if (!ParseSize(pct, &v) || v > 100) {
      return Status::InvalidArgument(where + ": bad copy_share '" + value +
                                     "' (expected a percentage of tier 0, 0% to 100%)");
    }
    options->copies.share_pct = v;
    return Status::OK();
  }
  if (key == "migration_plan_ms") {
    uint64_t v;
    if (!ParseSize(value, &v) || v == 0) {
      return Status::InvalidArgument(where + ": bad migration_plan_ms '" + value +
                                     "' (expected milliseconds, > 0)");
    }
    options->migration.plan_ms = v;
    return Status::OK();
  }
  if (key == "migration_queue" || key == "migration_rate" || key == "migration_idle_ops") {
    uint64_t v;
    if (!ParseSize(value, &v) || v == 0) {
      return Status::InvalidArgument(where + ": bad " + key + " '" + value +
                                     "' (expected a positive number" +
                                     (key == "migration_rate" ? ", bytes per second, e.g. 64M)" : ")"));
    }
    (key == "migration_queue" ? options->migration.queue
     : key == "migration_rate" ? options->migration.rate
                               : options->migration.idle_ops) = v;
    return Status::OK();
  }
  size_t dot = key.find('.');
  if (dot != std::string::npos && dot > 0 && dot + 1 < key.size()) {
    // POLICY.PARAM: a tunable of a policy (checked against the policy chosen).
    options->policy_params[key] = value;
    return Status::OK();
  }
  return Status::InvalidArgument(where + ": unknown key '" + key +
                                 "' (known: segment_size, policy, placement, POLICY.PARAM, migration, "
                                 "migration_queue, migration_rate, migration_idle_ops, migration_busy_share, "
                                 "migration_plan_ms, fast_headroom, level_room, wal_room, copies, copy_page, copy_unit, copy_share, copy_inherit, copy_policy, "
                                 "trace, stats_log, stats_log_ms, metrics_file, metrics_ms" +
                                 (where.rfind("line", 0) == 0 ? ", tier" : "") + ")");
}

}  // namespace

Status ParseConfigFileUnchecked(const std::string& path, Options* options) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("TierFS config file '" + path + "' is not a regular file");
  }
  std::ifstream in(path);
  if (!in) {
    return Status::InvalidArgument("cannot read TierFS config file '" + path + "'");
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return Status::InvalidArgument("cannot read TierFS config file '" + path + "'");
  }
  return ParseConfigTextUnchecked(text.str(), path, options);
}

Status ParseConfigTextUnchecked(const std::string& text, const std::string& name,
                                Options* options) {
  std::istringstream in(text);
  *options = Options();
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string where = "line " + std::to_string(lineno) + " of " + name;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument(where + ": expected KEY = VALUE, got '" + line + "'");
    }
    std::string key = Trim(line.substr(0, eq));
    std::string value = Trim(line.substr(eq + 1));
    if (key == "tier") {
      std::vector<std::string> fields;
      std::istringstream words(value);
      for (std::string w; words >> w;) fields.push_back(w);
      TierOptions tier;
      Status s = ParseTier(fields, where, &tier);
      if (!s.ok()) return s;
      options->tiers.push_back(tier);
      continue;
    }
    Status s = ApplyKey(key, value, where, options);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status ParseUriUnchecked(const std::string& uri, Options* options) {
  const std::string scheme = "tierfs://";
  if (uri.compare(0, scheme.size(), scheme) != 0) {
    return Status::InvalidArgument("TierFS URI '" + uri + "' must start with tierfs://");
  }
  if (uri.find('=') != std::string::npos) {
    return Status::InvalidArgument(
        "TierFS URI '" + uri +
        "' contains '=': RocksDB would read it as key=value options; use KEY:VALUE");
  }
  std::string body = uri.substr(scheme.size());
  const std::string config = "config:";
  if (body.compare(0, config.size(), config) == 0) {
    return ParseConfigFileUnchecked(body.substr(config.size()), options);
  }
  *options = Options();
  std::vector<std::string> sections = Split(body, ';');
  if (sections.empty() || sections[0].empty()) {
    return Status::InvalidArgument("TierFS URI '" + uri + "' names no tier");
  }
  std::vector<std::string> tiers = Split(sections[0], ',');
  for (size_t i = 0; i < tiers.size(); ++i) {
    TierOptions tier;
    Status s = ParseTier(Split(tiers[i], ':'),
                         "tier " + std::to_string(i) + " '" + tiers[i] + "'", &tier);
    if (!s.ok()) return s;
    options->tiers.push_back(tier);
  }
  for (size_t i = 1; i < sections.size(); ++i) {
    size_t colon = sections[i].find(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument("option '" + sections[i] +
                                     "' in TierFS URI: expected KEY:VALUE");
    }
    Status s = ApplyKey(sections[i].substr(0, colon), sections[i].substr(colon + 1),
                        "option '" + sections[i] + "'", options);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace tierfs
