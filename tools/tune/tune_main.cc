// tierfs-tune: searches a space of TierFS configurations (tools/tune/space.h)
// for the one with the best LearnedSSD grade on a workload, the simulator
// measuring each configuration in this process, or (--evaluator=live) db_bench
// through the plugin on a fresh store per configuration (live_evaluator.h).
//
//   tierfs-tune --space=FILE --workload=W [--others=W2,W3] [--optimizer=NAME|all]
//               [--evaluations=N] [--seed=S | --seeds=S1,S2] [--csv=FILE]
//               [--confdb=DIR --model=FILE [--warm=N] [--confdb_write=false]]
//               [--options_out=FILE]
//               [--evaluator=live --live_dir=DIR [--plugin=SO] [--db_bench=PATH]
//                [--live_num=N] [--live_value_size=B] [--live_repeats=R]
//                [--db_bench_flags=--a=1,--b=2] [--live_keep]]
//
// The space's live-only rocksdb.NAME keys (rocksdb_options.h) are searched by
// a live run only: a simulated one drops them from the space (a note on
// stderr says which), since the simulator runs no RocksDB. A live run's
// workloads are db_bench --benchmarks lists ("fillrandom,readrandom"; the
// last is measured).
//   tierfs-tune characterize --model=FILE --workloads=W1,W2,... [--max_k=K]
//   tierfs-tune characterize --model=FILE --workload=W
//   tierfs-tune show --confdb=DIR
//
// `characterize` with --workloads builds the workload model (characterize.h)
// from those workloads' windows and writes it; with --workload it prints
// the cluster an existing model assigns W to. With --confdb and --model, a
// tuning run characterizes its target, evaluates up to --warm stored
// configurations of its cluster first, from the stored workloads nearest it
// (warm_start.h, BestConfigurations), then writes every configuration it
// measured back to the cluster's ConfDB entry with the target's position
// (confdb.h; not with --confdb_write=false). The model, the workloads and
// the target are characterized at --requests and --workload_seed. `show`
// prints every ConfDB key with each stored workload's best configuration.
//
// Workloads are synthetic suite names or trace files, as `tierfs-sim run
// --workload` takes. Progress goes to stderr (one line per new best); stdout
// gets the best configuration as a TierFS URI (`best URI`, the rocksdb.NAME
// keys taken out), its RocksDB options (`rocksdb NAME=VALUE ...`, when the
// space has any), its grade and measurements; --options_out writes those
// options as a RocksDB OPTIONS file (rocksdb_options.h, OptionsFileText).
// The CSV holds every evaluation of every (optimizer, seed) run:
// optimizer,seed,evaluation,grade,best_grade,mean_us,p99_us,throughput,uri
// (the target's measurements; the URI quoted); benchmarks/tune_report.py draws its
// convergence curves. Runs of several optimizers or seeds share one cache of
// measurements, so a configuration is simulated once per workload.
#include <gflags/gflags.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>

#include <unistd.h>

#include "tools/own_flags.h"
#include "tools/tune/characterize.h"
#include "tools/tune/confdb.h"
#include "tools/tune/evaluator.h"
#include "tools/tune/live_evaluator.h"
#include "tools/tune/objective.h"
#include "tools/tune/optimizer.h"
#include "tools/tune/rocksdb_options.h"
#include "tools/tune/space.h"
#include "tools/tune/warm_start.h"

DEFINE_string(space, "", "the search space file (the default is tools/tune/space.txt)");
DEFINE_string(tiers, "",
              "replaces the space file's tiers line (PATH:CAPACITY:DEVICE,...): the same space "
              "on another device configuration");
DEFINE_string(workload, "", "the target workload: a synthetic suite name or a trace file");
DEFINE_string(others, "", "other workloads the grade protects, comma-separated");
DEFINE_string(optimizer, "bayes", "random, anneal, genetic, bayes, descent, dqn, or all");
DEFINE_uint64(evaluations, 50, "configurations to evaluate per run");
DEFINE_uint64(seed, 1, "the optimizer's seed");
DEFINE_string(seeds, "", "several seeds, comma-separated (overrides --seed)");
DEFINE_uint64(requests, 20000, "records of each synthetic workload");
DEFINE_uint64(workload_seed, 1, "the synthetic workloads' seed");
DEFINE_double(warmup, 0, "share of each trace replayed before measuring, as tierfs-sim run's");
DEFINE_double(alpha, 0.9, "Goal: the weight of throughput against latency (LearnedSSD's alpha)");
DEFINE_double(beta, 0.9, "Grade: the weight of the other workloads (LearnedSSD's beta)");
DEFINE_string(csv, "tune-convergence.csv", "where to write every evaluation");
DEFINE_bool(quiet, false, "no progress lines");
DEFINE_string(confdb, "", "a ConfDB (RocksDB directory): warm-start from the target's cluster "
              "and write back what was measured; needs --model");
