// The on-disk format of the segment map: journal and snapshot files.
//
// Both kinds of file are a header followed by framed records; a snapshot is
// the state written as the records that rebuild it, closed by an End record.
//
//   header (28 bytes)
//   +----------+-----------+------+-------+------------+------------+
//   | magic 8  | version 4 | kind | pad 3 | generation | header crc |
//   | TFSJRNL\0| = 1       | J/S  | 0     | fixed64    | fixed32    |
//   +----------+-----------+------+-------+------------+------------+
//   header crc = crc32 (zlib) of the 24 bytes before it.
//
//   record
//   +-----------+-----------+--------+------------------+
//   | crc fixed32| len fixed32| type u8| payload (len bytes)|
//   +-----------+-----------+--------+------------------+
//   crc = crc32 of type and payload. Integers little-endian. A string is
//   fixed32 length + bytes.
//
//   type         payload                                 meaning
//   1 Bind       id fixed64, kind u8, name string        name -> file id (new id: new file)
//   2 Unbind     name string                             name removed (file gone with its last name)
//   3 Rename     src string, dst string                  dst (if bound) replaced by src's file
//   4 Segment    id fixed64, segment fixed64, tier u8    segment lives on tier (0xff: nowhere)
//   5 Mkdir      path string                             directory (and its parents) exist
//   6 Rmdir      path string
//   7 End        count fixed64                           snapshot only: records before it
//   8 Copy       id fixed64, segment fixed64, tier u8    durable extra copy (REPLICATE) on tier
//                                                        (0xff: dropped); the home is unchanged
//
// Reading stops at a torn tail (an incomplete last record, or a checksum
// failure followed only by zeros or by nothing): those records were never
// acknowledged as durable. A checksum failure followed by more data is
// corruption and is reported with the file and offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "agents/file_kind.h"
#include "core/segment_table.h"

namespace tierfs {

enum class RecordType : uint8_t {
  kBind = 1,
  kUnbind = 2,
  kRename = 3,
  kSegment = 4,
  kMkdir = 5,
  kRmdir = 6,
  kEnd = 7,
  kCopy = 8,
};


struct JournalRecord {
  RecordType type = RecordType::kEnd;
  uint64_t id = 0;
  FileKind kind = FileKind::kOther;
  std::string name;   // Bind, Unbind, Mkdir, Rmdir; Rename: src
  std::string name2;  // Rename: dst
  uint64_t segment = 0;
  uint8_t tier = kNoTier;
  uint64_t count = 0;  // End

  static JournalRecord Bind(uint64_t id, FileKind kind, const std::string& name);
  static JournalRecord Unbind(const std::string& name);
  static JournalRecord Rename(const std::string& src, const std::string& dst);
  static JournalRecord Segment(uint64_t id, uint64_t segment, uint8_t tier);
  static JournalRecord Mkdir(const std::string& path);
  static JournalRecord Rmdir(const std::string& path);
  static JournalRecord End(uint64_t count);
  static JournalRecord Copy(uint64_t id, uint64_t segment, uint8_t tier);
};

bool operator==(const JournalRecord& a, const JournalRecord& b);

constexpr size_t kJournalHeaderSize = 28;
constexpr char kJournalKind = 'J';
constexpr char kSnapshotKind = 'S';

void EncodeHeader(char kind, uint64_t generation, std::string* dst);
// Appends the framed record to *dst.
void EncodeRecord(const JournalRecord& record, std::string* dst);

struct DecodedFile {
  char kind = 0;
  uint64_t generation = 0;
  std::vector<JournalRecord> records;
  uint64_t valid_bytes = 0;  // bytes up to the end of the last good record
  bool torn_tail = false;    // bytes after valid_bytes were dropped
};

// Decodes a whole journal or snapshot file. `fname` names it in errors.
// A snapshot must be complete (End record with the right count).
rocksdb::Status DecodeFile(const std::string& bytes, const std::string& fname,
                           DecodedFile* out);

}  // namespace tierfs
