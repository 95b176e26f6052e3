// `tierfs help [COMMAND]`, and the usage text every command's help is made
// of: generated from the commands' own Name, Synopsis, Summary, Details and
// Flags, so no usage string is written twice.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/registry.h"

namespace tierfs {
namespace tool {

namespace {

// "--json", "--db=DIR".
std::string FlagForm(const std::string& name) {
  const std::string value = FlagValueName(name);
  return "--" + name + (value.empty() ? "" : "=" + value);
}

std::string OptionLine(const std::string& form, const std::string& help) {
  std::string line = "  " + form;
  line += form.size() < 18 ? std::string(18 - form.size(), ' ') : "\n" + std::string(20, ' ');
  return line + help + "\n";
}

}  // namespace

std::string UsageLine(const Command& command) {
  std::string u = "tierfs";
  if (command.NeedsStore()) u += " --fs_uri=URI";
  for (const FlagUse& f : command.Flags()) u += " [" + FlagForm(f.name) + "]";
  u += std::string(" ") + command.Name();
  if (*command.Synopsis()) u += std::string(" ") + command.Synopsis();
  return u;
}

std::string CommandHelp(const Command& command) {
  std::string h = "usage: " + UsageLine(command) + "\n" + command.Summary() + "\n";
  const std::string details = command.Details();
  if (!details.empty()) h += details;
  // A command's own description of a flag says its default where it matters.
  std::vector<FlagUse> flags = command.Flags();
  if (command.NeedsStore()) flags.insert(flags.begin(), FlagUse{"fs_uri", nullptr});
  if (flags.empty()) return h;
  h += "options:\n";
  for (const FlagUse& f : flags) {
    gflags::CommandLineFlagInfo info;
    if (!gflags::GetCommandLineFlagInfo(f.name, &info)) continue;
    std::string help = f.help ? f.help : info.description;
    if (!f.help && info.type != "bool" && !info.default_value.empty()) {
      help += " (default: " + info.default_value + ")";
    }
    h += OptionLine(FlagForm(f.name), help);
  }
  return h;
}

std::string ToolHelp() {
  std::string h =
      "tierfs: the TierFS admin tool\n"
      "usage: tierfs --fs_uri=URI [FLAGS] COMMAND [ARGS]\n"
      "       tierfs help COMMAND   (that command's usage and options)\n";
  std::string group;
  for (const std::unique_ptr<Command>& c : AllCommands()) {
    if (c->Group() != group) {
      group = c->Group();
      h += "\n" + group + ":\n";
    }
    char line[64];
    snprintf(line, sizeof(line), "  %-10s ", c->Name());
    h += line + std::string(c->Summary()) + "\n";
  }
  return h;
}

namespace {

class HelpCommand : public Command {
 public:
  const char* Name() const override { return "help"; }
  const char* Group() const override { return "help"; }
  const char* Synopsis() const override { return "[COMMAND]"; }
  const char* Summary() const override {
    return "the commands, one line each; with COMMAND, its usage and options";
  }
  bool NeedsStore() const override { return false; }

  int Run(const Invocation& inv) const override {
    if (inv.args.empty()) {
      printf("%s", ToolHelp().c_str());
      return kExitOk;
    }
    if (inv.args.size() > 1) {
      LOG(ERROR) << "expected at most 1 argument (a command), got " << inv.args.size();
      return kExitBadUsage;
    }
    const Command* c = FindCommand(inv.args[0]);
    if (!c) {
      LOG(ERROR) << "unknown command '" << inv.args[0] << "' (`tierfs help` lists them)";
      return kExitBadUsage;
    }
    printf("%s", CommandHelp(*c).c_str());
    fflush(stdout);
    c->PrintExtraHelp();
    return kExitOk;
  }
};

}  // namespace

std::unique_ptr<Command> NewHelpCommand() { return std::make_unique<HelpCommand>(); }

}  // namespace tool
}  // namespace tierfs
