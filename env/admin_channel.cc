#include "env/admin_channel.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "env/admin_access.h"
#include "env/admin_ops.h"
#include "env/json_number.h"
#include "env/migrator.h"
#include "env/store.h"
#include "env/tier_stats_json.h"

namespace tierfs {

using nlohmann::json;
using rocksdb::Status;

namespace {

constexpr char kRequestPrefix[] = "REQ-";
constexpr char kResponsePrefix[] = "RESP-";

json ToJson(const AdminRequest& r) {
  return json{{"command", r.command}, {"path", r.path}, {"column_family", r.column_family},
              {"hint", r.hint}, {"tier", r.tier}, {"first", r.first}, {"last", r.last}};
}

json ToJson(const AdminResponse& r) {
  const MigrationInfo& m = r.migration;
  json j{{"ok", r.ok}, {"message", r.message},
         {"migration", {{"enabled", m.enabled}, {"queue", m.queue}, {"running", m.running},
                        {"running_manual", m.running_manual}, {"done", m.done},
                        {"bytes", m.bytes}, {"skipped", m.skipped},
                        {"given_up", m.given_up}, {"waits", m.waits}}},
         {"errors", StoreErrorsToJson(r.errors)}};
  if (!r.tiers.empty()) {
    j["tiers"] = TierStatsToJsonLossless(r.tiers);
    j["sampled_ns"] = r.sampled_ns;
    j["copies_in_flight"] = r.copies_in_flight;
  }
  return j;
}

// Writes `text` to `path` atomically (a reader never sees half of it).
Status WriteAtomically(rocksdb::FileSystem* fs, const std::string& path, const std::string& text) {
  Status s = rocksdb::WriteStringToFile(fs, text, path + ".tmp", false);
  if (s.ok()) s = fs->RenameFile(path + ".tmp", path, rocksdb::IOOptions(), nullptr);
  return s;
}

// How many of the moves queued or running make an extra copy (REPLICATE,
// PREFETCH); 0 without a migration thread.
uint64_t CopiesInFlight(Store* store) {
  Migrator* m = store->migrator();
  if (!m) return 0;
  Migrator::Info info = m->GetInfo();
  auto is_copy = [](const Move& mv) {
    return mv.op == Move::kReplicate || mv.op == Move::kPrefetch;
  };
  uint64_t n = info.running && is_copy(info.current) ? 1 : 0;
  for (const auto* q : {&info.manual, &info.planned}) {
    for (const Move& mv : *q) n += is_copy(mv) ? 1 : 0;
  }
  return n;
}

}  // namespace

Status ParseAdminRequest(const std::string& text, AdminRequest* request) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::InvalidArgument("not a JSON object");
  AdminRequest r;
  try {
    r.command = j.value("command", "");
    r.path = j.value("path", "");
    r.column_family = j.value("column_family", "");
    r.hint = j.value("hint", "");
    r.tier = JsonNumber<int>(j, "tier", -1);
    r.first = JsonNumber<uint64_t>(j, "first", 0);
    r.last = JsonNumber<uint64_t>(j, "last", ~uint64_t(0));
  } catch (const std::exception& e) {  // a value of the wrong type
    return Status::InvalidArgument(e.what());
  }
  *request = r;
  return Status::OK();
}

Status ParseAdminResponse(const std::string& text, AdminResponse* response) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Corruption("not a JSON object");
  AdminResponse r;
  try {
    r.ok = j.value("ok", false);
    r.message = j.value("message", "");
    r.errors = StoreErrorsFromJson(j.value("errors", json::object()));
    const json m = j.value("migration", json::object());
    if (m.is_object()) {
      r.migration.enabled = m.value("enabled", false);
      r.migration.queue = m.value("queue", std::vector<std::string>());
      r.migration.running = m.value("running", "");
      r.migration.running_manual = m.value("running_manual", false);
      r.migration.done = JsonNumber<uint64_t>(m, "done", 0);
      r.migration.bytes = JsonNumber<uint64_t>(m, "bytes", 0);
      r.migration.skipped = JsonNumber<uint64_t>(m, "skipped", 0);
      r.migration.given_up = JsonNumber<uint64_t>(m, "given_up", 0);
      r.migration.waits = JsonNumber<uint64_t>(m, "waits", 0);
    }
    if (j.contains("tiers")) r.tiers = TierStatsFromJsonLossless(j["tiers"]);
    r.sampled_ns = JsonNumber<int64_t>(j, "sampled_ns", 0);
    r.copies_in_flight = JsonNumber<uint64_t>(j, "copies_in_flight", 0);
  } catch (const std::exception& e) {  // a value of the wrong type
    return Status::Corruption(e.what());
  }
  *response = r;
  return Status::OK();
}

