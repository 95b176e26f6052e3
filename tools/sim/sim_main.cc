// tierfs-sim: replays I/O traces against emulated hybrid storage and a
// policy, in virtual time.
//
//   tierfs-sim run --config=URI|perf|cost|tri --workload=NAME|TRACE [--policy=P]
//                  [--ceilings=LIST|none]
//   tierfs-sim compare [--configs=perf,cost,tri] [--workloads=all|A,B]
//                      [--policies=all|A,B] [--ceilings=LIST|none] --out=DIR
//   tierfs-sim ceiling --config=URI|perf|cost|tri --workload=NAME|TRACE
//                      [--ceilings=LIST]
//   tierfs-sim verify --workload=TRACE --config=URI [--policy=P] [--state_in=AGENTS]
//                     [--copies_in=PAGES.state] [--stats_in=STATS]
//   tierfs-sim list      (workloads and policies)
//
// `verify` replays a trace captured from a live store with the capture's own
// timing of plans and moves and checks that the simulator makes the store's
// decisions, in order (tools/sim/verify.h): exit 0 if all are the same, 1 and
// the first difference if not.
//
// `run` prints one run's statistics (--json for JSON) and the trace's
// ceilings on its tier 0 (tools/sim/ceiling.h: the best static placement of
// pages, and Belady on page copies); `ceiling` prints the ceilings alone;
// `compare` runs every policy on every workload and configuration and writes
// DIR/sim.md (tables normalized to fast-only, then tier 0's share of user
// reads beside the ceilings'), DIR/sim.csv (every metric) and
// DIR/ceilings.csv (every ceiling).
#include <algorithm>
#include <gflags/gflags.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "agents/policy.h"
#include "tools/own_flags.h"
#include "tools/sim/ceiling.h"
#include "tools/sim/compare.h"
#include "tools/sim/oracle.h"
#include "tools/sim/verify.h"
#include "tools/sim/workloads.h"
#include "util/size.h"

DEFINE_string(config, "perf",
              "run: a tierfs:// URI (tier paths are only names) or perf, cost, tri (sized to the "
              "trace, --fast_pct)");
DEFINE_string(configs, "perf,cost,tri", "compare: the configurations");
DEFINE_string(workload, "", "run: a synthetic workload name or a trace file");
DEFINE_string(workloads, "all",
              "compare: synthetic workload names or trace files; `all` stands for every synthetic one");
DEFINE_string(policy, "",
              "run: the policy (default: the URI's, else fast-first); NAME:PARAM=VALUE:... sets "
              "its parameters; NAME:state=FILE[+FILE] starts a learning policy from a saved state");
DEFINE_string(policies, "all",
              "compare: policies, or all (every heuristic and learning policy, and oracle); "
              "NAME:PARAM=VALUE:... sets a policy's parameters (state=FILE[+FILE]: its start)");
DEFINE_uint64(requests, 100000, "records per synthetic workload");
DEFINE_uint64(seed, 1, "seed of the synthetic workloads");
DEFINE_string(segment_size, "64K", "segment size for the presets (a URI sets its own)");
DEFINE_double(fast_pct, 10, "presets: the fast tier's share of the trace's footprint, percent");
DEFINE_string(replay, "closed", "closed (each stream waits for its I/O) or open (trace times)");
DEFINE_int32(jobs, 1, "compare: simulations run at once");
DEFINE_string(out, "", "compare: directory for sim.md and sim.csv");
DEFINE_bool(json, false, "run: print JSON");
DEFINE_double(warmup, 0,
              "run, ceiling: the share of the trace's I/O records (0 to 1) replayed before "
              "measuring; the results and ceilings cover the rest");
DEFINE_uint64(young, 0,
              "run: also report tier 0's share of the user reads of young files, those first "
              "written less than this many I/O records before the read (reads of fresh "
              "compaction output); 0: not reported");
