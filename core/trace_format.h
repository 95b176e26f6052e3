// The I/O trace format: what TierFS records when asked (env/trace_capture.h),
// what the synthetic workload generators and the CSV converter write, and what
// the simulator (tools/sim/) replays.
//
// A trace file is a header followed by records, little-endian, no padding:
//
//   header  := magic "TIERFSTR" (8 bytes)
//              fixed32 version (1 to 3; a writer writes the current one)
//              varint  segment_size        bytes; 0 = whole file (as TierFS)
//              varint  start_unix_ns       wall clock when capture began (0 unknown)
//              varint  num_tiers           tier layout at capture, fastest first
//              num_tiers x { varint capacity; string device; string path }
//              string  source              free text: "tierfs", "synthetic:LUN0", "csv:FILE"
//              fixed32 crc32   zlib's CRC-32 of every header byte before it
//   string  := varint length, bytes
//
//   record  := byte    flags    bits 0-1 type (0 user read, 1 background read, 2 write,
//                                        3 event)
//                               bits 2-4 I/O: priority, RocksDB's IOPriority (0 low,
//                                        1 mid, 2 high, 3 user, 4 total), 5 unknown;
//                                        event: the event's code (TraceEvent - 1); from
//                                        version 3, 7 says a byte with the code follows
//                               bit  5   a level byte follows
//                               bit  6   a tier byte follows
//                               bit  7   a latency varint follows
//              [byte   code]    an event's code of 7 or more (version 3)
//              byte    kind     FileKind
//              varint  time delta  ns since the previous record's time (times never decrease)
//              varint  stream   who issued it: a capturing thread's small number, or a
//                               generator's workload index in a mix
//              varint  file_id
//              varint  offset
//              varint  size
//              [byte   level]   LSM level of a table file
//              [byte   tier]    the tier that served it at capture
//              [varint latency] ns the request took at capture
//
// Events (version 2) are what the store's decisions depend on besides I/O,
// and the decisions themselves, so a replay can be checked against the
// capture (tools/sim/, `tierfs-sim verify`). Their fields:
//
//   code  event    offset    size                      tier
//   0     delete   -         -                         -         the file's data was freed
//   1     settle   -         file size                 -         its last writer closed: the
//                                                                unused reservation went back
//   2     truncate -         new size                  -
//   3     sync     -         -                         -
//   4     place    segment   the write that placed it  placed    a new segment's tier (and
//                                                                the file's level, if known)
//   5     move     segment   op | made << 2 |        to        a move charged its destination
//                            cause << 3 |                        and began (started), or ended
//                            started << 5                        (made or not); cause 0 planned,
//                                                                1 eviction, 2 manual, 3 a hot
//                                                                page copied to tier 0 (offset:
//                                                                the page, engine/page_copies.h)
//   6     plan     max       moves the plan returned   -, or 1   the policy was asked for at
//                                                                most `max` moves (tier 1: only
//                                                                the fill ran, the policy was
//                                                                not due); they follow as
//                                                                `queued` events
//   7     queued   segment   op                        to        a planned move queued
//   8     held     segment   the file's size           home      a segment the store held
//                                                                when the capture began (and
//                                                                the file's level, if known),
//                                                                after `start`, before the rest
//   9     start    clock     -                         -         the store's request clock as
//                                                                the capture began (a store
//                                                                reopened goes on from its
//                                                                last), the first record
//
// An I/O record costs 8 to 20 bytes. A file that ends inside a record (a capture
// cut short by a crash) decodes up to the last whole record; the reader says
// so. Times are the issue time of each request, relative to the start of the
// capture, on the issuing thread's clock (DeviceModel::ThreadNanos: the wall
// clock plus the emulated device time the thread owes), so one thread's
// requests never overlap.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "agents/file_kind.h"
#include "agents/policy.h"

