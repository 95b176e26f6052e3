// tierfs: the TierFS admin tool, in the style of ldb.
//
//   tierfs --fs_uri=tierfs://... [--db=/path] [--json] COMMAND [ARGS]
//
// Inspection commands (stats, ls, segments) open the store read-only: they
// change nothing and work while a database is open in another process.
// Steering commands (move, replicate, prefetch, drop-copy, pin, unpin, hint,
// queue, errors) go to the process that has the store open, through the admin
// channel (env/admin_channel.h); if no process has it open, the tool opens it
// itself and runs data operations at once. Each command is one function in
// the table below; usage is generated from the table.
//
// Errors the store could hand to no caller (env/store_errors.h) are counted:
// `tierfs stats` ends with their line, `tierfs errors` shows every counter of
// the process that has the store open, and every --json answer of a steering
// command carries them. `tierfs --json stats` stays one object per tier
// (scripts read it so); `tierfs --json errors` has the counters.
#include <gflags/gflags.h>

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "env/admin_channel.h"
#include "env/config.h"
#include "env/prometheus_text.h"
#include "env/stats_report.h"
#include "env/store.h"
#include "env/store_errors.h"
#include "env/tier_fs.h"
#include "tierfs/file_system.h"
#include "tierfs/statistics.h"
#include "tools/tierfs/check_command.h"

DEFINE_string(fs_uri, "", "the TierFS URI (tierfs://...), as given to db_bench --fs_uri");
DEFINE_string(db, "/", "logical directory to list (ls)");
DEFINE_bool(json, false, "print JSON instead of tables");
DEFINE_string(segments, "", "segment range for move/replicate/prefetch/drop-copy: N or A-B (default: all)");
DEFINE_string(cf, "", "column family for pin/unpin/hint (instead of a file)");
DEFINE_int32(timeout_ms, 5000, "how long to wait for the process that has the store open");

