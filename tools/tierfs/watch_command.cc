// `tierfs watch`: a running store's live view, like `iostat -x` for tiers.
// Every --interval_ms it asks the process that has the store open for its
// statistics (the admin channel's "stats" request, env/admin_channel.h) and
// shows, per tier, the differences of the counters between two answers
// divided by the time between them (the server's clock), the tiers' use,
// tier 0's share of the user reads in the interval, and the migration
// engine's moves in flight. On a terminal it redraws in place; otherwise it
// prints one block per sample, so a script can read it; with --json, one
// JSON object per sample, a line each.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "env/admin_channel.h"
#include "env/posix_util.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/registry.h"
#include "util/size.h"

namespace tierfs {
namespace tool {
namespace {

using nlohmann::json;

int64_t UnixNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What changed between two answers, per second.
struct Rates {
  double seconds = 0;
  const AdminResponse* now = nullptr;
  const AdminResponse* before = nullptr;

  uint64_t Delta(size_t tier, TierTicker t) const {
    const uint64_t a = before->tiers[tier].Get(t), b = now->tiers[tier].Get(t);
    return b > a ? b - a : 0;  // counters only grow while the process lives
  }
  double PerSecond(size_t tier, TierTicker t) const { return Delta(tier, t) / seconds; }
  // The mean latency of the samples added in the interval; -1 if none.
  double MeanMicros(size_t tier, TierHistogram h) const {
    const LatencyHistogram &a = before->tiers[tier].Get(h), &b = now->tiers[tier].Get(h);
    if (b.count <= a.count || b.sum_us < a.sum_us) return -1;
    return double(b.sum_us - a.sum_us) / double(b.count - a.count);
  }
};

std::string Fixed(double v, int decimals) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Micros(double us) { return us < 0 ? "-" : Fixed(us, 1); }

// A table whose columns are as wide as their widest cell; the first two
// columns (tier, device) left-aligned, the rest right-aligned.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w;
  for (const auto& r : rows) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      const std::string pad(w[c] - r[c].size(), ' ');
      line += c == 0 ? r[c] + pad : c == 1 ? "  " + r[c] + pad : "  " + pad + r[c];
    }
    out += line + "\n";
  }
  return out;
}

// One sample's figures, which the text block and --json both show.
struct TierFigures {
  int tier = 0;
  std::string device;
  double reads = 0, writes = 0;               // per second
  double read_mb = 0, write_mb = 0;           // MB (1e6 bytes) per second
  double read_await = -1, write_await = -1;   // mean microseconds; -1 if none
  uint64_t used = 0, capacity = 0;
};
struct SampleFigures {
  double seconds = 0;
  std::vector<TierFigures> tiers;
  uint64_t user_reads = 0;          // in the interval, every tier
  uint64_t tier0_reads = 0;         // of those, served by tier 0
  uint64_t page_hits = 0;           // of those, by hot-page copies
  bool migration = false;           // the process has a migration thread
  bool running = false;             // a move runs
  size_t queued = 0, manual = 0;    // moves waiting, and the manual ones among them
  uint64_t copies_in_flight = 0;
  uint64_t done = 0;                // moves done in the interval
  uint64_t moved_bytes = 0;         // moved or copied in, in the interval
};

SampleFigures Figures(const Rates& d) {
  const AdminResponse& now = *d.now;
  SampleFigures f;
  f.seconds = d.seconds;
  for (size_t i = 0; i < now.tiers.size(); ++i) {
    const TierStats& s = now.tiers[i];
    f.user_reads += d.Delta(i, TierTicker::kUserReads);
    f.moved_bytes += d.Delta(i, TierTicker::kMovedBytesIn) + d.Delta(i, TierTicker::kCopyBytesIn);
    TierFigures t;
    t.tier = s.index;
    t.device = s.device.empty() ? "-" : s.device;
    t.reads = d.PerSecond(i, TierTicker::kReads);
    t.writes = d.PerSecond(i, TierTicker::kWrites);
    t.read_mb = d.PerSecond(i, TierTicker::kReadBytes) / 1e6;
    t.write_mb = d.PerSecond(i, TierTicker::kWriteBytes) / 1e6;
    t.read_await = d.MeanMicros(i, TierHistogram::kReadLatency);
    t.write_await = d.MeanMicros(i, TierHistogram::kWriteLatency);
    t.used = s.used_bytes;
    t.capacity = s.capacity;
    f.tiers.push_back(t);
  }
  f.tier0_reads = d.Delta(0, TierTicker::kUserReads);
  f.page_hits = d.Delta(0, TierTicker::kPageHits);
  const MigrationInfo& m = now.migration;
  f.migration = m.enabled;
  f.running = m.running.has_value();
  f.queued = m.queue.size();
  f.manual = QueuedManualMoves(m);
  f.copies_in_flight = now.copies_in_flight;
  f.done = m.done - std::min(m.done, d.before->migration.done);
  return f;
}