namespace tierfs {

// IOPriority as RocksDB numbers it (Env::IO_LOW .. IO_TOTAL), plus "not
// known" (writes, block traces).
enum class TracePriority : uint8_t { kLow = 0, kMid, kHigh, kUser, kTotal, kUnknown };

// What a record is besides an I/O (the format above says what each carries).
enum class TraceEvent : uint8_t {
  kNone = 0,  // an I/O
  kDelete,
  kSettle,
  kTruncate,
  kSync,
  kPlace,
  kMove,
  kPlan,
  kQueued,
  kHeld,
  kStart,
};
const char* TraceEventName(TraceEvent event);
// The tier field of a plan event whose plan was the fill's alone.
constexpr int kFillOnlyPlan = 1;
// Why a move ran (the `cause` of a move event).
// kPageCopy: a hot page of the file was copied to tier 0 (a decision of the
// page copies, not a segment move: the event's offset is the page).
enum class MoveCause : uint8_t { kPlanned = 0, kEviction, kManual, kPageCopy };
// The `size` field of a move event, and back. A move event with `started`
// marks the point where the move charged its destination (its copy begins);
// one without ends it.
inline uint64_t EncodeMoveOutcome(Move::Op op, bool made, MoveCause cause, bool started = false) {
  return uint64_t(op) | (made ? 4u : 0u) | (uint64_t(cause) << 3) | (started ? 32u : 0u);
}
inline void DecodeMoveOutcome(uint64_t size, Move::Op* op, bool* made, MoveCause* cause,
                              bool* started = nullptr) {
  *op = Move::Op(size & 3);
  *made = (size & 4) != 0;
  *cause = MoveCause((size >> 3) & 3);
  if (started) *started = (size & 32) != 0;
}

struct TraceRecord {
  uint64_t time_ns = 0;  // issue time, from the start of the trace
  uint32_t stream = 0;   // issuing thread or workload
  uint64_t file_id = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  IoType type = IoType::kUserRead;
  TracePriority priority = TracePriority::kUnknown;
  FileKind kind = FileKind::kOther;
  int level = -1;          // -1 unknown
  int tier = -1;           // -1 unknown
  uint64_t latency_ns = 0; // 0 unknown
  TraceEvent event = TraceEvent::kNone;  // an event, not an I/O: type is meaningless

  bool is_io() const { return event == TraceEvent::kNone; }
  // The store's state as the capture began (held, start): no I/O, no
  // decision, before any other record.
  bool is_start_state() const {
    return event == TraceEvent::kHeld || event == TraceEvent::kStart;
  }
  bool is_write() const { return is_io() && type == IoType::kWrite; }
  bool operator==(const TraceRecord& o) const;
};

// An event record (its time and stream left to the writer).
TraceRecord MakeEvent(TraceEvent event, uint64_t file_id, FileKind kind, uint64_t offset,
                      uint64_t size, int tier);

struct TraceTier {
  uint64_t capacity = 0;
  std::string device;  // device model name, "none" for a real device
  std::string path;
};

struct TraceHeader {
  // Version 2 added events, version 3 the `held` and `start` events (and the
  // code byte they need); traces of versions 1 (I/O only) and 2 still read.
  static constexpr uint32_t kVersion = 3;
  uint32_t version = kVersion;
  uint64_t segment_size = 0;
  uint64_t start_unix_ns = 0;
  std::vector<TraceTier> tiers;
  std::string source;
};

// Appends encoded records to a buffer. Not thread-safe.
class TraceEncoder {
 public:
  // The encoded header.
  static std::string EncodeHeader(const TraceHeader& header);
  // Appends one record to *out. Records must come in time order: a time
  // earlier than the previous record's is recorded as equal to it.
  void Append(const TraceRecord& r, std::string* out);

 private:
  uint64_t last_time_ = 0;
};

// Decodes a whole trace held in memory, or streams one from a file.
class TraceReader {
 public:
  // Opens `path` and reads its header. False and *error (naming the file and
  // what is wrong) on a missing file, a bad magic, version or header CRC.
  bool Open(const std::string& path, std::string* error);
  // The same from bytes in memory (tests).
  bool OpenBuffer(std::string bytes, std::string* error);
  ~TraceReader();

  const TraceHeader& header() const { return header_; }
  // The next record; false at the end. An incomplete last record ends the
  // trace and sets truncated(); a malformed record sets *error.
  bool Next(TraceRecord* r, std::string* error);
  bool truncated() const { return truncated_; }
  uint64_t records() const { return records_; }

 private:
  bool Fill(size_t need);
  bool ReadHeader(std::string* error);

  std::string name_;
  FILE* file_ = nullptr;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool truncated_ = false;
  uint64_t records_ = 0;
  uint64_t last_time_ = 0;
  TraceHeader header_;
};

// Writes a trace file: header at Open, records buffered. Not thread-safe.
class TraceWriter {
 public:
  ~TraceWriter();  // closes (errors are lost: call Close to see them)
  bool Open(const std::string& path, const TraceHeader& header, std::string* error);
  bool Append(const TraceRecord& r, std::string* error);
  // Flushes and closes; false and *error if any write failed.
  bool Close(std::string* error);

 private:
  bool Flush(std::string* error);

  std::string path_;
  FILE* file_ = nullptr;
  TraceEncoder encoder_;
  std::string buf_;
  bool failed_ = false;
};

// Reads a whole trace into memory. False and *error on any error (a
// truncated tail is not an error: *truncated says so if given).
bool ReadTrace(const std::string& path, TraceHeader* header, std::vector<TraceRecord>* records,
               std::string* error, bool* truncated = nullptr);

}  // namespace tierfs
