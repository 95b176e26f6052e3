// tierfs: the TierFS admin tool, shaped like RocksDB's ldb.
//
//   tierfs --fs_uri=tierfs://... [--db=/path] [--json] COMMAND [ARGS]
//   tierfs help [COMMAND]
//
// One class per command (command.h), grouped by kind in inspect_commands.cc,
// steer_commands.cc and rocksdb_commands.cc; the table below lists them, and
// `tierfs help` is generated from it. This file parses the flags (gflags),
// finds the command, refuses a flag the command does not take and an
// argument given to a command that takes none, parses --fs_uri and runs the
// command.
//
// The flags of the tool come before the command or, for the tool's own
// commands, anywhere after it too (`tierfs move FILE 1 --segments=0-3`). For
// a command that passes its arguments through (ldb, sst_dump) only those
// before its name are the tool's, so RocksDB's flags reach RocksDB; --fs_uri
// is the tool's wherever it stands.
//
// Exit status: 0 done; 1 the command failed, or the store or URI did not
// open; 2 bad usage (an unknown command, a flag the command does not take, a
// wrong number of arguments), nothing done. gflags itself refuses an unknown
// flag (exit 1, naming it).
//
// Results go to stdout; diagnostics go through glog to stderr in one form,
// "tierfs COMMAND: error: ..." (diagnostics.h).
#include <gflags/gflags.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "tierfs/file_system.h"
#include "tools/tierfs/command.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/registry.h"

