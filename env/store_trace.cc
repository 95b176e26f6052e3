// Store: what it records for analysis: trace capture (env/trace_capture.h)
// and the statistics log (env/stats_log.h).
#include <limits.h>
#include <stdlib.h>

#include <chrono>

#include "env/admin_ops.h"
#include "env/prometheus_text.h"
#include "env/stats_report.h"
#include "env/store.h"

namespace tierfs {

using rocksdb::IOStatus;

namespace {

// The directory holding `path`, as the kernel sees it; "" if it does not exist.
std::string ResolvedParent(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  char buf[PATH_MAX];
  return realpath(dir.c_str(), buf) ? std::string(buf) : std::string();
}

bool IsUnder(const std::string& a, const std::string& root) {
  return a == root || a.compare(0, root.size() + 1, root + "/") == 0;
}

}  // namespace

IOStatus Store::CheckOutsideTiers(const std::string& path, const std::string& what) {
  if (path.empty()) return IOStatus::InvalidArgument(what + ": empty file name");
  const std::string dir = ResolvedParent(path);
  if (dir.empty()) {
    return IOStatus::InvalidArgument(what + " '" + path + "': its directory does not exist");
  }
  for (int t = 0; t < NumTiers(); ++t) {
    char buf[PATH_MAX];
    const std::string root = realpath(tier(t).root.c_str(), buf) ? std::string(buf) : tier(t).root;
    if (IsUnder(dir, root)) {
      return IOStatus::InvalidArgument(what + " '" + path + "' lies inside tier " +
                                       std::to_string(t) + " (" + tier(t).root +
                                       "): put it outside the tiers");
    }
  }
  return IOStatus::OK();
}

IOStatus Store::StartTrace(const std::string& path) {
  IOStatus checked = CheckOutsideTiers(path, "trace file");
  if (!checked.ok()) return checked;
  TraceHeader header;
  header.segment_size = seg_size_;
  header.start_unix_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
  header.source = "tierfs";
  for (int t = 0; t < NumTiers(); ++t) {
    header.tiers.push_back(TraceTier{tier(t).capacity(), options_.tiers[size_t(t)].device,
                                     tier(t).root});
  }
  {
    MutexLock lock(&trace_mu_);
    if (trace_.load()) {
      return IOStatus::Busy("a trace is already being captured into '" + trace_.load()->path() +
                            "'");
    }
  }
  // Where every segment is as the capture begins (`held` events), so that a
  // replay starts with the tiers as full as the store's, not only with the
  // data the trace reads (it would find room the store did not have). Taken
  // before trace_mu_ (the lock order). What happens between here and the
  // capture's start is not recorded: a segment placed then is placed where
  // its first read finds it, a move leaves it on its old tier, and a file
  // deleted then stays in the replay. At open, nothing runs in between; a
  // capture started on a running store (StartTrace) may miss a few.
  // Files of every kind: the info log, the MANIFEST and the OPTIONS take
  // tier 0's room as tables do (a YCSB capture's reopened store held 26
  // segments of them, 1.2 MB on tier 0, which its replay found free).
  std::vector<TraceRecord> held;
  ForEachPlacedSegment(/*bulk_only=*/false, [&](const SegmentInfo& s) {
    TraceRecord r = MakeEvent(TraceEvent::kHeld, s.ref.file_id, s.kind, s.ref.segment,
                              s.file_bytes, s.tier);
    r.level = s.hints.level;
    held.push_back(r);
  });
  MutexLock lock(&trace_mu_);
  if (trace_.load()) {
    return IOStatus::Busy("a trace is already being captured into '" + trace_.load()->path() + "'");
  }
  std::unique_ptr<TraceCapture> capture;
  IOStatus s = TraceCapture::Start(path, header, &capture);
  if (!s.ok()) return s;
  // The request clock goes on from the last process's (RestoreClock): a
  // replay that started at 0 planned a plan interval later than the store.
  capture->RecordEvent(TraceEvent::kStart, 0, FileKind::kOther, Now(), 0, -1, -1);
  for (const TraceRecord& r : held) {
    capture->RecordEvent(r.event, r.file_id, r.kind, r.offset, r.size, r.tier, r.level);
  }
  trace_.store(capture.get(), std::memory_order_release);
  traces_.push_back(std::move(capture));
  return IOStatus::OK();
}

IOStatus Store::StopTrace(uint64_t* records) {
  MutexLock lock(&trace_mu_);
  TraceCapture* capture = trace_.exchange(nullptr);
  if (!capture) return IOStatus::InvalidArgument("no trace is being captured");
  IOStatus s = capture->Stop();
  if (records) *records = capture->records();
  return s;
}

IOStatus Store::StartStatsLog(const std::string& path, uint64_t interval_ms,
                             StatsLog::Format format, std::unique_ptr<StatsLog>* log) {
  IOStatus s = CheckOutsideTiers(path, format == StatsLog::Format::kJsonLines ? "stats log"
                                                                             : "metrics file");
  if (!s.ok()) return s;
  return StatsLog::Start(
      path, interval_ms, format,
      [this, format] {
        StoreMetrics metrics;
        GetStats(&metrics.tiers);
        if (format == StatsLog::Format::kJsonLines) return TierStatsToJson(metrics.tiers).dump();
        metrics.errors = errors();
        MigrationInfoOf(this, &metrics.migration);
        return StoreMetricsToPrometheus(metrics);
      },
      log);
}

}  // namespace tierfs
