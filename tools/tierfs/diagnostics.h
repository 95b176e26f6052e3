// How the tierfs tool talks to its user. Its results (tables, JSON, the
// answers of the steering commands) go to stdout with printf; its
// diagnostics (errors, warnings) go through glog to stderr, one form for all:
//
//   tierfs: error: unknown command 'frobnicate' (`tierfs help` lists the commands)
//   tierfs move: error: bad tier 'x'
//   tierfs watch: warning: ...
//
// "tierfs", the command once one is known (SetDiagnosticsCommand), the
// severity, then the message, which names the bad input. glog writes only to
// stderr here (no log files), without its time and thread prefix. Progress
// on a terminal is not a diagnostic but a display redrawn in place:
// progress.h. The library (libtierfs) never prints; it logs to its LOG.
#pragma once

#include <string>

#include <glog/logging.h>

namespace tierfs {
namespace tool {

// Sets glog up for the tool: to stderr only, with the prefix above. Called
// first thing, and again after the flags are parsed (glog's own flags are
// gflags too), so that --logtostderr=false or --log_dir on the command line
// do not send diagnostics to files. Not thread-safe: main's thread only.
void InitDiagnostics(const char* argv0);

// The command named on the command line, which every later diagnostic
// names ("tierfs move: error: ..."); "" before one is known.
void SetDiagnosticsCommand(const std::string& name);

// Usage text (`tierfs help` when no command was named, a command's usage
// line after an error): written to stderr as it is, without a prefix.
void PrintUsageToStderr(const std::string& text);

}  // namespace tool
}  // namespace tierfs
