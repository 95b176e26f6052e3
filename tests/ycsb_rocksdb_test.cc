// tierfs-ycsb end to end, as a user runs it: load and run phases on RocksDB
// in a temporary directory and on TierFS over two, the report's lines parsed
// back and their counts added up, the keys checked in the database itself,
// and bad input refused with a non-zero exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include <rocksdb/db.h>

#include "tierfs/file_system.h"
#include "tests/test_util.h"
#include "tools/ycsb/core_workload.h"
#include "tools/ycsb/tool.h"

namespace tierfs {
namespace ycsb {
namespace {

// A report parsed back: value of "[METRIC], MEASUREMENT, VALUE".
using Report = std::map<std::pair<std::string, std::string>, std::string>;

struct ToolRun {
  int exit_status = -1;
  std::string out, err;
  Report report;
};

ToolRun RunYcsb(const std::vector<std::string>& args) {
  ToolRun run;
  std::ostringstream out, err;
  run.exit_status = RunTool(args, &out, &err);
  run.out = out.str();
  run.err = err.str();
  static const std::regex kLine(R"(^\[([A-Z-]+)\], ([^,]+), (-?[0-9.E-]+|NaN|Infinity)$)");
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    EXPECT_TRUE(std::regex_match(line, m, kLine)) << "not a YCSB report line: " << line;
    if (!m.empty()) run.report[{m[1], m[2]}] = m[3];
  }
  return run;
}

int64_t Int(const Report& r, const std::string& metric, const std::string& measurement) {
  auto it = r.find({metric, measurement});
  return it == r.end() ? 0 : std::stoll(it->second);
}

std::vector<std::string> WorkloadA(const std::string& phase, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {phase, "-P",
                                   std::string(TIERFS_SOURCE_DIR) + "/benchmarks/ycsb/workloads/workloada"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(YcsbRocksDbTest, ReportLinesParseAndCountsAddUp) {
  test::ScratchDir dir("ycsb-out");
  const std::string db = "rocksdb.dir=" + dir.path() + "/db";
  const std::string json = dir.path() + "/load.json";
  ToolRun load = RunYcsb(WorkloadA("-load", {"-p", db, "-p", "recordcount=500", "-json", json}));
  ASSERT_EQ(0, load.exit_status) << load.err;
  EXPECT_GT(Int(load.report, "OVERALL", "RunTime(ms)"), 0);
  EXPECT_GT(std::stod(load.report.at({"OVERALL", "Throughput(ops/sec)"})), 0);
  EXPECT_EQ(500, Int(load.report, "INSERT", "Operations"));
  EXPECT_EQ(500, Int(load.report, "INSERT", "Return=OK"));
  EXPECT_EQ(1, Int(load.report, "CLEANUP", "Operations"));
  EXPECT_LE(Int(load.report, "INSERT", "MinLatency(us)"), Int(load.report, "INSERT", "95thPercentileLatency(us)"));
  EXPECT_LE(Int(load.report, "INSERT", "95thPercentileLatency(us)"), Int(load.report, "INSERT", "99thPercentileLatency(us)"));
  EXPECT_LE(Int(load.report, "INSERT", "99thPercentileLatency(us)"), Int(load.report, "INSERT", "MaxLatency(us)") + 1);

  // The -json copy holds the same rows as YCSB's JSON array exporter writes them.
  std::ifstream json_file(json);
  const nlohmann::json rows = nlohmann::json::parse(json_file);
  ASSERT_TRUE(rows.is_array());
  EXPECT_EQ(load.report.size(), rows.size());
  EXPECT_EQ("OVERALL", rows[0]["metric"]);
  EXPECT_EQ("RunTime(ms)", rows[0]["measurement"]);
  EXPECT_EQ(Int(load.report, "OVERALL", "RunTime(ms)"), rows[0]["value"].get<int64_t>());

  ToolRun run = RunYcsb(WorkloadA("-run", {"-p", db, "-p", "recordcount=500", "-p",
                                       "operationcount=400", "-threads", "2"}));
  ASSERT_EQ(0, run.exit_status) << run.err;
  const int64_t reads = Int(run.report, "READ", "Operations");
  const int64_t updates = Int(run.report, "UPDATE", "Operations");
  EXPECT_GT(reads, 100);
  EXPECT_GT(updates, 100);
  EXPECT_EQ(400, reads + updates);  // every key was loaded: nothing failed
  EXPECT_EQ(reads, Int(run.report, "READ", "Return=OK"));
  EXPECT_EQ(updates, Int(run.report, "UPDATE", "Return=OK"));
  EXPECT_EQ(0u, run.report.count({"READ-FAILED", "Operations"}));
  EXPECT_EQ(2, Int(run.report, "CLEANUP", "Operations"));  // one per thread
  const double throughput = std::stod(run.report.at({"OVERALL", "Throughput(ops/sec)"}));
  EXPECT_NEAR(1000.0 * 400 / double(Int(run.report, "OVERALL", "RunTime(ms)")), throughput, 1e-6 * throughput);

  // Reads of keys never loaded are NOT_FOUND, timed under READ-FAILED, as YCSB.
  ToolRun missing = RunYcsb(WorkloadA("-run", {"-p", db, "-p", "recordcount=1000", "-p", "insertstart=500",
                                           "-p", "operationcount=50", "-p", "readproportion=1",
                                           "-p", "updateproportion=0"}));
  ASSERT_EQ(0, missing.exit_status) << missing.err;
  EXPECT_EQ(50, Int(missing.report, "READ", "Return=NOT_FOUND"));
  EXPECT_EQ(50, Int(missing.report, "READ-FAILED", "Operations"));
  EXPECT_EQ(0, Int(missing.report, "READ", "Operations"));

  // YCSB's exportfile and exporter: the report goes to the file, as JSON.
  const std::string exported = dir.path() + "/report.json";
  ToolRun to_file = RunYcsb(WorkloadA("-run", {"-p", db, "-p", "operationcount=10", "-p", "exportfile=" + exported,
                                               "-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"}));
  ASSERT_EQ(0, to_file.exit_status) << to_file.err;
  EXPECT_EQ("", to_file.out);
  std::ifstream exported_file(exported);
  const nlohmann::json exported_rows = nlohmann::json::parse(exported_file);
  EXPECT_EQ("Throughput(ops/sec)", exported_rows[1]["measurement"]);
}

// Every key the load phase inserted, by insert order, and the key count.
void CheckKeys(const std::string& uri, const CoreWorkload& workload, int64_t first, int64_t count,
               int64_t expected_total) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
  std::unique_ptr<rocksdb::Env> env = NewTierEnv(fs);
  rocksdb::DBOptions options;
  options.env = env.get();
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {"usertable", rocksdb::ColumnFamilyOptions()}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, "/db", families, &handles, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int64_t i = first; i < first + count; ++i) {
    std::string value;
    s = db->Get(rocksdb::ReadOptions(), handles[1], workload.BuildKeyName(i), &value);
    ASSERT_TRUE(s.ok()) << "key number " << i << " (" << workload.BuildKeyName(i) << "): " << s.ToString();
    EXPECT_GT(value.size(), 1000u);  // 10 fields of 100 bytes and their names
  }
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), handles[1]));
  int64_t total = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++total;
  EXPECT_EQ(expected_total, total);
  it.reset();
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
}

