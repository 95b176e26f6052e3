#include "core/trace_format.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace tierfs {

namespace {

constexpr char kMagic[8] = {'T', 'I', 'E', 'R', 'F', 'S', 'T', 'R'};
constexpr size_t kMaxString = 1 << 16;  // a device name, path or source
constexpr size_t kReadChunk = 1 << 20;

enum : uint8_t {
  kTypeMask = 0x03,
  kEventType = 3,
  kPriorityShift = 2,
  kPriorityMask = 0x07,
  kHasLevel = 1 << 5,
  kHasTier = 1 << 6,
  kHasLatency = 1 << 7,
  // An event's code from here up is in a byte of its own (version 3).
  kEventCodeFollows = 7,
};

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(char(v | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}

void PutFixed32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(char(v >> (8 * i)));
}

void PutString(const std::string& s, std::string* out) {
  PutVarint(s.size(), out);
  out->append(s);
}

// Decoding from [p, end). Each returns false if the input ends first.
bool GetVarint(const char** p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < end; shift += 7) {
    uint8_t byte = uint8_t(**p);
    ++*p;
    result |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool GetFixed32(const char** p, const char* end, uint32_t* v) {
  if (end - *p < 4) return false;
  *v = 0;
  for (int i = 0; i < 4; ++i) *v |= uint32_t(uint8_t((*p)[i])) << (8 * i);
  *p += 4;
  return true;
}

bool GetString(const char** p, const char* end, std::string* s) {
  uint64_t n;
  if (!GetVarint(p, end, &n) || n > kMaxString || uint64_t(end - *p) < n) return false;
  s->assign(*p, n);
  *p += n;
  return true;
}

uint32_t Crc(const char* p, size_t n) {
  return uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(p), uInt(n)));
}

}  // namespace

const char* TraceEventName(TraceEvent event) {
  switch (event) {
    case TraceEvent::kNone: return "io";
    case TraceEvent::kDelete: return "delete";
    case TraceEvent::kSettle: return "settle";
    case TraceEvent::kTruncate: return "truncate";
    case TraceEvent::kSync: return "sync";
    case TraceEvent::kPlace: return "place";
    case TraceEvent::kMove: return "move";
    case TraceEvent::kPlan: return "plan";
    case TraceEvent::kQueued: return "queued";
    case TraceEvent::kHeld: return "held";
    case TraceEvent::kStart: return "start";
  }
  return "unknown";
}

TraceRecord MakeEvent(TraceEvent event, uint64_t file_id, FileKind kind, uint64_t offset,
                      uint64_t size, int tier) {
  TraceRecord r;
  r.event = event;
  r.file_id = file_id;
  r.kind = kind;
  r.offset = offset;
  r.size = size;
  r.tier = tier;
  return r;
}

bool TraceRecord::operator==(const TraceRecord& o) const {
  return time_ns == o.time_ns && stream == o.stream && file_id == o.file_id &&
         offset == o.offset && size == o.size && kind == o.kind && level == o.level &&
         tier == o.tier && latency_ns == o.latency_ns && event == o.event &&
         (!is_io() || (type == o.type && priority == o.priority));
}

std::string TraceEncoder::EncodeHeader(const TraceHeader& h) {
  std::string out(kMagic, sizeof(kMagic));
  PutFixed32(h.version, &out);
  PutVarint(h.segment_size, &out);
  PutVarint(h.start_unix_ns, &out);
  PutVarint(h.tiers.size(), &out);
  for (const TraceTier& t : h.tiers) {
    PutVarint(t.capacity, &out);
    PutString(t.device, &out);
    PutString(t.path, &out);
  }
  PutString(h.source, &out);
  PutFixed32(Crc(out.data(), out.size()), &out);
  return out;
}

