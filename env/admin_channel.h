// The admin channel: how `tierfs move|pin|queue|...` reaches the process that
// has a store open (db_bench, an application). Who may use it:
// env/admin_access.h.
//
// Files, not sockets: the tool writes a request, <tier0>/meta/admin/
// REQ-<pid>-<n>.json (written as .tmp, then renamed), and waits for
// RESP-<pid>-<n>.json; both are the typed messages of env/admin_protocol.h,
// whose wire format is defined there. The store's admin server, a thread of
// its own (so the channel works whether migration is on or off), looks for
// requests every 100 ms, runs each (moves are queued for the migration
// thread, or run in the server's thread when migration is off), answers and
// removes the request. A file channel needs no port or socket path, works
// wherever the tier directory is shared, and leaves a trace when something
// goes wrong.
#pragma once

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/status.h>

#include "env/admin_ops.h"
#include "env/admin_protocol.h"
#include "util/mutex.h"

namespace tierfs {

class Store;

// Runs `request` on `store`. With `wait`, data operations run now in this
// thread (the tool on a store no process has open); without, they are queued
// for the migration thread. `progress` (may be empty) follows the moves run
// in this thread (env/admin_ops.h).
AdminResponse RunAdminRequest(Store* store, const AdminRequest& request, bool wait,
                              const MovesProgressFn& progress = nullptr);

// Server: answers the requests waiting in the store's admin directory, under
// the access rules of env/admin_access.h: a directory that is not private to
// the store's owner is not served, a request file of another user's or open
// to others is refused and removed unanswered, a request naming a path
// outside the store's namespace is answered "refused"; each refusal is
// logged and counted (StoreError::kAdminChannel). `dir_problem` keeps the
// directory's problem between calls, so that it is logged once.
void ServeAdminRequests(Store* store, std::string* dir_problem);

// Calls ServeAdminRequests every kPollMillis from a thread of its own, from
// construction until destruction (which stops and joins it). A store opened
// for writing has one.
class AdminServer {
 public:
  static constexpr int kPollMillis = 100;
  explicit AdminServer(Store* store);
  ~AdminServer();

 private:
  void Run() EXCLUDES(mu_);

  Store* const store_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::string dir_problem_;  // the server thread's own (ServeAdminRequests)
  std::thread thread_;
};

// Client: sends `request` (EncodeAdminRequest) to the process that has the
// store with metadata directory `meta_dir` open, and waits up to
// `timeout_ms` for the answer (DecodeAdminResponse: Corruption if it cannot
// be read). TimedOut if none came; the request is then withdrawn.
rocksdb::Status SendAdminRequest(const std::string& meta_dir, const AdminRequest& request,
                                 AdminResponse* response, int timeout_ms);

// Client: SendAdminRequest with the request file's text as given, encoded or
// not: for tests of what the server does with a malformed request.
rocksdb::Status SendAdminRequestText(const std::string& meta_dir, const std::string& text,
                                     AdminResponse* response, int timeout_ms);

// How far the manual moves queued in a running process are (`tierfs move
// --wait`): how many are left (queued, and the one running if it is
// manual), how many there were at the first look, and the bytes the
// migration thread has carried since (manual and planned moves alike).
struct ManualMovesProgress {
  uint64_t left = 0, first = 0;
  uint64_t bytes_moved = 0;
  double seconds = 0;  // since the first look
};

// Client: asks the process that has the store open for its queue every
// `poll_ms` until no manual move is queued or running, calling `progress`
// after each answer. Each answer must come within `timeout_ms`; an error
// (the process went away, a malformed answer) ends the wait with it.
rocksdb::Status WaitForQueuedManualMoves(
    const std::string& meta_dir, int poll_ms, int timeout_ms,
    const std::function<void(const ManualMovesProgress&)>& progress);

}  // namespace tierfs
