#include "tools/ycsb/tool.h"

#include <algorithm>
#include <fstream>
#include <memory>

#include "tools/ycsb/client.h"
#include "tools/ycsb/command_line.h"
#include "tools/ycsb/core_workload.h"
#include "tools/ycsb/measured_db.h"
#include "tools/ycsb/measurements.h"
#include "tools/ycsb/report.h"
#include "tools/ycsb/rocksdb_binding.h"
#include "tools/ycsb/rocksdb_options.h"

namespace tierfs {
namespace ycsb {

namespace {

constexpr int kFailed = 1;
constexpr int kBadUsage = 2;

// The report formats YCSB's `exporter` property names.
enum class Format { kText, kJsonArray, kJsonObjects };

rocksdb::Status ExporterFormat(const Properties& props, Format* format) {
  const std::string exporter =
      props.Get("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter");
  const std::string name = exporter.substr(exporter.rfind('.') + 1);  // com.yahoo.ycsb... too
  if (name == "TextMeasurementsExporter") {
    *format = Format::kText;
  } else if (name == "JSONArrayMeasurementsExporter") {
    *format = Format::kJsonArray;
  } else if (name == "JSONMeasurementsExporter") {
    *format = Format::kJsonObjects;
  } else {
    return rocksdb::Status::InvalidArgument(
        "property 'exporter': '" + exporter +
        "' is not TextMeasurementsExporter, JSONArrayMeasurementsExporter or JSONMeasurementsExporter");
  }
  return rocksdb::Status::OK();
}

// Properties that change what YCSB would do in ways this runner does not:
// refused rather than silently measured differently.
rocksdb::Status CheckSupported(const Properties& props) {
  const std::string workload = props.Get("workload", "site.ycsb.workloads.CoreWorkload");
  if (workload != "site.ycsb.workloads.CoreWorkload" &&
      workload != "com.yahoo.ycsb.workloads.CoreWorkload") {
    return rocksdb::Status::InvalidArgument("property 'workload': '" + workload +
                                            "' is not supported (only CoreWorkload)");
  }
  const std::string type = props.Get("measurementtype", "hdrhistogram");
  if (type != "hdrhistogram") {
    return rocksdb::Status::InvalidArgument("property 'measurementtype': '" + type +
                                            "' is not supported (only hdrhistogram)");
  }
  const std::string interval = props.Get("measurement.interval", "op");
  if (interval != "op") {
    return rocksdb::Status::InvalidArgument("property 'measurement.interval': '" + interval +
                                            "' is not supported (only op)");
  }
  return rocksdb::Status::OK();
}

bool WriteFile(const std::string& path, const std::string& text, std::ostream* err) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) *err << "tierfs-ycsb: cannot write '" << path << "'\n";
  return bool(file);
}

}  // namespace

