#include "tools/sim/compare.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "tools/sim/workloads.h"

namespace tierfs {
namespace sim {

namespace {

struct Preset {
  const char* name;
  std::vector<const char*> devices;  // fastest first
};

const Preset kPresets[] = {
    {"perf", {"optane", "sata-ssd"}},
    {"cost", {"optane", "hdd"}},
    {"tri", {"optane", "sata-ssd", "hdd"}},
};

// A trace file is named by its base name without extension in reports.
std::string WorkloadLabel(const std::string& name) {
  struct stat st;
  if (stat(name.c_str(), &st) != 0) return name;
  std::string base = name.substr(name.rfind('/') + 1);
  return base.substr(0, base.rfind('.'));
}

uint64_t RoundToSegments(double bytes, uint64_t segment_size) {
  uint64_t n = uint64_t(std::ceil(bytes / double(segment_size)));
  return std::max<uint64_t>(1, n) * segment_size;
}

// The ceilings of one workload's trace on the tier 0 of each configuration.
bool WorkloadCeilings(const std::vector<TraceRecord>& trace, const std::string& label,
                      uint64_t footprint, const CompareOptions& options,
                      std::vector<CeilingCell>* out, std::string* error) {
  std::map<std::pair<uint64_t, uint64_t>, std::vector<CeilingResult>> done;  // (tier 0, segment)
  for (const std::string& c : options.configs) {
    SimConfig config;  // any policy but fast-only, which makes tier 0 hold everything
    if (!MakeConfig(c, footprint, options.fast_pct, options.segment_size, "fast-first", &config,
                    error)) {
      return false;
    }
    const auto key = std::make_pair(config.tiers[0].capacity, config.segment_size);
    auto it = done.find(key);
    if (it == done.end()) {
      std::vector<CeilingResult> results;
      if (!ComputeCeilings(trace, key.second, key.first, options.ceilings, &results, error)) {
        *error = label + ": " + *error;
        return false;
      }
      it = done.emplace(key, std::move(results)).first;
    }
    for (const CeilingResult& r : it->second) out->push_back(CeilingCell{c, label, r});
  }
  return true;
}

}  // namespace

uint64_t Footprint(const std::vector<TraceRecord>& trace, uint64_t segment_size) {
  struct Hash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& k) const {
      return k.first * 0x9E3779B97F4A7C15ull ^ k.second;
    }
  };
  std::unordered_set<std::pair<uint64_t, uint64_t>, Hash> seen;
  for (const TraceRecord& r : trace) {
    if (!r.is_io()) continue;
    const uint64_t end = r.offset + std::max<uint64_t>(r.size, 1);
    for (uint64_t seg = r.offset / segment_size; seg * segment_size < end; ++seg) {
      seen.insert({r.file_id, seg});
    }
  }
  return seen.size() * segment_size;
}

bool ParsePolicySpec(const std::string& spec, std::string* name, PolicyParams* params,
                     std::string* error) {
  params->clear();
  size_t colon = spec.find(':');
  *name = spec.substr(0, colon);
  while (colon != std::string::npos) {
    const size_t next = spec.find(':', colon + 1);
    const std::string item = spec.substr(colon + 1, next == std::string::npos ? next : next - colon - 1);
    const size_t eq = item.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == item.size()) {
      *error = "bad policy parameter '" + item + "' in '" + spec + "' (expected NAME:PARAM=VALUE)";
      return false;
    }
    (*params)[item.substr(0, eq)] = item.substr(eq + 1);
    colon = next;
  }
  return true;
}

