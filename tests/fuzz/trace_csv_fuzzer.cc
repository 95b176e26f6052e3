// CSV import of traces (`tierfs-trace from-csv`, tools/sim/trace_csv.h):
// ParseCsvTrace, what ReadCsvTrace reads the file with. The first byte picks
// the format and the plain format's time unit ('0' plain in s, '3' ms, '6' us,
// '9' ns, '1' msr, '2' systor: byte % 3 the format, byte / 3 % 4 the unit);
// the rest is the CSV text.
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tools/sim/trace_csv.h"

using namespace tierfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const sim::CsvFormat kFormats[] = {sim::CsvFormat::kPlain, sim::CsvFormat::kMsr,
                                            sim::CsvFormat::kSystor};
  static const char* const kUnits[] = {"s", "ms", "us", "ns"};
  const sim::CsvFormat format = kFormats[data[0] % 3];
  const double unit = sim::NanosPerUnit(kUnits[(data[0] / 3) % 4]);
  std::istringstream in(fuzz::Text(data + 1, size - 1));
  std::vector<TraceRecord> records;
  std::string error;
  if (!sim::ParseCsvTrace(in, "CSV trace 'fuzz'", format, unit, &records, &error)) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  // Times start at zero and never decrease.
  for (size_t i = 0; i < records.size(); ++i) {
    FUZZ_CHECK(records[i].is_io() && records[i].kind == FileKind::kVolume);
    FUZZ_CHECK(i == 0 ? records[i].time_ns == 0 : records[i].time_ns >= records[i - 1].time_ns);
  }
  return 0;
}
