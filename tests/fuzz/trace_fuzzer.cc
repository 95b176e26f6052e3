// The I/O trace format (core/trace_format.h): TraceReader over the bytes, as
// the simulator and `tierfs-trace` read a file, then every record encoded
// again and read back.
//
// The header carries a CRC-32: the custom mutator walks the header's fields
// and repairs it after mutating (15 times in 16; the 16th keeps the damage).
#include <zlib.h>

#include <string>
#include <vector>

#include "core/trace_format.h"
#include "tests/fuzz/fuzz_util.h"

using namespace tierfs;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

// Walks a varint; false if the input ends first.
bool SkipVarint(const uint8_t* data, size_t size, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift <= 63 && *pos < size; shift += 7) {
    const uint8_t b = data[(*pos)++];
    *v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool SkipString(const uint8_t* data, size_t size, size_t* pos) {
  uint64_t n;
  if (!SkipVarint(data, size, pos, &n) || n > size - *pos) return false;
  *pos += n;
  return true;
}

// Rewrites the header CRC where the header says it is.
void RepairHeader(uint8_t* data, size_t size) {
  size_t pos = 12;  // magic, version
  uint64_t v, tiers;
  if (size < pos || !SkipVarint(data, size, &pos, &v) || !SkipVarint(data, size, &pos, &v) ||
      !SkipVarint(data, size, &pos, &tiers) || tiers > 64) {
    return;
  }
  for (uint64_t i = 0; i < tiers; ++i) {
    if (!SkipVarint(data, size, &pos, &v) || !SkipString(data, size, &pos) ||
        !SkipString(data, size, &pos)) {
      return;
    }
  }
  if (!SkipString(data, size, &pos) || size - pos < 4) return;
  const uint32_t crc = uint32_t(crc32(0L, data, uInt(pos)));
  for (int i = 0; i < 4; ++i) data[pos + i] = uint8_t(crc >> (8 * i));
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 16 != 0) RepairHeader(data, size);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TraceReader reader;
  std::string error;
  if (!reader.OpenBuffer(fuzz::Text(data, size), &error)) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  std::vector<TraceRecord> records;
  TraceRecord r;
  while (reader.Next(&r, &error)) {
    FUZZ_CHECK(records.empty() || r.time_ns >= records.back().time_ns);
    FUZZ_CHECK(r.level >= -1 && r.level < 256 && r.tier >= -1 && r.tier < 256);
    records.push_back(r);
  }
  FUZZ_CHECK(reader.records() == records.size());
  if (!error.empty()) return 0;

  // What was read is what the encoder writes: the same records come back.
  // In the current format, as every writer writes (TraceWriter).
  TraceHeader current = reader.header();
  current.version = TraceHeader::kVersion;
  std::string again = TraceEncoder::EncodeHeader(current);
  TraceEncoder encoder;
  for (const TraceRecord& rec : records) encoder.Append(rec, &again);
  TraceReader back;
  FUZZ_CHECK(back.OpenBuffer(again, &error));
  for (const TraceRecord& rec : records) {
    FUZZ_CHECK(back.Next(&r, &error));
    FUZZ_CHECK(r == rec);
  }
  FUZZ_CHECK(!back.Next(&r, &error) && error.empty() && !back.truncated());
  return 0;
}
