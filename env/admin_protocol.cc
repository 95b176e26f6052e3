// The admin channel's wire format (admin_protocol.h): the request and answer
// structs to JSON text and back. Both ends of the channel call these.
//
// Request, REQ-<pid>-<n>.json, a JSON object (version 2):
//
//   +---------------+-------------------------------------------------------------------+
//   | field         | meaning                                                           |
//   +---------------+-------------------------------------------------------------------+
//   | v             | integer, kAdminProtocolVersion (2); required                      |
//   | op            | string, an AdminOpName; required                                  |
//   | path          | string, a logical file path, absolute and normalized              |
//   | column_family | string, a column family's name (instead of a path)                |
//   | tier          | integer 0..2^31-1, or -1 (none)                                   |
//   | first, last   | integers 0..2^64-1, the segment range, inclusive                  |
//   | hint          | string, an AccessHintName: none, hot, cold, write-intensive,      |
//   |               | read-intensive, archival                                          |
//   +---------------+-------------------------------------------------------------------+
//
//   op                              fields it takes besides v and op (others: refused)
//   ------------------------------  -------------------------------------------------
//   migrate, replicate, prefetch    path, tier, first, last            (DataOpRequest)
//   drop-copy                       path, first, last                  (DataOpRequest)
//   pin                             path | column_family, tier         (PinRequest)
//   unpin                           path | column_family               (UnpinRequest)
//   hint                            path | column_family, hint         (HintRequest)
//   queue, errors, stats            none
//
// A field left out has the struct's default (tier -1, first 0, last 2^64-1,
// path and column family ""); the encoder writes every field the op takes.
//
// Answer, RESP-<pid>-<n>.json, a JSON object (version 2), to every request:
//
//   field             type                       meaning
//   ----------------  -------------------------  ----------------------------------------
//   v                 integer                    kAdminProtocolVersion; required
//   ok                bool                       the request was carried out (or queued)
//   message           string                     "done", "queued", or why not
//   migration         object: enabled (bool),    MigrationInfo: the migration engine's
//                     queue (moves), running     queue, the move running and its
//                     (a move, or absent), done, counters
//                     bytes, skipped, given_up,
//                     waits (integers)
//   a move            object: manual (bool), op  MoveInfo
//                     (a DataOpName), file,
//                     segment, to (integers)
//   errors            object: name -> integer    the store's error counters (store_errors.h)
//   tiers             array of objects           stats only: TierStatsToJsonLossless
//   sampled_ns        integer                    stats only: steady clock, ns
//   copies_in_flight  integer                    stats only: REPLICATE/PREFETCH moves queued
//                                                or running
//
// Unknown fields are refused in the answer and in its "migration" object too.
#include "env/admin_protocol.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <variant>

#include <nlohmann/json.hpp>

#include "core/json_number.h"
#include "env/tier_stats_json.h"

namespace tierfs {

using nlohmann::json;
using rocksdb::Status;

namespace {

constexpr AdminOp kAllOps[] = {AdminOp::kMigrate, AdminOp::kReplicate, AdminOp::kPrefetch,
                               AdminOp::kDropCopy, AdminOp::kPin,       AdminOp::kUnpin,
                               AdminOp::kHint,     AdminOp::kQueue,     AdminOp::kErrors,
                               AdminOp::kStats};

// The fields `op` takes besides "v" and "op": the table above.
std::vector<const char*> FieldsOf(AdminOp op) {
  switch (op) {
    case AdminOp::kMigrate:
    case AdminOp::kReplicate:
    case AdminOp::kPrefetch:
      return {"path", "tier", "first", "last"};
    case AdminOp::kDropCopy:
      return {"path", "first", "last"};
    case AdminOp::kPin:
      return {"path", "column_family", "tier"};
    case AdminOp::kUnpin:
      return {"path", "column_family"};
    case AdminOp::kHint:
      return {"path", "column_family", "hint"};
    case AdminOp::kQueue:
    case AdminOp::kErrors:
    case AdminOp::kStats:
      return {};
  }
  return {};
}

std::string Join(const std::vector<const char*>& names) {
  std::string s;
  for (const char* n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s.empty() ? "none" : s;
}

// Refuses a key of `object` that is not "v", not `also` (if given) and not
// in `allowed`, naming it, `what` the object is and the fields it takes.
void RefuseUnknownFields(const json& object, const std::vector<const char*>& allowed,
                         const std::string& what, const char* also = nullptr) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it.key() == "v" || (also && it.key() == also)) continue;
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const char* a) { return it.key() == a; })) {
      throw std::invalid_argument("unknown field \"" + it.key() + "\" in " + what +
                                  " (it takes: " + Join(allowed) + ")");
    }
  }
}

