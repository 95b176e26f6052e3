#include "tools/sim/trace_csv.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <strings.h>

namespace tierfs {
namespace sim {

namespace {

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    std::string f = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\r' || f.back() == '\t')) f.pop_back();
    size_t b = f.find_first_not_of(" \t");
    out.push_back(b == std::string::npos ? "" : f.substr(b));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// Long double: an MSR timestamp has 18 digits, more than a double holds.
bool Number(const std::string& s, long double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *v = strtold(s.c_str(), &end);
  return *end == '\0' && errno == 0 && std::isfinite(*v) && *v >= 0;
}

bool Whole(const std::string& s, uint64_t* v) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  *v = strtoull(s.c_str(), nullptr, 10);
  return errno == 0;
}

bool Direction(const std::string& s, bool* write) {
  if (!strcasecmp(s.c_str(), "r") || !strcasecmp(s.c_str(), "read")) {
    *write = false;
    return true;
  }
  if (!strcasecmp(s.c_str(), "w") || !strcasecmp(s.c_str(), "write")) {
    *write = true;
    return true;
  }
  return false;
}

// One request line; false if it does not parse.
bool ParseLine(const std::vector<std::string>& f, CsvFormat format, double nanos_per_unit,
               TraceRecord* r, long double* time) {
  bool write = false;
  uint64_t disk = 0;
  switch (format) {
    case CsvFormat::kPlain:
      if (f.size() != 4 || !Whole(f[0], &r->offset) || !Whole(f[1], &r->size) ||
          !Direction(f[2], &write) || !Number(f[3], time)) {
        return false;
      }
      *time *= nanos_per_unit;
      break;
    case CsvFormat::kMsr:
      if (f.size() < 6 || !Number(f[0], time) || !Whole(f[2], &disk) ||
          !Direction(f[3], &write) || !Whole(f[4], &r->offset) || !Whole(f[5], &r->size)) {
        return false;
      }
      *time *= 100;  // Windows ticks
      break;
    case CsvFormat::kSystor:
      if (f.size() < 6 || !Number(f[0], time) || !Direction(f[2], &write) ||
          !Whole(f[3], &disk) || !Whole(f[4], &r->offset) || !Whole(f[5], &r->size)) {
        return false;
      }
      *time *= 1e9;
      break;
  }
  r->type = write ? IoType::kWrite : IoType::kUserRead;
  r->file_id = disk;
  r->stream = uint32_t(disk);
  r->kind = FileKind::kVolume;
  r->priority = TracePriority::kUnknown;
  return true;
}

}  // namespace

bool ParseCsvFormat(const std::string& name, CsvFormat* format) {
  if (name == "plain") *format = CsvFormat::kPlain;
  else if (name == "msr") *format = CsvFormat::kMsr;
  else if (name == "systor") *format = CsvFormat::kSystor;
  else return false;
  return true;
}

double NanosPerUnit(const std::string& unit) {
  if (unit == "s") return 1e9;
  if (unit == "ms") return 1e6;
  if (unit == "us") return 1e3;
  if (unit == "ns") return 1;
  return 0;
}

bool ReadCsvTrace(const std::string& path, CsvFormat format, double nanos_per_unit,
                  std::vector<TraceRecord>* records, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read CSV trace '" + path + "': " + strerror(errno);
    return false;
  }
  return ParseCsvTrace(in, "CSV trace '" + path + "'", format, nanos_per_unit, records, error);
}

bool ParseCsvTrace(std::istream& in, const std::string& name, CsvFormat format,
                   double nanos_per_unit, std::vector<TraceRecord>* records,
                   std::string* error) {
  std::vector<std::pair<long double, TraceRecord>> timed;
  std::string line;
  for (uint64_t lineno = 1; std::getline(in, line); ++lineno) {
    if (line.empty() || line == "\r") continue;
    TraceRecord r;
    long double time;
    if (!ParseLine(SplitFields(line), format, nanos_per_unit, &r, &time)) {
      if (timed.empty()) continue;  // a header
      *error = name + " line " + std::to_string(lineno) + ": cannot parse '" + line + "'";
      return false;
    }
    timed.push_back({time, r});
  }
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  records->clear();
  const long double start = timed.empty() ? 0 : timed.front().first;
  for (auto& [time, r] : timed) {
    r.time_ns = uint64_t(std::llround(time - start));
    records->push_back(r);
  }
  return true;
}

bool WriteCsvTrace(const std::vector<TraceRecord>& records, double nanos_per_unit, bool full,
                   FILE* out) {
  if (full) {
    fprintf(out, "time_ns,stream,file_id,kind,offset,size,type,priority,level,tier,latency_ns\n");
  }
  static const char* const kTypes[] = {"R", "BR", "W"};
  for (const TraceRecord& r : records) {
    if (!r.is_io()) continue;  // CSV holds I/O only
    if (full) {
      fprintf(out, "%llu,%u,%llu,%s,%llu,%llu,%s,%d,%d,%d,%llu\n", (unsigned long long)r.time_ns,
              r.stream, (unsigned long long)r.file_id, FileKindName(r.kind),
              (unsigned long long)r.offset, (unsigned long long)r.size, kTypes[int(r.type)],
              int(r.priority), r.level, r.tier, (unsigned long long)r.latency_ns);
    } else {
      // Decimals enough for whole nanoseconds: 9 for s, 6 for ms, 3 for us.
      const int decimals = int(std::lround(std::log10(nanos_per_unit)));
      fprintf(out, "%llu,%llu,%s,%.*f\n", (unsigned long long)r.offset,
              (unsigned long long)r.size, r.is_write() ? "W" : "R", decimals,
              double(r.time_ns) / nanos_per_unit);
    }
  }
  return !ferror(out);
}

}  // namespace sim
}  // namespace tierfs