DEFINE_string(ceilings, tierfs::sim::kDefaultCeilings,
              "run, compare, ceiling: the ceilings computed on tier 0, KIND[:PAGE[:CAPACITY]],... "
              "with KIND best-static, best-static-freed, belady-copies, belady-warm (knowing the "
              "future), "
              "past-static or lfu-copies (learning from the --warmup; tools/sim/ceiling.h) "
              "(CAPACITY: instead of tier 0's), or none");
DEFINE_string(state_in, "",
              "run, verify: start the policy from this saved state (a store's meta/AGENTS as it "
              "was at the open a trace begins with, or --state_out's), as NAME:state=FILE does");
DEFINE_string(copies_in, "",
              "run, verify: start the hot-page copies from this saved state (a store's "
              "meta/PAGES.state as it was at the open a trace begins with)");
DEFINE_string(stats_in, "",
              "run, verify: start the held segments' statistics from this saved state (a "
              "store's meta/STATS as it was at the open a trace begins with)");
DEFINE_string(state_out, "",
              "run: write what a learning policy learned (Policy::SaveState) to this file, a "
              "start for another run (--policy=NAME:state=FILE) or a store (meta/AGENTS)");
DEFINE_string(losses, "", "run: write a learning policy's training loss to this CSV (agent,transitions,loss)");
DEFINE_string(timings, "",
              "run: write each I/O record's replay to this CSV beside the capture's "
              "(record,stream,type,file,offset,size,trace_ns,trace_latency_ns,issued_ns,"
              "latency_ns; warm-up included): where the replay's timeline leaves the trace's");

