// The steering commands: move, replicate, prefetch, drop-copy, pin, unpin,
// hint, queue, errors. Each makes its typed request (env/admin_protocol.h)
// from its arguments and sends it to the process that has the store open, through
// the admin channel; if no process has the store open, the tool opens it
// itself and runs the request at once (data operations in this thread).
//
// Every --json answer carries the migration engine's counters and the
// store's error counters (env/store_errors.h).
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "env/admin_channel.h"
#include "env/store_errors.h"
#include "env/tier_fs.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/progress.h"
#include "tools/tierfs/registry.h"
#include "util/size.h"

namespace tierfs {
namespace tool {
namespace {

using nlohmann::json;

// "manual migrate 7:0 -> tier 0": a move as `tierfs queue` lists it.
std::string Describe(const MoveInfo& move) {
  return std::string(move.manual ? "manual " : "planned ") + DescribeMove(move);
}

// Parses a tier number into *tier; false with a message naming it.
bool ParseTier(const std::string& arg, int* tier, std::string* error) {
  char* end = nullptr;
  long t = strtol(arg.c_str(), &end, 10);
  if (arg.empty() || *end != '\0' || t < 0 || t > INT32_MAX) {
    *error = "bad tier '" + arg + "'";
    return false;
  }
  *tier = int(t);
  return true;
}

// Parses --segments (N or A-B) into the request's range; nothing given
// means every segment.
bool ParseSegments(DataOpRequest* req, std::string* error) {
  if (FLAGS_segments.empty()) return true;
  unsigned long long a, b;
  char extra;
  if (sscanf(FLAGS_segments.c_str(), "%llu-%llu%c", &a, &b, &extra) == 2) {
    req->first = a;
    req->last = b;
  } else if (sscanf(FLAGS_segments.c_str(), "%llu%c", &a, &extra) == 1) {
    req->first = req->last = a;
  } else {
    *error = "bad --segments '" + FLAGS_segments + "' (expected N or A-B)";
    return false;
  }
  return true;
}

bool CheckCount(const std::vector<std::string>& args, size_t want, std::string* error) {
  if (args.size() == want) return true;
  *error = "expected " + std::to_string(want) + " argument(s), got " +
           std::to_string(args.size());
  return false;
}

// The request, sent or run here, and its answer printed.
class SteeringCommand : public Command {
 public:
  const char* Group() const override {
    return "steer the store (sent to the process that has it open, or run here)";
  }
  std::vector<FlagUse> Flags() const override {
    std::vector<FlagUse> flags = OwnFlags();
    flags.push_back(
        {"json", "print the answer, the migration counters and the error counters as JSON"});
    flags.push_back({"timeout_ms", "how long to wait for the process that has the store open "
                                   "(default: 5000)"});
    return flags;
  }

  int Run(const Invocation& inv) const override {
    AdminRequest req;
    std::string error;
    if (!Parse(inv.args, &req, &error)) {
      LOG(ERROR) << error;
      return kExitBadUsage;
    }
    Options options = inv.options;
    options.read_only = false;
    options.migration.enabled = false;  // data operations run in this thread
    const std::string log = options.tiers[0].path + "/meta/LOG";
    std::shared_ptr<rocksdb::FileSystem> fs;
    rocksdb::Status s = NewTierFileSystem(options, &fs);
    if (s.ok()) {
      // The moves run here, now: on a terminal, a progress line follows them.
      ProgressLine line(Name());
      const AdminResponse resp =
          RunAdminRequest(StoreOf(fs.get()), req, true, [&](const MovesProgress& p) {
            line.Update(p.done, p.total, "segments", p.bytes);
          });
      line.Finish();
      const int rc = Print(resp, true, log);
      // The moves are durable already; a failed final save (statistics,
      // journal sync) is still worth an error.
      s = Close(fs.get());
      if (!s.ok()) LOG(ERROR) << s.ToString();
      return rc != kExitOk ? rc : s.ok() ? kExitOk : kExitFailed;
    }
    if (s.ToString().find("in use by another process") == std::string::npos) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    AdminResponse resp;
    const std::string meta = options.tiers[0].path + "/meta";
    s = SendAdminRequest(meta, req, &resp, FLAGS_timeout_ms);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    const int rc = Print(resp, false, log);
    if (rc != kExitOk || !FLAGS_wait) return rc;
    return WaitForMoves(meta);
  }