void TraceEncoder::Append(const TraceRecord& r, std::string* out) {
  const bool level = r.level >= 0 && r.level < 256;
  const bool tier = r.tier >= 0 && r.tier < 256;
  const uint8_t type = r.is_io() ? uint8_t(r.type) : uint8_t(kEventType);
  const uint8_t sub = r.is_io() ? uint8_t(r.priority) : uint8_t(uint8_t(r.event) - 1);
  uint8_t flags = uint8_t(type & kTypeMask) |
                  uint8_t((std::min<uint8_t>(sub, kEventCodeFollows) & kPriorityMask) << kPriorityShift);
  if (level) flags |= kHasLevel;
  if (tier) flags |= kHasTier;
  if (r.latency_ns) flags |= kHasLatency;
  out->push_back(char(flags));
  if (!r.is_io() && sub >= kEventCodeFollows) out->push_back(char(sub));
  out->push_back(char(r.kind));
  const uint64_t time = r.time_ns > last_time_ ? r.time_ns : last_time_;
  PutVarint(time - last_time_, out);
  last_time_ = time;
  PutVarint(r.stream, out);
  PutVarint(r.file_id, out);
  PutVarint(r.offset, out);
  PutVarint(r.size, out);
  if (level) out->push_back(char(r.level));
  if (tier) out->push_back(char(r.tier));
  if (r.latency_ns) PutVarint(r.latency_ns, out);
}

TraceReader::~TraceReader() {
  if (file_) fclose(file_);
}

bool TraceReader::Open(const std::string& path, std::string* error) {
  name_ = "trace '" + path + "'";
  file_ = fopen(path.c_str(), "rb");
  if (!file_) {
    *error = "cannot open " + name_ + ": " + strerror(errno);
    return false;
  }
  return ReadHeader(error);
}

bool TraceReader::OpenBuffer(std::string bytes, std::string* error) {
  name_ = "trace in memory";
  buf_ = std::move(bytes);
  eof_ = true;
  return ReadHeader(error);
}

// Makes at least `need` unread bytes available if the file has them.
bool TraceReader::Fill(size_t need) {
  if (buf_.size() - pos_ >= need) return true;
  if (eof_) return false;
  buf_.erase(0, pos_);
  pos_ = 0;
  while (buf_.size() < need && !eof_) {
    size_t old = buf_.size();
    buf_.resize(old + std::max(need, kReadChunk));
    size_t got = fread(&buf_[old], 1, buf_.size() - old, file_);
    buf_.resize(old + got);
    if (got == 0) eof_ = true;
  }
  return buf_.size() >= need;
}

bool TraceReader::ReadHeader(std::string* error) {
  // A header is small: the tier count and strings are bounded.
  Fill(64 * 1024);
  const char* begin = buf_.data() + pos_;
  const char* end = buf_.data() + buf_.size();
  const char* p = begin;
  if (end - p < 8 || memcmp(p, kMagic, 8) != 0) {
    *error = name_ + " is not a TierFS trace (bad magic)";
    return false;
  }
  p += 8;
  TraceHeader h;
  uint64_t tiers = 0;
  bool ok = GetFixed32(&p, end, &h.version);
  if (ok && (h.version < 1 || h.version > TraceHeader::kVersion)) {
    *error = name_ + " has version " + std::to_string(h.version) +
             "; this build reads versions 1 to " + std::to_string(TraceHeader::kVersion);
    return false;
  }
  ok = ok && GetVarint(&p, end, &h.segment_size) && GetVarint(&p, end, &h.start_unix_ns) &&
       GetVarint(&p, end, &tiers) && tiers <= 64;
  for (uint64_t i = 0; ok && i < tiers; ++i) {
    TraceTier t;
    ok = GetVarint(&p, end, &t.capacity) && GetString(&p, end, &t.device) &&
         GetString(&p, end, &t.path);
    h.tiers.push_back(t);
  }
  ok = ok && GetString(&p, end, &h.source);
  const size_t covered = size_t(p - begin);
  uint32_t crc;
  if (!ok || !GetFixed32(&p, end, &crc)) {
    *error = name_ + ": header is malformed or cut short";
    return false;
  }
  if (crc != Crc(begin, covered)) {
    *error = name_ + ": header checksum mismatch (corrupt trace)";
    return false;
  }
  header_ = std::move(h);
  pos_ += size_t(p - begin);
  return true;
}

