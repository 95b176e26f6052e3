// `tierfs watch`: a running store's live view, like `iostat -x` for tiers.
// Every --interval_ms it asks the process that has the store open for its
// statistics (the admin channel's "stats" request, env/admin_channel.h) and
// shows, per tier, the differences of the counters between two answers
// divided by the time between them (the server's clock), the tiers' use,
// tier 0's share of the user reads in the interval, and the migration
// engine's moves in flight. On a terminal it redraws in place; otherwise it
// prints one block per sample, so a script can read it.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
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

// One sample's block: a title line, the per-tier table, the hit share and
// the moves.
std::string Block(const Rates& d, int sample, int count, pid_t pid, const std::string& root) {
  const AdminResponse& now = *d.now;
  char when[16];
  const time_t t = time(nullptr);
  struct tm tm;
  strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&t, &tm));
  std::string out = "tierfs watch " + root + " (process " + std::to_string(pid) + "): sample " +
                    std::to_string(sample) + (count ? " of " + std::to_string(count) : "") +
                    " at " + when + ", over " + Fixed(d.seconds, 2) + " s\n";
  std::vector<std::vector<std::string>> rows = {{"tier", "device", "r/s", "w/s", "rMB/s",
                                                 "wMB/s", "r_await", "w_await", "used",
                                                 "capacity", "use%"}};
  uint64_t user_reads = 0, moved = 0;
  for (size_t i = 0; i < now.tiers.size(); ++i) {
    const TierStats& s = now.tiers[i];
    user_reads += d.Delta(i, TierTicker::kUserReads);
    moved += d.Delta(i, TierTicker::kMovedBytesIn) + d.Delta(i, TierTicker::kCopyBytesIn);
    rows.push_back({std::to_string(s.index), s.device.empty() ? "-" : s.device,
                    Fixed(d.PerSecond(i, TierTicker::kReads), 1),
                    Fixed(d.PerSecond(i, TierTicker::kWrites), 1),
                    Fixed(d.PerSecond(i, TierTicker::kReadBytes) / 1e6, 2),
                    Fixed(d.PerSecond(i, TierTicker::kWriteBytes) / 1e6, 2),
                    Micros(d.MeanMicros(i, TierHistogram::kReadLatency)),
                    Micros(d.MeanMicros(i, TierHistogram::kWriteLatency)),
                    FormatSize(s.used_bytes), FormatSize(s.capacity),
                    s.capacity ? Fixed(100.0 * double(s.used_bytes) / double(s.capacity), 0) + "%"
                               : "-"});
  }
  out += Table(rows);
  if (user_reads == 0) {
    out += "hit share: - (no user reads in the interval)\n";
  } else {
    const double hits = double(d.Delta(0, TierTicker::kUserReads));
    const double pages = double(d.Delta(0, TierTicker::kPageHits));
    out += "hit share: " + Fixed(100.0 * hits / double(user_reads), 1) + "% of " +
           Fixed(double(user_reads) / d.seconds, 1) + " user reads/s served by tier 0 (" +
           Fixed(100.0 * pages / double(user_reads), 1) + "% by hot-page copies)\n";
  }
  const MigrationInfo& m = now.migration;
  if (!m.enabled) {
    out += "moves: migration is off in this process\n";
  } else {
    size_t manual = 0;
    for (const std::string& q : m.queue) manual += q.compare(0, 7, "manual ") == 0 ? 1 : 0;
    const uint64_t done = m.done - std::min(m.done, d.before->migration.done);
    out += "moves in flight: " + std::string(m.running.empty() ? "0" : "1") + " running, " +
           std::to_string(m.queue.size()) + " queued (" + std::to_string(manual) + " manual, " +
           std::to_string(m.queue.size() - manual) + " planned), " +
           std::to_string(now.copies_in_flight) + " of them copies\n";
    out += "moves done: " + std::to_string(done) + " in the interval, " +
           Fixed(double(moved) / 1e6 / d.seconds, 2) + " MB/s moved or copied\n";
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
           "otherwise one block per sample.\n"
           "If no process has the store open, watch says so and exits 1.\n";
  }
  std::vector<FlagUse> Flags() const override {
    return {{"interval_ms", "time between samples, in milliseconds (default: 1000)"},
            {"count", "stop after N samples (default: 0, until interrupted)"},
            {"timeout_ms", "how long to wait for each answer (default: 5000)"}};
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
      const std::string block = Block(d, sample, FLAGS_count, pid, root);
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