namespace tierfs {
namespace tool {

// The command table, in the order `tierfs help` lists the commands (grouped
// by Command::Group: keep a group's commands together). A new command is a
// class with a factory beside it (registry.h) and one row here.
const std::vector<std::unique_ptr<Command>>& AllCommands() {
  static const std::vector<std::unique_ptr<Command>>* const commands = [] {
    using Factory = std::unique_ptr<Command> (*)();
    const Factory table[] = {
        // Inspection, read-only (inspect_commands.cc).
        NewStatsCommand,
        NewMetricsCommand,
        NewLsCommand,
        NewSegmentsCommand,
        NewCatCommand,
        NewHeatmapCommand,  // heatmap_command.cc
        // A running store's live rates (watch_command.cc).
        NewWatchCommand,
        // Checking and repairing the store at rest (check_command.cc).
        NewCheckCommand,
        // Steering, through the admin channel (steer_commands.cc).
        NewMoveCommand,
        NewReplicateCommand,
        NewPrefetchCommand,
        NewDropCopyCommand,
        NewPinCommand,
        NewUnpinCommand,
        NewHintCommand,
        NewQueueCommand,
        NewErrorsCommand,
        // RocksDB's tools with TierFS's Env (rocksdb_commands.cc).
        NewLdbCommand,
        NewSstDumpCommand,
        // help_command.cc.
        NewHelpCommand,
    };
    auto* v = new std::vector<std::unique_ptr<Command>>;
    for (Factory f : table) v->push_back(f());
    return v;
  }();
  return *commands;
}

const Command* FindCommand(const std::string& name) {
  for (const std::unique_ptr<Command>& c : AllCommands()) {
    if (name == c->Name()) return c.get();
  }
  return nullptr;
}

namespace {

// The index in argv of the command's name: the first argument that is not a
// flag nor the value of a flag given as `--flag value`; argc if none.
int FindCommandIndex(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') return i;
    if (a.find('=') != std::string::npos) continue;
    const std::string name = a.substr(a[1] == '-' ? 2 : 1);
    gflags::CommandLineFlagInfo info;
    if (gflags::GetCommandLineFlagInfo(name.c_str(), &info) && info.type != "bool") ++i;
  }
  return argc;
}

// Takes --fs_uri (as --fs_uri=V, -fs_uri=V or --fs_uri V) out of a passed-
// through command's arguments and sets the flag; false if its value is missing.
bool TakeFsUri(std::vector<std::string>* args) {
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    for (const char* form : {"--fs_uri", "-fs_uri"}) {
      const std::string f = form;
      if (a == f) {
        if (i + 1 == args->size()) return false;
        gflags::SetCommandLineOption("fs_uri", (*args)[i + 1].c_str());
        args->erase(args->begin() + i, args->begin() + i + 2);
        --i;
        break;
      }
      if (a.compare(0, f.size() + 1, f + "=") == 0) {
        gflags::SetCommandLineOption("fs_uri", a.substr(f.size() + 1).c_str());
        args->erase(args->begin() + i);
        --i;
        break;
      }
    }
  }
  return true;
}

// A flag of the tool given to a command that does not take it: its name.
std::string FlagNotTaken(const Command& command) {
  const std::vector<FlagUse> takes = command.Flags();
  for (const std::string& given : GivenToolFlags()) {
    if (given == "fs_uri") continue;
    bool ok = false;
    for (const FlagUse& f : takes) ok = ok || given == f.name;
    if (!ok) return given;
  }
  return "";
}

int Main(int argc, char** argv) {
  InitDiagnostics(argv[0]);
  gflags::SetUsageMessage("tierfs --fs_uri=URI [FLAGS] COMMAND [ARGS]; `tierfs help` lists "
                          "the commands");
  const int at = FindCommandIndex(argc, argv);
  const bool named = at < argc;  // a command was named, known or not
  const Command* command = named ? FindCommand(argv[at]) : nullptr;
  std::vector<std::string> args;
  if (command && command->PassesArgumentsThrough()) {
    // Only the flags before the name are the tool's. (gflags moves argv.)
    args.assign(argv + at + 1, argv + argc);
    int n = at;
    gflags::ParseCommandLineNonHelpFlags(&n, &argv, true);
    InitDiagnostics(argv[0]);
    SetDiagnosticsCommand(command->Name());
    if (!TakeFsUri(&args)) {
      LOG(ERROR) << "--fs_uri needs a value";
      return kExitBadUsage;
    }
  } else {
    gflags::ParseCommandLineNonHelpFlags(&argc, &argv, true);
    InitDiagnostics(argv[0]);
    if (command) SetDiagnosticsCommand(command->Name());
    if (argc >= 2) args.assign(argv + 2, argv + argc);
  }
  std::string help;
  if (gflags::GetCommandLineOption("help", &help) && help == "true") {
    printf("%s", ToolHelp().c_str());
    return kExitOk;
  }
  gflags::HandleCommandLineHelpFlags();  // --helpfull, --version, ...

  if (!named) {
    PrintUsageToStderr(ToolHelp());
    return kExitBadUsage;
  }
  if (!command) {
    LOG(ERROR) << "unknown command '" << argv[1] << "' (`tierfs help` lists the commands)";
    return kExitBadUsage;
  }
  const std::string not_taken = FlagNotTaken(*command);
  if (!not_taken.empty()) {
    LOG(ERROR) << "option --" << not_taken << " does not apply to it";
    PrintUsageToStderr("usage: " + UsageLine(*command) + "\n");
    return kExitBadUsage;
  }
  // A command whose synopsis names no argument takes none: one here is a
  // mistake (a misspelt flag, a FILE given to the wrong command), never ignored.
  if (!*command->Synopsis() && !args.empty()) {
    std::string given;
    for (const std::string& a : args) given += (given.empty() ? "'" : " '") + a + "'";
    LOG(ERROR) << "takes no arguments, got " << given;
    PrintUsageToStderr("usage: " + UsageLine(*command) + "\n");
    return kExitBadUsage;
  }
  Invocation invocation;
  invocation.args = std::move(args);
  if (command->NeedsStore()) {
    if (FLAGS_fs_uri.empty()) {
      LOG(ERROR) << "--fs_uri is required";
      PrintUsageToStderr("usage: " + UsageLine(*command) + "\n");
      return kExitBadUsage;
    }
    rocksdb::Status s = ParseUri(FLAGS_fs_uri, &invocation.options);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
  }
  return command->Run(invocation);
}

}  // namespace
}  // namespace tool
}  // namespace tierfs

int main(int argc, char** argv) {
  try {
    return tierfs::tool::Main(argc, argv);
  } catch (const std::exception& e) {
    LOG(ERROR) << "internal error: " << e.what();
    return tierfs::tool::kExitFailed;
  }
}
