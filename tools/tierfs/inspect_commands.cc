// The inspection commands: stats, metrics, ls, segments, cat (and, in a file
// of its own, heatmap). Each opens the store read-only (inspect_command.h): it
// changes nothing and works while a database is open in another process, but
// sees the I/O counters only up to the store's last clean close (what its
// STATS file holds).
//
// `tierfs --json stats` stays one object per tier: scripts read it so.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "env/prometheus_text.h"
#include "env/stats_report.h"
#include "env/store_errors.h"
#include "env/tier_fs.h"
#include "tierfs/statistics.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/inspect_command.h"
#include "tools/tierfs/registry.h"

namespace tierfs {
namespace tool {
namespace {

using nlohmann::json;

class StatsCommand : public InspectCommand {
 public:
  const char* Name() const override { return "stats"; }
  const char* Summary() const override {
    return "per tier: capacity, use, I/O counts, latency, spills, user reads, moves, copies";
  }
  std::string Details() const override {
    return "Two tables: per tier its capacity, use, I/O counts and latency; then user reads,\n"
           "moves and copies. The last line counts the errors no caller heard of.\n"
           "--json: an array of one object per tier.\n";
  }
  std::vector<FlagUse> Flags() const override { return {{"json", nullptr}}; }

 protected:
  int Inspect(const rocksdb::FileSystem& fs, const Options&) const override {
    std::vector<TierStats> stats;
    rocksdb::Status s = GetTierStats(&fs, &stats);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    if (FLAGS_json) {
      printf("%s\n", TierStatsToJson(stats).dump(2).c_str());
      return kExitOk;
    }
    printf("%s", TierStatsTables(stats).c_str());
    printf("(I/O counters cover the store's life up to its last clean close; latency p99 is a "
           "power-of-two bucket bound)\n");
    StoreErrorCounts errors;
    std::string info_log;
    s = GetStoreErrors(&fs, &errors, &info_log);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    printf("errors: %s (to the last clean close and in this read; `tierfs errors` asks the "
           "process that has the store open; details in %s)\n",
           StoreErrorsLine(errors).c_str(), info_log.c_str());
    return kExitOk;
  }
};

// The statistics of `stats`, the error counters of `errors` and the
// migration engine's counters of `queue`, in Prometheus's text exposition
// format (env/prometheus_text.h): what the URI key metrics_file writes from a
// running store.
class MetricsCommand : public InspectCommand {
 public:
  const char* Name() const override { return "metrics"; }
  const char* Summary() const override {
    return "the statistics of `stats`, the error and migration counters, as Prometheus text";
  }
  std::string Details() const override {
    return "Counters end in _total, gauges are bare, latencies are histograms in seconds;\n"
           "the per-tier samples are labelled with their tier, device and path. Then the\n"
           "store's error counters (tierfs_store_errors_total{kind=...}) and the migration\n"
           "engine's (tierfs_migration_*: all 0 here, where the store is opened read-only\n"
           "without a migration thread). The same text the URI key metrics_file makes a\n"
           "running store write for node_exporter's textfile collector.\n";
  }

 protected:
  int Inspect(const rocksdb::FileSystem& fs, const Options&) const override {
    std::vector<TierStats> stats;
    rocksdb::Status s = GetTierStats(&fs, &stats);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    StoreMetrics metrics;
    metrics.tiers = std::move(stats);
    s = GetStoreErrors(&fs, &metrics.errors);
    if (s.ok()) s = GetMigrationInfo(&fs, &metrics.migration);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    printf("%s", StoreMetricsToPrometheus(metrics).c_str());
    return kExitOk;
  }
};

class LsCommand : public InspectCommand {
 public:
  const char* Name() const override { return "ls"; }
  const char* Summary() const override {
    return "per file under --db: kind, size, level, segments on each tier";
  }
  std::vector<FlagUse> Flags() const override {
    return {{"db", "the logical directory to list (default: /)"}, {"json", nullptr}};
  }

