// tierfs-trace: inspect and convert I/O traces.
//
//   tierfs-trace info TRACE [--json]
//   tierfs-trace cut TRACE --from_ns=A --to_ns=B --out=CUT
//   tierfs-trace to-csv TRACE [--full] [--time_unit=s] > out.csv
//   tierfs-trace from-csv CSV --out=TRACE [--format=plain|msr|systor] [--time_unit=s]
//   tierfs-trace generate NAME --out=TRACE [--requests=N] [--seed=S]
//
// TierFS records traces with the URI key `trace:PATH` (or tierfs::StartTrace);
// the simulator replays them (tierfs-sim run --workload=TRACE).
#include <gflags/gflags.h>

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/trace_format.h"
#include "tools/own_flags.h"
#include "tools/sim/compare.h"
#include "tools/sim/trace_csv.h"
#include "tools/sim/trace_window.h"
#include "tools/sim/workloads.h"
#include "util/size.h"

DEFINE_string(out, "", "the trace to write (from-csv, generate, cut)");
DEFINE_string(format, "plain", "from-csv: plain (offset,size,R/W,timestamp), msr or systor");
DEFINE_string(time_unit, "s", "plain CSV timestamps: s, ms, us or ns");
DEFINE_bool(full, false, "to-csv: every field, not just offset,size,R/W,timestamp");
DEFINE_uint64(requests, 100000, "generate: records");
DEFINE_uint64(seed, 1, "generate: seed");
DEFINE_string(segment_size, "64K", "info: segment size for the footprint");
DEFINE_bool(json, false, "info: print JSON (every total, bytes written by file kind)");
DEFINE_uint64(from_ns, 0, "cut: the window's start, ns from the trace's start");
DEFINE_uint64(to_ns, UINT64_MAX, "cut: the window's end (included)");