// One sample's block: a title line, the per-tier table, the hit share and
// the moves.
std::string Block(const SampleFigures& f, int sample, int count, pid_t pid,
                  const std::string& root) {
  char when[16];
  const time_t t = time(nullptr);
  struct tm tm;
  strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&t, &tm));
  std::string out = "tierfs watch " + root + " (process " + std::to_string(pid) + "): sample " +
                    std::to_string(sample) + (count ? " of " + std::to_string(count) : "") +
                    " at " + when + ", over " + Fixed(f.seconds, 2) + " s\n";
  std::vector<std::vector<std::string>> rows = {{"tier", "device", "r/s", "w/s", "rMB/s",
                                                 "wMB/s", "r_await", "w_await", "used",
                                                 "capacity", "use%"}};
  for (const TierFigures& t : f.tiers) {
    rows.push_back({std::to_string(t.tier), t.device, Fixed(t.reads, 1), Fixed(t.writes, 1),
                    Fixed(t.read_mb, 2), Fixed(t.write_mb, 2), Micros(t.read_await),
                    Micros(t.write_await), FormatSize(t.used), FormatSize(t.capacity),
                    t.capacity ? Fixed(100.0 * double(t.used) / double(t.capacity), 0) + "%"
                               : "-"});
  }
  out += Table(rows);
  if (f.user_reads == 0) {
    out += "hit share: - (no user reads in the interval)\n";
  } else {
    out += "hit share: " + Fixed(100.0 * double(f.tier0_reads) / double(f.user_reads), 1) +
           "% of " + Fixed(double(f.user_reads) / f.seconds, 1) +
           " user reads/s served by tier 0 (" +
           Fixed(100.0 * double(f.page_hits) / double(f.user_reads), 1) +
           "% by hot-page copies)\n";
  }
  if (!f.migration) {
    out += "moves: migration is off in this process\n";
  } else {
    out += "moves in flight: " + std::string(f.running ? "1" : "0") + " running, " +
           std::to_string(f.queued) + " queued (" + std::to_string(f.manual) + " manual, " +
           std::to_string(f.queued - f.manual) + " planned), " +
           std::to_string(f.copies_in_flight) + " of them copies\n";
    out += "moves done: " + std::to_string(f.done) + " in the interval, " +
           Fixed(double(f.moved_bytes) / 1e6 / f.seconds, 2) + " MB/s moved or copied\n";
  }
  return out;
}

// --json: the same figures as one object (one line per sample). Latencies
// and shares with no samples in the interval are null; rates unrounded.
json SampleJson(const SampleFigures& f, int sample, pid_t pid, const std::string& root) {
  auto or_null = [](double v) { return v < 0 ? json(nullptr) : json(v); };
  json tiers = json::array();
  for (const TierFigures& t : f.tiers) {
    tiers.push_back(json{{"tier", t.tier}, {"device", t.device}, {"reads_per_s", t.reads},
                         {"writes_per_s", t.writes}, {"read_mb_per_s", t.read_mb},
                         {"write_mb_per_s", t.write_mb}, {"read_await_us", or_null(t.read_await)},
                         {"write_await_us", or_null(t.write_await)}, {"used_bytes", t.used},
                         {"capacity", t.capacity}});
  }
  json out = {{"store", root}, {"pid", pid}, {"sample", sample}, {"unix_ns", UnixNanos()},
              {"seconds", f.seconds}, {"tiers", tiers},
              {"user_reads_per_s", double(f.user_reads) / f.seconds},
              {"tier0_share", f.user_reads ? json(double(f.tier0_reads) / double(f.user_reads))
                                           : json(nullptr)},
              {"page_copy_share", f.user_reads
                                      ? json(double(f.page_hits) / double(f.user_reads))
                                      : json(nullptr)}};
  if (!f.migration) {
    out["migration"] = {{"enabled", false}};
  } else {
    out["migration"] = {{"enabled", true},
                        {"running", f.running ? 1 : 0},
                        {"queued", f.queued},
                        {"manual", f.manual},
                        {"planned", f.queued - f.manual},
                        {"copies_in_flight", f.copies_in_flight},
                        {"done", f.done},
                        {"moved_mb_per_s", double(f.moved_bytes) / 1e6 / f.seconds}};
  }
  return out;
}