 protected:
  // The flags of this command beyond --json and --timeout_ms.
  virtual std::vector<FlagUse> OwnFlags() const { return {}; }
  // --wait, for the commands that queue moves in a running process.
  static FlagUse WaitFlag() {
    return {"wait", "in a running process: wait until no manual move is queued or running, "
                    "with progress on a terminal"};
  }
  // The typed request (admin_protocol.h) from the arguments; false, with a
  // message naming the command, on a bad argument.
  virtual bool Parse(const std::vector<std::string>& args, AdminRequest* req,
                     std::string* error) const = 0;
  // Prints a successful answer as text. `offline`: no process had the store
  // open and the tool ran the request itself.
  virtual void PrintAnswer(const AdminResponse& r, bool offline, const std::string& log) const {
    printf("%s: %s\n", Name(), r.message.c_str());
    if (offline) printf("(no process has the store open: %s)\n", OfflineNote());
  }
  // What running the request in the tool's own process meant.
  virtual const char* OfflineNote() const { return "ran here"; }

 private:
  // --wait: polls the running process's queue until its manual moves are
  // done; on a terminal, a progress line (moves done, bytes moved, rate, time
  // left at the rate so far) redrawn in place.
  int WaitForMoves(const std::string& meta) const {
    ProgressLine line(Name());
    ManualMovesProgress last;
    rocksdb::Status s = WaitForQueuedManualMoves(
        meta, 200, FLAGS_timeout_ms, [&](const ManualMovesProgress& p) {
          last = p;
          line.Update(p.first - std::min(p.first, p.left), p.first, "manual moves",
                      p.bytes_moved);
        });
    line.Finish();
    if (!s.ok()) {
      LOG(ERROR) << "--wait: " << s.ToString();
      return kExitFailed;
    }
    if (!FLAGS_json) {
      printf("%s: the queued manual moves are done (%llu waited for, %s moved in %.1f s)\n",
             Name(), (unsigned long long)last.first, FormatSize(last.bytes_moved).c_str(),
             last.seconds);
    }
    return kExitOk;
  }

  int Print(const AdminResponse& r, bool offline, const std::string& log) const {
    const MigrationInfo& m = r.migration;
    if (FLAGS_json) {
      json q = json::array();
      for (const MoveInfo& move : m.queue) q.push_back(MoveToJson(move));
      printf("%s\n",
             json{{"ok", r.ok}, {"message", r.message}, {"offline", offline},
                  {"migration", {{"enabled", m.enabled}, {"queue", q},
                                 {"running", m.running ? MoveToJson(*m.running) : json()},
                                 {"done", m.done}, {"bytes", m.bytes}, {"skipped", m.skipped},
                                 {"given_up", m.given_up}, {"waits", m.waits}}},
                  {"errors", StoreErrorsToJson(r.errors)}, {"log", log}}
                 .dump(2)
                 .c_str());
      return r.ok ? kExitOk : kExitFailed;
    }
    if (!r.ok) {
      LOG(ERROR) << r.message;
      return kExitFailed;
    }
    PrintAnswer(r, offline, log);
    return kExitOk;
  }
};

// FILE TIER [--segments=A-B]: move, replicate, prefetch.
class SegmentsToTierCommand : public SteeringCommand {
 public:
  const char* Synopsis() const override { return "FILE TIER"; }

 protected:
  std::vector<FlagUse> OwnFlags() const override {
    return {{"segments", "the segments of FILE: N or A-B (default: all)"}, WaitFlag()};
  }
  bool Parse(const std::vector<std::string>& args, AdminRequest* req,
             std::string* error) const override {
    if (!CheckCount(args, 2, error)) return false;
    DataOpRequest r;
    r.op = Op();
    r.path = args[0];
    if (!ParseTier(args[1], &r.tier, error) || !ParseSegments(&r, error)) return false;
    *req = r;
    return true;
  }
  // The data operation the command asks for.
  virtual DataOp Op() const = 0;
};

class MoveCommand : public SegmentsToTierCommand {
 public:
  const char* Name() const override { return "move"; }
  const char* Summary() const override { return "MIGRATE the segments of FILE to TIER"; }
  std::string Details() const override {
    return "The segments' home becomes TIER; their old blocks are freed once no read uses them.\n"
           "A running store queues the move and runs it while the devices are idle (`queue`).\n";
  }

