// The tierfs tool's flags (flags.h): the definitions, and what main.cc and
// `tierfs help` need to know of them.
#include "tools/tierfs/flags.h"

#include <cctype>

DEFINE_string(fs_uri, "", "the TierFS URI (tierfs://...), as given to db_bench --fs_uri");
DEFINE_string(db, "/", "logical directory to list (ls, segments); the database (ldb)");
DEFINE_bool(json, false, "print JSON instead of tables");
DEFINE_string(segments, "", "segment range: N or A-B (default: all)");
DEFINE_string(cf, "", "column family, instead of a file");
DEFINE_int32(timeout_ms, 5000, "how long to wait for the process that has the store open");
DEFINE_bool(wait, false,
            "wait until the queued manual moves are done (move, replicate, prefetch, pin)");
DEFINE_bool(repair, false, "repair what can be repaired without losing data (check)");
DEFINE_string(png, "", "also write the heat map as a PNG image to this file (heatmap)");
DEFINE_string(color, "auto",
              "colour by tier: auto (when stdout is a terminal), always or never (heatmap)");
DEFINE_string(trace, "", "draw a trace's segments over time instead of the store (heatmap)");
DEFINE_int32(windows, 40, "time windows a trace is cut into (heatmap --trace)");
DEFINE_int32(interval_ms, 1000, "time between two samples, in milliseconds (watch)");
DEFINE_int32(count, 0, "how many samples to show, 0 for no end (watch)");

namespace tierfs {
namespace tool {

bool FlagGiven(const std::string& name) {
  gflags::CommandLineFlagInfo info;
  return gflags::GetCommandLineFlagInfo(name.c_str(), &info) && !info.is_default;
}

std::vector<std::string> GivenToolFlags() {
  std::vector<gflags::CommandLineFlagInfo> all;
  gflags::GetAllFlags(&all);
  std::vector<std::string> given;
  for (const gflags::CommandLineFlagInfo& info : all) {
    if (!info.is_default && info.filename.find("tools/tierfs/") != std::string::npos) {
      given.push_back(info.name);
    }
  }
  return given;
}

std::string FlagValueName(const std::string& name) {
  static const struct {
    const char* flag;
    const char* value;
  } kValues[] = {{"fs_uri", "URI"}, {"db", "DIR"},     {"segments", "A-B"},
                 {"cf", "NAME"},    {"timeout_ms", "MS"}, {"png", "FILE"},
                 {"color", "WHEN"}, {"interval_ms", "MS"}, {"count", "N"},
                 {"trace", "FILE"}, {"windows", "N"}};
  for (const auto& v : kValues) {
    if (name == v.flag) return v.value;
  }
  gflags::CommandLineFlagInfo info;
  if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info) || info.type == "bool") return "";
  std::string upper = name;
  for (char& c : upper) c = char(toupper(static_cast<unsigned char>(c)));
  return upper;
}

}  // namespace tool
}  // namespace tierfs
