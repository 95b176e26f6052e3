// The tierfs commands: one factory per command, defined beside its class,
// and the table of them in main.cc (the order `tierfs help` lists them in).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/tierfs/command.h"

namespace tierfs {
namespace tool {

// inspect_commands.cc: the store at rest, opened read-only.
std::unique_ptr<Command> NewStatsCommand();
std::unique_ptr<Command> NewMetricsCommand();
std::unique_ptr<Command> NewLsCommand();
std::unique_ptr<Command> NewSegmentsCommand();
std::unique_ptr<Command> NewCatCommand();
// heatmap_command.cc: segments' heat against tier, as text or a PNG.
std::unique_ptr<Command> NewHeatmapCommand();

// watch_command.cc: a running store's rates, through the admin channel.
std::unique_ptr<Command> NewWatchCommand();

// check_command.cc: the fsck of the store at rest.
std::unique_ptr<Command> NewCheckCommand();

// steer_commands.cc: through the admin channel, or on the store itself.
std::unique_ptr<Command> NewMoveCommand();
std::unique_ptr<Command> NewReplicateCommand();
std::unique_ptr<Command> NewPrefetchCommand();
std::unique_ptr<Command> NewDropCopyCommand();
std::unique_ptr<Command> NewPinCommand();
std::unique_ptr<Command> NewUnpinCommand();
std::unique_ptr<Command> NewHintCommand();
std::unique_ptr<Command> NewQueueCommand();
std::unique_ptr<Command> NewErrorsCommand();

// rocksdb_commands.cc: RocksDB's ldb and sst_dump with TierFS's Env.
std::unique_ptr<Command> NewLdbCommand();
std::unique_ptr<Command> NewSstDumpCommand();

// help_command.cc.
std::unique_ptr<Command> NewHelpCommand();

// Every command, in the table's order (main.cc).
const std::vector<std::unique_ptr<Command>>& AllCommands();

// The command named `name`, or nullptr.
const Command* FindCommand(const std::string& name);

// `tierfs help`: the usage line and one line per command, by group.
std::string ToolHelp();

}  // namespace tool
}  // namespace tierfs