 protected:
  DataOp Op() const override { return DataOp::kMigrate; }
};

class ReplicateCommand : public SegmentsToTierCommand {
 public:
  const char* Name() const override { return "replicate"; }
  const char* Summary() const override {
    return "a durable extra copy of FILE's segments on TIER, serving reads";
  }

 protected:
  DataOp Op() const override { return DataOp::kReplicate; }
};

class PrefetchCommand : public SegmentsToTierCommand {
 public:
  const char* Name() const override { return "prefetch"; }
  const char* Summary() const override {
    return "the same copy as replicate, forgotten at restart";
  }

 protected:
  DataOp Op() const override { return DataOp::kPrefetch; }
};

class DropCopyCommand : public SteeringCommand {
 public:
  const char* Name() const override { return "drop-copy"; }
  const char* Synopsis() const override { return "FILE"; }
  const char* Summary() const override { return "drop the extra copies of FILE's segments"; }

 protected:
  std::vector<FlagUse> OwnFlags() const override {
    return {{"segments", "the segments of FILE: N or A-B (default: all)"}};
  }
  bool Parse(const std::vector<std::string>& args, AdminRequest* req,
             std::string* error) const override {
    if (!CheckCount(args, 1, error)) return false;
    DataOpRequest r;
    r.op = DataOp::kDropCopy;
    r.path = args[0];
    if (!ParseSegments(&r, error)) return false;
    *req = r;
    return true;
  }
};

// FILE ... | --cf=NAME ...: pin, unpin, hint. Pins and hints live in the
// process that has the store open.
class FileOrColumnFamilyCommand : public SteeringCommand {
 protected:
  std::vector<FlagUse> OwnFlags() const override {
    return {{"cf", "the column family: every table file the event listener attributes to it, "
                   "now and later (instead of FILE)"}};
  }
  const char* OfflineNote() const override {
    return "data moved here; pins and hints last only while a process has the store open";
  }
  // Takes FILE (unless --cf) into r->path, --cf into r->column_family, and
  // `more` arguments after FILE; returns the index of the first of those.
  template <class Request>
  bool TakeTarget(const std::vector<std::string>& args, size_t more, Request* r, size_t* next,
                  std::string* error) const {
    const size_t file = FLAGS_cf.empty() ? 1 : 0;
    if (!CheckCount(args, file + more, error)) return false;
    if (file) r->path = args[0];
    r->column_family = FLAGS_cf;
    *next = file;
    return true;
  }
};

class PinCommand : public FileOrColumnFamilyCommand {
 public:
  const char* Name() const override { return "pin"; }
  const char* Synopsis() const override { return "FILE TIER | --cf=NAME TIER"; }
  const char* Summary() const override {
    return "new data goes to TIER, existing data moves there";
  }

 protected:
  std::vector<FlagUse> OwnFlags() const override {
    std::vector<FlagUse> flags = FileOrColumnFamilyCommand::OwnFlags();
    flags.push_back(WaitFlag());
    return flags;
  }
  bool Parse(const std::vector<std::string>& args, AdminRequest* req,
             std::string* error) const override {
    size_t i;
    PinRequest r;
    if (!TakeTarget(args, 1, &r, &i, error) || !ParseTier(args[i], &r.tier, error)) {
      return false;
    }
    *req = r;
    return true;
  }
};

class UnpinCommand : public FileOrColumnFamilyCommand {
 public:
  const char* Name() const override { return "unpin"; }
  const char* Synopsis() const override { return "FILE | --cf=NAME"; }
  const char* Summary() const override { return "the policy places FILE's data again"; }

 protected:
  const char* OfflineNote() const override {
    return "nothing moved; pins last only while a process has the store open";
  }
  bool Parse(const std::vector<std::string>& args, AdminRequest* req,
             std::string* error) const override {
    size_t i;
    UnpinRequest r;
    if (!TakeTarget(args, 0, &r, &i, error)) return false;
    *req = r;
    return true;
  }
};

class HintCommand : public FileOrColumnFamilyCommand {
 public:
  const char* Name() const override { return "hint"; }
  const char* Synopsis() const override { return "FILE HINT | --cf=NAME HINT"; }
  const char* Summary() const override {
    return "an access hint: hot, cold, write-intensive, read-intensive, archival, none";
  }