AdminResponse RunAdminRequest(Store* store, const AdminRequest& r, bool wait) {
  Status s;
  const std::string& c = r.command;
  DataOp op;
  AccessHint hint;
  if (ParseDataOp(c, &op)) {
    s = DataOpOn(store, op, r.path, r.tier, r.first, r.last, wait);
  } else if (c == "pin" || c == "unpin") {
    s = PinOn(store, r.path, r.column_family, c == "pin" ? r.tier : -1);
  } else if (c == "hint" && !ParseAccessHint(r.hint, &hint)) {
    s = Status::InvalidArgument("unknown access hint '" + r.hint +
                                "' (known: hot, cold, write-intensive, read-intensive, "
                                "archival, none)");
  } else if (c == "hint") {
    s = AccessHintOn(store, r.path, r.column_family, hint);
  } else if (c != "queue" && c != "errors" && c != "stats") {
    s = Status::InvalidArgument("unknown admin command '" + c + "'");
  }
  AdminResponse resp;
  resp.ok = s.ok();
  resp.message =
      s.ok() ? (wait || c == "queue" || c == "errors" || c == "hint" || c == "stats" ? "done"
                                                                                   : "queued")
             : s.ToString();
  MigrationInfoOf(store, &resp.migration);
  resp.errors = store->errors();
  if (c == "stats") {
    store->GetStats(&resp.tiers);
    resp.sampled_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
    resp.copies_in_flight = CopiesInFlight(store);
  }
  return resp;
}

void ServeAdminRequests(Store* store, std::string* dir_problem) {
  rocksdb::FileSystem* fs = store->base();
  const std::string dir = store->meta_dir() + "/admin";
  Status ds = PrepareAdminDir(dir);
  if (!ds.ok()) {
    // Logged when it starts or changes, not at every poll.
    if (ds.ToString() != *dir_problem) {
      store->ReportError(StoreError::kAdminChannel, "admin channel not served", ds);
    }
    *dir_problem = ds.ToString();
    return;
  }
  dir_problem->clear();
  std::vector<std::string> names;
  if (!fs->GetChildren(dir, rocksdb::IOOptions(), &names, nullptr).ok()) return;
  for (const std::string& name : names) {
    const size_t n = sizeof(kRequestPrefix) - 1;
    if (name.compare(0, n, kRequestPrefix) != 0 || name.size() < 5 ||
        name.compare(name.size() - 5, 5, ".json") != 0) {
      continue;
    }
    std::string text;
    AdminResponse resp;
    Status rs = ReadRequestFile(dir + "/" + name, &text);
    if (rs.IsInvalidArgument()) {
      // Another user's, or open to others (admin_access.h): not run, not
      // answered (its writer could not read the answer), removed so that it
      // is refused once.
      store->ReportError(StoreError::kAdminChannel, "admin request " + name, rs);
      if (unlink((dir + "/" + name).c_str()) != 0 && errno != ENOENT) {
        store->ReportError(StoreError::kAdminChannel, "removing refused " + name,
                           Status::IOError(strerror(errno)));
      }
      continue;
    }
    // Not an error of the store's: a request that cannot be read now is
    // tried again at the next poll, and the tool withdraws it at its timeout.
    if (!rs.ok()) continue;
    AdminRequest request;
    Status ps = ParseAdminRequest(text, &request);
    const Status refusal = ps.ok() ? CheckRequestPath(store, request.path) : Status::OK();
    if (!ps.ok()) {
      resp.message = "malformed admin request " + name + ": " + ps.ToString();
    } else if (!refusal.ok()) {
      resp.message = "admin request " + name + ": " + refusal.ToString();
      store->ReportError(StoreError::kAdminChannel, "admin request " + name, refusal);
    } else {
      try {
        // Without a migration thread, data operations run here and now.
        resp = RunAdminRequest(store, request, /*wait=*/store->migrator() == nullptr);
      } catch (const std::exception& e) {
        resp.message = std::string("admin request ") + name + ": " + e.what();
      }
    }
    // The tool that asked waits for an answer that will not come (it times
    // out); a request that stays would run again at every poll.
    Status ws = WriteAtomically(fs, dir + "/" + kResponsePrefix + name.substr(n), ToJson(resp).dump());
    if (!ws.ok()) store->ReportError(StoreError::kAdminChannel, "answering " + name, ws);
    ws = fs->DeleteFile(dir + "/" + name, rocksdb::IOOptions(), nullptr);
    if (!ws.ok() && !ws.IsNotFound() && !ws.IsPathNotFound()) {  // not withdrawn meanwhile
      store->ReportError(StoreError::kAdminChannel, "removing " + name, ws);
    }
  }
}