DEFINE_string(model, "", "the workload model (tierfs-tune characterize writes it)");
DEFINE_bool(confdb_write, true, "with --confdb: write what was measured back (false: only read, "
            "as a benchmark comparing runs from one ConfDB does)");
DEFINE_uint64(warm, 5, "with --confdb: stored configurations evaluated first, at most; "
              "recommend: configurations listed, at most");
DEFINE_string(options_out, "", "write the best configuration's RocksDB options to this OPTIONS "
              "file");
DEFINE_string(evaluator, "sim", "sim (the simulator) or live (db_bench through the plugin)");
DEFINE_string(live_dir, "", "live: the directory runs are made in (must exist)");
DEFINE_string(plugin, "", "live: libtierfs.so (default: the build tree's, beside tools/)");
DEFINE_string(db_bench, "/usr/bin/db_bench", "live: the db_bench binary");
DEFINE_uint64(live_num, 100000, "live: db_bench --num (keys)");
DEFINE_uint64(live_value_size, 400, "live: db_bench --value_size");
DEFINE_int32(live_repeats, 1, "live: fresh-store runs per configuration (the median is kept)");
DEFINE_string(db_bench_flags, "", "live: more db_bench flags, comma-separated (--reads=1000)");
DEFINE_bool(live_keep, false, "live: keep each run's directory");
DEFINE_string(workloads, "", "characterize: the training workloads, comma-separated");
DEFINE_uint64(max_k, 8, "characterize: the largest number of clusters tried");