namespace tierfs {
namespace sim {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool ParseCommon(SimConfig::Replay* replay, uint64_t* segment_size) {
  if (FLAGS_replay != "closed" && FLAGS_replay != "open") {
    fprintf(stderr, "tierfs-sim: bad --replay '%s' (closed or open)\n", FLAGS_replay.c_str());
    return false;
  }
  *replay = FLAGS_replay == "open" ? SimConfig::Replay::kOpen : SimConfig::Replay::kClosed;
  if (!ParseSize(FLAGS_segment_size, segment_size) || *segment_size == 0 ||
      *segment_size % 4096 != 0) {
    fprintf(stderr, "tierfs-sim: bad --segment_size '%s' (a multiple of 4K)\n",
            FLAGS_segment_size.c_str());
    return false;
  }
  if (!(FLAGS_fast_pct > 0 && FLAGS_fast_pct <= 100)) {
    fprintf(stderr, "tierfs-sim: bad --fast_pct %g (0 < pct <= 100)\n", FLAGS_fast_pct);
    return false;
  }
  return true;
}

// --state_in, --copies_in and --stats_in: what the replay starts from, as a
// store reopened on saved state does.
void StartFromSaved(SimConfig* config) {
  if (!FLAGS_state_in.empty()) config->policy_state_files.push_back(FLAGS_state_in);
  config->copies_state_file = FLAGS_copies_in;
  config->stats_state_file = FLAGS_stats_in;
}

// The trace and configuration of `run` and `ceiling`: --workload, and
// --config with --policy. False (the reason printed) on an error.
bool LoadTrace(const char* command, std::vector<TraceRecord>* trace, SimConfig* config) {
  SimConfig::Replay replay;
  uint64_t segment_size;
  if (!ParseCommon(&replay, &segment_size)) return false;
  if (FLAGS_workload.empty()) {
    fprintf(stderr, "tierfs-sim %s: --workload=NAME|TRACE is required\n", command);
    return false;
  }
  std::string error;
  bool ok = LoadWorkload(FLAGS_workload, FLAGS_requests, FLAGS_seed, trace, &error);
  if (ok && FLAGS_config.rfind("tierfs://", 0) == 0) {
    ok = ParseSimConfig(FLAGS_config, config, &error) &&
         (FLAGS_policy.empty() ||
          ParsePolicySpec(FLAGS_policy, &config->policy, &config->policy_params, &error));
  } else if (ok) {
    const std::string policy = FLAGS_policy.empty() ? "fast-first" : FLAGS_policy;
    ok = MakeConfig(FLAGS_config, Footprint(*trace, segment_size), FLAGS_fast_pct, segment_size,
                    policy, config, &error);
  }
  if (!ok) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return false;
  }
  config->replay = replay;
  StartFromSaved(config);
  return true;
}

// What `run` and `ceiling` start from.
struct Loaded {
  std::vector<TraceRecord> trace;
  SimConfig config;
  std::vector<CeilingResult> ceilings;  // --ceilings of the trace on the config's tier 0
  double ceilings_seconds = 0;          // wall time they took
};

// LoadTrace, then the ceilings (first: a bad --ceilings fails before a long
// replay). False (the reason printed) on an error.
bool LoadRun(const char* command, Loaded* run) {
  if (!LoadTrace(command, &run->trace, &run->config)) return false;
  if (!(FLAGS_warmup >= 0 && FLAGS_warmup < 1)) {
    fprintf(stderr, "tierfs-sim: bad --warmup %g (a share of the trace, from 0 to below 1)\n",
            FLAGS_warmup);
    return false;
  }
  // The measured part: from the first I/O record after the warm-up's.
  const std::vector<TraceRecord>& all = run->trace;
  const uint64_t ios = uint64_t(std::count_if(all.begin(), all.end(),
                                              [](const TraceRecord& r) { return r.is_io(); }));
  run->config.measure_after = uint64_t(FLAGS_warmup * double(ios));
  run->config.young_records = FLAGS_young;
  size_t from = 0;
  for (uint64_t seen = 0; from < all.size(); ++from) {
    if (all[from].is_io() && seen++ == run->config.measure_after) break;
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<CeilingSpec> specs;
  std::string error;
  if (!ParseCeilingSpecs(FLAGS_ceilings, &specs, &error) ||
      !ComputeCeilings(all, run->config.segment_size, run->config.tiers[0].capacity, specs,
                       &run->ceilings, &error, FLAGS_warmup > 0 ? from : 0)) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return false;
  }
  run->ceilings_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

int Run() {
  Loaded run;
  if (!LoadRun("run", &run)) return 1;
  const SimConfig& config = run.config;
  std::string error;
  SimResult result;
  run.config.record_timings = !FLAGS_timings.empty();
  if (!RunPolicy(run.trace, config, &result, &error)) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return 1;
  }
  printf("%s", FLAGS_json
                   ? (ResultJson(result, config, run.ceilings) + "\n").c_str()
                   : (FormatResult(result, config) +
                      FormatCeilings(run.ceilings, config.segment_size))
                         .c_str());
  if (!FLAGS_state_out.empty()) {
    if (result.policy_state.empty()) {
      fprintf(stderr, "tierfs-sim: %s has no state to write to %s (not a learning policy)\n",
              config.policy.c_str(), FLAGS_state_out.c_str());
      return 1;
    }
    std::ofstream out(FLAGS_state_out, std::ios::binary);
    out << result.policy_state;
    if (!out) {
      fprintf(stderr, "tierfs-sim: cannot write %s\n", FLAGS_state_out.c_str());
      return 1;
    }
  }
  if (!FLAGS_losses.empty()) {
    std::ofstream out(FLAGS_losses);
    out << "agent,transitions,loss\n";
    for (const Policy::LossCurve& c : result.losses) {
      for (const auto& [x, loss] : c.points) out << c.agent << "," << x << "," << loss << "\n";
    }
    if (!out) {
      fprintf(stderr, "tierfs-sim: cannot write %s\n", FLAGS_losses.c_str());
      return 1;
    }
  }
  if (!FLAGS_timings.empty()) {
    std::ofstream out(FLAGS_timings);
    out << "record,stream,type,file,offset,size,trace_ns,trace_latency_ns,issued_ns,latency_ns\n";
    static const char* const kTypes[] = {"R", "BR", "W"};  // as tierfs-trace to-csv
    for (const SimResult::Timing& t : result.timings) {
      const TraceRecord& r = run.trace[t.record];
      out << t.record << "," << r.stream << "," << kTypes[std::min<size_t>(size_t(r.type), 2)]
          << "," << r.file_id << "," << r.offset << "," << r.size << "," << r.time_ns << ","
          << r.latency_ns << "," << t.issued << "," << (t.done - t.issued) << "\n";
    }
    if (!out) {
      fprintf(stderr, "tierfs-sim: cannot write %s\n", FLAGS_timings.c_str());
      return 1;
    }
  }
  // Wall time on stderr: stdout is the same for the same run.
  fprintf(stderr, "simulated in %.3f s: %.2f M requests/s\n", result.wall_seconds,
          result.wall_seconds > 0 ? double(result.requests) / result.wall_seconds / 1e6 : 0);
  if (!run.ceilings.empty()) fprintf(stderr, "ceilings in %.3f s\n", run.ceilings_seconds);
  return 0;
}

int CeilingCommand() {
  Loaded run;
  if (!LoadRun("ceiling", &run)) return 1;
  if (FLAGS_json) {
    printf("%s\n", CeilingsJson(run.ceilings).c_str());
  } else {
    printf("tier 0 of %s\n%s", DescribeTiers(run.config).c_str(),
           FormatCeilings(run.ceilings, run.config.segment_size).c_str());
  }
  fprintf(stderr, "ceilings of %zu records in %.3f s\n", run.trace.size(),
          run.ceilings_seconds);
  return 0;
}

int CompareCommand() {
  CompareOptions options;
  if (!ParseCommon(&options.replay, &options.segment_size)) return 1;
  if (FLAGS_out.empty()) {
    fprintf(stderr, "tierfs-sim compare: --out=DIR is required\n");
    return 1;
  }
  options.configs = SplitList(FLAGS_configs);
  for (const std::string& w : SplitList(FLAGS_workloads)) {
    if (w != "all") {
      options.workloads.push_back(w);
      continue;
    }
    for (const std::string& name : WorkloadNames()) options.workloads.push_back(name);
  }
  if (FLAGS_policies == "all") {
    options.policies = PolicyNames();
    options.policies.push_back(kOracleName);
  } else {
    options.policies = SplitList(FLAGS_policies);
  }
  options.requests = FLAGS_requests;
  options.seed = FLAGS_seed;
  options.fast_pct = FLAGS_fast_pct;
  options.jobs = FLAGS_jobs;
  std::string error;
  if (!ParseCeilingSpecs(FLAGS_ceilings, &options.ceilings, &error)) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return 1;
  }
  options.progress = [](const Cell& c, size_t done, size_t total) {
    fprintf(stderr, "[%zu/%zu] %-5s %-12s %-15s %9.1f us avg %9.0f req/s (%.2fs)\n", done, total,
            c.config.c_str(), c.workload.c_str(), c.result.policy.c_str(),
            c.result.avg_latency_us, c.result.throughput, c.result.wall_seconds);
  };
  std::vector<Cell> cells;
  std::vector<CeilingCell> ceilings;
  if (!Compare(options, &cells, &error, &ceilings)) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return 1;
  }
  // fast-only first: the reference every other column is divided by.
  std::vector<std::string> columns{"fast-only"};
  for (const std::string& p : options.policies) {
    if (p != "fast-only") columns.push_back(p);
  }
  const std::string md =
      "Performance normalized to fast-only (fast-only's average latency / the policy's; 1 = as "
      "fast as everything on the fast tier). " +
      std::to_string(options.requests) + " requests per synthetic workload, seed " +
      std::to_string(options.seed) + ", segment " + FormatSize(options.segment_size) +
      ", fast tier " + std::to_string(int(options.fast_pct)) + "% of the footprint, " +
      FLAGS_replay + " replay.\n" + ComparisonMarkdown(cells, columns) +
      "\n## Tier 0's share of user reads\n\nPercent of the pieces of user reads (a read cut at "
      "segment boundaries) served from tier 0; ceilings (tools/sim/ceiling.h) computed from the "
      "trace alone on the same tier 0: a piece counted by the fraction of its bytes on tier 0.\n" +
      UserReadShareMarkdown(cells, columns, ceilings);
  const std::string csv = ComparisonCsv(cells);
  const std::string ceilings_csv = CeilingsCsv(ceilings);
  for (const auto& [name, text] : {std::pair<std::string, const std::string&>{"sim.md", md},
                                   {"sim.csv", csv},
                                   {"ceilings.csv", ceilings_csv}}) {
    std::ofstream out(FLAGS_out + "/" + name);
    out << text;
    if (!out) {
      fprintf(stderr, "tierfs-sim: cannot write %s/%s\n", FLAGS_out.c_str(), name.c_str());
      return 1;
    }
  }
  printf("%s", md.c_str());
  return 0;
}