// Refuses a message without "v", or of another version.
void CheckVersion(const json& j) {
  auto it = j.find("v");
  if (it == j.end()) {
    throw std::invalid_argument("no \"v\" (the admin protocol's version; this TierFS reads " +
                                std::to_string(kAdminProtocolVersion) + ")");
  }
  const int64_t v = JsonNumber<int64_t>(j, "v", 0);
  if (v != kAdminProtocolVersion) {
    throw std::invalid_argument("admin protocol version " + std::to_string(v) +
                                ", this TierFS reads version " +
                                std::to_string(kAdminProtocolVersion) +
                                " (use the tierfs tool of the store's build)");
  }
}

// object[key] as a string, "" if absent; throws std::invalid_argument naming
// the key if it is not a string.
std::string String(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return "";
  if (!it->is_string()) {
    throw std::invalid_argument(std::string("\"") + key + "\": expected a string, got " +
                                it->dump());
  }
  return it->get<std::string>();
}

bool Bool(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return false;
  if (!it->is_boolean()) {
    throw std::invalid_argument(std::string("\"") + key + "\": expected true or false, got " +
                                it->dump());
  }
  return it->get<bool>();
}

// The request's fields into `j`, one overload per request struct.
struct Encoder {
  json& j;
  void operator()(const DataOpRequest& r) const {
    j["path"] = r.path;
    if (r.op != DataOp::kDropCopy) j["tier"] = r.tier;
    j["first"] = r.first;
    j["last"] = r.last;
  }
  void operator()(const PinRequest& r) const {
    j["path"] = r.path;
    j["column_family"] = r.column_family;
    j["tier"] = r.tier;
  }
  void operator()(const UnpinRequest& r) const {
    j["path"] = r.path;
    j["column_family"] = r.column_family;
  }
  void operator()(const HintRequest& r) const {
    j["path"] = r.path;
    j["column_family"] = r.column_family;
    j["hint"] = AccessHintName(r.hint);
  }
  void operator()(const QueueRequest&) const {}
  void operator()(const ErrorsRequest&) const {}
  void operator()(const StatsRequest&) const {}
};

// The typed request of `op` from `j`, whose fields are known to be the op's.
AdminRequest DecodeFields(AdminOp op, const json& j) {
  switch (op) {
    case AdminOp::kMigrate:
    case AdminOp::kReplicate:
    case AdminOp::kPrefetch:
    case AdminOp::kDropCopy: {
      DataOpRequest r;
      r.op = op == AdminOp::kMigrate     ? DataOp::kMigrate
             : op == AdminOp::kReplicate ? DataOp::kReplicate
             : op == AdminOp::kPrefetch  ? DataOp::kPrefetch
                                         : DataOp::kDropCopy;
      r.path = String(j, "path");
      r.tier = JsonNumber<int>(j, "tier", -1);
      r.first = JsonNumber<uint64_t>(j, "first", 0);
      r.last = JsonNumber<uint64_t>(j, "last", ~uint64_t(0));
      return r;
    }
    case AdminOp::kPin: {
      PinRequest r;
      r.path = String(j, "path");
      r.column_family = String(j, "column_family");
      r.tier = JsonNumber<int>(j, "tier", -1);
      return r;
    }
    case AdminOp::kUnpin: {
      UnpinRequest r;
      r.path = String(j, "path");
      r.column_family = String(j, "column_family");
      return r;
    }
    case AdminOp::kHint: {
      HintRequest r;
      r.path = String(j, "path");
      r.column_family = String(j, "column_family");
      const std::string name = String(j, "hint");
      if (!ParseAccessHint(name, &r.hint)) {
        throw std::invalid_argument("unknown access hint '" + name +
                                    "' (known: hot, cold, write-intensive, read-intensive, "
                                    "archival, none)");
      }
      return r;
    }
    case AdminOp::kQueue:
      return QueueRequest();
    case AdminOp::kErrors:
      return ErrorsRequest();
    case AdminOp::kStats:
      return StatsRequest();
  }
  return QueueRequest();
}

