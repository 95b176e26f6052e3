// Live tuning (tools/tune/rocksdb_options.h, live_evaluator.h): a space's
// rocksdb.NAME keys are live-only (parsed and checked, rendered into the
// configuration, dropped for a simulated search and refused by the simulator
// evaluator by name); the OPTIONS file they become loads in RocksDB with
// their values; and the live evaluator, on a tiny db_bench run, makes the
// store with the configuration's keys, runs RocksDB with its OPTIONS values,
// caches by (workload, configuration), and names the configuration when a
// run fails. Behaviour only: no timing is checked.
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_util.h"
#include "tools/tune/evaluator.h"
#include "tools/tune/live_evaluator.h"
#include "tools/tune/rocksdb_options.h"
#include "tools/tune/space.h"

namespace tierfs {
namespace tune {
namespace {

const char kSpace[] =
    "tiers /fast:64M:optane,/slow:1G:sata-ssd\n"
    "policy categorical fast-first lru\n"
    "segment_size discrete 256K 1M\n"
    "rocksdb.write_buffer_size numeric 1M..64M log\n"
    "rocksdb.use_direct_reads categorical false true\n"
    "fixed rocksdb.max_bytes_for_level_multiplier 6\n";

// The checks a loaded OPTIONS file must pass for the values of kOptions.
const std::map<std::string, std::string> kOptions = {
    {"block_cache_size", "3M"},
    {"write_buffer_size", "2M"},
    {"max_bytes_for_level_base", "12M"},
    {"max_bytes_for_level_multiplier", "6"},
    {"target_file_size_base", "1M"},
    {"compaction_readahead_size", "256K"},
    {"use_direct_reads", "true"},
    {"use_direct_io_for_flush_and_compaction", "true"}};

// `ours`: the file OptionsFileText wrote, not the one RocksDB writes in the
// database, which persists neither listeners nor the block cache.
void ExpectCarries(const rocksdb::DBOptions& db, const rocksdb::ColumnFamilyOptions& cf,
                   bool ours) {
  EXPECT_EQ(cf.write_buffer_size, 2u << 20);
  EXPECT_EQ(cf.max_bytes_for_level_base, 12u << 20);
  EXPECT_DOUBLE_EQ(cf.max_bytes_for_level_multiplier, 6);
  EXPECT_EQ(cf.target_file_size_base, 1u << 20);
  EXPECT_EQ(db.compaction_readahead_size, 256u << 10);
  EXPECT_TRUE(db.use_direct_reads);
  EXPECT_TRUE(db.use_direct_io_for_flush_and_compaction);
  if (ours) {
    ASSERT_EQ(1u, db.listeners.size());
    EXPECT_STREQ("TierFSListener", db.listeners[0]->Name());
    const auto* table = cf.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    ASSERT_NE(nullptr, table);
    ASSERT_NE(nullptr, table->block_cache);
    EXPECT_EQ(table->block_cache->GetCapacity(), 3u << 20);
  }
}

TEST(TuneLive, OptionsFileLoadsInRocksDbWithItsValues) {
  test::ScratchDir dir("tuneopts");
  const std::string path = dir.path() + "/OPTIONS.ini";
  std::string error;
  ASSERT_TRUE(WriteOptionsFile(kOptions, path, &error)) << error;
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions db;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = rocksdb::LoadOptionsFromFile(config, path, &db, &cfs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(1u, cfs.size());
  ExpectCarries(db, cfs[0].options, true);
}

TEST(TuneLive, OptionsFileRefusesWhatRocksDbWouldNot) {
  std::string text, error;
  EXPECT_FALSE(OptionsFileText({{"write_buffer_size", "lots"}}, &text, &error));
  EXPECT_NE(error.find("rocksdb.write_buffer_size: 'lots' is not a size"), std::string::npos)
      << error;
  EXPECT_FALSE(OptionsFileText({{"colour", "1"}}, &text, &error));
  EXPECT_NE(error.find("unknown RocksDB option 'rocksdb.colour'"), std::string::npos) << error;
  EXPECT_FALSE(OptionsFileText({{"use_direct_reads", "yes"}}, &text, &error));
  EXPECT_NE(error.find("neither true nor false"), std::string::npos) << error;
}

TEST(TuneLive, SplitConfigurationSeparatesRocksDbKeys) {
  std::string uri;
  std::map<std::string, std::string> options;
  SplitConfiguration("tierfs:///a:1G:optane,/b:8G;policy:lru;rocksdb.write_buffer_size:8M;"
                     "segment_size:1M;rocksdb.use_direct_reads:true",
                     &uri, &options);
  EXPECT_EQ(uri, "tierfs:///a:1G:optane,/b:8G;policy:lru;segment_size:1M");
  EXPECT_EQ(options, (std::map<std::string, std::string>{{"write_buffer_size", "8M"},
                                                         {"use_direct_reads", "true"}}));
}

TEST(TuneLive, SpaceKeepsRocksDbKeysAsLiveOnly) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(kSpace, "t", &space, &error)) << error;
  ASSERT_TRUE(space.HasLive());
  // RocksDB 7.8's own default for write_buffer_size (64M), direct reads off.
  const std::string def = space.Render(space.Default());
  EXPECT_EQ(def, "tierfs:///fast:64M:optane,/slow:1G:sata-ssd;rocksdb.max_bytes_for_level_"
                 "multiplier:6;policy:fast-first;segment_size:1M;rocksdb.write_buffer_size:64M;"
                 "rocksdb.use_direct_reads:false");
  Point p;
  ASSERT_TRUE(space.PointOf(def, &p));
  EXPECT_EQ(p, space.Default());

