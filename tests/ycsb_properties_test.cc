// YCSB's configuration: .properties files, the command line (-P, -p, -load,
// -threads, ...), the shipped workloads and the RocksDB binding's properties.
// Every bad input is an error that names it.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/test_util.h"
#include "tools/ycsb/client.h"
#include "tools/ycsb/command_line.h"
#include "tools/ycsb/core_workload.h"
#include "tools/ycsb/properties.h"
#include "tools/ycsb/rocksdb_options.h"

namespace tierfs {
namespace ycsb {
namespace {

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(PropertiesTest, ReadsJavaPropertiesSyntax) {
  Properties p;
  ASSERT_TRUE(p.LoadText("# a comment\n"
                         "! another comment\n"
                         "\n"
                         "   \t\n"
                         "recordcount=1000\n"
                         "  operationcount = 500  \n"
                         "table: users\n"
                         "label spaced value\n"
                         "long=first \\\n"
                         "     second\n"
                         "escaped=a\\tb\\u0041\\=\n"
                         "crlf=yes\r\n"
                         "empty=\n"
                         "recordcount=2000\n",
                         "test")
                  .ok());
  EXPECT_EQ("2000", p.Get("recordcount"));  // later line wins
  EXPECT_EQ("500", p.Get("operationcount"));
  EXPECT_EQ("users", p.Get("table"));
  EXPECT_EQ("spaced value", p.Get("label"));
  EXPECT_EQ("first second", p.Get("long"));
  EXPECT_EQ("a\tbA=", p.Get("escaped"));
  EXPECT_EQ("yes", p.Get("crlf"));
  EXPECT_TRUE(p.Has("empty"));
  EXPECT_EQ("", p.Get("empty", "default"));
  EXPECT_FALSE(p.Has("# a comment"));
  EXPECT_EQ(8u, p.all().size());
}

TEST(PropertiesTest, TypedGettersNameTheBadProperty) {
  Properties p;
  p.Set("n", "12x");
  p.Set("d", "0.5.1");
  p.Set("b", "maybe");
  p.Set("ok", "-42");
  int64_t n = 0;
  double d = 0;
  bool b = false;
  rocksdb::Status s = p.GetInt64("n", 0, &n);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(std::string::npos, s.ToString().find("'n'"));
  EXPECT_NE(std::string::npos, s.ToString().find("12x"));
  EXPECT_TRUE(p.GetDouble("d", 0, &d).IsInvalidArgument());
  EXPECT_TRUE(p.GetBool("b", false, &b).IsInvalidArgument());
  ASSERT_TRUE(p.GetInt64("ok", 0, &n).ok());
  EXPECT_EQ(-42, n);
  ASSERT_TRUE(p.GetInt64("absent", 7, &n).ok());
  EXPECT_EQ(7, n);
  p.Set("b", "TRUE");
  ASSERT_TRUE(p.GetBool("b", false, &b).ok());
  EXPECT_TRUE(b);
}

TEST(CommandLineTest, FilesThenOverridesLaterFileWins) {
  test::ScratchDir dir("ycsb-cl");
  const std::string first = dir.path() + "/first", second = dir.path() + "/second";
  WriteFile(first, "recordcount=100\nfieldcount=3\nthreadcount=9\n");
  WriteFile(second, "recordcount=200\n");
  CommandLine cl;
  // -p before the -P files still overrides them, as in YCSB.
  ASSERT_TRUE(ParseCommandLine({"-p", "fieldcount=5", "-P", first, "-P", second, "-load",
                                "-threads", "4", "-target", "1000", "-s", "-l", "lbl",
                                "-json", "/tmp/x.json"},
                               &cl)
                  .ok());
  EXPECT_EQ("200", cl.props.Get("recordcount"));
  EXPECT_EQ("5", cl.props.Get("fieldcount"));
  EXPECT_EQ("4", cl.props.Get("threadcount"));  // -threads beats the file
  EXPECT_EQ("1000", cl.props.Get("target"));
  EXPECT_EQ("false", cl.props.Get("dotransactions"));
  EXPECT_EQ("true", cl.props.Get("status"));
  EXPECT_EQ("lbl", cl.props.Get("label"));
  EXPECT_EQ("/tmp/x.json", cl.json_path);

  ClientOptions options;
  ASSERT_TRUE(ClientOptionsFromProperties(cl.props, &options).ok());
  EXPECT_FALSE(options.do_transactions);
  EXPECT_EQ(4, options.threads);
  EXPECT_EQ(1000, options.target);
  EXPECT_EQ(200, options.operation_count);  // load: recordcount
  EXPECT_TRUE(options.status);

  ASSERT_TRUE(ParseCommandLine({"-P", first, "-run", "-p", "operationcount=77",
                                "-p", "insertcount=10"}, &cl).ok());
  ASSERT_TRUE(ClientOptionsFromProperties(cl.props, &options).ok());
  EXPECT_TRUE(options.do_transactions);
  EXPECT_EQ(77, options.operation_count);  // run: operationcount
  EXPECT_EQ(9, options.threads);
}

TEST(CommandLineTest, BadArgumentsAreNamed) {
  test::ScratchDir dir("ycsb-cl");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-x"}, "'-x'"},
      {{"-load", "stray"}, "'stray'"},
      {{"-threads"}, "-threads"},
      {{"-threads", "0"}, "-threads"},
      {{"-threads", "two"}, "'two'"},
      {{"-target", "-5"}, "-target"},
      {{"-p", "novalue"}, "'novalue'"},
      {{"-p", "=v"}, "'=v'"},
      {{"-P", dir.path() + "/missing"}, dir.path() + "/missing"},
      {{"-P", dir.path()}, dir.path()},  // a directory is no property file
  };
  for (const auto& c : cases) {
    CommandLine cl;
    rocksdb::Status s = ParseCommandLine(c.first, &cl);
    EXPECT_FALSE(s.ok()) << c.second;
    EXPECT_NE(std::string::npos, s.ToString().find(c.second)) << s.ToString();
  }
  CommandLine cl;
  ASSERT_TRUE(ParseCommandLine({"-h"}, &cl).ok());
  EXPECT_TRUE(cl.help);
  EXPECT_NE(std::string::npos, Usage().find("-threads N"));
}

TEST(ShippedWorkloadsTest, AllSixParseAsYcsbDefinesThem) {
  struct Expected {
    const char* name;
    const char* read, *update, *insert, *scan, *distribution;
  };
  const Expected expected[] = {
      {"workloada", "0.5", "0.5", "0", "0", "zipfian"},
      {"workloadb", "0.95", "0.05", "0", "0", "zipfian"},
      {"workloadc", "1", "0", "0", "0", "zipfian"},
      {"workloadd", "0.95", "0", "0.05", "0", "latest"},
      {"workloade", "0", "0", "0.05", "0.95", "zipfian"},
      {"workloadf", "0.5", "0", "0", "0", "zipfian"},
  };
  for (const Expected& e : expected) {
    Properties p;
    const std::string path = std::string(TIERFS_SOURCE_DIR) + "/benchmarks/ycsb/workloads/" + e.name;
    ASSERT_TRUE(p.LoadFile(path).ok()) << path;
    EXPECT_EQ("1000", p.Get("recordcount")) << e.name;
    EXPECT_EQ("1000", p.Get("operationcount")) << e.name;
    EXPECT_EQ("site.ycsb.workloads.CoreWorkload", p.Get("workload")) << e.name;
    EXPECT_EQ("true", p.Get("readallfields")) << e.name;
    EXPECT_EQ(e.read, p.Get("readproportion")) << e.name;
    EXPECT_EQ(e.update, p.Get("updateproportion")) << e.name;
    EXPECT_EQ(e.insert, p.Get("insertproportion")) << e.name;
    EXPECT_EQ(e.scan, p.Get("scanproportion")) << e.name;
    EXPECT_EQ(e.distribution, p.Get("requestdistribution")) << e.name;
    Measurements m;
    std::unique_ptr<CoreWorkload> w;
    EXPECT_TRUE(CoreWorkload::Create(p, &m, &w).ok()) << e.name;
  }
  Properties e, f;
  ASSERT_TRUE(e.LoadFile(std::string(TIERFS_SOURCE_DIR) + "/benchmarks/ycsb/workloads/workloade").ok());
  EXPECT_EQ("100", e.Get("maxscanlength"));
  EXPECT_EQ("uniform", e.Get("scanlengthdistribution"));
  ASSERT_TRUE(f.LoadFile(std::string(TIERFS_SOURCE_DIR) + "/benchmarks/ycsb/workloads/workloadf").ok());
  EXPECT_EQ("0.5", f.Get("readmodifywriteproportion"));
}

TEST(RocksDbConfigTest, ReadsTheBindingProperties) {
  Properties p;
  p.Set("rocksdb.dir", "/db");
  p.Set("rocksdb.fs_uri", "tierfs:///a:1G,/b:2G");
  p.Set("rocksdb.optionsfile", "/etc/OPTIONS");  // YCSB's spelling
  p.Set("rocksdb.db_paths", "/fast:64M,/slow/x:10G");
  p.Set("rocksdb.wal_dir", "/fast/wal");
  p.Set("rocksdb.last_level_temperature", "kCold");
  p.Set("rocksdb.block_cache_size", "8M");
  p.Set("rocksdb.compression", "none");
  p.Set("rocksdb.write_buffer_size", "4M");
  p.Set("rocksdb.use_direct_io", "true");
  p.Set("rocksdb.num_levels", "4");
  p.Set("rocksdb.max_bytes_for_level_base", "16M");
  p.Set("rocksdb.wait_for_compaction", "true");
  p.Set("recordcount", "10");  // not the binding's: ignored here
  RocksDbConfig c;
  rocksdb::Status s = ParseRocksDbConfig(p, &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("/db", c.dir);
  EXPECT_EQ("tierfs:///a:1G,/b:2G", c.fs_uri);
  EXPECT_EQ("/etc/OPTIONS", c.options_file);
  ASSERT_EQ(2u, c.db_paths.size());
  EXPECT_EQ("/slow/x", c.db_paths[1].path);
  EXPECT_EQ(10ULL << 30, c.db_paths[1].target_size);
  EXPECT_EQ(rocksdb::Temperature::kCold, c.last_level_temperature);
  EXPECT_EQ(8u << 20, c.block_cache_size);
  EXPECT_EQ(rocksdb::kNoCompression, c.compression);
  EXPECT_EQ(4u << 20, c.write_buffer_size);
  EXPECT_TRUE(c.use_direct_io);
  EXPECT_EQ(4, c.num_levels);
  EXPECT_EQ(16u << 20, c.max_bytes_for_level_base);
  EXPECT_TRUE(c.wait_for_compaction);

  rocksdb::ColumnFamilyOptions cf;
  cf.compression_per_level = {rocksdb::kSnappyCompression};
  ASSERT_TRUE(ApplyCfOverrides(c, rocksdb::NewLRUCache(8 << 20), &cf).ok());
  EXPECT_EQ(rocksdb::Temperature::kCold, cf.last_level_temperature);
  EXPECT_TRUE(cf.compression_per_level.empty());
  EXPECT_EQ(4, cf.num_levels);
  rocksdb::DBOptions db;
  ApplyDbOverrides(c, &db);
  EXPECT_TRUE(db.use_direct_reads);
  EXPECT_TRUE(db.use_direct_io_for_flush_and_compaction);
  EXPECT_EQ(2u, db.db_paths.size());
  EXPECT_EQ("/fast/wal", db.wal_dir);
  EXPECT_EQ(1u, db.listeners.size());  // TierFS's listener, always
}

TEST(RocksDbConfigTest, BadBindingPropertiesAreNamed) {
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases = {
      {{"rocksdb.colour", "blue"}, "rocksdb.colour"},
      {{"rocksdb.persistent_cache_size", "110M"}, "at least 120M"},
      {{"rocksdb.persistent_cache_path", "/rc"}, "go together"},
      {{"rocksdb.compression", "lzma"}, "lzma"},
      {{"rocksdb.db_paths", "/fast"}, "rocksdb.db_paths"},
      {{"rocksdb.db_paths", "/fast:64X"}, "/fast:64X"},
      {{"rocksdb.last_level_temperature", "kTepid"}, "kTepid"},
      {{"rocksdb.write_buffer_size", "big"}, "rocksdb.write_buffer_size"},
      {{"rocksdb.use_direct_io", "sometimes"}, "rocksdb.use_direct_io"},
      {{"rocksdb.num_levels", "0"}, "rocksdb.num_levels"},
      {{"rocksdb.wait_for_compaction", "soon"}, "rocksdb.wait_for_compaction"},
  };
  for (const auto& c : cases) {
    Properties p;
    p.Set("rocksdb.dir", "/db");
    p.Set(c.first.first, c.first.second);
    RocksDbConfig config;
    rocksdb::Status s = ParseRocksDbConfig(p, &config);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.second;
    EXPECT_NE(std::string::npos, s.ToString().find(c.second)) << s.ToString();
  }
  RocksDbConfig config;
  rocksdb::Status s = ParseRocksDbConfig(Properties(), &config);
  EXPECT_NE(std::string::npos, s.ToString().find("rocksdb.dir")) << s.ToString();
}

}  // namespace
}  // namespace ycsb
}  // namespace tierfs