TEST(YcsbRocksDbTest, LoadAndRunOnTierFS) {
  test::ScratchDir dir("ycsb-tierfs");
  const std::string uri = test::MakeUri(dir, {"64M:none", "1G:none"});
  const std::vector<std::string> common = {"-p", "rocksdb.dir=/db", "-p", "rocksdb.fs_uri=" + uri,
                                           "-p", "recordcount=1000", "-p", "rocksdb.write_buffer_size=256K"};
  ToolRun load = RunYcsb(WorkloadA("-load", common));
  ASSERT_EQ(0, load.exit_status) << load.err;
  ASSERT_EQ(1000, Int(load.report, "INSERT", "Return=OK"));

  Properties props;
  props.Set("recordcount", "1000");  // hashed insert order, as the load used
  Measurements m;
  std::unique_ptr<CoreWorkload> workload;
  ASSERT_TRUE(CoreWorkload::Create(props, &m, &workload).ok());
  CheckKeys(uri, *workload, 0, 1000, 1000);

  std::vector<std::string> run_args = common;
  for (const char* p : {"operationcount=300", "readproportion=0.5", "updateproportion=0",
                        "insertproportion=0.5"}) {
    run_args.push_back("-p");
    run_args.push_back(p);
  }
  ToolRun run = RunYcsb(WorkloadA("-run", run_args));
  ASSERT_EQ(0, run.exit_status) << run.err;
  const int64_t inserts = Int(run.report, "INSERT", "Return=OK");
  EXPECT_GT(inserts, 100);
  EXPECT_EQ(300, inserts + Int(run.report, "READ", "Return=OK"));
  EXPECT_EQ(0, Int(run.report, "READ", "Return=NOT_FOUND"));
  // The run's inserts took key numbers 1000, 1001, ...: the count grew by them.
  CheckKeys(uri, *workload, 1000, inserts, 1000 + inserts);
}

