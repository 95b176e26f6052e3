// tierfs-tune: searches a space of TierFS configurations (tools/tune/space.h)
// for the one with the best LearnedSSD grade on a workload, the simulator
// measuring each configuration in this process.
//
//   tierfs-tune --space=FILE --workload=W [--others=W2,W3] [--optimizer=NAME|all]
//               [--evaluations=N] [--seed=S | --seeds=S1,S2] [--csv=FILE]
//
// Workloads are synthetic suite names or trace files, as `tierfs-sim run
// --workload` takes. Progress goes to stderr (one line per new best); stdout
// gets the best configuration as a TierFS URI with its grade and
// measurements. The CSV holds every evaluation of every (optimizer, seed) run:
// optimizer,seed,evaluation,grade,best_grade,mean_us,p99_us,throughput,uri
// (the target's measurements; the URI quoted); benchmarks/tune_report.py draws its
// convergence curves. Runs of several optimizers or seeds share one cache of
// measurements, so a configuration is simulated once per workload.
#include <gflags/gflags.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tools/tune/evaluator.h"
#include "tools/tune/objective.h"
#include "tools/tune/optimizer.h"
#include "tools/tune/space.h"

DEFINE_string(space, "", "the search space file (the default is tools/tune/space.txt)");
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

int Main() {
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
  if (!Space::Load(FLAGS_space, &space, &error)) {
    fprintf(stderr, "tierfs-tune: %s\n", error.c_str());
    return 1;
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
  SimEvaluatorOptions eval_options;
  eval_options.requests = FLAGS_requests;
  eval_options.seed = FLAGS_workload_seed;
  eval_options.warmup = FLAGS_warmup;
  SimEvaluator evaluator(eval_options);
  GradeOptions grade;
  grade.alpha = FLAGS_alpha;
  grade.beta = FLAGS_beta;
  GradedObjective objective(&space, &evaluator, FLAGS_workload, SplitList(FLAGS_others), grade);

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
        if (!have_overall || t.value < overall.value) {
          overall = t;
          overall_target = m;
          have_overall = true;
        }
      });
      optimizer->Run(space, seed, &budget);
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
  const Measurement& ref = objective.reference_target();
  printf("best %s\n", overall.uri.c_str());
  printf("grade %.4f (the default's is 0; lower is better)\n", overall.value);
  printf("%s: mean %.1f us (default %.1f), p99 %.1f us (default %.1f), %.0f req/s (default "
         "%.0f)\n",
         FLAGS_workload.c_str(), overall_target.mean_us, ref.mean_us, overall_target.p99_us,
         ref.p99_us, overall_target.throughput, ref.throughput);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fprintf(stderr, "%llu simulations (%.1f s of replay), %llu cached answers, %.1f s in all; "
          "curve in %s\n",
          (unsigned long long)evaluator.runs(), evaluator.seconds(),
          (unsigned long long)evaluator.hits(), seconds, FLAGS_csv.c_str());
  return 0;
}

}  // namespace
}  // namespace tune
}  // namespace tierfs

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "--space=FILE --workload=W [--others=W2,W3] [--optimizer=NAME|all] [--evaluations=N] "
      "[--seed=S|--seeds=S1,S2] [--csv=FILE]: search TierFS configurations in the simulator");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc > 1) {
    fprintf(stderr, "tierfs-tune: unexpected argument '%s'\n", argv[1]);
    return 1;
  }
  return tierfs::tune::Main();
}
