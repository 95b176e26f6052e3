// The live evaluator (live_evaluator.h): a fresh store, an OPTIONS file and
// one db_bench run per measurement.
#include "tools/tune/live_evaluator.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tools/tune/rocksdb_options.h"
#include "util/size.h"

extern char** environ;

namespace tierfs {
namespace tune {
namespace {

// The AddressSanitizer runtime this process runs with ("" if none). A plugin
// built with ASan (tests/sanitizers/run.sh asan builds the tuner and the
// plugin together) needs it loaded ahead of it in the uninstrumented
// db_bench, as tests/plugin_preload.sh arranges for the shell tests.
std::string AsanRuntime() {
  void* sym = dlsym(RTLD_DEFAULT, "__asan_init");
  Dl_info info;
  if (!sym || !dladdr(sym, &info) || !info.dli_fname) return "";
  return info.dli_fname;
}

// Runs `argv` with `plugin` preloaded, stdout and stderr to `log`. The exit
// status (-1 if it could not start, 128 + N if killed by signal N).
int RunPreloaded(const std::vector<std::string>& argv, const std::string& plugin,
                 const std::string& log) {
  const std::string asan = AsanRuntime();
  std::vector<std::string> env;
  std::string asan_options;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0) continue;
    if (!asan.empty() && std::strncmp(*e, "ASAN_OPTIONS=", 13) == 0) {
      asan_options = *e + 13;
      continue;
    }
    env.emplace_back(*e);
  }
  env.push_back("LD_PRELOAD=" + (asan.empty() ? plugin : asan + " " + plugin));
  if (!asan.empty()) {
    // db_bench leaks its block cache at exit, and its frames cannot be told
    // apart to suppress it: the plugin's own leaks are the suite's to find.
    env.push_back("ASAN_OPTIONS=" + asan_options + (asan_options.empty() ? "" : ":") +
                  "detect_leaks=0");
  }
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last `n` lines of `text`, each prefixed for an error message.
std::string Tail(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t cr = line.rfind('\r');  // db_bench's progress lines
    if (cr != std::string::npos) line = line.substr(cr + 1);
    if (!line.empty()) lines.push_back(line);
  }
  std::string out;
  for (size_t i = lines.size() > size_t(n) ? lines.size() - size_t(n) : 0; i < lines.size(); ++i) {
    out += "\n  | " + lines[i];
  }
  return out;
}

// The store URI of `configuration` in `dir`: each tier's path replaced by
// dir/tierI (made here), its capacity and device kept, then the TierFS keys.
bool StoreUri(const std::string& configuration, const std::string& dir, std::string* uri,
              std::string* error) {
  std::string tierfs_uri;
  SplitConfiguration(configuration, &tierfs_uri, nullptr);
  const std::string scheme = "tierfs://";
  if (tierfs_uri.rfind(scheme, 0) != 0) {
    *error = "not a tierfs:// URI";
    return false;
  }
  const size_t semi = tierfs_uri.find(';');
  const std::string tiers = tierfs_uri.substr(scheme.size(), semi - scheme.size());
  const std::string keys = semi == std::string::npos ? "" : tierfs_uri.substr(semi);
  std::string out;
  std::stringstream in(tiers);
  int i = 0;
  for (std::string tier; std::getline(in, tier, ','); ++i) {
    const size_t colon = tier.find(':');
    if (colon == std::string::npos) {
      *error = "tier '" + tier + "' has no capacity (PATH:CAPACITY[:DEVICE])";
      return false;
    }
    const std::string path = dir + "/tier" + std::to_string(i);
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) {
      *error = "cannot make " + path + ": " + ec.message();
      return false;
    }
    out += (i ? "," : "") + path + tier.substr(colon);
  }
  *uri = scheme + out + keys;
  return true;
}

}  // namespace

bool ParseDbBenchResult(const std::string& log, const std::string& benchmark, Measurement* out,
                        std::string* error) {
  // "readrandom   :       1.543 micros/op 647249 ops/sec 0.005 seconds ..."
  const std::regex line("(^|[\r\n])" + benchmark +
                        R"( +: +([0-9.]+) micros/op ([0-9.]+) ops/sec)");
  std::smatch m, last;
  for (auto it = log.cbegin(); std::regex_search(it, log.cend(), m, line); it = m[0].second) {
    last = m;
  }
  if (last.empty()) {
    *error = "db_bench printed no result for '" + benchmark + "'";
    return false;
  }
  Measurement r;
  r.mean_us = std::stod(last[2].str());
  r.throughput = std::stod(last[3].str());
  // "Percentiles: P50: 0.77 P75: 1.33 P99: 6.00 P99.9: 51.00 ..." after it.
  const size_t at = size_t(last[0].second - log.cbegin());
  const size_t pct = log.find("Percentiles:", at);
  const size_t next = log.find(" micros/op ", at);
  if (pct != std::string::npos && (next == std::string::npos || pct < next)) {
    const size_t p99 = log.find("P99: ", pct);
    if (p99 != std::string::npos) r.p99_us = std::stod(log.substr(p99 + 5));
  }
  *out = r;
  return true;
}

