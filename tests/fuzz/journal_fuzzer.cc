// The segment map's journal and snapshot files (env/journal_format.h):
// DecodeFile, then the records replayed into a Namespace as Store::Recover
// does, then the state written back as a snapshot and read again.
//
// Every record carries a CRC-32, so random bytes rarely get past the first
// one. The custom mutator repairs the header's and each record's CRC after
// mutating (15 times in 16; the 16th keeps what the mutation did, so damage
// is fuzzed too): the corpus stays real journal files, and the fuzzer reaches
// what lies behind the checksums.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/config.h"
#include "env/journal_format.h"
#include "env/namespace.h"
#include "tests/fuzz/fuzz_util.h"

using namespace tierfs;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

uint32_t Crc(const uint8_t* p, size_t n) { return uint32_t(crc32(0L, p, uInt(n))); }
uint32_t Get32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24; }
void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}

// Recomputes the header CRC and every whole record's CRC in place.
void RepairChecksums(uint8_t* data, size_t size) {
  if (size < kJournalHeaderSize) return;
  Put32(data + 24, Crc(data, 24));
  size_t pos = kJournalHeaderSize;
  while (size - pos >= 9) {
    const uint32_t len = Get32(data + pos + 4);
    if (len > size - pos - 9) break;
    Put32(data + pos, Crc(data + pos + 8, size_t(len) + 1));
    pos += 9 + size_t(len);
  }
}

// Sorted encodings: the same state gives the same list whatever the order of
// its records.
std::vector<std::string> Canonical(const std::vector<JournalRecord>& records) {
  std::vector<std::string> out;
  for (const JournalRecord& r : records) {
    std::string e;
    EncodeRecord(r, &e);
    out.push_back(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The segment table of a file holds one slot (58 bytes) per segment up to
// the highest it was told of. Recovery refuses segments at or beyond
// MaxSegmentsPerFile of the store's segment size (env/file_limits.h); the
// fuzzer replays as a store of 16 MiB segments would (2^16 per file), which
// keeps its memory small.
constexpr uint64_t kMaxReplayedSegment = 1 << 16;

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 16 != 0) RepairChecksums(data, size);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::Text(data, size);
  DecodedFile file;
  rocksdb::Status s = DecodeFile(bytes, "JOURNAL-fuzz", &file);
  if (!s.ok()) {
    FUZZ_CHECK(!s.ToString().empty());
    return 0;
  }
  FUZZ_CHECK(file.valid_bytes >= kJournalHeaderSize && file.valid_bytes <= bytes.size());
  FUZZ_CHECK(file.torn_tail == (file.valid_bytes < bytes.size()));

  // Encoding the records decoded gives back the valid bytes after the header
  // (with the End record, if the file had one: a snapshot must).
  std::string again;
  for (const JournalRecord& r : file.records) EncodeRecord(r, &again);
  std::string ended = again;
  EncodeRecord(JournalRecord::End(file.records.size()), &ended);
  const std::string valid = bytes.substr(kJournalHeaderSize, file.valid_bytes - kJournalHeaderSize);
  FUZZ_CHECK(valid == ended || (valid == again && file.kind != kSnapshotKind));

  // Replay, as recovery does: the first record that does not apply stops it
  // (a segment beyond the limit too). Store::Recover also refuses a tier
  // beyond the store's: here, beyond the most a store can have.
  Namespace ns(kMaxReplayedSegment);
  for (const JournalRecord& r : file.records) {
    const bool placement = r.type == RecordType::kSegment || r.type == RecordType::kCopy;
    if (!ns.Apply(r).ok()) return 0;
    if (placement && r.tier != kNoTier && r.tier >= kMaxTiers) return 0;
  }
  // The state's snapshot reads back into the same state.
  const std::vector<JournalRecord> snapshot = ns.SnapshotRecords();
  std::string snap;
  EncodeHeader(kSnapshotKind, file.generation + 1, &snap);
  for (const JournalRecord& r : snapshot) EncodeRecord(r, &snap);
  EncodeRecord(JournalRecord::End(snapshot.size()), &snap);
  DecodedFile back;
  FUZZ_CHECK(DecodeFile(snap, "SNAPSHOT-fuzz", &back).ok());
  Namespace ns2(kMaxReplayedSegment);
  for (const JournalRecord& r : back.records) FUZZ_CHECK(ns2.Apply(r).ok());
  FUZZ_CHECK(Canonical(ns2.SnapshotRecords()) == Canonical(snapshot));
  return 0;
}