class WatchCommand : public Command {
 public:
  const char* Name() const override { return "watch"; }
  const char* Group() const override {
    return "watch a running store (through the process that has it open)";
  }
  const char* Summary() const override {
    return "live per-tier rates, like iostat -x: I/O/s, MB/s, latency, use, hit share, moves";
  }
  std::string Details() const override {
    return "Every --interval_ms the process that has the store open answers its statistics\n"
           "through the admin channel; each sample shows the differences since the last\n"
           "one, per second of the process's clock. Per tier: reads and writes per second\n"
           "(one per segment piece, user and background), MB/s read and written by\n"
           "RocksDB (moves not included), the mean latency of the reads and writes in the\n"
           "interval in microseconds (r_await, w_await; '-' if none), and the bytes charged\n"
           "against its capacity. Then tier 0's share of the interval's user reads (and\n"
           "the part hot-page copies served), and the migration engine's moves: running,\n"
           "queued, the copies (replicate, prefetch) among them, and the bytes moved.\n"
           "Writers merge their counts every 256 writes and at sync and close, so a short\n"
           "interval's writes come in bursts. On a terminal the view is redrawn in place;\n"
           "otherwise one block per sample. --json: each sample as one JSON object on a\n"
           "line of its own (the same figures, rates unrounded, null where the text says\n"
           "'-'), on a terminal too.\n"
           "If no process has the store open, watch says so and exits 1.\n";
  }
  std::vector<FlagUse> Flags() const override {
    return {{"interval_ms", "time between samples, in milliseconds (default: 1000)"},
            {"count", "stop after N samples (default: 0, until interrupted)"},
            {"timeout_ms", "how long to wait for each answer (default: 5000)"},
            {"json", "one JSON object per sample, one per line, never redrawn"}};
  }

  int Run(const Invocation& inv) const override {
    if (FLAGS_interval_ms < 1 || FLAGS_count < 0) {
      LOG(ERROR) << "bad "
                 << (FLAGS_interval_ms < 1 ? "--interval_ms=" + std::to_string(FLAGS_interval_ms)
                                           : "--count=" + std::to_string(FLAGS_count))
                 << " (expected " << (FLAGS_interval_ms < 1 ? "at least 1 ms" : "0 or more samples")
                 << ")";
      return kExitBadUsage;
    }
    const std::string root = inv.options.tiers[0].path;
    const std::string meta = root + "/meta";
    const pid_t pid = LockHolder(meta + "/LOCK");
    if (pid == 0) {
      LOG(ERROR) << "no process has the store at " << root << " open (" << meta
                 << "/LOCK is not held); watch shows a running store (`tierfs stats` shows one at "
                    "rest)";
      return kExitFailed;
    }
    const bool tty = isatty(STDOUT_FILENO);
    AdminResponse before, now;
    if (!Sample(meta, pid, &before)) return kExitFailed;
    const auto start = std::chrono::steady_clock::now();
    for (int sample = 1; FLAGS_count == 0 || sample <= FLAGS_count; ++sample) {
      std::this_thread::sleep_until(start + std::chrono::milliseconds(int64_t(FLAGS_interval_ms) *
                                                                      sample));
      if (!Sample(meta, pid, &now)) return kExitFailed;
      Rates d;
      d.before = &before;
      d.now = &now;
      d.seconds = double(now.sampled_ns - before.sampled_ns) / 1e9;
      if (now.tiers.size() != before.tiers.size() || d.seconds <= 0) {
        LOG(ERROR) << "the process " << pid
                   << " answered two samples that do not follow each other (restarted?)";
        return kExitFailed;
      }
      const SampleFigures f = Figures(d);
      if (FLAGS_json) {
        printf("%s\n", SampleJson(f, sample, pid, root).dump().c_str());
        fflush(stdout);
        before = now;
        continue;
      }
      const std::string block = Block(f, sample, FLAGS_count, pid, root);
      if (tty) {
        printf("\033[H\033[J%s", block.c_str());  // home, clear to the end: redraw in place
      } else {
        printf("%s\n", block.c_str());
      }
      fflush(stdout);
      before = now;
    }
    return kExitOk;
  }

 private:
  // Asks the process for its statistics; false with a message if it does not answer them.
  static bool Sample(const std::string& meta, pid_t pid, AdminResponse* resp) {
    rocksdb::Status s = SendAdminRequest(meta, StatsRequest(), resp, FLAGS_timeout_ms);
    if (!s.ok()) {
      LOG(ERROR) << "process " << pid << ", which has the store open: " << s.ToString();
      return false;
    }
    if (!resp->ok || resp->tiers.empty()) {
      LOG(ERROR) << "process " << pid << " did not answer its statistics: "
                 << (resp->ok ? "the answer has none (a TierFS from before `watch`?)"
                              : resp->message);
      return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Command> NewWatchCommand() { return std::make_unique<WatchCommand>(); }

}  // namespace tool
}  // namespace tierfs