const std::vector<const char*> kResponseFields = {
    "ok", "message", "migration", "errors", "tiers", "sampled_ns", "copies_in_flight"};
const std::vector<const char*> kMigrationFields = {
    "enabled", "queue", "running", "done", "bytes", "skipped", "given_up", "waits"};
const std::vector<const char*> kMoveFields = {"manual", "op", "file", "segment", "to"};

MoveInfo MoveFromJson(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("a move: expected an object, got " + j.dump());
  RefuseUnknownFields(j, kMoveFields, "a move");
  MoveInfo m;
  m.manual = Bool(j, "manual");
  const std::string op = String(j, "op");
  if (!ParseDataOp(op, &m.op)) throw std::invalid_argument("a move: unknown op \"" + op + "\"");
  m.file_id = JsonNumber<uint64_t>(j, "file", 0);
  m.segment = JsonNumber<uint64_t>(j, "segment", 0);
  m.to = JsonNumber<int>(j, "to", 0);
  return m;
}

}  // namespace

const char* AdminOpName(AdminOp op) {
  switch (op) {
    case AdminOp::kMigrate: return DataOpName(DataOp::kMigrate);
    case AdminOp::kReplicate: return DataOpName(DataOp::kReplicate);
    case AdminOp::kPrefetch: return DataOpName(DataOp::kPrefetch);
    case AdminOp::kDropCopy: return DataOpName(DataOp::kDropCopy);
    case AdminOp::kPin: return "pin";
    case AdminOp::kUnpin: return "unpin";
    case AdminOp::kHint: return "hint";
    case AdminOp::kQueue: return "queue";
    case AdminOp::kErrors: return "errors";
    case AdminOp::kStats: return "stats";
  }
  return "unknown";
}

AdminOp OpOf(const AdminRequest& request) {
  struct Op {
    AdminOp operator()(const DataOpRequest& r) const {
      switch (r.op) {
        case DataOp::kMigrate: return AdminOp::kMigrate;
        case DataOp::kReplicate: return AdminOp::kReplicate;
        case DataOp::kPrefetch: return AdminOp::kPrefetch;
        case DataOp::kDropCopy: return AdminOp::kDropCopy;
      }
      return AdminOp::kMigrate;
    }
    AdminOp operator()(const PinRequest&) const { return AdminOp::kPin; }
    AdminOp operator()(const UnpinRequest&) const { return AdminOp::kUnpin; }
    AdminOp operator()(const HintRequest&) const { return AdminOp::kHint; }
    AdminOp operator()(const QueueRequest&) const { return AdminOp::kQueue; }
    AdminOp operator()(const ErrorsRequest&) const { return AdminOp::kErrors; }
    AdminOp operator()(const StatsRequest&) const { return AdminOp::kStats; }
  };
  return std::visit(Op(), request);
}

const std::string& PathOf(const AdminRequest& request) {
  static const std::string kNone;
  if (auto* r = std::get_if<DataOpRequest>(&request)) return r->path;
  if (auto* r = std::get_if<PinRequest>(&request)) return r->path;
  if (auto* r = std::get_if<UnpinRequest>(&request)) return r->path;
  if (auto* r = std::get_if<HintRequest>(&request)) return r->path;
  return kNone;
}

std::string EncodeAdminRequest(const AdminRequest& request) {
  json j{{"v", kAdminProtocolVersion}, {"op", AdminOpName(OpOf(request))}};
  std::visit(Encoder{j}, request);
  return j.dump();
}

