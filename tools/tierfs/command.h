// One tierfs command, as RocksDB's ldb has one LDBCommand per command: its
// name, the flags it takes, its help and its Run. The command table is in
// main.cc (registry.h); the commands are grouped by kind in
// inspect_commands.cc (the store at rest, read-only), steer_commands.cc
// (through the admin channel to the process that has the store open) and
// rocksdb_commands.cc (RocksDB's own ldb and sst_dump with TierFS's Env).
#pragma once

#include <string>
#include <vector>

#include "tierfs/file_system.h"

namespace tierfs {
namespace tool {

// A flag a command takes, and what it means to that command.
struct FlagUse {
  const char* name;  // the gflags name, without "--" (flags.h)
  const char* help;  // nullptr: the flag's own description
};

// What a command runs on. Filled by main.cc after parsing the flags.
struct Invocation {
  // The command's arguments after its name: the positional ones, or, for a
  // command that PassesArgumentsThrough, every argument as given.
  std::vector<std::string> args;
  // Parsed from --fs_uri (ParseUri) for a command that NeedsStore; the
  // command decides how to open it (read-only, read-write, ...).
  Options options;
};

// Exit statuses, the same for every command.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;    // the command ran and failed, or the store would not open
constexpr int kExitBadUsage = 2;  // bad arguments: nothing was done

class Command {
 public:
  virtual ~Command() = default;

  // The name on the command line ("stats").
  virtual const char* Name() const = 0;
  // The group `tierfs help` lists it under ("inspect the store", ...).
  virtual const char* Group() const = 0;
  // Its arguments after the name, as usage shows them ("FILE TIER"); "" for
  // none, and main.cc then refuses any argument, naming it.
  virtual const char* Synopsis() const { return ""; }
  // One line for `tierfs help`.
  virtual const char* Summary() const = 0;
  // More for `tierfs help NAME`: a paragraph, each line ending in '\n'.
  virtual std::string Details() const { return ""; }
  // Prints more help after CommandHelp (ldb and sst_dump: RocksDB's own).
  virtual void PrintExtraHelp() const {}
  // The flags it takes besides --fs_uri. Any other flag of the tool given
  // with it is refused before it runs.
  virtual std::vector<FlagUse> Flags() const { return {}; }
  // True: every argument after the name is the command's own, passed on as
  // it is (ldb, sst_dump); tierfs parses its flags only before the name.
  virtual bool PassesArgumentsThrough() const { return false; }
  // True: --fs_uri is required, and parsed into Invocation::options.
  virtual bool NeedsStore() const { return true; }
  // Runs the command; returns the exit status (kExit*). Prints its results
  // to stdout, and its errors with LOG(ERROR) (diagnostics.h: to stderr,
  // prefixed "tierfs COMMAND: error:"), each naming the bad input.
  virtual int Run(const Invocation& invocation) const = 0;
};

// "tierfs --fs_uri=URI [FLAGS] NAME SYNOPSIS": the command's usage line.
std::string UsageLine(const Command& command);

// `tierfs help NAME`: usage line, summary, details and every flag it takes.
std::string CommandHelp(const Command& command);

}  // namespace tool
}  // namespace tierfs
