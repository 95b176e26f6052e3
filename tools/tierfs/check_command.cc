// `tierfs check [--repair]` (check_command.h): runs CheckStore and prints its
// report, as a table or as JSON.
#include "tools/tierfs/check_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "env/store_check.h"
#include "tierfs/file_system.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/progress.h"
#include "tools/tierfs/registry.h"
#include "util/size.h"

namespace tierfs {
namespace {

using nlohmann::json;

const char* ActionName(CheckAction action) {
  switch (action) {
    case CheckAction::kRepair: return "repairable";
    case CheckAction::kRefuse: return "not repairable";
    case CheckAction::kLeaveAlone: return "left alone";
  }
  return "unknown";
}

json FindingToJson(const CheckFinding& f) {
  json j = {{"kind", CheckKindName(f.kind)}, {"action", ActionName(f.action)},
            {"tier", f.tier},                 {"file", f.file},
            {"file_id", f.file_id},           {"segment", f.segment},
            {"path", f.path},                 {"bytes", f.bytes},
            {"detail", f.detail},             {"outcome", RepairOutcomeName(f.outcome)},
            {"note", f.note}};
  return j;
}

json ReportToJson(const CheckReport& r, bool repair) {
  json tiers = json::array();
  for (const CheckTierSummary& t : r.tiers) {
    tiers.push_back(json{{"tier", t.index}, {"root", t.root}, {"capacity", t.capacity},
                         {"charged", t.charged}, {"allocated", t.allocated},
                         {"backing_files", t.backing_files}, {"homes", t.homes},
                         {"copies", t.copies}});
  }
  json findings = json::array();
  for (const CheckFinding& f : r.findings) findings.push_back(FindingToJson(f));
  json out = {{"store", r.store},       {"clean", r.clean()},       {"generation", r.generation},
              {"records", r.records},   {"torn_tail", r.torn_tail}, {"files", r.files},
              {"segments", r.segments}, {"bytes_checked", r.bytes_checked},
              {"tiers", tiers},         {"findings", findings}};
  if (repair) {
    json remaining = json::array();
    for (const CheckFinding& f : r.remaining) remaining.push_back(FindingToJson(f));
    out["repair"] = {{"ran", r.repaired}, {"remaining", remaining}};
  }
  return out;
}

// "file:segment", the path, or "-".
std::string Where(const CheckFinding& f) {
  if (!f.file.empty()) {
    return f.segment >= 0 ? f.file + ":" + std::to_string(f.segment) : f.file;
  }
  return f.path.empty() ? "-" : f.path;
}

void PrintFindings(const std::vector<CheckFinding>& findings, bool repair) {
  printf("%-17s %4s %10s  %-14s %s\n", "kind", "tier", "bytes", "action", "where: what");
  for (const CheckFinding& f : findings) {
    printf("%-17s %4s %10s  %-14s %s: %s\n", CheckKindName(f.kind),
           f.tier < 0 ? "-" : std::to_string(f.tier).c_str(), FormatSize(f.bytes).c_str(),
           ActionName(f.action), Where(f).c_str(), f.detail.c_str());
    if (!f.file.empty() && !f.path.empty()) printf("%50s(%s)\n", "", f.path.c_str());
    if (repair && f.outcome != RepairOutcome::kNone) {
      printf("%50s-> %s: %s\n", "", RepairOutcomeName(f.outcome), f.note.c_str());
    } else if (!f.note.empty()) {
      printf("%50s-> %s\n", "", f.note.c_str());
    }
  }
}

void PrintReport(const CheckReport& r, bool repair) {
  printf("store %s: journal generation %llu, %llu records%s; %llu files, %llu segments, "
         "%s examined\n",
         r.store.c_str(), (unsigned long long)r.generation, (unsigned long long)r.records,
         r.torn_tail ? " (a torn tail, dropped at the next open)" : "",
         (unsigned long long)r.files, (unsigned long long)r.segments,
         FormatSize(r.bytes_checked).c_str());
  if (!r.tiers.empty()) {
    printf("%-4s %10s %10s %10s %8s %8s %7s  %s\n", "tier", "capacity", "charged", "on device",
           "files", "homes", "copies", "root");
    for (const CheckTierSummary& t : r.tiers) {
      printf("%-4d %10s %10s %10s %8llu %8llu %7llu  %s\n", t.index,
             FormatSize(t.capacity).c_str(), FormatSize(t.charged).c_str(),
             FormatSize(t.allocated).c_str(), (unsigned long long)t.backing_files,
             (unsigned long long)t.homes, (unsigned long long)t.copies, t.root.c_str());
    }
  }
  if (r.clean()) {
    printf("clean: no findings\n");
    return;
  }
  size_t repairable = 0, refused = 0;
  for (const CheckFinding& f : r.findings) {
    repairable += f.action == CheckAction::kRepair;
    refused += f.action == CheckAction::kRefuse;
  }
  printf("%zu finding%s (%zu repairable, %zu not repairable without losing data, %zu left "
         "alone):\n",
         r.findings.size(), r.findings.size() == 1 ? "" : "s", repairable, refused,
         r.findings.size() - repairable - refused);
  PrintFindings(r.findings, repair);
  if (!repair) {
    if (repairable > 0) printf("run `tierfs check --repair` to repair what can be repaired\n");
    return;
  }
  if (!r.repaired) {
    printf("repair %s\n", refused > 0 ? "refused: nothing was changed" : "had nothing to do");
    return;
  }
  if (r.remaining.empty()) {
    printf("after repair: clean\n");
  } else {
    printf("after repair, %zu finding%s remain:\n", r.remaining.size(),
           r.remaining.size() == 1 ? "" : "s");
    PrintFindings(r.remaining, false);
  }
}

}  // namespace

int RunCheck(const std::string& fs_uri, bool repair, bool json_out) {
  Options options;
  rocksdb::Status s = ParseUri(fs_uri, &options);
  if (!s.ok()) {
    LOG(ERROR) << s.ToString();
    return 2;
  }
  CheckOptions check;
  check.repair = repair;
  // On a terminal, a progress line (progress.h): bytes examined, rate, time left.
  tool::ProgressLine line("check");
  if (line.shown()) {
    check.progress = [&](const CheckProgress& p) {
      line.Update(p.bytes_done, p.bytes_total, "", p.bytes_done);
    };
  }
  CheckReport report;
  s = CheckStore(options, check, &report);
  line.Finish();
  if (!s.ok()) {
    LOG(ERROR) << s.ToString();
    return 2;
  }
  if (json_out) {
    // Names are bytes: invalid UTF-8 is replaced rather than thrown on.
    const json out = ReportToJson(report, repair);
    printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
  } else {
    PrintReport(report, repair);
  }
  const bool clean = repair && report.repaired ? report.remaining.empty() : report.clean();
  return clean ? 0 : 1;
}

namespace tool {
namespace {

class CheckCommand : public Command {
 public:
  const char* Name() const override { return "check"; }
  const char* Group() const override { return "check and repair the store at rest"; }
  const char* Summary() const override {
    return "fsck: journal, segments backed, orphans, account, copies, markers; --repair";
  }
  std::string Details() const override {
    return "Reads the journal with the store's own code and checks every segment of the map\n"
           "against the blocks of its tier, the backing files the map does not name, the\n"
           "capacity account, the copies and the tier markers. --repair fixes what loses no\n"
           "data (orphans, account drift, stale copies), says what it did, and refuses the\n"
           "rest naming it, changing nothing then. The store must not be open in another\n"
           "process. Exit status: 0 clean (after repair), 1 findings remain, 2 it could not\n"
           "run.\n";
  }
  std::vector<FlagUse> Flags() const override { return {{"repair", nullptr}, {"json", nullptr}}; }
  int Run(const Invocation&) const override {
    return RunCheck(FLAGS_fs_uri, FLAGS_repair, FLAGS_json);
  }
};

}  // namespace

std::unique_ptr<Command> NewCheckCommand() { return std::make_unique<CheckCommand>(); }

}  // namespace tool
}  // namespace tierfs