TEST(YcsbRocksDbTest, TargetThrottlesAndStatusReports) {
  test::ScratchDir dir("ycsb-target");
  const std::string db = "rocksdb.dir=" + dir.path() + "/db";
  ASSERT_EQ(0, RunYcsb(WorkloadA("-load", {"-p", db, "-p", "recordcount=100"})).exit_status);
  // 100 operations at 250/s over 2 threads take 0.4 s at least.
  ToolRun run = RunYcsb(WorkloadA("-run", {"-p", db, "-p", "recordcount=100", "-p", "operationcount=100",
                                       "-threads", "2", "-target", "250", "-s", "-l", "LBL"}));
  ASSERT_EQ(0, run.exit_status) << run.err;
  EXPECT_GE(Int(run.report, "OVERALL", "RunTime(ms)"), 390);
  EXPECT_LT(Int(run.report, "OVERALL", "RunTime(ms)"), 5000);
  // YCSB's status lines on stderr: one as the threads start, one at the end.
  EXPECT_TRUE(std::regex_search(run.err, std::regex(R"(\nLBL\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} 0 sec: \d+ operations; )")))
      << run.err;
  EXPECT_TRUE(std::regex_search(run.err, std::regex(R"(sec: 100 operations; [0-9.]+ current ops/sec; \[READ: Count=\d+, Max=\d+, Min=\d+, Avg=[0-9.]+, 90=\d+, 99=\d+, 99.9=\d+, 99.99=\d+\])")))
      << run.err;
}

TEST(YcsbRocksDbTest, BadInputExitsNonZeroNamingIt) {
  test::ScratchDir dir("ycsb-bad");
  const std::string db = "rocksdb.dir=" + dir.path() + "/db";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-load", "-bogus"}, "-bogus"},
      {{"-load", "-P", dir.path() + "/nope"}, dir.path() + "/nope"},
      {WorkloadA("-load", {"-p", db, "-p", "recordcount=lots"}), "recordcount"},
      {WorkloadA("-load", {"-p", db, "-p", "rocksdb.colour=blue"}), "rocksdb.colour"},
      {WorkloadA("-load", {"-p", "recordcount=10"}), "rocksdb.dir"},
      {WorkloadA("-load", {"-p", db, "-p", "rocksdb.fs_uri=nosuchfs://x"}), "nosuchfs://x"},
      {WorkloadA("-load", {"-p", db, "-p", "measurementtype=raw"}), "measurementtype"},
      {WorkloadA("-run", {"-p", db, "-p", "readproportion=0", "-p", "updateproportion=0"}), "proportion"},
  };
  for (const auto& c : cases) {
    ToolRun run = RunYcsb(c.first);
    EXPECT_NE(0, run.exit_status) << c.second;
    EXPECT_NE(std::string::npos, run.err.find(c.second)) << run.err;
    EXPECT_EQ("", run.out) << c.second;
  }
}

// warmuptime: operations first, in the same process, that the report leaves
// out; refused with inserts (the measured run would insert the same keys).
TEST(YcsbRocksDbTest, WarmUpRunsFirstAndIsLeftOutOfTheReport) {
  test::ScratchDir dir("ycsb-warmup");
  const std::string db = "rocksdb.dir=" + dir.path() + "/db";
  ASSERT_EQ(0, RunYcsb(WorkloadA("-load", {"-p", db, "-p", "recordcount=100"})).exit_status);
  ToolRun run = RunYcsb(WorkloadA("-run", {"-p", db, "-p", "recordcount=100", "-p",
                                           "operationcount=50", "-p", "warmuptime=1"}));
  ASSERT_EQ(0, run.exit_status) << run.err;
  EXPECT_EQ(50, Int(run.report, "READ", "Operations") + Int(run.report, "UPDATE", "Operations"));
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.err, m, std::regex(R"(Warm-up done: (\d+) operations in (\d+) ms)")))
      << run.err;
  EXPECT_GT(std::stoll(m[1]), 0);
  EXPECT_GE(std::stoll(m[2]), 990);
  EXPECT_NE(std::string::npos, run.err.find("Warming up for 1 s.")) << run.err;

  ToolRun inserts = RunYcsb(WorkloadA("-run", {"-p", db, "-p", "recordcount=100", "-p",
                                               "insertproportion=0.5", "-p", "warmuptime=1"}));
  EXPECT_EQ(2, inserts.exit_status);
  EXPECT_NE(std::string::npos, inserts.err.find("warmuptime")) << inserts.err;
}

