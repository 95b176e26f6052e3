// The admin channel's messages (env/admin_channel.h), typed, and their wire
// format: one struct per request, one for every answer, and one encoder and
// one decoder for each direction. The tool (tools/tierfs) encodes requests and
// decodes answers with these; the store's admin server decodes requests and
// encodes answers with the same functions, so the format is defined here
// alone (the table is in admin_protocol.cc, beside the encoder).
//
// A message is a JSON object whose "v" is kAdminProtocolVersion. A request
// names its operation in "op" and carries only that operation's fields. The
// decoders refuse a message of another version, an unknown op, a field the
// op does not take, and a value of the wrong type or out of range, each with
// an error naming it: a request is never half understood.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>
#include <rocksdb/status.h>

#include "env/store_errors.h"
#include "tierfs/hint_types.h"
#include "tierfs/statistics.h"

namespace tierfs {

// The version every message carries in "v". Raised when a field changes
// meaning or a decoder of the previous version would misread a message;
// both ends are the same build of TierFS, so only one version is read.
constexpr int kAdminProtocolVersion = 2;

// The operations a request can name, by their names on the wire ("op").
enum class AdminOp : uint8_t {
  kMigrate = 0,  // DataOpRequest, DataOp::kMigrate
  kReplicate,    // DataOpRequest, DataOp::kReplicate
  kPrefetch,     // DataOpRequest, DataOp::kPrefetch
  kDropCopy,     // DataOpRequest, DataOp::kDropCopy
  kPin,          // PinRequest
  kUnpin,        // UnpinRequest
  kHint,         // HintRequest
  kQueue,        // QueueRequest
  kErrors,       // ErrorsRequest
  kStats,        // StatsRequest
};

// "migrate", "replicate", "prefetch", "drop-copy" (the DataOp names), "pin",
// "unpin", "hint", "queue", "errors", "stats".
const char* AdminOpName(AdminOp op);

// One of HintStor's data operations on segments [first, last] of `path`:
// MIGRATE, REPLICATE or PREFETCH to `tier`, or DROP-COPY (no tier).
struct DataOpRequest {
  DataOp op = DataOp::kMigrate;
  std::string path;  // the logical file path, absolute and normalized
  int tier = -1;     // the destination; -1 for kDropCopy
  uint64_t first = 0, last = ~uint64_t(0);  // the segment range, inclusive
};

// REDIRECT: new data of a file or a column family (one of the two) goes to
// `tier`, and its existing data moves there.
struct PinRequest {
  std::string path;
  std::string column_family;
  int tier = -1;
};

// The policy places the file's (column family's) data again.
struct UnpinRequest {
  std::string path;
  std::string column_family;
};

// An access hint for a file or a column family (one of the two).
struct HintRequest {
  std::string path;
  std::string column_family;
  AccessHint hint = AccessHint::kNone;
};

// The migration queue (every answer carries it; this asks for nothing else).
struct QueueRequest {};
// The store's error counters (every answer carries them).
struct ErrorsRequest {};
// Every tier's statistics, the time they were read and the copies in flight
// (`tierfs watch`).
struct StatsRequest {};

using AdminRequest = std::variant<DataOpRequest, PinRequest, UnpinRequest, HintRequest,
                                  QueueRequest, ErrorsRequest, StatsRequest>;

// The operation `request` asks for.
AdminOp OpOf(const AdminRequest& request);

// The file path `request` acts on; "" if it acts on a column family or on
// the whole store. The server checks it against the store's namespace
// (CheckRequestPath in env/admin_access.h) before running the request.
const std::string& PathOf(const AdminRequest& request);

// The answer to every request.
struct AdminResponse {
  bool ok = false;
  std::string message;  // "done", "queued", or why the request failed
  MigrationInfo migration;
  StoreErrorCounts errors{};  // the store's error counters (Store::errors()), every answer
  // "stats" only (`tierfs watch`): every tier's statistics as the store has
  // them now (GetTierStats: counters over the store's life, gauges now);
  // when they were read, on the steady clock (CLOCK_MONOTONIC, in ns: two
  // answers' difference is the time between them); and how many of the moves
  // queued or running (`migration`) make extra copies (REPLICATE, PREFETCH).
  std::vector<TierStats> tiers;
  int64_t sampled_ns = 0;
  uint64_t copies_in_flight = 0;
};

// A request file's text (what the tool writes).
std::string EncodeAdminRequest(const AdminRequest& request);

// Decodes a request file's text (the store's admin server reads with it).
// InvalidArgument naming what is wrong: not a JSON object, "v" missing or
// not kAdminProtocolVersion, "op" missing or unknown, a field the op does
// not take, a value of the wrong type or range, an unknown access hint. A
// field the op takes but the text leaves out has the default above.
rocksdb::Status DecodeAdminRequest(const std::string& text, AdminRequest* request);

// A response file's text (what the server writes). "tiers", "sampled_ns" and
// "copies_in_flight" are written only when `tiers` is not empty.
std::string EncodeAdminResponse(const AdminResponse& response);

// Decodes a response file's text (the tool reads with it). Corruption naming
// what is wrong, as DecodeAdminRequest's errors do.
rocksdb::Status DecodeAdminResponse(const std::string& text, AdminResponse* response);

// A move as the answers carry it, and as `tierfs queue --json` prints it:
// {"manual", "op" (a DataOpName), "file", "segment", "to"}.
nlohmann::json MoveToJson(const MoveInfo& move);

}  // namespace tierfs
