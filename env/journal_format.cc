#include "env/journal_format.h"

#include <zlib.h>

#include <cstring>

#include "util/coding.h"

namespace tierfs {

using rocksdb::Status;

JournalRecord JournalRecord::Bind(uint64_t id, FileKind kind, const std::string& name) {
  JournalRecord r;
  r.type = RecordType::kBind;
  r.id = id;
  r.kind = kind;
  r.name = name;
  return r;
}
JournalRecord JournalRecord::Unbind(const std::string& name) {
  JournalRecord r;
  r.type = RecordType::kUnbind;
  r.name = name;
  return r;
}
JournalRecord JournalRecord::Rename(const std::string& src, const std::string& dst) {
  JournalRecord r;
  r.type = RecordType::kRename;
  r.name = src;
  r.name2 = dst;
  return r;
}
JournalRecord JournalRecord::Segment(uint64_t id, uint64_t segment, uint8_t tier) {
  JournalRecord r;
  r.type = RecordType::kSegment;
  r.id = id;
  r.segment = segment;
  r.tier = tier;
  return r;
}
JournalRecord JournalRecord::Copy(uint64_t id, uint64_t segment, uint8_t tier) {
  JournalRecord r = Segment(id, segment, tier);
  r.type = RecordType::kCopy;
  return r;
}
JournalRecord JournalRecord::Mkdir(const std::string& path) {
  JournalRecord r;
  r.type = RecordType::kMkdir;
  r.name = path;
  return r;
}
JournalRecord JournalRecord::Rmdir(const std::string& path) {
  JournalRecord r;
  r.type = RecordType::kRmdir;
  r.name = path;
  return r;
}
JournalRecord JournalRecord::End(uint64_t count) {
  JournalRecord r;
  r.type = RecordType::kEnd;
  r.count = count;
  return r;
}

bool operator==(const JournalRecord& a, const JournalRecord& b) {
  return a.type == b.type && a.id == b.id && a.kind == b.kind && a.name == b.name &&
         a.name2 == b.name2 && a.segment == b.segment && a.tier == b.tier &&
         a.count == b.count;
}

namespace {

constexpr char kMagic[8] = {'T', 'F', 'S', 'J', 'R', 'N', 'L', '\0'};
constexpr uint32_t kVersion = 1;
constexpr size_t kRecordHeader = 9;  // crc, length, type
// Names are paths (< 4 KiB on Linux); anything longer is damage.
constexpr uint32_t kMaxPayload = 1 << 16;

uint32_t Crc(const char* data, size_t n) {
  return uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(data), uInt(n)));
}

bool DecodePayload(RecordType type, const char* p, size_t n, JournalRecord* r) {
  ByteReader in(p, n);
  r->type = type;
  uint8_t kind = 0;
  bool ok = false;
  switch (type) {
    case RecordType::kBind:
      ok = in.U64(&r->id) && in.U8(&kind) && in.Str(&r->name);
      r->kind = FileKind(kind);
      break;
    case RecordType::kUnbind:
    case RecordType::kMkdir:
    case RecordType::kRmdir:
      ok = in.Str(&r->name);
      break;
    case RecordType::kRename:
      ok = in.Str(&r->name) && in.Str(&r->name2);
      break;
    case RecordType::kSegment:
    case RecordType::kCopy:
      ok = in.U64(&r->id) && in.U64(&r->segment) && in.U8(&r->tier);
      break;
    case RecordType::kEnd:
      ok = in.U64(&r->count);
      break;
  }
  return ok && in.Done();
}

bool AllZero(const std::string& s, size_t from) {
  for (size_t i = from; i < s.size(); ++i) {
    if (s[i] != 0) return false;
  }
  return true;
}

}  // namespace

void EncodeHeader(char kind, uint64_t generation, std::string* dst) {
  size_t start = dst->size();
  dst->append(kMagic, sizeof(kMagic));
  PutFixed32(dst, kVersion);
  dst->push_back(kind);
  dst->append(3, '\0');
  PutFixed64(dst, generation);
  PutFixed32(dst, Crc(dst->data() + start, 24));
}

