// The tool's diagnostics through glog (diagnostics.h): the prefix, and the
// settings that keep glog on stderr.
#include "tools/tierfs/diagnostics.h"

#include <cstdio>
#include <cstring>
#include <ostream>

namespace tierfs {
namespace tool {
namespace {

std::string& Command() {
  static std::string* const name = new std::string;  // never destroyed: logged from at exit
  return *name;
}

// "tierfs[ COMMAND]: SEVERITY:" (glog adds a space before the message);
// no severity word for INFO.
void Prefix(std::ostream& s, const google::LogMessageInfo& info, void*) {
  s << "tierfs";
  if (!Command().empty()) s << ' ' << Command();
  s << ':';
  if (strcmp(info.severity, "INFO") == 0) return;
  s << ' ';
  for (const char* c = info.severity; *c; ++c) s << char(*c - 'A' + 'a');
  s << ':';
}

}  // namespace

void InitDiagnostics(const char* argv0) {
  FLAGS_logtostderr = true;  // no files in /tmp, whatever the command line says
  FLAGS_alsologtostderr = false;
  FLAGS_colorlogtostderr = false;
  FLAGS_log_prefix = true;   // the prefix is Prefix's
  FLAGS_minloglevel = google::GLOG_INFO;
  static bool initialized = false;  // glog aborts on a second InitGoogleLogging
  if (!initialized) google::InitGoogleLogging(argv0, &Prefix, nullptr);
  initialized = true;
}

void SetDiagnosticsCommand(const std::string& name) { Command() = name; }

void PrintUsageToStderr(const std::string& text) { fputs(text.c_str(), stderr); }

}  // namespace tool
}  // namespace tierfs
