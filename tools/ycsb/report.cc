#include "tools/ycsb/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tierfs {
namespace ycsb {

namespace {

ReportRow Integer(const std::string& metric, const std::string& measurement, int64_t value) {
  ReportRow row;
  row.metric = metric;
  row.measurement = measurement;
  row.integer = value;
  return row;
}

ReportRow Real(const std::string& metric, const std::string& measurement, double value) {
  ReportRow row;
  row.metric = metric;
  row.measurement = measurement;
  row.is_double = true;
  row.real = value;
  return row;
}

nlohmann::ordered_json RowJson(const ReportRow& row) {
  nlohmann::ordered_json j;
  j["metric"] = row.metric;
  j["measurement"] = row.measurement;
  if (row.is_double) {
    j["value"] = row.real;
  } else {
    j["value"] = row.integer;
  }
  return j;
}

}  // namespace

std::vector<ReportRow> BuildReport(int64_t operations, int64_t runtime_ms,
                                   const Measurements& measurements,
                                   const std::vector<double>& percentiles) {
  std::vector<ReportRow> rows;
  rows.push_back(Integer("OVERALL", "RunTime(ms)", runtime_ms));
  // As YCSB: 1000.0 * ops / ms, Infinity or NaN for a run under a millisecond.
  rows.push_back(Real("OVERALL", "Throughput(ops/sec)",
                      1000.0 * double(operations) / double(runtime_ms)));
  for (const OneMeasurement* m : measurements.Used()) {
    const LatencyHistogram::Snapshot latencies = m->Latencies();
    rows.push_back(Integer(m->name(), "Operations", int64_t(latencies.count)));
    rows.push_back(Real(m->name(), "AverageLatency(us)", latencies.Mean()));
    rows.push_back(Integer(m->name(), "MinLatency(us)", latencies.min));
    rows.push_back(Integer(m->name(), "MaxLatency(us)", latencies.max));
    for (double p : percentiles) {
      rows.push_back(Integer(m->name(), PercentileName(p) + "PercentileLatency(us)",
                             latencies.ValueAtPercentile(p)));
    }
    for (int st = 0; st < kDbStatusCount; ++st) {
      const uint64_t n = m->Returns(DbStatus(st));
      if (n != 0) {
        rows.push_back(Integer(m->name(), std::string("Return=") + DbStatusName(DbStatus(st)),
                               int64_t(n)));
      }
    }
  }
  return rows;
}

rocksdb::Status PercentilesFromProperties(const Properties& props, std::vector<double>* out) {
  const std::string text = props.Get("hdrhistogram.percentiles", "95,99");
  out->clear();
  std::istringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    char* end = nullptr;
    const double p = strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(p >= 0 && p <= 100)) {
      return rocksdb::Status::InvalidArgument("property 'hdrhistogram.percentiles': '" + text +
                                              "' is not a list of percentiles in [0, 100]");
    }
    out->push_back(p);
  }
  return rocksdb::Status::OK();
}

std::string RenderText(const std::vector<ReportRow>& rows) {
  std::string out;
  for (const ReportRow& row : rows) {
    out += "[" + row.metric + "], " + row.measurement + ", " +
           (row.is_double ? JavaDoubleToString(row.real) : std::to_string(row.integer)) + "\n";
  }
  return out;
}

std::string RenderJsonArray(const std::vector<ReportRow>& rows) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const ReportRow& row : rows) array.push_back(RowJson(row));
  return array.dump(2) + "\n";
}

std::string RenderJsonObjects(const std::vector<ReportRow>& rows) {
  std::string out;
  for (const ReportRow& row : rows) out += RowJson(row).dump(2) + "\n";
  return out;
}

std::string JavaDoubleToString(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";

  // The shortest decimal digits that read back as `value`.
  char buf[40];
  int precision = 1;
  for (; precision < 17; ++precision) {
    snprintf(buf, sizeof(buf), "%.*e", precision - 1, value);
    if (strtod(buf, nullptr) == value) break;
  }
  snprintf(buf, sizeof(buf), "%.*e", precision - 1, value);
  // buf: [-]d[.ddd]e[+-]xx
  std::string text = buf;
  const bool negative = text[0] == '-';
  if (negative) text.erase(0, 1);
  const size_t e = text.find('e');
  const int exponent = atoi(text.c_str() + e + 1);
  std::string digits = text.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());

  std::string out;
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    if (exponent >= 0) {
      // Integer part: the first exponent + 1 digits, zero-filled.
      if (digits.size() < size_t(exponent) + 1) digits.append(size_t(exponent) + 1 - digits.size(), '0');
      out = digits.substr(0, size_t(exponent) + 1) + ".";
      const std::string fraction = digits.substr(size_t(exponent) + 1);
      out += fraction.empty() ? "0" : fraction;
    } else {
      out = "0." + std::string(size_t(-exponent - 1), '0') + digits;
    }
  } else {
    out = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
          std::to_string(exponent);
  }
  return negative ? "-" + out : out;
}

std::string PercentileName(double percentile) {
  if (percentile != std::floor(percentile)) {
    // Java's Double.toString, as YCSB's ordinal() falls back to.
    return JavaDoubleToString(percentile);
  }
  const int n = int(percentile);
  static const char* const kSuffixes[] = {"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"};
  if (n % 100 >= 11 && n % 100 <= 13) return std::to_string(n) + "th";
  return std::to_string(n) + kSuffixes[n % 10];
}

}  // namespace ycsb
}  // namespace tierfs
