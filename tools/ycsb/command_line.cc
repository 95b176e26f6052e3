#include "tools/ycsb/command_line.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>

namespace tierfs {
namespace ycsb {

using rocksdb::Status;

namespace {

// What parsing accumulates before the files and overrides are merged.
struct Parsed {
  Properties files;
  Properties overrides;
  CommandLine* result;
};

Status NonNegativeInteger(const std::string& option, const std::string& value, bool positive) {
  errno = 0;
  char* end = nullptr;
  const long long n = strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || n < (positive ? 1 : 0)) {
    return Status::InvalidArgument(option + ": '" + value + "' is not a " +
                                   (positive ? "positive" : "non-negative") + " integer");
  }
  return Status::OK();
}

struct OptionSpec {
  const char* name;
  const char* argument;  // nullptr: a flag
  const char* help;
  std::function<Status(const std::string& value, Parsed* parsed)> apply;
};

const std::vector<OptionSpec>& Options() {
  static const std::vector<OptionSpec> options = {
      {"-P", "FILE", "load properties from FILE (Java .properties); several allowed, later wins",
       [](const std::string& v, Parsed* p) { return p->files.LoadFile(v); }},
      {"-p", "KEY=VALUE", "set a property; overrides every -P file",
       [](const std::string& v, Parsed* p) {
         const size_t eq = v.find('=');
         if (eq == std::string::npos || eq == 0) {
           return Status::InvalidArgument("-p: '" + v + "' is not KEY=VALUE");
         }
         p->overrides.Set(v.substr(0, eq), v.substr(eq + 1));
         return Status::OK();
       }},
      {"-load", nullptr, "run the load phase (inserts)",
       [](const std::string&, Parsed* p) {
         p->overrides.Set("dotransactions", "false");
         return Status::OK();
       }},
      {"-run", nullptr, "run the transaction phase (the default; YCSB's -t)",
       [](const std::string&, Parsed* p) {
         p->overrides.Set("dotransactions", "true");
         return Status::OK();
       }},
      {"-t", nullptr, "same as -run",
       [](const std::string&, Parsed* p) {
         p->overrides.Set("dotransactions", "true");
         return Status::OK();
       }},
      {"-threads", "N", "client threads (property threadcount, default 1)",
       [](const std::string& v, Parsed* p) {
         Status s = NonNegativeInteger("-threads", v, true);
         if (s.ok()) p->overrides.Set("threadcount", v);
         return s;
       }},
      {"-target", "N", "operations per second over all threads (property target, default: unlimited)",
       [](const std::string& v, Parsed* p) {
         Status s = NonNegativeInteger("-target", v, false);
         if (s.ok()) p->overrides.Set("target", v);
         return s;
       }},
      {"-s", nullptr, "print status to stderr every status.interval (10) seconds",
       [](const std::string&, Parsed* p) {
         p->overrides.Set("status", "true");
         return Status::OK();
       }},
      {"-l", "LABEL", "prefix the status lines with LABEL",
       [](const std::string& v, Parsed* p) {
         p->overrides.Set("label", v);
         return Status::OK();
       }},
      {"-json", "FILE", "also write the report to FILE as a JSON array of {metric, measurement, value}",
       [](const std::string& v, Parsed* p) {
         p->result->json_path = v;
         return Status::OK();
       }},
      {"-h", nullptr, "print this help",
       [](const std::string&, Parsed* p) {
         p->result->help = true;
         return Status::OK();
       }},
  };
  return options;
}

}  // namespace

Status ParseCommandLine(const std::vector<std::string>& args, CommandLine* result) {
  *result = CommandLine();
  Parsed parsed;
  parsed.result = result;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const std::string name = arg == "-help" || arg == "--help" ? "-h" : arg;
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : Options()) {
      if (name == o.name) spec = &o;
    }
    if (spec == nullptr) {
      return Status::InvalidArgument(arg[0] == '-' ? "unknown option '" + arg + "'"
                                                   : "unexpected argument '" + arg + "'");
    }
    std::string value;
    if (spec->argument != nullptr) {
      if (i + 1 == args.size()) {
        return Status::InvalidArgument(std::string(spec->name) + " needs a value (" + spec->argument + ")");
      }
      value = args[++i];
    }
    Status s = spec->apply(value, &parsed);
    if (!s.ok()) return s;
  }
  result->props = parsed.files;
  for (const auto& kv : parsed.overrides.all()) result->props.Set(kv.first, kv.second);
  return Status::OK();
}

std::string Usage() {
  std::string out =
      "Usage: tierfs-ycsb [options]\n"
      "Runs YCSB's CoreWorkload against RocksDB, as YCSB's client does, and prints\n"
      "YCSB's report ([OVERALL], RunTime(ms), ...) on stdout.\n\n"
      "Options:\n";
  for (const OptionSpec& o : Options()) {
    std::string left = std::string("  ") + o.name + (o.argument ? std::string(" ") + o.argument : "");
    left.resize(std::max<size_t>(left.size() + 1, 16), ' ');
    out += left + o.help + "\n";
  }
  out +=
      "\nProperties: YCSB's CoreWorkload ones (recordcount, operationcount, ...\n"
      "requestdistribution, see benchmarks/ycsb/workloads/), threadcount, target,\n"
      "maxexecutiontime, warmuptime (seconds of unmeasured operations first, in the same\n"
      "process; not with inserts), warmupuntilstable (with a persistent cache: the warm-up\n"
      "then goes on until the cache grew less than 1% in a step of warmupstep seconds,\n"
      "default 5, at most warmupmax seconds in all, default 10 x warmuptime),\n"
      "status.interval, exportfile (write the report there instead of\n"
      "stdout), exporter (site.ycsb.measurements.exporter.TextMeasurementsExporter,\n"
      "JSONArrayMeasurementsExporter or JSONMeasurementsExporter), hdrhistogram.percentiles,\n"
      "and the binding's: rocksdb.dir (required), rocksdb.fs_uri, rocksdb.options_file,\n"
      "rocksdb.db_paths, rocksdb.wal_dir, rocksdb.last_level_temperature, rocksdb.block_cache_size,\n"
      "rocksdb.persistent_cache_path, rocksdb.persistent_cache_size,\n"
      "rocksdb.compression, rocksdb.write_buffer_size, rocksdb.use_direct_io,\n"
      "rocksdb.num_levels, rocksdb.max_bytes_for_level_base, rocksdb.wait_for_compaction.\n\n"
      "Exit status: 0 done; 1 the phase failed or stopped early; 2 bad options or properties.\n\n"
      "Example:\n"
      "  tierfs-ycsb -load -P benchmarks/ycsb/workloads/workloada -p recordcount=10000 \\\n"
      "      -p rocksdb.dir=/db -p 'rocksdb.fs_uri=tierfs:///tmp/t0:64M,/tmp/t1:1G'\n";
  return out;
}

}  // namespace ycsb
}  // namespace tierfs