bool LiveEvaluator::RunOnce(const std::string& workload, const std::string& configuration,
                            Measurement* out, std::string* error) {
  const std::string dir = options_.work_dir + "/run-" + std::to_string(runs_ + 1);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::string uri;
  if (!StoreUri(configuration, dir, &uri, error)) return false;
  std::map<std::string, std::string> rocksdb;
  SplitConfiguration(configuration, nullptr, &rocksdb);
  const std::string options_file = dir + "/OPTIONS.ini";
  if (!WriteOptionsFile(rocksdb, options_file, error)) return false;
  uint64_t cache = 0;
  const auto cache_size = rocksdb.find("block_cache_size");
  ParseSize(cache_size != rocksdb.end() ? cache_size->second
                                        : FindLiveOption("block_cache_size")->rocksdb_default,
            &cache);
  std::vector<std::string> argv = {options_.db_bench,
                                   "--fs_uri=" + uri,
                                   "--db=/db",
                                   "--options_file=" + options_file,
                                   "--benchmarks=" + workload,
                                   "--num=" + std::to_string(options_.num),
                                   "--value_size=" + std::to_string(options_.value_size),
                                   "--key_size=16",
                                   "--seed=" + std::to_string(options_.seed),
                                   "--threads=1",
                                   "--histogram=1",
                                   "--cache_size=" + std::to_string(cache)};
  argv.insert(argv.end(), options_.flags.begin(), options_.flags.end());
  {
    std::ofstream cmd(dir + "/command.txt");
    for (const std::string& a : argv) cmd << a << "\n";
  }
  last_dir_ = dir;
  last_uri_ = uri;
  const std::string log = dir + "/db_bench.log";
  const auto start = std::chrono::steady_clock::now();
  const int status = RunPreloaded(argv, options_.plugin, log);
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++runs_;
  const std::string text = ReadFile(log);
  if (status != 0) {
    *error = "db_bench " + (status < 0 ? "could not start (" + options_.db_bench + ")"
                                       : "exited with status " + std::to_string(status)) +
             "; log " + log + Tail(text, 5);
    return false;
  }
  const size_t comma = workload.rfind(',');
  const std::string measured = comma == std::string::npos ? workload : workload.substr(comma + 1);
  if (!ParseDbBenchResult(text, measured, out, error)) {
    *error += "; log " + log + Tail(text, 5);
    return false;
  }
  if (!options_.keep_runs) std::filesystem::remove_all(dir, ec);
  return true;
}

bool LiveEvaluator::Evaluate(const std::string& workload, const std::string& configuration,
                             Measurement* out, std::string* error) {
  const auto key = std::make_pair(workload, configuration);
  auto cached = cache_.find(key);
  if (cached != cache_.end()) {
    ++hits_;
    *out = cached->second;
    return true;
  }
  auto fail = [&](const std::string& what) {
    *error = "live run of workload '" + workload + "' under '" + configuration + "': " + what;
    return false;
  };
  if (options_.plugin.empty() || options_.work_dir.empty()) {
    return fail("the live evaluator needs the plugin (libtierfs.so) and a work directory");
  }
  if (workload.empty() || workload.find_first_of(" \t;") != std::string::npos) {
    return fail("the workload must be a db_bench --benchmarks list (fillrandom,readrandom)");
  }
  if (options_.repeats < 1) return fail("repeats must be at least 1");
  std::vector<Measurement> runs;
  for (int r = 0; r < options_.repeats; ++r) {
    Measurement m;
    std::string why;
    if (!RunOnce(workload, configuration, &m, &why)) return fail(why);
    if (m.throughput <= 0 || m.mean_us <= 0) return fail("db_bench measured no operation");
    runs.push_back(m);
  }
  auto median = [&](double Measurement::*field) {
    std::vector<double> v;
    for (const Measurement& m : runs) v.push_back(m.*field);
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  Measurement m;
  m.mean_us = median(&Measurement::mean_us);
  m.p99_us = median(&Measurement::p99_us);
  m.throughput = median(&Measurement::throughput);
  double lo = runs[0].throughput, hi = lo;
  for (const Measurement& r : runs) {
    lo = std::min(lo, r.throughput);
    hi = std::max(hi, r.throughput);
  }
  spread_ = hi / lo;
  cache_[key] = m;
  *out = m;
  return true;
}

}  // namespace tune
}  // namespace tierfs