namespace tierfs {
namespace {

using nlohmann::json;

int Stats(const rocksdb::FileSystem& fs) {
  std::vector<TierStats> stats;
  rocksdb::Status s = GetTierStats(&fs, &stats);
  if (!s.ok()) {
    fprintf(stderr, "tierfs stats: %s\n", s.ToString().c_str());
    return 1;
  }
  if (FLAGS_json) {
    printf("%s\n", TierStatsToJson(stats).dump(2).c_str());
    return 0;
  }
  printf("%s", TierStatsTables(stats).c_str());
  printf("(I/O counters cover the store's life up to its last clean close; latency p99 is a "
         "power-of-two bucket bound)\n");
  const Store* store = StoreOf(&fs);
  printf("errors: %s (to the last clean close and in this read; `tierfs errors` asks the "
         "process that has the store open; details in %s)\n",
         StoreErrorsLine(store->errors()).c_str(), store->info_log_path().c_str());
  return 0;
}

// The same statistics as `stats`, in Prometheus's text exposition format
// (env/prometheus_text.h): what the URI key metrics_file writes from a
// running store.
int Metrics(const rocksdb::FileSystem& fs) {
  std::vector<TierStats> stats;
  rocksdb::Status s = GetTierStats(&fs, &stats);
  if (!s.ok()) {
    fprintf(stderr, "tierfs metrics: %s\n", s.ToString().c_str());
    return 1;
  }
  printf("%s", TierStatsToPrometheus(stats).c_str());
  return 0;
}

int Segments(const rocksdb::FileSystem& fs) {
  std::vector<SegmentReport> segs;
  rocksdb::Status s = ListSegments(&fs, FLAGS_db, &segs);
  if (!s.ok()) {
    fprintf(stderr, "tierfs segments: %s\n", s.ToString().c_str());
    return 1;
  }
  if (FLAGS_json) {
    json out = json::array();
    for (const SegmentReport& r : segs) {
      out.push_back(json{{"file", r.file}, {"segment", r.segment}, {"tier", r.tier},
                         {"copy_tier", r.copy_tier}, {"bytes", r.bytes},
                         {"user_reads", r.user_reads}, {"background_reads", r.background_reads},
                         {"writes", r.writes}, {"migrations", r.migrations}, {"heat", r.heat}});
    }
    printf("%s\n", out.dump(1).c_str());
    return 0;
  }
  printf("%-5s %5s %10s %10s %10s %8s %6s %9s  %s\n", "tier", "copy", "bytes", "user rds",
         "bg reads", "writes", "moves", "heat", "file:segment");
  for (const SegmentReport& r : segs) {
    printf("%-5d %5s %10llu %10llu %10llu %8llu %6llu %9.1f  %s:%llu\n", r.tier,
           r.copy_tier < 0 ? "-" : std::to_string(r.copy_tier).c_str(),
           (unsigned long long)r.bytes, (unsigned long long)r.user_reads,
           (unsigned long long)r.background_reads, (unsigned long long)r.writes,
           (unsigned long long)r.migrations, r.heat, r.file.c_str(),
           (unsigned long long)r.segment);
  }
  printf("%zu segments (heat: user reads decayed to half every %llu requests)\n", segs.size(),
         (unsigned long long)(1 << 16));
  return 0;
}

int Ls(const rocksdb::FileSystem& fs) {
  std::vector<FileInfo> files;
  rocksdb::Status s = ListFiles(&fs, FLAGS_db, &files);
  if (!s.ok()) {
    fprintf(stderr, "tierfs ls: %s\n", s.ToString().c_str());
    return 1;
  }
  if (FLAGS_json) {
    json out = json::array();
    for (const FileInfo& f : files) {
      out.push_back(json{{"name", f.name}, {"kind", f.kind}, {"size", f.size},
                         {"level", f.level}, {"hint", AccessHintName(f.hint)}, {"pinned_tier", f.pinned_tier},
                         {"segments_per_tier", f.segments_per_tier}});
    }
    printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  size_t tiers = files.empty() ? 0 : files[0].segments_per_tier.size();
  printf("%-9s %12s %5s ", "kind", "size", "level");
  for (size_t t = 0; t < tiers; ++t) printf(" tier%zu", t);
  printf("  name\n");
  for (const FileInfo& f : files) {
    printf("%-9s %12llu %5s ", f.kind.c_str(), (unsigned long long)f.size,
           f.level < 0 ? "-" : std::to_string(f.level).c_str());
    for (uint64_t n : f.segments_per_tier) printf(" %5llu", (unsigned long long)n);
    printf("  %s\n", f.name.c_str());
  }
  printf("%zu files (columns tierN: segments on tier N)\n", files.size());
  return 0;
}

// ---- steering: through the admin channel, or on the store itself ----

// Fills request fields from the command's arguments; false (with a message)
// on a bad argument.
bool ParseSteering(const std::string& cmd, const std::vector<std::string>& args,
                   AdminRequest* req, std::string* error) {
  req->command = cmd == "move" ? "migrate" : cmd;
  const bool whole_store = cmd == "queue" || cmd == "errors";  // no file, no tier
  size_t need_tier =
      (whole_store || cmd == "drop-copy" || cmd == "unpin" || cmd == "hint") ? 0 : 1;
  size_t want = (FLAGS_cf.empty() && !whole_store ? 1 : 0) + need_tier + (cmd == "hint" ? 1 : 0);
  if (args.size() != want) {
    *error = cmd + ": expected " + std::to_string(want) + " argument(s), got " +
             std::to_string(args.size());
    return false;
  }
  size_t i = 0;
  if (FLAGS_cf.empty() && !whole_store) req->path = args[i++];
  req->column_family = FLAGS_cf;
  if (!FLAGS_cf.empty() && cmd != "pin" && cmd != "unpin" && cmd != "hint") {
    *error = cmd + ": --cf applies to pin, unpin and hint only";
    return false;
  }
  if (need_tier) {
    char* end = nullptr;
    long t = strtol(args[i].c_str(), &end, 10);
    if (args[i].empty() || *end != '\0' || t < 0) {
      *error = cmd + ": bad tier '" + args[i] + "'";
      return false;
    }
    req->tier = int(t);
    ++i;
  }
  if (cmd == "hint") req->hint = args[i++];
  if (!FLAGS_segments.empty()) {
    unsigned long long a, b;
    char extra;
    if (sscanf(FLAGS_segments.c_str(), "%llu-%llu%c", &a, &b, &extra) == 2) {
      req->first = a;
      req->last = b;
    } else if (sscanf(FLAGS_segments.c_str(), "%llu%c", &a, &extra) == 1) {
      req->first = req->last = a;
    } else {
      *error = "bad --segments '" + FLAGS_segments + "' (expected N or A-B)";
      return false;
    }
  }
  return true;
}

// `tierfs errors`: every counter, its value and what it counts.
void PrintErrors(const StoreErrorCounts& errors, const std::string& log) {
  printf("errors over the store's life (details in %s):\n", log.c_str());
  for (const StoreErrorInfo& info : kStoreErrors) {
    printf("  %-20s %8llu  %s\n", info.name, (unsigned long long)errors[size_t(info.id)],
           info.help);
  }
}

int PrintResponse(const std::string& cmd, const AdminResponse& r, bool offline,
                  const std::string& log) {
  const MigrationInfo& m = r.migration;
  if (FLAGS_json) {
    json q = m.queue;
    printf("%s\n", json{{"ok", r.ok}, {"message", r.message}, {"offline", offline},
                        {"migration", {{"enabled", m.enabled}, {"queue", q}, {"running", m.running},
                                       {"done", m.done}, {"bytes", m.bytes},
                                       {"skipped", m.skipped}, {"given_up", m.given_up},
                                       {"waits", m.waits}}},
                        {"errors", StoreErrorsToJson(r.errors)}, {"log", log}}.dump(2).c_str());
    return r.ok ? 0 : 1;
  }
  if (!r.ok) {
    fprintf(stderr, "tierfs %s: %s\n", cmd.c_str(), r.message.c_str());
    return 1;
  }
  if (cmd == "errors") {
    PrintErrors(r.errors, log);
    if (offline) printf("(no process has the store open: counted to its last clean close and by this open)\n");
    return 0;
  }
  if (cmd != "queue") printf("%s: %s\n", cmd.c_str(), r.message.c_str());
  if (offline) {
    const bool lasting = cmd != "pin" && cmd != "unpin" && cmd != "hint";
    printf("(no process has the store open: %s)\n",
           cmd == "queue" ? "no migration is running"
           : lasting      ? "ran here"
                          : "data moved here; pins and hints last only while a process has the store open");
    if (cmd != "queue") return 0;
  }
  if (cmd == "queue") {
    if (!m.enabled && !offline) printf("migration is off in the process that has the store open\n");
    printf("running: %s\n", m.running.empty() ? "-" : m.running.c_str());
    printf("queued (%zu):\n", m.queue.size());
    for (const std::string& q : m.queue) printf("  %s\n", q.c_str());
    printf("moves done %llu (%s), skipped %llu, given up %llu, chunks that waited for idle "
           "devices %llu\n",
           (unsigned long long)m.done, FormatSize(m.bytes).c_str(),
           (unsigned long long)m.skipped, (unsigned long long)m.given_up,
           (unsigned long long)m.waits);
  }
  return 0;
}

// Sends the command to the process that has the store open; if none does,
// opens the store and runs it here.
int Steer(const std::string& cmd, const std::vector<std::string>& args, Options options) {
  AdminRequest req;
  std::string error;
  if (!ParseSteering(cmd, args, &req, &error)) {
    fprintf(stderr, "tierfs: %s\n", error.c_str());
    return 2;
  }
  options.read_only = false;
  options.migration.enabled = false;  // data operations run in this thread
  const std::string log = options.tiers[0].path + "/meta/LOG";
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = NewTierFileSystem(options, &fs);
  if (s.ok()) {
    const int rc =
        PrintResponse(cmd, RunAdminRequest(StoreOf(fs.get()), req, true), true, log);
    // The moves are durable already; a failed final save (statistics,
    // journal sync) is still worth an error.
    s = Close(fs.get());
    if (!s.ok()) fprintf(stderr, "tierfs %s: %s\n", cmd.c_str(), s.ToString().c_str());
    return rc != 0 ? rc : s.ok() ? 0 : 1;
  }
  if (s.ToString().find("in use by another process") == std::string::npos) {
    fprintf(stderr, "tierfs: %s\n", s.ToString().c_str());
    return 1;
  }
  AdminResponse resp;
  s = SendAdminRequest(options.tiers[0].path + "/meta", req, &resp, FLAGS_timeout_ms);
  if (!s.ok()) {
    fprintf(stderr, "tierfs %s: %s\n", cmd.c_str(), s.ToString().c_str());
    return 1;
  }
  return PrintResponse(cmd, resp, false, log);
}

struct Command {
  const char* name;
  const char* help;
  std::function<int(const rocksdb::FileSystem&)> run;  // inspection; nullptr: steering
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"stats", "per tier: capacity, bytes and segments resident, I/O counts, latency, spills",
       Stats},
      {"metrics", "the statistics of `stats` as Prometheus text (counters *_total, latency "
                  "histograms in seconds)",
       Metrics},
      {"ls", "per file under --db: kind, size, segments on each tier", Ls},
      {"segments", "per segment under --db: home and copy tier, reads, writes, moves, heat",
       Segments},
      {"move", "FILE TIER [--segments=A-B]: MIGRATE the segments to TIER", nullptr},
      {"replicate", "FILE TIER [--segments=A-B]: a durable extra copy on TIER serving reads", nullptr},
      {"prefetch", "FILE TIER [--segments=A-B]: the same copy, forgotten at restart", nullptr},
      {"drop-copy", "FILE [--segments=A-B]: drop the extra copies", nullptr},
      {"pin", "FILE TIER | --cf=NAME TIER: new data goes to TIER, existing data moves there", nullptr},
      {"unpin", "FILE | --cf=NAME", nullptr},
      {"hint", "FILE HINT | --cf=NAME HINT: hot, cold, write-intensive, read-intensive, archival, none",
       nullptr},
      {"queue", "the migration queue, the move running and the engine's counters", nullptr},
      {"errors", "errors no caller heard of (failed rotations, saves, moves...), by kind", nullptr},
      {"check", "[--repair]: fsck of the store at rest (journal, segments backed, orphans, "
                "account, copies, markers); --repair fixes what loses no data",
       [](const rocksdb::FileSystem&) { return RunCheck(FLAGS_fs_uri, FLAGS_repair, FLAGS_json); }},
  };
  return commands;
}

std::string Usage() {
  std::string u = "tierfs --fs_uri=tierfs://... [--db=DIR] [--json] COMMAND [ARGS]\ncommands:\n";
  for (const Command& c : Commands()) u += std::string("  ") + c.name + "\t" + c.help + "\n";
  return u;
}

}  // namespace
}  // namespace tierfs

int main(int argc, char** argv) {
  using namespace tierfs;
  gflags::SetUsageMessage(Usage());
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc < 2 || FLAGS_fs_uri.empty()) {
    fprintf(stderr, "%s", Usage().c_str());
    return 2;
  }
  const Command* cmd = nullptr;
  for (const Command& c : Commands()) {
    if (argv[1] == std::string(c.name)) cmd = &c;
  }
  if (!cmd) {
    fprintf(stderr, "tierfs: unknown command '%s'\n%s", argv[1], Usage().c_str());
    return 2;
  }
  Options options;
  rocksdb::Status s = ParseUri(FLAGS_fs_uri, &options);
  if (s.ok() && !cmd->run) return Steer(cmd->name, std::vector<std::string>(argv + 2, argv + argc), options);
  if (s.ok() && argc != 2) {
    fprintf(stderr, "tierfs %s takes no arguments\n", cmd->name);
    return 2;
  }
  if (s.ok()) {
    options.read_only = true;
    std::shared_ptr<rocksdb::FileSystem> fs;
    s = NewTierFileSystem(options, &fs);
    if (s.ok()) return cmd->run(*fs);
  }
  fprintf(stderr, "tierfs: %s\n", s.ToString().c_str());
  return 1;
}