AdminServer::AdminServer(Store* store) : store_(store), thread_([this] { Run(); }) {}

AdminServer::~AdminServer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void AdminServer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    ServeAdminRequests(store_, &dir_problem_);
    lock.lock();
    cv_.wait_for(lock, std::chrono::milliseconds(kPollMillis), [&] { return stop_; });
  }
}

Status SendAdminRequest(const std::string& meta_dir, const AdminRequest& request,
                        AdminResponse* response, int timeout_ms) {
  auto fs = rocksdb::FileSystem::Default();
  const std::string dir = meta_dir + "/admin";
  static std::atomic<int> counter{0};
  const std::string id = std::to_string(getpid()) + "-" + std::to_string(counter++) + ".json";
  Status s = OpenAdminDirForClient(dir);
  if (s.ok()) s = WritePrivateFile(dir + "/" + kRequestPrefix + id, ToJson(request).dump());
  if (!s.ok()) return s;
  const std::string answer = dir + "/" + kResponsePrefix + id;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string text;
    if (rocksdb::ReadFileToString(fs.get(), answer, &text).ok()) {
      // The answer is read: a copy left behind is never read again.
      fs->DeleteFile(answer, rocksdb::IOOptions(), nullptr).PermitUncheckedError();
      Status ps = ParseAdminResponse(text, response);
      if (!ps.ok()) {
        return Status::Corruption("malformed admin response " + answer + ": " + ps.ToString());
      }
      return Status::OK();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Nobody answered: withdraw the request so a later process does not run it
  // (if it is already gone, a process took it as we gave up: nothing to do).
  fs->DeleteFile(dir + "/" + kRequestPrefix + id, rocksdb::IOOptions(), nullptr)
      .PermitUncheckedError();
  return Status::TimedOut("no answer from the process that has the TierFS store open (" +
                          meta_dir + "; is its migration on?)");
}

rocksdb::Status WaitForQueuedManualMoves(
    const std::string& meta_dir, int poll_ms, int timeout_ms,
    const std::function<void(const ManualMovesProgress&)>& progress) {
  AdminRequest req;
  req.command = "queue";
  const auto start = std::chrono::steady_clock::now();
  ManualMovesProgress p;
  uint64_t bytes_at_start = 0;
  for (bool first = true;; first = false) {
    AdminResponse resp;
    Status s = SendAdminRequest(meta_dir, req, &resp, timeout_ms);
    if (!s.ok()) return s;
    const MigrationInfo& m = resp.migration;
    p.left = m.running_manual ? 1 : 0;
    for (const std::string& q : m.queue) p.left += q.rfind("manual ", 0) == 0;
    if (first) {
      p.first = p.left;
      bytes_at_start = m.bytes;
    }
    p.bytes_moved = m.bytes - std::min(m.bytes, bytes_at_start);
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(p);
    if (p.left == 0) return Status::OK();
    if (!m.enabled) {
      return Status::Incomplete("manual moves are queued but the store's migration is off (" +
                                meta_dir + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
  }
}

}  // namespace tierfs