namespace tierfs {
namespace tune {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// A CSV field: quoted, as a URI holds commas (between tiers).
std::string CsvQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The plugin of the build tree tierfs-tune runs from (BUILD/tools/tune/
// tierfs-tune -> BUILD/libtierfs.so), or "" if it is not there.
std::string DefaultPlugin() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return "";
  std::string path(exe, size_t(n));
  for (int i = 0; i < 3 && path.rfind('/') != std::string::npos; ++i) {
    path.resize(path.rfind('/'));
  }
  path += "/libtierfs.so";
  return access(path.c_str(), R_OK) == 0 ? path : "";
}

// `characterize`: builds and writes a model (--workloads), or assigns one
// workload with an existing model (--workload).
int Characterize() {
  if (FLAGS_model.empty() || FLAGS_workloads.empty() == FLAGS_workload.empty()) {
    fprintf(stderr, "tierfs-tune characterize: --model=FILE and either --workloads=W1,W2,... "
                    "(build) or --workload=W (assign) are required\n");
    return 1;
  }
  std::string error;
  if (!FLAGS_workload.empty()) {
    WorkloadModel model;
    WorkloadWindows windows;
    if (!WorkloadModel::Load(FLAGS_model, &model, &error) ||
        !LoadWindows(FLAGS_workload, FLAGS_requests, FLAGS_workload_seed, &windows, &error)) {
      fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
      return 1;
    }
    const Assignment a = model.Assign(windows.windows);
    printf("%s: cluster %zu of model %s (%zu of %zu windows, mean distance %.3f)\n",
           FLAGS_workload.c_str(), a.cluster, model.Id().c_str(), a.votes[a.cluster],
           windows.windows.size(), a.distance);
    return 0;
  }
  std::vector<WorkloadWindows> training;
  for (const std::string& w : SplitList(FLAGS_workloads)) {
    training.emplace_back();
    if (!LoadWindows(w, FLAGS_requests, FLAGS_workload_seed, &training.back(), &error)) {
      fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
      return 1;
    }
  }
  WorkloadModel model;
  if (!BuildModel(training, FLAGS_max_k, FLAGS_seed, &model, &error) ||
      !model.Save(FLAGS_model, &error)) {
    fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
    return 1;
  }
  printf("model %s: %zu clusters (silhouette", model.Id().c_str(), model.clusters());
  for (size_t k = 2; k < model.silhouettes.size(); ++k) {
    printf(" k=%zu %.3f", k, model.silhouettes[k]);
  }
  printf("), components explain %.1f%% and %.1f%% of the variance\n",
         100 * model.explained[0], 100 * model.explained[1]);
  for (const auto& [name, a] : model.workloads) {
    printf("%s: cluster %zu (%zu of %zu windows)\n", name.c_str(), a.cluster,
           a.votes[a.cluster], size_t(std::accumulate(a.votes.begin(), a.votes.end(), size_t(0))));
  }
  fprintf(stderr, "tierfs-tune: wrote %s\n", FLAGS_model.c_str());
  return 0;
}

// `show`: every ConfDB key, its trials, and each workload's best.
int Show() {
  if (FLAGS_confdb.empty()) {
    fprintf(stderr, "tierfs-tune show: --confdb=DIR is required\n");
    return 1;
  }
  std::string error;
  std::unique_ptr<ConfDb> db;
  std::vector<std::pair<std::string, ConfEntry>> all;
  if (!ConfDb::Open(FLAGS_confdb, &db, &error) || !db->List(&all, &error)) {
    fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
    return 1;
  }
  for (const auto& [key, entry] : all) {
    std::map<std::string, const ConfTrial*> best;  // workload -> its best trial
    for (const ConfTrial& t : entry.trials) {
      const ConfTrial*& b = best[t.workload];
      if (!b || t.grade < b->grade) b = &t;
    }
    printf("%s: %zu trials of %zu workloads\n", key.c_str(), entry.trials.size(), best.size());
    for (const auto& [workload, t] : best) {
      printf("  %s: best %.4f  %s\n", workload.c_str(), t->grade, t->uri.c_str());
    }
  }
  return 0;
}

// --workload's place in `model` and what ConfDB holds for its cluster.
struct ClusterLookup {
  Assignment assignment;  // its cluster and position
  size_t windows = 0;     // the windows it was characterized by
  ConfEntry entry;        // the cluster's stored trials
};

bool LookUpCluster(ConfDb* db, const WorkloadModel& model, ClusterLookup* out,
                   std::string* error) {
  WorkloadWindows windows;
  if (!LoadWindows(FLAGS_workload, FLAGS_requests, FLAGS_workload_seed, &windows, error)) {
    return false;
  }
  out->assignment = model.Assign(windows.windows);
  out->windows = windows.windows.size();
  return db->Get(model.Id(), out->assignment.cluster, &out->entry, error);
}

// "W: cluster C of model M (V of N windows); ConfDB holds T trials of K workloads"
std::string DescribeLookup(const WorkloadModel& model, const ClusterLookup& l) {
  const Assignment& a = l.assignment;
  return FLAGS_workload + ": cluster " + std::to_string(a.cluster) + " of model " + model.Id() +
         " (" + std::to_string(a.votes[a.cluster]) + " of " + std::to_string(l.windows) +
         " windows); ConfDB holds " + std::to_string(l.entry.trials.size()) + " trials of " +
         std::to_string(l.entry.positions.size()) + " workloads";
}

// `recommend`: the configurations ConfDB holds for --workload's cluster, in
// the order a warm start would evaluate them (nearest stored workload's best
// first), each with the grade it was measured at and on which workload;
// nothing is evaluated. With --space, a configuration the space cannot
// express is left out (and named), so the first line is one it can run.
int Recommend() {
  if (FLAGS_confdb.empty() || FLAGS_model.empty() || FLAGS_workload.empty()) {
    fprintf(stderr, "tierfs-tune recommend: --confdb=DIR, --model=FILE and --workload=W are "
                    "required\n");
    return 1;
  }
  std::string error;
  WorkloadModel model;
  std::unique_ptr<ConfDb> db;
  Space space;
  ClusterLookup lookup;
  if (!WorkloadModel::Load(FLAGS_model, &model, &error) ||
      !ConfDb::Open(FLAGS_confdb, &db, &error) ||
      (!FLAGS_space.empty() && !Space::Load(FLAGS_space, &space, &error, FLAGS_tiers)) ||
      !LookUpCluster(db.get(), model, &lookup, &error)) {
    fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
    return 1;
  }
  // ConfDB holds the simulator's trials only, which carry no live-only key.
  space = space.WithoutLive();
  const Assignment& a = lookup.assignment;
  const ConfEntry& entry = lookup.entry;
  printf("%s\n", DescribeLookup(model, lookup).c_str());
  if (entry.trials.empty()) {
    fprintf(stderr, "tierfs-tune: nothing stored for cluster %zu of model %s: tune a workload "
                    "of it with --confdb first\n",
            a.cluster, model.Id().c_str());
    return 1;
  }
  size_t shown = 0;
  for (const std::string& uri : BestConfigurations(entry, entry.trials.size(), a.center)) {
    Point p;
    if (!FLAGS_space.empty() && !space.PointOf(uri, &p)) {
      fprintf(stderr, "tierfs-tune: ConfDB's %s is not a configuration of %s: left out\n",
              uri.c_str(), FLAGS_space.c_str());
      continue;
    }
    const ConfTrial* best = nullptr;  // where the URI was measured best
    for (const ConfTrial& t : entry.trials) {
      if (t.uri == uri && (!best || t.grade < best->grade)) best = &t;
    }
    printf("%zu. %s  (grade %.4f on %s)\n", ++shown, uri.c_str(), best->grade,
           best->workload.c_str());
    if (shown == FLAGS_warm) break;
  }
  if (shown == 0) {
    fprintf(stderr, "tierfs-tune: none of the cluster's configurations is one of %s\n",
            FLAGS_space.c_str());
    return 1;
  }
  return 0;
}


int Tune() {
  if (FLAGS_space.empty() || FLAGS_workload.empty()) {
    fprintf(stderr, "tierfs-tune: --space=FILE and --workload=NAME|TRACE are required\n");
    return 1;
  }
  if (FLAGS_evaluations == 0) {
    fprintf(stderr, "tierfs-tune: --evaluations must be at least 1\n");
    return 1;
  }
  if (!(FLAGS_alpha >= 0 && FLAGS_alpha <= 1 && FLAGS_beta >= 0 && FLAGS_beta <= 1)) {
    fprintf(stderr, "tierfs-tune: --alpha and --beta are weights from 0 to 1\n");
    return 1;
  }
  std::string error;
  Space space;
  if (!Space::Load(FLAGS_space, &space, &error, FLAGS_tiers)) {
    fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
    return 1;
  }
  const bool live = FLAGS_evaluator == "live";
  if (!live && FLAGS_evaluator != "sim") {
    fprintf(stderr, "tierfs-tune: unknown --evaluator '%s' (sim or live)\n",
            FLAGS_evaluator.c_str());
    return 1;
  }
  if (!live && space.HasLive()) {
    // The simulator runs no RocksDB: searching these would spend evaluations
    // on options that cannot change what it measures.
    std::string dropped;
    for (const Param& p : space.params()) {
      if (p.live) dropped += " " + p.key;
    }
    if (!FLAGS_quiet) {
      fprintf(stderr, "tierfs-tune: the simulator does not run RocksDB: live-only keys left out "
                      "of the search:%s\n", dropped.c_str());
    }
    space = space.WithoutLive();
  }
  std::vector<std::string> optimizers = {FLAGS_optimizer};
  if (FLAGS_optimizer == "all") optimizers = OptimizerNames();
  for (const std::string& name : optimizers) {
    if (!NewOptimizer(name, &error)) {
      fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
      return 1;
    }
  }
  std::vector<uint64_t> seeds = {FLAGS_seed};
  if (!FLAGS_seeds.empty()) {
    seeds.clear();
    for (const std::string& s : SplitList(FLAGS_seeds)) {
      char* end = nullptr;
      seeds.push_back(std::strtoull(s.c_str(), &end, 10));
      if (*end != '\0') {
        fprintf(stderr, "tierfs-tune: bad seed '%s' in --seeds\n", s.c_str());
        return 1;
      }
    }
  }
  if (live && !FLAGS_confdb.empty() && FLAGS_confdb_write) {
    // ConfDB holds the simulator's grades; a live grade is another scale.
    fprintf(stderr, "tierfs-tune: a live run does not write the ConfDB (its grades are not the "
                    "simulator's): add --confdb_write=false\n");
    return 1;
  }
  if (!FLAGS_confdb.empty() && FLAGS_model.empty()) {
    fprintf(stderr, "tierfs-tune: --confdb needs --model=FILE (tierfs-tune characterize)\n");
    return 1;
  }
  std::unique_ptr<ConfDb> confdb;
  WorkloadModel model;
  std::vector<std::string> warm;  // the stored configurations evaluated first
  Assignment target;
  if (!FLAGS_confdb.empty()) {
    ClusterLookup lookup;
    if (!WorkloadModel::Load(FLAGS_model, &model, &error) ||
        !ConfDb::Open(FLAGS_confdb, &confdb, &error) ||
        !LookUpCluster(confdb.get(), model, &lookup, &error)) {
      fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
      return 1;
    }
    target = lookup.assignment;
    warm = BestConfigurations(lookup.entry, FLAGS_warm, target.center);
    if (!FLAGS_quiet) {
      fprintf(stderr, "%s, %zu evaluated first\n", DescribeLookup(model, lookup).c_str(),
              warm.size());
    }
  }
  std::map<std::string, ConfTrial> measured;  // by URI: what goes back to ConfDB
  SimEvaluatorOptions eval_options;
  eval_options.requests = FLAGS_requests;
  eval_options.seed = FLAGS_workload_seed;
  eval_options.warmup = FLAGS_warmup;
  SimEvaluator sim_evaluator(eval_options);
  LiveEvaluatorOptions live_options;
  if (live) {
    live_options.plugin = FLAGS_plugin.empty() ? DefaultPlugin() : FLAGS_plugin;
    live_options.work_dir = FLAGS_live_dir;
    live_options.db_bench = FLAGS_db_bench;
    live_options.num = FLAGS_live_num;
    live_options.value_size = FLAGS_live_value_size;
    live_options.repeats = FLAGS_live_repeats;
    live_options.flags = SplitList(FLAGS_db_bench_flags);
    live_options.keep_runs = FLAGS_live_keep;
    if (FLAGS_live_dir.empty() || live_options.plugin.empty()) {
      fprintf(stderr, "tierfs-tune: --evaluator=live needs --live_dir=DIR (and --plugin=SO "
                      "outside the build tree)\n");
      return 1;
    }
  }
  LiveEvaluator live_evaluator(live_options);
  Evaluator* evaluator = live ? static_cast<Evaluator*>(&live_evaluator) : &sim_evaluator;
  GradeOptions grade;
  grade.alpha = FLAGS_alpha;
  grade.beta = FLAGS_beta;
  GradedObjective objective(&space, evaluator, FLAGS_workload, SplitList(FLAGS_others), grade);

  std::ofstream csv(FLAGS_csv);
  csv << "optimizer,seed,evaluation,grade,best_grade,mean_us,p99_us,throughput,uri\n";
  Trial overall;
  bool have_overall = false;
  Measurement overall_target;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& name : optimizers) {
    for (uint64_t seed : seeds) {
      std::unique_ptr<Optimizer> optimizer = NewOptimizer(name, &error);
      double best = 0;
      Budget budget(&space, &objective, FLAGS_evaluations, [&](const Trial& t, size_t n) {
        const Measurement& m = objective.last_target();
        const bool improved = n == 1 || t.value < best;
        if (improved) best = t.value;
        csv << name << "," << seed << "," << n << "," << t.value << "," << best << ","
            << m.mean_us << "," << m.p99_us << "," << m.throughput << "," << CsvQuoted(t.uri)
            << "\n";
        if (improved && !FLAGS_quiet) {
          fprintf(stderr, "%s seed %llu: evaluation %zu grade %.4f  %s\n", name.c_str(),
                  (unsigned long long)seed, n, t.value, t.uri.c_str());
        }
        ConfTrial& c = measured[t.uri];
        c.workload = FLAGS_workload;
        c.uri = t.uri;
        c.grade = t.value;
        c.measured = m;
        if (!have_overall || t.value < overall.value) {
          overall = t;
          overall_target = m;
          have_overall = true;
        }
      });
      std::vector<std::string> skipped;
      RunWarm(optimizer.get(), space, seed, warm, &budget, &skipped);
      for (const std::string& uri : skipped) {
        fprintf(stderr, "tierfs-tune: ConfDB's %s is not a configuration of %s: skipped\n",
                uri.c_str(), FLAGS_space.c_str());
      }
      if (budget.failed()) {
        fprintf(stderr, "tierfs-tune: %s\n", budget.error().c_str());
        return 1;
      }
      if (!FLAGS_quiet) {
        fprintf(stderr, "%s seed %llu: best grade %.4f after %zu evaluations\n", name.c_str(),
                (unsigned long long)seed, budget.best().value, budget.trials().size());
      }
    }
  }
  csv.close();
  if (!csv) {
    fprintf(stderr, "tierfs-tune: cannot write %s\n", FLAGS_csv.c_str());
    return 1;
  }
  if (confdb && FLAGS_confdb_write) {
    ConfEntry add;
    for (const auto& [uri, t] : measured) add.trials.push_back(t);
    add.positions[FLAGS_workload] = target.center;
    if (!confdb->Add(model.Id(), target.cluster, add, &error)) {
      fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
      return 1;
    }
    if (!FLAGS_quiet) {
      fprintf(stderr, "tierfs-tune: %zu configurations written to %s, %s\n", add.trials.size(),
              FLAGS_confdb.c_str(), ConfDb::Key(model.Id(), target.cluster).c_str());
    }
  }
  const Measurement& ref = objective.reference_target();
  std::string best_uri;
  std::map<std::string, std::string> best_options;
  SplitConfiguration(overall.uri, &best_uri, &best_options);
  printf("best %s\n", best_uri.c_str());
  if (!best_options.empty()) {
    printf("rocksdb");
    for (const auto& [name, value] : best_options) printf(" %s=%s", name.c_str(), value.c_str());
    printf("\n");
  }
  if (!FLAGS_options_out.empty()) {
    if (!WriteOptionsFile(best_options, FLAGS_options_out, &error)) {
      fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
      return 1;
    }
    if (!FLAGS_quiet) fprintf(stderr, "tierfs-tune: wrote %s\n", FLAGS_options_out.c_str());
  }
  printf("grade %.4f (the default's is 0; lower is better)\n", overall.value);
  printf("%s: mean %.1f us (default %.1f), p99 %.1f us (default %.1f), %.0f req/s (default "
         "%.0f)\n",
         FLAGS_workload.c_str(), overall_target.mean_us, ref.mean_us, overall_target.p99_us,
         ref.p99_us, overall_target.throughput, ref.throughput);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (live) {
    fprintf(stderr, "%llu db_bench runs (%.1f s), %llu cached answers, %.1f s in all; curve in "
            "%s\n",
            (unsigned long long)live_evaluator.runs(), live_evaluator.seconds(),
            (unsigned long long)live_evaluator.hits(), seconds, FLAGS_csv.c_str());
    return 0;
  }
  fprintf(stderr, "%llu simulations (%.1f s of replay), %llu cached answers, %.1f s in all; "
          "curve in %s\n",
          (unsigned long long)sim_evaluator.runs(), sim_evaluator.seconds(),
          (unsigned long long)sim_evaluator.hits(), seconds, FLAGS_csv.c_str());
  return 0;
}

}  // namespace
}  // namespace tune
}  // namespace tierfs

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "[characterize|show] --space=FILE --workload=W [--others=W2,W3] [--optimizer=NAME|all] "
      "[--evaluations=N] [--seed=S|--seeds=S1,S2] [--csv=FILE] [--confdb=DIR --model=FILE]: "
      "search TierFS configurations in the simulator (or live: --evaluator=live --live_dir=DIR, "
      "workloads db_bench --benchmarks lists; --options_out=FILE)\n"
      "  characterize --model=FILE --workloads=W1,W2,...   build the workload model\n"
      "  characterize --model=FILE --workload=W            assign W to a cluster\n"
      "  show --confdb=DIR                                 ConfDB's clusters and best trials\n"
      "  recommend --confdb=DIR --model=FILE --workload=W  its cluster's stored configurations, "
      "best first (no evaluation)");
  tierfs::ParseOwnFlags(&argc, &argv, "tools/tune/");
  const std::string command = argc > 1 ? argv[1] : "";
  if (argc > 2 || (argc == 2 && command != "characterize" && command != "show" &&
                    command != "recommend")) {
    fprintf(stderr, "tierfs-tune: unexpected argument '%s' (commands: characterize, show, "
                    "recommend)\n",
            argv[argc - 1]);
    return 1;
  }
  if (command == "characterize") return tierfs::tune::Characterize();
  if (command == "show") return tierfs::tune::Show();
  if (command == "recommend") return tierfs::tune::Recommend();
  return tierfs::tune::Tune();
}