// A small database on a TierFS store in `dir`, loaded: the -p arguments that
// reach it (its URI in *uri).
std::vector<std::string> SmallLoadedStore(const test::ScratchDir& dir, std::string* uri) {
  *uri = test::MakeUri(dir, {"256M:none", "1G:none"});
  const std::vector<std::string> common = {
      "-p", "rocksdb.dir=/db", "-p", "rocksdb.fs_uri=" + *uri, "-p", "recordcount=2000",
      "-p", "rocksdb.write_buffer_size=256K", "-p", "rocksdb.block_cache_size=64K"};
  EXPECT_EQ(0, RunYcsb(WorkloadA("-load", common)).exit_status);
  return common;
}

std::vector<std::string> WithProperties(std::vector<std::string> args,
                                        std::initializer_list<const char*> properties) {
  for (const char* p : properties) {
    args.push_back("-p");
    args.push_back(p);
  }
  return args;
}

// RocksDB's persistent read cache (BlockCacheTier), on TierFS: its files are
// made where rocksdb.persistent_cache_path says, inside the file system, and
// every read still finds its key.
TEST(YcsbRocksDbTest, PersistentCacheLivesInTheFileSystem) {
  test::ScratchDir dir("ycsb-pcache");
  std::string uri;
  const std::vector<std::string> common = SmallLoadedStore(dir, &uri);
  ToolRun run = RunYcsb(WorkloadA(
      "-run", WithProperties(common, {"operationcount=3000", "readproportion=1",
                                      "updateproportion=0", "rocksdb.persistent_cache_path=/rc",
                                      "rocksdb.persistent_cache_size=120M"})));
  ASSERT_EQ(0, run.exit_status) << run.err;
  EXPECT_EQ(3000, Int(run.report, "READ", "Return=OK"));
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
  std::vector<std::string> children;
  ASSERT_TRUE(fs->GetChildren("/rc", rocksdb::IOOptions(), &children, nullptr).ok());
  EXPECT_NE(children.end(), std::find(children.begin(), children.end(), "rc_LOG"));
  EXPECT_NE(children.end(), std::find(children.begin(), children.end(), "cache"));
}

// warmupuntilstable: after warmuptime the warm-up goes on in steps and ends
// once the persistent cache stopped growing, here long before warmupmax (the
// data, ~2 MiB, fits the cache many times over); without a persistent cache
// it is refused.
TEST(YcsbRocksDbTest, WarmUpUntilThePersistentCacheStopsGrowing) {
  test::ScratchDir dir("ycsb-pcache-warm");
  std::string uri;
  const std::vector<std::string> common = SmallLoadedStore(dir, &uri);
  ToolRun run = RunYcsb(WorkloadA(
      "-run", WithProperties(common, {"operationcount=500", "readproportion=1",
                                      "updateproportion=0", "requestdistribution=uniform",
                                      "rocksdb.persistent_cache_path=/rc",
                                      "rocksdb.persistent_cache_size=120M", "warmuptime=1",
                                      "warmupuntilstable=true", "warmupstep=1",
                                      "warmupmax=600"})));
  ASSERT_EQ(0, run.exit_status) << run.err;
  EXPECT_EQ(500, Int(run.report, "READ", "Return=OK"));
  EXPECT_NE(std::string::npos, run.err.find("the persistent cache stopped growing")) << run.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.err, m, std::regex(R"(holds (\d+) bytes after (\d+) s)")))
      << run.err;
  EXPECT_GT(std::stoll(m[1]), 0) << "the cache was filled in the first step";
  // Each step is logged with the cache's size; the last one grew by < 1%.
  std::vector<int64_t> sizes;
  const std::regex step(R"(holds (\d+) bytes after \d+ s)");
  for (auto it = std::sregex_iterator(run.err.begin(), run.err.end(), step);
       it != std::sregex_iterator(); ++it) {
    sizes.push_back(std::stoll((*it)[1]));
  }
  ASSERT_GE(sizes.size(), 2u) << run.err;  // a step cannot be stable on its own
  EXPECT_LT((sizes.back() - sizes[sizes.size() - 2]) * 100, sizes.back());

  ToolRun refused = RunYcsb(WorkloadA(
      "-run", WithProperties(common, {"operationcount=10", "warmuptime=5",
                                      "warmupuntilstable=true"})));
  EXPECT_EQ(2, refused.exit_status);
  EXPECT_NE(std::string::npos, refused.err.find("rocksdb.persistent_cache_path")) << refused.err;
}

}  // namespace
}  // namespace ycsb
}  // namespace tierfs
