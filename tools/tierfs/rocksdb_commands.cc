// `tierfs ldb` and `tierfs sst_dump`: RocksDB's own tools, run in this
// process on the store --fs_uri names, with TierFS's Env already in the
// Options they are given, so no LD_PRELOAD and no plugin registration is
// needed. Every argument after the command's name is RocksDB's, passed on as
// it is, except --fs_uri (the tool's, taken out by main.cc); --env_uri is
// refused, the Env being TierFS's.
//
// ldb runs through LDBCommandRunner::RunCommand, which is what LDBTool::Run
// does before it calls exit(): returning instead lets the store close here
// and report its final save. SSTDumpTool::Run returns its status too (it
// calls exit() only on an --env_uri/--fs_uri it cannot load, which cannot
// reach it). Both need the store to themselves: the tool opens it read-write
// (RocksDB writes a new MANIFEST and OPTIONS at each open), without background
// migration, and closes it at the end.
#include <rocksdb/options.h>
#include <rocksdb/sst_dump_tool.h>
#include <rocksdb/utilities/ldb_cmd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tierfs/hints.h"
#include "tools/tierfs/diagnostics.h"
#include "tools/tierfs/flags.h"
#include "tools/tierfs/registry.h"

namespace tierfs {
namespace tool {
namespace {

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Opens the store, builds rocksdb::Options on its Env and hands them to
// RunTool with the arguments; closes the store after.
class RocksDBToolCommand : public Command {
 public:
  const char* Group() const override {
    return "RocksDB's tools on the store (TierFS's Env set: no LD_PRELOAD)";
  }
  const char* Synopsis() const override { return "ARGS..."; }
  bool PassesArgumentsThrough() const override { return true; }

  int Run(const Invocation& inv) const override {
    std::vector<std::string> args;
    std::string error;
    if (!PrepareArguments(inv.args, &args, &error)) {
      LOG(ERROR) << error;
      return kExitBadUsage;
    }
    Options options = inv.options;
    options.read_only = false;
    options.migration.enabled = false;  // a short run: moves belong to the database's process
    std::shared_ptr<rocksdb::FileSystem> fs;
    rocksdb::Status s = NewTierFileSystem(options, &fs);
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return kExitFailed;
    }
    int rc;
    {
      std::unique_ptr<rocksdb::Env> env = NewTierEnv(fs);
      rocksdb::Options db_options;
      db_options.env = env.get();
      // Table files written here (ldb compact, put...) are noted with their
      // level, as in the database's own process. ldb drops it when it loads
      // the database's OPTIONS file (--try_load_options, on by default for an
      // existing database): those files then have no level in `tierfs ls`.
      db_options.listeners.push_back(NewTierFSListener());
      std::vector<const char*> argv;
      const std::string argv0 = std::string("tierfs ") + Name();
      argv.push_back(argv0.c_str());
      for (const std::string& a : args) argv.push_back(a.c_str());
      rc = RunTool(int(argv.size()), argv.data(), db_options);
    }
    fflush(stdout);
    s = Close(fs.get());
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      if (rc == kExitOk) rc = kExitFailed;
    }
    return rc;
  }

 protected:
  // Runs RocksDB's tool; its exit status.
  virtual int RunTool(int argc, const char* const* argv, const rocksdb::Options& options) const = 0;

  // The arguments RocksDB's tool gets; false with a message on one it must
  // not.
  virtual bool PrepareArguments(const std::vector<std::string>& in, std::vector<std::string>* out,
                                std::string* error) const {
    for (const std::string& a : in) {
      if (StartsWith(a, "--env_uri")) {
        *error = "--env_uri is not taken: the Env is TierFS's, on the store --fs_uri names";
        return false;
      }
    }
    *out = in;
    return true;
  }
};

class LdbCommand : public RocksDBToolCommand {
 public:
  const char* Name() const override { return "ldb"; }
  const char* Summary() const override {
    return "RocksDB's ldb (scan, get, put, dump, manifest_dump, compact, ...) on the store";
  }
  std::string Details() const override {
    return "Every ldb command, with ldb's own flags after `ldb`, e.g.\n"
           "  tierfs --fs_uri=URI ldb --db=/db scan --max_keys=10\n"
           "  tierfs --fs_uri=URI --db=/db ldb get KEY\n"
           "Paths are TierFS's logical paths. The store must not be open in another process.\n"
           "RocksDB's ldb help follows.\n";
  }
  std::vector<FlagUse> Flags() const override {
    return {{"db", "before `ldb`: the database, passed to ldb as its --db"}};
  }
  void PrintExtraHelp() const override {
    rocksdb::LDBCommandRunner::PrintHelp(LdbOptions(), "tierfs --fs_uri=URI ldb", false);
  }

 protected:
  bool PrepareArguments(const std::vector<std::string>& in, std::vector<std::string>* out,
                        std::string* error) const override {
    if (!RocksDBToolCommand::PrepareArguments(in, out, error)) return false;
    if (!FlagGiven("db")) return true;
    for (const std::string& a : in) {
      if (StartsWith(a, "--db=") && a.substr(5) != FLAGS_db) {
        *error = "--db given twice: '" + FLAGS_db + "' before `ldb`, '" + a.substr(5) +
                 "' after it";
        return false;
      }
      if (StartsWith(a, "--db=")) return true;
    }
    out->insert(out->begin(), "--db=" + FLAGS_db);
    return true;
  }
  int RunTool(int argc, const char* const* argv, const rocksdb::Options& options) const override {
    return rocksdb::LDBCommandRunner::RunCommand(argc, argv, options, LdbOptions(), nullptr);
  }

 private:
  static rocksdb::LDBOptions LdbOptions() {
    rocksdb::LDBOptions o;
    o.print_help_header = "tierfs ldb - RocksDB's ldb on a TierFS store";
    return o;
  }
};

class SstDumpCommand : public RocksDBToolCommand {
 public:
  const char* Name() const override { return "sst_dump"; }
  const char* Summary() const override {
    return "RocksDB's sst_dump (check, scan, raw, ...) on the store's table files";
  }
  std::string Details() const override {
    return "sst_dump's own flags after `sst_dump`, e.g.\n"
           "  tierfs --fs_uri=URI sst_dump --file=/db --command=check\n"
           "--file names a logical table file or directory. The store must not be open in\n"
           "another process. RocksDB's sst_dump help follows.\n";
  }
  void PrintExtraHelp() const override {
    const char* argv[] = {"sst_dump", "--help"};
    rocksdb::SSTDumpTool().Run(2, argv);
  }

 protected:
  int RunTool(int argc, const char* const* argv, const rocksdb::Options& options) const override {
    return rocksdb::SSTDumpTool().Run(argc, argv, options);
  }
};

}  // namespace

std::unique_ptr<Command> NewLdbCommand() { return std::make_unique<LdbCommand>(); }
std::unique_ptr<Command> NewSstDumpCommand() { return std::make_unique<SstDumpCommand>(); }

}  // namespace tool
}  // namespace tierfs
