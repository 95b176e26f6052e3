// Traces as CSV, so public block traces can be replayed and traces read by
// other tools.
//
// Formats (one request per line; lines that do not parse as numbers where
// numbers belong are skipped as headers only before the first request):
//   plain   offset,size,R/W,timestamp            (the project's own)
//   msr     Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//           (MSR Cambridge: Timestamp in 100 ns Windows ticks, Type Read/Write)
//   systor  Timestamp,Response,IOType,LUN,Offset,Size
//           (SYSTOR'17: Timestamp in seconds, IOType R/W)
// R/W fields accept R, W, Read, Write in any case. The plain format's
// timestamp unit is `unit` (s, ms, us or ns; decimals allowed). A disk or LUN
// number becomes the request's file and stream; times start at zero;
// requests are sorted by time (stable) if the file is not.
#pragma once

#include <cstdio>
#include <istream>
#include <string>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace sim {

enum class CsvFormat { kPlain, kMsr, kSystor };

bool ParseCsvFormat(const std::string& name, CsvFormat* format);
// Nanoseconds per unit for "s", "ms", "us", "ns"; 0 for anything else.
double NanosPerUnit(const std::string& unit);

// Reads CSV `path`. False and *error naming the file and line on a malformed
// request line.
bool ReadCsvTrace(const std::string& path, CsvFormat format, double nanos_per_unit,
                  std::vector<TraceRecord>* records, std::string* error);
// The same from a stream (what ReadCsvTrace reads the file with); `name`
// begins each error message ("CSV trace 'PATH'").
bool ParseCsvTrace(std::istream& in, const std::string& name, CsvFormat format,
                   double nanos_per_unit, std::vector<TraceRecord>* records, std::string* error);

// Writes records as plain CSV (offset,size,R/W,timestamp in `nanos_per_unit`
// units), or with `full` every field:
// time_ns,stream,file_id,kind,offset,size,type,priority,level,tier,latency_ns.
bool WriteCsvTrace(const std::vector<TraceRecord>& records, double nanos_per_unit, bool full,
                   FILE* out);

}  // namespace sim
}  // namespace tierfs