 protected:
  int Inspect(const rocksdb::FileSystem& fs, const Options&) const override {
    std::vector<FileInfo> files;
    rocksdb::Status s = ListFiles(&fs, FLAGS_db, &files);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    if (FLAGS_json) {
      json out = json::array();
      for (const FileInfo& f : files) {
        out.push_back(json{{"name", f.name}, {"kind", FileKindName(f.kind)}, {"size", f.size},
                           {"level", f.level}, {"hint", AccessHintName(f.hint)},
                           {"pinned_tier", f.pinned_tier},
                           {"segments_per_tier", f.segments_per_tier}});
      }
      printf("%s\n", out.dump(2).c_str());
      return kExitOk;
    }
    size_t tiers = files.empty() ? 0 : files[0].segments_per_tier.size();
    printf("%-9s %12s %5s ", "kind", "size", "level");
    for (size_t t = 0; t < tiers; ++t) printf(" tier%zu", t);
    printf("  name\n");
    for (const FileInfo& f : files) {
      printf("%-9s %12llu %5s ", FileKindName(f.kind), (unsigned long long)f.size,
             f.level < 0 ? "-" : std::to_string(f.level).c_str());
      for (uint64_t n : f.segments_per_tier) printf(" %5llu", (unsigned long long)n);
      printf("  %s\n", f.name.c_str());
    }
    printf("%zu files (columns tierN: segments on tier N)\n", files.size());
    return kExitOk;
  }
};

class SegmentsCommand : public InspectCommand {
 public:
  const char* Name() const override { return "segments"; }
  const char* Summary() const override {
    return "per segment under --db: home and copy tier, reads, writes, moves, heat";
  }
  std::vector<FlagUse> Flags() const override {
    return {{"db", "the logical directory whose files to list (default: /)"}, {"json", nullptr}};
  }

 protected:
  int Inspect(const rocksdb::FileSystem& fs, const Options&) const override {
    std::vector<SegmentReport> segs;
    rocksdb::Status s = ListSegments(&fs, FLAGS_db, &segs);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
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
      return kExitOk;
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
    return kExitOk;
  }
};

// A logical file's bytes, wherever its segments are: what a user needs to read
// a database's LOG or OPTIONS file, or to copy a table out of the store.
class CatCommand : public Command {
 public:
  const char* Name() const override { return "cat"; }
  const char* Group() const override { return kInspectGroup; }
  const char* Synopsis() const override { return "FILE"; }
  const char* Summary() const override {
    return "a file's bytes on stdout, read through TierFS (LOG, OPTIONS, a table...)";
  }
  int Run(const Invocation& inv) const override {
    if (inv.args.size() != 1) {
      LOG(ERROR) << "cat takes one FILE (a logical path, as RocksDB names it), not "
                 << inv.args.size() << " arguments";
      return kExitBadUsage;
    }
    std::shared_ptr<rocksdb::FileSystem> fs;
    if (!OpenReadOnly(inv, &fs)) return kExitFailed;
    const std::string& path = inv.args[0];
    std::unique_ptr<rocksdb::FSSequentialFile> file;
    rocksdb::IOStatus s =
        fs->NewSequentialFile(path, rocksdb::FileOptions(), &file, /*dbg=*/nullptr);
    std::vector<char> buf(1 << 20);
    while (s.ok()) {
      rocksdb::Slice got;
      s = file->Read(buf.size(), rocksdb::IOOptions(), &got, buf.data(), /*dbg=*/nullptr);
      if (!s.ok() || got.empty()) break;
      if (fwrite(got.data(), 1, got.size(), stdout) != got.size()) {
        LOG(ERROR) << "writing " << path << " to stdout failed";
        return kExitFailed;
      }
    }
    if (!s.ok()) {
      LOG(ERROR) << path << ": " << s.ToString();
      return kExitFailed;
    }
    return fflush(stdout) == 0 ? kExitOk : kExitFailed;
  }
};

}  // namespace

std::unique_ptr<Command> NewStatsCommand() { return std::make_unique<StatsCommand>(); }
std::unique_ptr<Command> NewMetricsCommand() { return std::make_unique<MetricsCommand>(); }
std::unique_ptr<Command> NewLsCommand() { return std::make_unique<LsCommand>(); }
std::unique_ptr<Command> NewSegmentsCommand() { return std::make_unique<SegmentsCommand>(); }
std::unique_ptr<Command> NewCatCommand() { return std::make_unique<CatCommand>(); }

}  // namespace tool
}  // namespace tierfs
