// The end-of-phase report in YCSB's formats, so tooling written for YCSB
// reads it: TextMeasurementsExporter lines ("[READ], Operations, 500") and
// the JSON of JSONArrayMeasurementsExporter / JSONMeasurementsExporter
// (objects {"metric", "measurement", "value"}).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "tools/ycsb/measurements.h"
#include "tools/ycsb/properties.h"

namespace tierfs {
namespace ycsb {

struct ReportRow {
  std::string metric;       // "OVERALL", "READ", ...
  std::string measurement;  // "RunTime(ms)", "Operations", "Return=OK", ...
  bool is_double = false;   // YCSB writes doubles and longs differently
  int64_t integer = 0;
  double real = 0;
};

// The rows YCSB writes: [OVERALL] RunTime(ms) and Throughput(ops/sec), then
// per measurement in use: Operations, AverageLatency(us), MinLatency(us),
// MaxLatency(us), one <N>thPercentileLatency(us) per percentile, and
// Return=<STATUS> per status seen. (YCSB's JVM garbage-collection rows have
// no equivalent here.) `percentiles` as hdrhistogram.percentiles, e.g. {95, 99}.
std::vector<ReportRow> BuildReport(int64_t operations, int64_t runtime_ms,
                                   const Measurements& measurements,
                                   const std::vector<double>& percentiles);

// Reads hdrhistogram.percentiles (default "95,99"); InvalidArgument names a bad value.
rocksdb::Status PercentilesFromProperties(const Properties& props, std::vector<double>* out);

// "[METRIC], MEASUREMENT, VALUE" lines, doubles as Java prints them.
std::string RenderText(const std::vector<ReportRow>& rows);
// A pretty-printed JSON array of {"metric", "measurement", "value"} objects
// (JSONArrayMeasurementsExporter).
std::string RenderJsonArray(const std::vector<ReportRow>& rows);
// The same objects one after another, no array (JSONMeasurementsExporter).
std::string RenderJsonObjects(const std::vector<ReportRow>& rows);

// Java's Double.toString: the shortest digits that read back as `value`,
// "1234.5" from 10^-3 to 10^7, "1.2345E7" outside, "NaN", "Infinity".
std::string JavaDoubleToString(double value);

// YCSB's name of a percentile: 95 -> "95th", 99.9 -> "99.9".
std::string PercentileName(double percentile);

}  // namespace ycsb
}  // namespace tierfs