namespace tierfs {
namespace sim {
namespace {

int Fail(const std::string& message) {
  fprintf(stderr, "tierfs-trace: %s\n", message.c_str());
  return 1;
}

bool Write(const std::string& path, const TraceHeader& header,
           const std::vector<TraceRecord>& records, std::string* error) {
  TraceWriter writer;
  if (!writer.Open(path, header, error)) return false;
  for (const TraceRecord& r : records) {
    if (!writer.Append(r, error)) return false;
  }
  return writer.Close(error);
}

int Info(const std::string& path) {
  TraceHeader h;
  std::vector<TraceRecord> records;
  std::string error;
  bool truncated = false;
  if (!ReadTrace(path, &h, &records, &error, &truncated)) return Fail(error);
  uint64_t segment_size;
  if (!ParseSize(FLAGS_segment_size, &segment_size) || segment_size == 0) {
    return Fail("bad --segment_size '" + FLAGS_segment_size + "'");
  }
  const TraceTotals t = CountTrace(records);
  const uint64_t footprint = Footprint(records, segment_size);
  if (FLAGS_json) {
    nlohmann::json events = nlohmann::json::object();
    for (const auto& [event, count] : t.events) events[TraceEventName(event)] = count;
    const nlohmann::json out = {
        {"version", h.version}, {"source", h.source}, {"segment_size", h.segment_size},
        {"start_unix_ns", h.start_unix_ns}, {"truncated", truncated},
        {"seconds", double(t.seconds_ns) / 1e9}, {"user_reads", t.user_reads},
        {"background_reads", t.background_reads}, {"writes", t.writes},
        {"user_read_latency_us", t.user_read_latency_us},
        {"user_read_p99_us", t.user_read_p99_us},
        {"read_bytes", t.read_bytes}, {"write_bytes", t.write_bytes},
        {"written_by_kind", t.written_by_kind}, {"streams", t.streams}, {"files", t.files},
        {"footprint", footprint}, {"events", events}};
    printf("%s\n", out.dump(1).c_str());
    return 0;
  }
  printf("trace %s: version %u, source '%s', segment size %s%s\n", path.c_str(), h.version,
         h.source.c_str(), h.segment_size ? FormatSize(h.segment_size).c_str() : "whole file",
         truncated ? ", TRUNCATED (ends inside a record)" : "");
  for (size_t i = 0; i < h.tiers.size(); ++i) {
    printf("  tier %zu: %s %s %s\n", i, h.tiers[i].path.c_str(),
           FormatSize(h.tiers[i].capacity).c_str(), h.tiers[i].device.c_str());
  }
  const double seconds = double(t.seconds_ns) / 1e9;
  const uint64_t reads = t.user_reads, background = t.background_reads;
  const uint64_t n = reads + background + t.writes;  // I/O records
  printf("I/O records %llu over %.3f s: user reads %llu, background reads %llu, writes %llu "
         "(%.1f%% reads)\n",
         (unsigned long long)n, seconds, (unsigned long long)reads,
         (unsigned long long)background, (unsigned long long)t.writes,
         n ? 100.0 * double(reads + background) / double(n) : 0);
  printf("bytes read %s, written %s; mean request %.1f KiB; mean interval %.1f us\n",
         FormatSize(t.read_bytes).c_str(), FormatSize(t.write_bytes).c_str(),
         n ? double(t.read_bytes + t.write_bytes) / double(n) / 1024 : 0,
         n > 1 ? seconds * 1e6 / double(n - 1) : 0);
  if (!t.written_by_kind.empty()) {
    printf("written by kind:");
    for (const auto& [kind, bytes] : t.written_by_kind) {
      printf(" %s %s", kind.c_str(), FormatSize(bytes).c_str());
    }
    printf("\n");
  }
  printf("streams %llu, files %llu, footprint %s (%s segments)\n",
         (unsigned long long)t.streams, (unsigned long long)t.files,
         FormatSize(footprint).c_str(), FLAGS_segment_size.c_str());
  if (!t.events.empty()) {
    printf("events:");
    for (const auto& [event, count] : t.events) {
      printf(" %s %llu", TraceEventName(event), (unsigned long long)count);
    }
    printf("\n");
  }
  return 0;
}

// The records of [--from_ns, --to_ns] (trace times, as to-csv prints them)
// into --out, times from the window's start.
int Cut(const std::string& path) {
  if (FLAGS_out.empty()) return Fail("cut needs --out=TRACE");
  if (FLAGS_to_ns < FLAGS_from_ns) return Fail("cut: --to_ns is before --from_ns");
  TraceHeader h;
  std::vector<TraceRecord> records;
  std::string error;
  if (!ReadTrace(path, &h, &records, &error)) return Fail(error);
  const std::vector<TraceRecord> window = TraceWindow(records, FLAGS_from_ns, FLAGS_to_ns, &h);
  h.source += " [" + std::to_string(FLAGS_from_ns) + ", " + std::to_string(FLAGS_to_ns) + "] ns";
  if (!Write(FLAGS_out, h, window, &error)) return Fail(error);
  fprintf(stderr, "wrote %zu of %zu records to %s\n", window.size(), records.size(),
          FLAGS_out.c_str());
  return 0;
}

int ToCsv(const std::string& path) {
  const double unit = NanosPerUnit(FLAGS_time_unit);
  if (unit == 0) return Fail("bad --time_unit '" + FLAGS_time_unit + "' (s, ms, us or ns)");
  TraceHeader h;
  std::vector<TraceRecord> records;
  std::string error;
  if (!ReadTrace(path, &h, &records, &error)) return Fail(error);
  if (!WriteCsvTrace(records, unit, FLAGS_full, stdout)) return Fail("cannot write CSV");
  return 0;
}

int FromCsv(const std::string& path) {
  CsvFormat format;
  if (!ParseCsvFormat(FLAGS_format, &format)) {
    return Fail("bad --format '" + FLAGS_format + "' (plain, msr or systor)");
  }
  const double unit = NanosPerUnit(FLAGS_time_unit);
  if (unit == 0) return Fail("bad --time_unit '" + FLAGS_time_unit + "' (s, ms, us or ns)");
  if (FLAGS_out.empty()) return Fail("from-csv needs --out=TRACE");
  std::vector<TraceRecord> records;
  std::string error;
  if (!ReadCsvTrace(path, format, unit, &records, &error)) return Fail(error);
  TraceHeader h;
  h.source = "csv:" + path;
  if (!Write(FLAGS_out, h, records, &error)) return Fail(error);
  fprintf(stderr, "wrote %zu records to %s\n", records.size(), FLAGS_out.c_str());
  return 0;
}

int GenerateCommand(const std::string& name) {
  if (FLAGS_out.empty()) return Fail("generate needs --out=TRACE");
  WorkloadOptions options;
  options.requests = FLAGS_requests;
  options.seed = FLAGS_seed;
  std::vector<TraceRecord> records;
  std::string error;
  if (!Generate(name, options, &records, &error)) return Fail(error);
  if (!Write(FLAGS_out, SyntheticHeader(name), records, &error)) return Fail(error);
  fprintf(stderr, "wrote %zu records to %s\n", records.size(), FLAGS_out.c_str());
  return 0;
}

}  // namespace
}  // namespace sim
}  // namespace tierfs

int main(int argc, char** argv) {
  gflags::SetUsageMessage("tierfs-trace info|cut|to-csv|from-csv|generate ARG [flags]");
  tierfs::ParseOwnFlags(&argc, &argv, "tools/sim/");
  if (argc != 3) {
    fprintf(stderr, "usage: tierfs-trace info|cut|to-csv|from-csv|generate ARG [flags]\n");
    return 1;
  }
  const std::string command = argv[1], arg = argv[2];
  if (command == "info") return tierfs::sim::Info(arg);
  if (command == "cut") return tierfs::sim::Cut(arg);
  if (command == "to-csv") return tierfs::sim::ToCsv(arg);
  if (command == "from-csv") return tierfs::sim::FromCsv(arg);
  if (command == "generate") return tierfs::sim::GenerateCommand(arg);
  fprintf(stderr, "tierfs-trace: unknown command '%s' (info, cut, to-csv, from-csv, generate)\n",
          command.c_str());
  return 1;
}