int RunTool(const std::vector<std::string>& args, std::ostream* out, std::ostream* err) {
  std::string command_line = "Command line:";
  for (const std::string& a : args) command_line += " " + a;
  *err << command_line << "\n";

  CommandLine cl;
  rocksdb::Status s = ParseCommandLine(args, &cl);
  if (!s.ok()) {
    *err << "tierfs-ycsb: " << s.ToString() << "\nRun tierfs-ycsb -h for usage.\n";
    return kBadUsage;
  }
  if (cl.help) {
    *out << Usage();
    return 0;
  }
  const Properties& props = cl.props;

  ClientOptions client;
  std::vector<double> percentiles;
  RocksDbConfig rocksdb_config;
  Format format = Format::kText;
  Measurements measurements;
  std::unique_ptr<CoreWorkload> workload;
  s = CheckSupported(props);
  if (s.ok()) s = ClientOptionsFromProperties(props, &client);
  if (s.ok()) s = PercentilesFromProperties(props, &percentiles);
  if (s.ok()) s = ExporterFormat(props, &format);
  if (s.ok()) s = ParseRocksDbConfig(props, &rocksdb_config);
  if (s.ok()) {
    *err << "Loading workload...\n";
    s = CoreWorkload::Create(props, &measurements, &workload);
  }
  if (s.ok() && client.do_transactions && !workload->has_operations()) {
    s = rocksdb::Status::InvalidArgument(
        "every operation proportion (readproportion, updateproportion, insertproportion, "
        "scanproportion, readmodifywriteproportion) is 0");
  }
  double insert_proportion = 0;
  if (s.ok() && client.warmup_s > 0) s = props.GetDouble("insertproportion", 0, &insert_proportion);
  if (s.ok() && client.warmup_s > 0 && insert_proportion > 0) {
    // The warm-up's workload would take the key numbers the measured run's
    // inserts take again.
    s = rocksdb::Status::InvalidArgument("property 'warmuptime': not with inserts (insertproportion " +
                                         props.Get("insertproportion") + ")");
  }
  if (s.ok() && client.warmup_until_stable && rocksdb_config.persistent_cache_path.empty()) {
    s = rocksdb::Status::InvalidArgument(
        "property 'warmupuntilstable': needs a persistent cache ('rocksdb.persistent_cache_path')");
  }
  if (!s.ok()) {
    *err << "tierfs-ycsb: " << s.ToString() << "\n";
    return kBadUsage;
  }

  std::unique_ptr<RocksDbBinding> rocksdb;
  s = RocksDbBinding::Open(rocksdb_config, workload->table(), &rocksdb);
  std::unique_ptr<MeasuredDB> db;
  if (s.ok()) s = MeasuredDB::Create(rocksdb.get(), &measurements, props, &db);
  if (!s.ok()) {
    *err << "tierfs-ycsb: " << s.ToString() << "\n";
    return s.IsInvalidArgument() ? kBadUsage : kFailed;
  }

  if (client.warmup_s > 0 && client.do_transactions) {
    // A workload and a database wrapper of their own, so that nothing the
    // warm-up does is in the report; the database stays open across it.
    Measurements warm_measurements;
    std::unique_ptr<CoreWorkload> warm_workload;
    std::unique_ptr<MeasuredDB> warm_db;
    s = CoreWorkload::Create(props, &warm_measurements, &warm_workload);
    if (s.ok()) s = MeasuredDB::Create(rocksdb.get(), &warm_measurements, props, &warm_db);
    if (!s.ok()) {
      *err << "tierfs-ycsb: " << s.ToString() << "\n";
      return kFailed;
    }
    ClientOptions warm = client;
    warm.operation_count = 0;
    warm.label = client.label + "[warm-up] ";
    *err << "Warming up for " << client.warmup_s << " s";
    if (client.warmup_until_stable) {
      *err << ", then until the persistent cache stops growing (at most " << client.warmup_max_s
           << " s in all)";
    }
    *err << ".\n";
    rocksdb->Init();  // held until the measured run's threads have their own
    // warmup_s seconds, then, waiting for the persistent cache, steps of
    // warmup_step_s seconds, its size after each.
    ClientResult warmed;
    uint64_t cache_before = 0;
    bool stable = false;
    const int64_t limit_s = client.warmup_until_stable ? client.warmup_max_s : client.warmup_s;
    for (int64_t spent_s = 0; s.ok() && spent_s < limit_s && !stable;) {
      warm.max_execution_time_s =
          spent_s == 0 ? client.warmup_s : std::min(client.warmup_step_s, limit_s - spent_s);
      const ClientResult step = RunClient(warm, warm_workload.get(), warm_db.get(),
                                          &warm_measurements, err);
      spent_s += warm.max_execution_time_s;
      warmed.operations += step.operations;
      warmed.runtime_ms += step.runtime_ms;
      warmed.errors.insert(warmed.errors.end(), step.errors.begin(), step.errors.end());
      if (!step.errors.empty() || !client.warmup_until_stable) break;
      uint64_t cache_now = 0;
      s = rocksdb->PersistentCacheBytes(&cache_now);
      if (!s.ok()) break;
      *err << "Warm-up: the persistent cache holds " << cache_now << " bytes after " << spent_s
           << " s.\n";
      stable = cache_now > 0 && (cache_now - std::min(cache_now, cache_before)) * 100 < cache_now;
      cache_before = cache_now;
    }
    if (!s.ok()) warmed.errors.push_back(s.ToString());
    for (const std::string& e : warmed.errors) *err << "tierfs-ycsb: warm-up: " << e << "\n";
    if (!warmed.errors.empty()) {
      rocksdb->Cleanup();
      return kFailed;
    }
    if (client.warmup_until_stable) {
      *err << (stable ? "Warm-up: the persistent cache stopped growing (less than 1% in a step).\n"
                      : "Warm-up: the persistent cache still grew when warmupmax ran out.\n");
    }
    *err << "Warm-up done: " << warmed.operations << " operations in " << warmed.runtime_ms
         << " ms.\n";
  }
  *err << "Starting test.\n";
  const ClientResult result = RunClient(client, workload.get(), db.get(), &measurements, err);
  // The warm-up's hold: its release closes the database (and a close error
  // counts as a failure, as below).
  const bool released = !(client.warmup_s > 0 && client.do_transactions) ||
                        rocksdb->Cleanup() == DbStatus::kOk;
  // Normally the last client's cleanup closed it; a close error counts as a failure.
  s = rocksdb->Close();
  int exit_status = result.errors.empty() && s.ok() && released ? 0 : kFailed;
  if (!released) *err << "tierfs-ycsb: closing the database after the measured run failed\n";
  for (const std::string& e : result.errors) *err << "tierfs-ycsb: " << e << "\n";
  if (!s.ok()) *err << "tierfs-ycsb: closing the database: " << s.ToString() << "\n";

  const std::vector<ReportRow> rows =
      BuildReport(result.operations, result.runtime_ms, measurements, percentiles);
  std::string report;
  switch (format) {
    case Format::kText: report = RenderText(rows); break;
    case Format::kJsonArray: report = RenderJsonArray(rows); break;
    case Format::kJsonObjects: report = RenderJsonObjects(rows); break;
  }
  if (props.Has("exportfile")) {
    if (!WriteFile(props.Get("exportfile"), report, err)) exit_status = kFailed;
  } else {
    *out << report << std::flush;
  }
  if (!cl.json_path.empty() && !WriteFile(cl.json_path, RenderJsonArray(rows), err)) {
    exit_status = kFailed;
  }
  return exit_status;
}

}  // namespace ycsb
}  // namespace tierfs