 protected:
  const char* OfflineNote() const override {
    return "nothing moved; hints last only while a process has the store open";
  }
  bool Parse(const std::vector<std::string>& args, AdminRequest* req,
             std::string* error) const override {
    size_t i;
    HintRequest r;
    if (!TakeTarget(args, 1, &r, &i, error)) return false;
    if (!ParseAccessHint(args[i], &r.hint)) {
      *error = "unknown access hint '" + args[i] +
               "' (known: hot, cold, write-intensive, read-intensive, archival, none)";
      return false;
    }
    *req = r;
    return true;
  }
};

// Whole-store questions: no file, no tier.
class WholeStoreCommand : public SteeringCommand {
 protected:
  bool Parse(const std::vector<std::string>& args, AdminRequest* req,
             std::string* error) const override {
    if (!CheckCount(args, 0, error)) return false;
    *req = Request();
    return true;
  }
  // The request, which has no fields.
  virtual AdminRequest Request() const = 0;
};

class QueueCommand : public WholeStoreCommand {
 public:
  const char* Name() const override { return "queue"; }
  const char* Summary() const override {
    return "the migration queue, the move running and the engine's counters";
  }

 protected:
  AdminRequest Request() const override { return QueueRequest(); }
  void PrintAnswer(const AdminResponse& r, bool offline, const std::string&) const override {
    const MigrationInfo& m = r.migration;
    if (offline) printf("(no process has the store open: no migration is running)\n");
    if (!m.enabled && !offline) printf("migration is off in the process that has the store open\n");
    printf("running: %s\n", m.running ? Describe(*m.running).c_str() : "-");
    printf("queued (%zu):\n", m.queue.size());
    for (const MoveInfo& q : m.queue) printf("  %s\n", Describe(q).c_str());
    printf("moves done %llu (%s), skipped %llu, given up %llu, chunks that waited for idle "
           "devices %llu\n",
           (unsigned long long)m.done, FormatSize(m.bytes).c_str(),
           (unsigned long long)m.skipped, (unsigned long long)m.given_up,
           (unsigned long long)m.waits);
  }
};

class ErrorsCommand : public WholeStoreCommand {
 public:
  const char* Name() const override { return "errors"; }
  const char* Summary() const override {
    return "errors no caller heard of (failed rotations, saves, moves...), by kind";
  }
  std::string Details() const override {
    return "Every counter of the process that has the store open, its value and what it\n"
           "counts; each error is also a line in <tier 0>/meta/LOG.\n";
  }

 protected:
  AdminRequest Request() const override { return ErrorsRequest(); }
  void PrintAnswer(const AdminResponse& r, bool offline, const std::string& log) const override {
    printf("errors over the store's life (details in %s):\n", log.c_str());
    for (const StoreErrorInfo& info : kStoreErrors) {
      printf("  %-20s %8llu  %s\n", info.name, (unsigned long long)r.errors[size_t(info.id)],
             info.help);
    }
    if (offline) {
      printf("(no process has the store open: counted to its last clean close and by this "
             "open)\n");
    }
  }
};

}  // namespace

std::unique_ptr<Command> NewMoveCommand() { return std::make_unique<MoveCommand>(); }
std::unique_ptr<Command> NewReplicateCommand() { return std::make_unique<ReplicateCommand>(); }
std::unique_ptr<Command> NewPrefetchCommand() { return std::make_unique<PrefetchCommand>(); }
std::unique_ptr<Command> NewDropCopyCommand() { return std::make_unique<DropCopyCommand>(); }
std::unique_ptr<Command> NewPinCommand() { return std::make_unique<PinCommand>(); }
std::unique_ptr<Command> NewUnpinCommand() { return std::make_unique<UnpinCommand>(); }
std::unique_ptr<Command> NewHintCommand() { return std::make_unique<HintCommand>(); }
std::unique_ptr<Command> NewQueueCommand() { return std::make_unique<QueueCommand>(); }
std::unique_ptr<Command> NewErrorsCommand() { return std::make_unique<ErrorsCommand>(); }

}  // namespace tool
}  // namespace tierfs