bool TraceReader::Next(TraceRecord* r, std::string* error) {
  // A record is at most 3 bytes + 6 varints of 10 bytes + 2 bytes.
  constexpr size_t kMaxRecord = 3 + 6 * 10 + 2;
  Fill(kMaxRecord);
  if (pos_ == buf_.size()) return false;
  const char* begin = buf_.data() + pos_;
  const char* end = buf_.data() + buf_.size();
  const char* p = begin;
  if (end - p < 3) {  // flags, [code], kind, and at least a varint
    truncated_ = true;
    return false;
  }
  const uint8_t flags = uint8_t(*p++);
  const uint8_t type = flags & kTypeMask;
  const bool event = type == kEventType;
  uint8_t priority = (flags >> kPriorityShift) & kPriorityMask;  // an event's code
  if (event && priority == kEventCodeFollows && header_.version >= 3) priority = uint8_t(*p++);
  const uint8_t kind = uint8_t(*p++);
  if ((event && (header_.version < 2 || priority + 1 > uint8_t(TraceEvent::kStart) ||
                 (header_.version < 3 && priority + 1 > uint8_t(TraceEvent::kQueued)))) ||
      (!event && priority > uint8_t(TracePriority::kUnknown)) ||
      kind > uint8_t(FileKind::kVolume)) {
    *error = name_ + ": malformed record " + std::to_string(records_) + " (bad flags or kind)";
    return false;
  }
  uint64_t delta, stream;
  TraceRecord out;
  bool ok = GetVarint(&p, end, &delta) && GetVarint(&p, end, &stream) &&
            GetVarint(&p, end, &out.file_id) && GetVarint(&p, end, &out.offset) &&
            GetVarint(&p, end, &out.size);
  if (ok && (flags & kHasLevel)) {
    ok = p < end;
    if (ok) out.level = uint8_t(*p++);
  }
  if (ok && (flags & kHasTier)) {
    ok = p < end;
    if (ok) out.tier = uint8_t(*p++);
  }
  if (ok && (flags & kHasLatency)) ok = GetVarint(&p, end, &out.latency_ns);
  if (!ok) {
    if (size_t(end - begin) >= kMaxRecord) {
      *error = name_ + ": malformed record " + std::to_string(records_) + " (bad varint)";
      return false;
    }
    truncated_ = true;  // the file ends inside this record
    return false;
  }
  if (delta > UINT64_MAX - last_time_) {
    // Times never decrease: a delta past 2^64 ns is damage, not 585 years.
    *error = name_ + ": malformed record " + std::to_string(records_) +
             " (its time overflows 64 bits)";
    return false;
  }
  if (event) {
    out.event = TraceEvent(priority + 1);
  } else {
    out.type = IoType(type);
    out.priority = TracePriority(priority);
  }
  out.kind = FileKind(kind);
  out.stream = uint32_t(stream);
  last_time_ += delta;
  out.time_ns = last_time_;
  pos_ += size_t(p - begin);
  records_++;
  *r = out;
  return true;
}

TraceWriter::~TraceWriter() {
  std::string ignored;
  if (file_) Close(&ignored);
}

bool TraceWriter::Open(const std::string& path, const TraceHeader& header, std::string* error) {
  path_ = path;
  file_ = fopen(path.c_str(), "wb");
  if (!file_) {
    *error = "cannot create trace '" + path + "': " + strerror(errno);
    return false;
  }
  // The records are encoded in the current format, whatever version they
  // were read from (`tierfs-trace cut` of a version-2 capture).
  TraceHeader current = header;
  current.version = TraceHeader::kVersion;
  buf_ = TraceEncoder::EncodeHeader(current);
  return Flush(error);
}

bool TraceWriter::Append(const TraceRecord& r, std::string* error) {
  encoder_.Append(r, &buf_);
  return buf_.size() < kReadChunk || Flush(error);
}

bool TraceWriter::Flush(std::string* error) {
  if (!failed_ && !buf_.empty() && fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
    failed_ = true;
    *error = "cannot write trace '" + path_ + "': " + strerror(errno);
  }
  buf_.clear();
  return !failed_;
}

bool TraceWriter::Close(std::string* error) {
  if (!file_) return !failed_;
  bool ok = Flush(error);
  if (fclose(file_) != 0 && ok) {
    ok = false;
    failed_ = true;
    *error = "cannot close trace '" + path_ + "': " + strerror(errno);
  }
  file_ = nullptr;
  return ok && !failed_;
}

bool ReadTrace(const std::string& path, TraceHeader* header, std::vector<TraceRecord>* records,
               std::string* error, bool* truncated) {
  TraceReader reader;
  if (!reader.Open(path, error)) return false;
  *header = reader.header();
  records->clear();
  TraceRecord r;
  error->clear();
  while (reader.Next(&r, error)) records->push_back(r);
  if (!error->empty()) return false;
  if (truncated) *truncated = reader.truncated();
  return true;
}

}  // namespace tierfs
