#include "agents/policy.h"

#include <cmath>
#include <cstdlib>

#include "agents/policies.h"
#include "util/size.h"

namespace tierfs {
namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Policy> (*make)(ParamReader&);
};

// In the order the docs list them.
const Entry kPolicies[] = {
    {"fast-first", NewFastFirstPolicy},
    {"fast-only", NewFastOnlyPolicy},
    {"slow-only", NewSlowOnlyPolicy},
    {"lru", NewLruPolicy},
    {"cde", NewCdePolicy},
    {"hintstor", NewHintStorPolicy},
    {"mutant", NewMutantPolicy},
    {"rocksdb-levels", NewRocksDBLevelsPolicy},
    {"harmonia", NewHarmoniaPolicy},
    {"harmonia-nocoord", NewHarmoniaNoCoordPolicy},
    {"sibyl", NewSibylPolicy},
    {"sapm", NewSapmPolicy},
    {"cde+rl-migr", NewCdeRlMigrPolicy},
    {"k-svm", NewKSvmPolicy},
    {"rnn-hss", NewRnnHssPolicy},
};

// Policies that follow RocksDB's decisions instead of making their own:
// accepted by NewPolicy, left out of PolicyNames() (the policies comparisons run).
const Entry kFollowers[] = {
    {"rocksdb-temperature", NewRocksDBTemperaturePolicy},
};

// By AccessHint, in enum order.
const char* const kAccessHintNames[] = {"none", "hot", "cold", "write-intensive",
                                        "read-intensive", "archival"};
// By DataOp, in enum order.
const char* const kDataOpNames[] = {"migrate", "replicate", "prefetch", "drop-copy"};

// names[value], or "?" for a value past the table (a cast integer).
template <typename Enum, size_t N>
const char* EnumName(const char* const (&names)[N], Enum value) {
  return size_t(value) < N ? names[size_t(value)] : "?";
}

// The enum value whose name (names[value]) is `name`; false if none.
template <typename Enum, size_t N>
bool ParseEnumName(const char* const (&names)[N], const std::string& name, Enum* out) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      *out = Enum(i);
      return true;
    }
  }
  return false;
}

}  // namespace

double SegmentStats::HeatAt(uint64_t now) const {
  if (heat == 0 || now <= last_access) return heat;
  return heat * std::exp2(-double(now - last_access) / double(kHeatHalfLife));
}

bool StorageView::Lookup(const SegmentRef& ref, SegmentInfo* info) const {
  bool found = false;
  ForEachSegment([&](const SegmentInfo& s) {
    if (s.ref == ref) {
      *info = s;
      found = true;
    }
  });
  return found;
}

void StorageView::ForEachSegmentThat(bool tables, bool read_below_fast,
                                     const std::function<void(const SegmentInfo&)>& fn) const {
  ForEachSegment([&](const SegmentInfo& s) {
    if ((tables && s.kind == FileKind::kSst) ||
        (read_below_fast && s.tier != 0 && s.stats.user_reads > 0)) {
      fn(s);
    }
  });
}

const char* AccessHintName(AccessHint hint) { return EnumName(kAccessHintNames, hint); }

bool ParseAccessHint(const std::string& name, AccessHint* hint) {
  return ParseEnumName(kAccessHintNames, name, hint);
}

const char* DataOpName(DataOp op) { return EnumName(kDataOpNames, op); }

bool ParseDataOp(const std::string& name, DataOp* op) { return ParseEnumName(kDataOpNames, name, op); }

bool PolicyLearns(const std::string& name) {
  return name == "harmonia" || name == "harmonia-nocoord" || name == "sibyl" || name == "sapm" ||
         name == "cde+rl-migr";
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const Entry& e : kPolicies) names.push_back(e.name);
  return names;
}

double ParamReader::Number(const std::string& key, double fallback) {
  auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  used_[key] = true;
  char* end = nullptr;
  double v = strtod(it->second.c_str(), &end);
  // Policies turn counts and intervals into integers: past 2^53 (where
  // doubles stop holding every integer) a value is no count but damage, and
  // converting it would be undefined behaviour.
  if (it->second.empty() || *end != '\0' || !(std::fabs(v) <= 9007199254740992.0)) {
    if (bad_.empty()) bad_ = key + ":" + it->second;
    return fallback;
  }
  return v;
}

uint64_t ParamReader::Size(const std::string& key, uint64_t fallback) {
  auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  used_[key] = true;
  uint64_t v;
  if (!ParseSize(it->second, &v)) {
    if (bad_.empty()) bad_ = key + ":" + it->second;
    return fallback;
  }
  return v;
}

bool ParamReader::Finish(const std::string& policy, std::string* error) const {
  if (!failed_.empty()) {
    *error = "policy " + policy + ": " + failed_;
    return false;
  }
  if (!bad_.empty()) {
    *error = "policy " + policy + ": malformed parameter '" + policy + "." + bad_ + "'";
    return false;
  }
  for (const auto& kv : params_) {
    if (!used_.count(kv.first)) {
      *error = "policy " + policy + " has no parameter '" + kv.first + "'";
      return false;
    }
  }
  return true;
}

std::unique_ptr<Policy> NewPolicy(const std::string& name, const PolicyParams& params,
                                  std::string* error) {
  const Entry* entry = nullptr;
  for (const Entry& e : kPolicies) entry = name == e.name ? &e : entry;
  for (const Entry& e : kFollowers) entry = name == e.name ? &e : entry;
  if (entry) {
    ParamReader reader(params);
    std::unique_ptr<Policy> policy = entry->make(reader);
    if (!reader.Finish(name, error)) return nullptr;
    return policy;
  }
  std::string known;
  for (const Entry& e : kPolicies) known += known.empty() ? e.name : std::string(", ") + e.name;
  for (const Entry& e : kFollowers) known += std::string(", ") + e.name;
  *error = "unknown policy '" + name + "' (known: " + known + ")";
  return nullptr;
}

}  // namespace tierfs