Status DecodeAdminRequest(const std::string& text, AdminRequest* request) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  try {
    CheckVersion(j);
    auto it = j.find("op");
    if (it == j.end()) return Status::InvalidArgument("no \"op\" (the operation)");
    if (!it->is_string()) {
      return Status::InvalidArgument("\"op\": expected a string, got " + it->dump());
    }
    const std::string name = it->get<std::string>();
    const AdminOp* op = std::find_if(std::begin(kAllOps), std::end(kAllOps),
                                     [&](AdminOp o) { return name == AdminOpName(o); });
    if (op == std::end(kAllOps)) {
      std::string known;
      for (AdminOp o : kAllOps) known += (known.empty() ? "" : ", ") + std::string(AdminOpName(o));
      return Status::InvalidArgument("unknown admin op '" + name + "' (known: " + known + ")");
    }
    RefuseUnknownFields(j, FieldsOf(*op), std::string("a \"") + name + "\" request", "op");
    *request = DecodeFields(*op, j);
  } catch (const std::exception& e) {  // a value of the wrong type or range
    return Status::InvalidArgument(e.what());
  }
  return Status::OK();
}

json MoveToJson(const MoveInfo& m) {
  return json{{"manual", m.manual}, {"op", DataOpName(m.op)}, {"file", m.file_id},
              {"segment", m.segment}, {"to", m.to}};
}

std::string EncodeAdminResponse(const AdminResponse& r) {
  const MigrationInfo& m = r.migration;
  json queue = json::array();
  for (const MoveInfo& q : m.queue) queue.push_back(MoveToJson(q));
  json migration{{"enabled", m.enabled}, {"queue", queue}, {"done", m.done},
                 {"bytes", m.bytes}, {"skipped", m.skipped}, {"given_up", m.given_up},
                 {"waits", m.waits}};
  if (m.running) migration["running"] = MoveToJson(*m.running);
  json j{{"v", kAdminProtocolVersion}, {"ok", r.ok}, {"message", r.message},
         {"migration", migration}, {"errors", StoreErrorsToJson(r.errors)}};
  if (!r.tiers.empty()) {
    j["tiers"] = TierStatsToJsonLossless(r.tiers);
    j["sampled_ns"] = r.sampled_ns;
    j["copies_in_flight"] = r.copies_in_flight;
  }
  // Paths and messages are bytes: invalid UTF-8 is replaced, not thrown on.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status DecodeAdminResponse(const std::string& text, AdminResponse* response) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Corruption("not a JSON object");
  AdminResponse r;
  try {
    CheckVersion(j);
    RefuseUnknownFields(j, kResponseFields, "an admin answer");
    r.ok = Bool(j, "ok");
    r.message = String(j, "message");
    r.errors = StoreErrorsFromJson(j.value("errors", json::object()));
    auto m = j.find("migration");
    if (m != j.end()) {
      if (!m->is_object()) {
        throw std::invalid_argument("\"migration\": expected an object, got " + m->dump());
      }
      RefuseUnknownFields(*m, kMigrationFields, "an admin answer's \"migration\"");
      r.migration.enabled = Bool(*m, "enabled");
      auto queue = m->find("queue");
      if (queue != m->end()) {
        if (!queue->is_array()) {
          throw std::invalid_argument("\"queue\": expected an array, got " + queue->dump());
        }
        for (const json& q : *queue) r.migration.queue.push_back(MoveFromJson(q));
      }
      if (m->contains("running")) r.migration.running = MoveFromJson((*m)["running"]);
      r.migration.done = JsonNumber<uint64_t>(*m, "done", 0);
      r.migration.bytes = JsonNumber<uint64_t>(*m, "bytes", 0);
      r.migration.skipped = JsonNumber<uint64_t>(*m, "skipped", 0);
      r.migration.given_up = JsonNumber<uint64_t>(*m, "given_up", 0);
      r.migration.waits = JsonNumber<uint64_t>(*m, "waits", 0);
    }
    if (j.contains("tiers")) r.tiers = TierStatsFromJsonLossless(j["tiers"]);
    r.sampled_ns = JsonNumber<int64_t>(j, "sampled_ns", 0);
    r.copies_in_flight = JsonNumber<uint64_t>(j, "copies_in_flight", 0);
  } catch (const std::exception& e) {  // a value of the wrong type or range
    return Status::Corruption(e.what());
  }
  *response = r;
  return Status::OK();
}

}  // namespace tierfs