bool MakeConfig(const std::string& name, uint64_t footprint, double fast_pct,
                uint64_t segment_size, const std::string& policy, SimConfig* config,
                std::string* error) {
  SimConfig c;
  std::string policy_name;
  PolicyParams policy_params;
  if (!ParsePolicySpec(policy, &policy_name, &policy_params, error)) return false;
  if (name.rfind("tierfs://", 0) == 0) {
    if (!ParseSimConfig(name, &c, error)) return false;
    c.policy = policy_name;
    c.policy_params = policy_params;
  } else {
    const Preset* preset = nullptr;
    for (const Preset& p : kPresets) {
      if (name == p.name) preset = &p;
    }
    if (!preset) {
      *error = "unknown configuration '" + name + "' (known: perf, cost, tri, or a tierfs:// URI)";
      return false;
    }
    const uint64_t fast = RoundToSegments(double(footprint) * fast_pct / 100.0, segment_size);
    for (size_t i = 0; i < preset->devices.size(); ++i) {
      SimTier t;
      t.name = std::string("/") + preset->devices[i];
      ParseStatus s = ParseDeviceParams(preset->devices[i], &t.device);
      if (!s.ok()) {
        *error = s.ToString();
        return false;
      }
      const bool slowest = i + 1 == preset->devices.size();
      t.capacity = i == 0 ? fast : slowest ? RoundToSegments(2.0 * double(footprint), segment_size)
                                           : 3 * fast;
      c.tiers.push_back(t);
    }
    c.segment_size = segment_size;
    c.policy = policy_name;
    c.policy_params = policy_params;
  }
  if (policy_name == "fast-only") {
    uint64_t all = 0;
    for (const SimTier& t : c.tiers) all += t.capacity;
    c.tiers[0].capacity = all;
  }
  *config = c;
  return true;
}

bool LoadWorkload(const std::string& name, uint64_t requests, uint64_t seed,
                  std::vector<TraceRecord>* trace, std::string* error) {
  struct stat st;
  if (stat(name.c_str(), &st) == 0) {
    TraceHeader header;
    return ReadTrace(name, &header, trace, error);
  }
  WorkloadOptions options;
  options.requests = requests;
  options.seed = seed;
  return Generate(name, options, trace, error);
}

bool Compare(const CompareOptions& options, std::vector<Cell>* cells, std::string* error,
             std::vector<CeilingCell>* ceilings) {
  std::vector<std::string> policies = options.policies;
  if (std::find(policies.begin(), policies.end(), "fast-only") == policies.end()) {
    policies.insert(policies.begin(), "fast-only");
  }
  // Check every name before the long part.
  for (const std::string& p : policies) {
    SimConfig probe;
    if (!ParsePolicySpec(p, &probe.policy, &probe.policy_params, error)) return false;
    FutureIndex none({}, 4096);
    if (!MakeSimPolicy(probe, &none, error)) return false;
  }
  for (const std::string& c : options.configs) {
    SimConfig probe;
    if (!MakeConfig(c, 1 << 20, options.fast_pct, options.segment_size, "fast-first", &probe,
                    error)) {
      return false;
    }
  }

  cells->clear();
  if (ceilings) ceilings->clear();
  std::mutex mu;
  size_t done = 0;
  const size_t total = options.workloads.size() * options.configs.size() * policies.size();
  for (const std::string& workload : options.workloads) {
    std::vector<TraceRecord> trace;
    if (!LoadWorkload(workload, options.requests, options.seed, &trace, error)) return false;
    const uint64_t footprint = Footprint(trace, options.segment_size);
    // The runs of this workload: (config, policy), in order.
    std::vector<Cell> runs;
    std::vector<SimConfig> configs;
    std::vector<std::string> labels;  // the policy as spelled: variants of one policy differ
    for (const std::string& c : options.configs) {
      for (const std::string& p : policies) {
        SimConfig config;
        if (!MakeConfig(c, footprint, options.fast_pct, options.segment_size, p, &config, error)) {
          return false;
        }
        config.replay = options.replay;
        configs.push_back(config);
        labels.push_back(p);
        runs.push_back(Cell{c, WorkloadLabel(workload), SimResult()});
      }
    }
    if (ceilings && !options.ceilings.empty() &&
        !WorkloadCeilings(trace, WorkloadLabel(workload), footprint, options, ceilings, error)) {
      return false;
    }
    std::atomic<size_t> next{0};
    std::string first_error;
    auto worker = [&] {
      for (size_t i; (i = next.fetch_add(1)) < runs.size();) {
        std::string err;
        SimResult result;
        bool ok = RunPolicy(trace, configs[i], &result, &err);
        std::lock_guard<std::mutex> lock(mu);
        if (!ok) {
          if (first_error.empty()) first_error = workload + " on " + runs[i].config + ": " + err;
          continue;
        }
        runs[i].result = result;
        runs[i].result.policy = labels[i];
        ++done;
        if (options.progress) options.progress(runs[i], done, total);
      }
    };
    std::vector<std::thread> threads;
    for (int j = 1; j < std::max(1, options.jobs); ++j) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();
    if (!first_error.empty()) {
      *error = first_error;
      return false;
    }
    cells->insert(cells->end(), runs.begin(), runs.end());
  }
  return true;
}

}  // namespace sim
}  // namespace tierfs