void EncodeRecord(const JournalRecord& r, std::string* dst) {
  std::string body;
  body.push_back(char(r.type));
  switch (r.type) {
    case RecordType::kBind:
      PutFixed64(&body, r.id);
      body.push_back(char(r.kind));
      PutString(&body, r.name);
      break;
    case RecordType::kUnbind:
    case RecordType::kMkdir:
    case RecordType::kRmdir:
      PutString(&body, r.name);
      break;
    case RecordType::kRename:
      PutString(&body, r.name);
      PutString(&body, r.name2);
      break;
    case RecordType::kSegment:
    case RecordType::kCopy:
      PutFixed64(&body, r.id);
      PutFixed64(&body, r.segment);
      body.push_back(char(r.tier));
      break;
    case RecordType::kEnd:
      PutFixed64(&body, r.count);
      break;
  }
  PutFixed32(dst, Crc(body.data(), body.size()));
  PutFixed32(dst, uint32_t(body.size() - 1));
  dst->append(body);
}

Status DecodeFile(const std::string& bytes, const std::string& fname,
                  DecodedFile* out) {
  *out = DecodedFile();
  if (bytes.size() < kJournalHeaderSize || memcmp(bytes.data(), kMagic, 8) != 0) {
    return Status::Corruption("TierFS journal file " + fname + ": bad or missing header");
  }
  if (Crc(bytes.data(), 24) != GetFixed32(bytes.data() + 24)) {
    return Status::Corruption("TierFS journal file " + fname + ": header checksum mismatch");
  }
  uint32_t version = GetFixed32(bytes.data() + 8);
  if (version != kVersion) {
    return Status::NotSupported("TierFS journal file " + fname + ": version " +
                                std::to_string(version) + " (this build reads 1)");
  }
  out->kind = bytes[12];
  out->generation = GetFixed64(bytes.data() + 16);
  size_t pos = kJournalHeaderSize;
  bool ended = false;
  while (pos < bytes.size()) {
    std::string where = fname + " at offset " + std::to_string(pos);
    size_t left = bytes.size() - pos;
    if (ended) {
      return Status::Corruption("TierFS snapshot " + where + ": data after End record");
    }
    if (left < kRecordHeader) {
      out->torn_tail = true;
      break;
    }
    uint32_t crc = GetFixed32(bytes.data() + pos);
    uint32_t len = GetFixed32(bytes.data() + pos + 4);
    if (len > kMaxPayload && !AllZero(bytes, pos)) {
      // No record is this long: a damaged length field, not a torn write.
      return Status::Corruption("TierFS journal " + where + ": impossible record length " +
                                std::to_string(len));
    }
    if (uint64_t(len) > left - kRecordHeader) {
      out->torn_tail = true;  // the last record was cut short
      break;
    }
    const char* body = bytes.data() + pos + 8;
    size_t body_len = size_t(len) + 1;
    JournalRecord r;
    if (Crc(body, body_len) != crc ||
        !DecodePayload(RecordType(uint8_t(body[0])), body + 1, len, &r)) {
      size_t next = pos + 8 + body_len;
      if (next == bytes.size() || AllZero(bytes, pos)) {
        out->torn_tail = true;
        break;
      }
      return Status::Corruption("TierFS journal " + where +
                                ": record checksum mismatch with valid data after it");
    }
    if (r.type == RecordType::kEnd) {
      if (r.count != out->records.size()) {
        return Status::Corruption("TierFS snapshot " + where + ": End counts " +
                                  std::to_string(r.count) + " records, found " +
                                  std::to_string(out->records.size()));
      }
      ended = true;
    } else {
      out->records.push_back(r);
    }
    pos += 8 + body_len;
    out->valid_bytes = pos;
  }
  if (out->valid_bytes == 0) out->valid_bytes = kJournalHeaderSize;
  if (out->kind == kSnapshotKind && !ended) {
    return Status::Corruption("TierFS snapshot " + fname +
                              ": incomplete (no End record)");
  }
  return Status::OK();
}

}  // namespace tierfs