int VerifyCommand() {
  if (FLAGS_workload.empty() || FLAGS_config.rfind("tierfs://", 0) != 0) {
    fprintf(stderr,
            "tierfs-sim verify: --workload=TRACE (a capture) and --config=URI (the store's) are "
            "required\n");
    return 1;
  }
  std::string error;
  TraceHeader header;
  std::vector<TraceRecord> trace;
  if (!ReadTrace(FLAGS_workload, &header, &trace, &error)) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return 1;
  }
  if (header.version < 2) {
    fprintf(stderr, "tierfs-sim verify: %s is a version %u trace: it records no decisions\n",
            FLAGS_workload.c_str(), header.version);
    return 1;
  }
  SimConfig config;
  if (!ParseSimConfig(FLAGS_config, &config, &error) ||
      (!FLAGS_policy.empty() &&
       !ParsePolicySpec(FLAGS_policy, &config.policy, &config.policy_params, &error))) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return 1;
  }
  StartFromSaved(&config);
  Verification v;
  if (!Verify(trace, config, &v, &error)) {
    fprintf(stderr, "tierfs-sim: %s\n", error.c_str());
    return 1;
  }
  // A saved start taken in part explains a difference that follows.
  if (!v.copies_refused.empty()) {
    fprintf(stderr, "tierfs-sim verify: the saved copies were not taken: %s\n",
            v.copies_refused.c_str());
  }
  if (!v.stats_refused.empty()) {
    fprintf(stderr, "tierfs-sim verify: the saved statistics were taken in part: %s\n",
            v.stats_refused.c_str());
  }
  if (v.ok()) {
    printf("%zu decisions, all the same in the replay (policy %s)\n", v.live,
           config.policy.c_str());
    return 0;
  }
  printf("%zu of %zu decisions the same, then: %s\n", v.same, v.live, v.difference.c_str());
  return 1;
}

int List() {
  printf("workloads:");
  for (const std::string& w : WorkloadNames()) printf(" %s", w.c_str());
  printf("\npolicies:");
  for (const std::string& p : PolicyNames()) printf(" %s", p.c_str());
  printf(" %s\n", kOracleName);
  return 0;
}

}  // namespace
}  // namespace sim
}  // namespace tierfs

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "tierfs-sim run|compare|ceiling|verify|list [flags]: replay I/O traces against emulated "
      "tiers");
  tierfs::ParseOwnFlags(&argc, &argv, "tools/sim/");
  const std::string command = argc > 1 ? argv[1] : "";
  if (argc > 2) {
    fprintf(stderr, "tierfs-sim: unexpected argument '%s'\n", argv[2]);
    return 1;
  }
  if (command == "run") return tierfs::sim::Run();
  if (command == "compare") return tierfs::sim::CompareCommand();
  if (command == "ceiling") return tierfs::sim::CeilingCommand();
  if (command == "verify") return tierfs::sim::VerifyCommand();
  if (command == "list") return tierfs::sim::List();
  fprintf(stderr,
          "tierfs-sim: expected a command: run, compare, ceiling, verify or list (got '%s')\n",
          command.c_str());
  return 1;
}
