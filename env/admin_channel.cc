// The admin channel (admin_channel.h): the store's server (reading, checking,
// running and answering request files), and the tool's side (sending a
// request, waiting for the manual moves it queued). The messages and their
// wire format are admin_protocol.h's.
#include "env/admin_channel.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <thread>
#include <variant>

#include "env/admin_access.h"
#include "env/admin_ops.h"
#include "env/info_log.h"
#include "env/migrator.h"
#include "env/store.h"
#include "util/thread_name.h"

namespace tierfs {

using rocksdb::Status;

namespace {

constexpr char kRequestPrefix[] = "REQ-";
constexpr char kResponsePrefix[] = "RESP-";

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

namespace {

// Runs one typed request on the store; one overload per request struct.
struct Runner {
  Store* store;
  bool wait;
  const MovesProgressFn& progress;
  Status operator()(const DataOpRequest& r) const {
    return DataOpOn(store, r.op, r.path, r.tier, r.first, r.last, wait, progress);
  }
  Status operator()(const PinRequest& r) const {
    return PinOn(store, r.path, r.column_family, r.tier, progress);
  }
  Status operator()(const UnpinRequest& r) const {
    return PinOn(store, r.path, r.column_family, -1, progress);
  }
  Status operator()(const HintRequest& r) const {
    return AccessHintOn(store, r.path, r.column_family, r.hint);
  }
  // Every answer carries what these ask for.
  Status operator()(const QueueRequest&) const { return Status::OK(); }
  Status operator()(const ErrorsRequest&) const { return Status::OK(); }
  Status operator()(const StatsRequest&) const { return Status::OK(); }
};

}  // namespace

AdminResponse RunAdminRequest(Store* store, const AdminRequest& r, bool wait,
                              const MovesProgressFn& progress) {
  const Status s = std::visit(Runner{store, wait, progress}, r);
  // Only the data operations and pins queue moves; the rest is done now.
  const bool queues = std::holds_alternative<DataOpRequest>(r) ||
                      std::holds_alternative<PinRequest>(r) ||
                      std::holds_alternative<UnpinRequest>(r);
  AdminResponse resp;
  resp.ok = s.ok();
  resp.message = s.ok() ? (wait || !queues ? "done" : "queued") : s.ToString();
  MigrationInfoOf(store, &resp.migration);
  resp.errors = store->errors();
  if (std::holds_alternative<StatsRequest>(r)) {
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
    Status ps = DecodeAdminRequest(text, &request);
    const Status refusal = ps.ok() ? CheckRequestPath(store, PathOf(request)) : Status::OK();
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
    Status ws = WriteAtomically(fs, dir + "/" + kResponsePrefix + name.substr(n),
                                EncodeAdminResponse(resp));
    if (!ws.ok()) store->ReportError(StoreError::kAdminChannel, "answering " + name, ws);
    ws = fs->DeleteFile(dir + "/" + name, rocksdb::IOOptions(), nullptr);
    if (!ws.ok() && !ws.IsNotFound() && !ws.IsPathNotFound()) {  // not withdrawn meanwhile
      store->ReportError(StoreError::kAdminChannel, "removing " + name, ws);
    }
  }
}

AdminServer::AdminServer(Store* store) : store_(store), thread_([this] { Run(); }) {
  NameThread(thread_, "tierfs-admin");
}

AdminServer::~AdminServer() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  thread_.join();
}

void AdminServer::Run() {
  MutexLock lock(&mu_);
  while (!stop_) {
    lock.Unlock();
    ServeAdminRequests(store_, &dir_problem_);
    lock.Lock();
    cv_.WaitFor(&mu_, std::chrono::milliseconds(kPollMillis), [&] {
      mu_.AssertHeld();
      return stop_;
    });
  }
}

Status SendAdminRequest(const std::string& meta_dir, const AdminRequest& request,
                        AdminResponse* response, int timeout_ms) {
  return SendAdminRequestText(meta_dir, EncodeAdminRequest(request), response, timeout_ms);
}

Status SendAdminRequestText(const std::string& meta_dir, const std::string& request,
                            AdminResponse* response, int timeout_ms) {
  auto fs = rocksdb::FileSystem::Default();
  const std::string dir = meta_dir + "/admin";
  static std::atomic<int> counter{0};
  const std::string id = std::to_string(getpid()) + "-" + std::to_string(counter++) + ".json";
  Status s = OpenAdminDirForClient(dir);
  if (s.ok()) s = WritePrivateFile(dir + "/" + kRequestPrefix + id, request);
  if (!s.ok()) return s;
  const std::string answer = dir + "/" + kResponsePrefix + id;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string text;
    if (rocksdb::ReadFileToString(fs.get(), answer, &text).ok()) {
      // The answer is read. A copy left behind is never read again, but
      // stays in admin/: said in the store's LOG (this process has no store
      // of its own to count it; it appends, as a read-only store does).
      Status ds = fs->DeleteFile(answer, rocksdb::IOOptions(), nullptr);
      if (!ds.ok()) {
        InfoLog(meta_dir + "/LOG", /*may_rotate=*/false)
            .Log("admin client (process %d): removing the answer read, %s: %s", int(getpid()),
                 answer.c_str(), ds.ToString().c_str());
      }
      Status ps = DecodeAdminResponse(text, response);
      if (!ps.ok()) {
        return Status::Corruption("malformed admin response " + answer + ": " + ps.ToString());
      }
      return Status::OK();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Nobody answered: withdraw the request so a later process does not run it
  // (if it is already gone, a process took it as we gave up: nothing to do).
  // One that could not be withdrawn may still run: the caller is told.
  const std::string request_path = dir + "/" + kRequestPrefix + id;
  Status ws = fs->DeleteFile(request_path, rocksdb::IOOptions(), nullptr);
  const std::string left =
      ws.ok() || ws.IsNotFound() || ws.IsPathNotFound()
          ? ""
          : "; the request could not be withdrawn and may still run (" + request_path + ": " +
                ws.ToString() + ")";
  return Status::TimedOut("no answer from the process that has the TierFS store open (" +
                          meta_dir + "; is its migration on?)" + left);
}

rocksdb::Status WaitForQueuedManualMoves(
    const std::string& meta_dir, int poll_ms, int timeout_ms,
    const std::function<void(const ManualMovesProgress&)>& progress) {
  const AdminRequest req = QueueRequest();
  const auto start = std::chrono::steady_clock::now();
  ManualMovesProgress p;
  uint64_t bytes_at_start = 0;
  for (bool first = true;; first = false) {
    AdminResponse resp;
    Status s = SendAdminRequest(meta_dir, req, &resp, timeout_ms);
    if (!s.ok()) return s;
    const MigrationInfo& m = resp.migration;
    p.left = (m.running && m.running->manual ? 1 : 0) + QueuedManualMoves(m);
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