  const Space sim = space.WithoutLive();
  EXPECT_FALSE(sim.HasLive());
  EXPECT_EQ(sim.size(), 2u);
  EXPECT_EQ(sim.Render(sim.Default()),
            "tierfs:///fast:64M:optane,/slow:1G:sata-ssd;policy:fast-first;segment_size:1M");

  for (const char* bad : {"rocksdb.colour numeric 1..2\n",
                          "rocksdb.write_buffer_size categorical big small\n",
                          "rocksdb.use_direct_reads categorical false maybe\n"}) {
    EXPECT_FALSE(Space::Parse(std::string("tiers /fast:64M:optane,/slow:1G\n") + bad, "t", &space,
                              &error))
        << bad;
    EXPECT_NE(error.find("rocksdb."), std::string::npos) << error;
  }
}

TEST(TuneLive, SimulatorEvaluatorRefusesLiveOnlyKeysByName) {
  SimEvaluatorOptions options;
  options.requests = 2000;
  SimEvaluator sim(options);
  Measurement m;
  std::string error;
  EXPECT_FALSE(sim.Evaluate("YCSB-B",
                            "tierfs:///fast:64M:optane,/slow:1G:sata-ssd;policy:lru;"
                            "rocksdb.write_buffer_size:8M",
                            &m, &error));
  EXPECT_NE(error.find("rocksdb.write_buffer_size is a live-only key"), std::string::npos)
      << error;
}

LiveEvaluatorOptions Tiny(const std::string& work) {
  LiveEvaluatorOptions o;
  o.plugin = std::string(TIERFS_BUILD_DIR) + "/libtierfs.so";
  o.work_dir = work;
  o.num = 3000;
  o.value_size = 200;
  o.keep_runs = true;
  return o;
}

TEST(TuneLive, LiveRunUsesTheConfigurationsStoreAndOptions) {
  if (access("/usr/bin/db_bench", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/db_bench";
  test::ScratchDir work("tunelive");
  LiveEvaluator live(Tiny(work.path()));
  std::string configuration = "tierfs:///fast:64M:optane,/slow:1G:sata-ssd;policy:lru;"
                              "segment_size:256K";
  for (const auto& [name, value] : kOptions) {
    configuration += ";" + std::string(kRocksDbPrefix) + name + ":" + value;
  }
  Measurement m;
  std::string error;
  ASSERT_TRUE(live.Evaluate("fillrandom,readrandom", configuration, &m, &error)) << error;
  EXPECT_GT(m.throughput, 0);
  EXPECT_GT(m.mean_us, 0);
  EXPECT_EQ(1u, live.runs());

  // The store: the configuration's keys on tiers re-rooted in the run's directory.
  const std::string run = live.last_dir();
  EXPECT_EQ(live.last_uri(), "tierfs://" + run + "/tier0:64M:optane," + run +
                                 "/tier1:1G:sata-ssd;policy:lru;segment_size:256K");
  const std::vector<std::string> command = test::ReadLines(run + "/command.txt");
  EXPECT_NE(std::find(command.begin(), command.end(), "--fs_uri=" + live.last_uri()),
            command.end());
  EXPECT_NE(std::find(command.begin(), command.end(), "--cache_size=" + std::to_string(3 << 20)),
            command.end());

  // The database in it ran with the OPTIONS values: RocksDB's own OPTIONS
  // file in /db, read through the store db_bench wrote.
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = NewTierFileSystem(live.last_uri(), &fs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  {
    std::unique_ptr<rocksdb::Env> env = NewTierEnv(fs);
    rocksdb::ConfigOptions config;
    config.env = env.get();
    rocksdb::DBOptions db;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    s = rocksdb::LoadLatestOptions(config, "/db", &db, &cfs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    // The block cache is not persisted in RocksDB's own OPTIONS file: the
    // command line carries it (--cache_size, checked above); nor the listener.
    ExpectCarries(db, cfs[0].options, false);
  }
  EXPECT_TRUE(Close(fs.get()).ok());

  // Asked again: the cache answers, db_bench does not run.
  Measurement again;
  ASSERT_TRUE(live.Evaluate("fillrandom,readrandom", configuration, &again, &error)) << error;
  EXPECT_EQ(1u, live.runs());
  EXPECT_EQ(1u, live.hits());
  EXPECT_EQ(again.throughput, m.throughput);
}

TEST(TuneLive, FailedRunNamesTheConfiguration) {
  test::ScratchDir work("tunefail");
  LiveEvaluatorOptions o = Tiny(work.path());
  o.db_bench = "/bin/false";
  LiveEvaluator live(o);
  const std::string configuration =
      "tierfs:///fast:64M:optane,/slow:1G:sata-ssd;policy:lru;rocksdb.write_buffer_size:2M";
  Measurement m;
  std::string error;
  EXPECT_FALSE(live.Evaluate("fillrandom", configuration, &m, &error));
  EXPECT_NE(error.find("under '" + configuration + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("exited with status 1"), std::string::npos) << error;

  o.db_bench = "/nonexistent/db_bench";
  LiveEvaluator missing(o);
  EXPECT_FALSE(missing.Evaluate("fillrandom", configuration, &m, &error));
  EXPECT_NE(error.find("could not start (/nonexistent/db_bench)"), std::string::npos) << error;

  EXPECT_FALSE(missing.Evaluate("fillrandom", "/not/a/uri", &m, &error));
  EXPECT_NE(error.find("under '/not/a/uri': not a tierfs:// URI"), std::string::npos) << error;
}

TEST(TuneLive, ParsesDbBenchReports) {
  const std::string log =
      "... finished 3000 ops\rDB path: [/db]\n"
      "fillrandom   :       9.000 micros/op 111111 ops/sec 0.027 seconds 3000 operations;\n"
      "Percentiles: P50: 5.00 P75: 7.00 P99: 80.00 P99.9: 900.00\n"
      "... finished 3000 ops\rDB path: [/db]\n"
      "readrandom   :       1.543 micros/op 647249 ops/sec 0.005 seconds 3000 operations;\n"
      "Microseconds per read:\n"
      "Percentiles: P50: 0.77 P75: 1.33 P99: 6.00 P99.9: 51.00 P99.99: 159.00\n";
  Measurement m;
  std::string error;
  ASSERT_TRUE(ParseDbBenchResult(log, "readrandom", &m, &error)) << error;
  EXPECT_DOUBLE_EQ(m.mean_us, 1.543);
  EXPECT_DOUBLE_EQ(m.throughput, 647249);
  EXPECT_DOUBLE_EQ(m.p99_us, 6.0);
  ASSERT_TRUE(ParseDbBenchResult(log, "fillrandom", &m, &error)) << error;
  EXPECT_DOUBLE_EQ(m.p99_us, 80.0);
  EXPECT_FALSE(ParseDbBenchResult(log, "mixgraph", &m, &error));
  EXPECT_NE(error.find("no result for 'mixgraph'"), std::string::npos);
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
