// YCSB's CoreWorkload on an in-memory database: key names, values, the load
// and run phases' key sequences, the operation mix, property errors; and the
// pieces the report is made of (record layout, histogram, number formats).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "tools/ycsb/core_workload.h"
#include "tools/ycsb/fnv_hash.h"
#include "tools/ycsb/histogram.h"
#include "tools/ycsb/measured_db.h"
#include "tools/ycsb/measurements.h"
#include "tools/ycsb/record_codec.h"
#include "tools/ycsb/report.h"

namespace tierfs {
namespace ycsb {
namespace {

// A database in a map, counting what it was asked.
class MemoryDB : public DB {
 public:
  DbStatus Read(const std::string& table, const std::string& key,
                const std::vector<std::string>* fields, Fields* result) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++reads;
    ++read_counts[key];
    last_read_fields = fields ? fields->size() : 0;
    auto it = records.find(key);
    if (it == records.end()) return DbStatus::kNotFound;
    for (const auto& f : it->second) {
      if (!fields || std::find(fields->begin(), fields->end(), f.first) != fields->end()) {
        result->push_back(f);
      }
    }
    return DbStatus::kOk;
  }
  DbStatus Scan(const std::string&, const std::string& start_key, int64_t count,
                const std::vector<std::string>*, std::vector<Fields>* result) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++scans;
    scan_lengths.push_back(count);
    for (auto it = records.lower_bound(start_key); it != records.end() && count-- > 0; ++it) {
      result->push_back(it->second);
    }
    return DbStatus::kOk;
  }
  DbStatus Update(const std::string&, const std::string& key, const Fields& values) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++updates;
    updated_fields += values.size();
    auto it = records.find(key);
    if (it == records.end()) return DbStatus::kNotFound;
    MergeFields(values, &it->second);
    return DbStatus::kOk;
  }
  DbStatus Insert(const std::string&, const std::string& key, const Fields& values) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++inserts;
    insert_order.push_back(key);
    records[key] = values;
    return DbStatus::kOk;
  }

  std::mutex mu_;
  std::map<std::string, Fields> records;
  std::vector<std::string> insert_order;
  std::map<std::string, int> read_counts;
  std::vector<int64_t> scan_lengths;
  int reads = 0, scans = 0, updates = 0, inserts = 0;
  size_t last_read_fields = 0, updated_fields = 0;
};

Properties Props(const std::map<std::string, std::string>& values) {
  Properties p;
  for (const auto& kv : values) p.Set(kv.first, kv.second);
  return p;
}

std::unique_ptr<CoreWorkload> MakeWorkload(const Properties& props, Measurements* m) {
  std::unique_ptr<CoreWorkload> w;
  rocksdb::Status s = CoreWorkload::Create(props, m, &w);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return w;
}

TEST(CoreWorkloadTest, OrderedKeyNamesAreZeroPadded) {
  Measurements m;
  auto w = MakeWorkload(Props({{"insertorder", "ordered"}, {"zeropadding", "8"}}), &m);
  EXPECT_EQ("user00000005", w->BuildKeyName(5));
  EXPECT_EQ("user123456789", w->BuildKeyName(123456789));
  auto unpadded = MakeWorkload(Props({{"insertorder", "ordered"}}), &m);
  EXPECT_EQ("user5", unpadded->BuildKeyName(5));
}

TEST(CoreWorkloadTest, HashedKeyNamesAreFnvOfTheKeyNumber) {
  Measurements m;
  auto w = MakeWorkload(Props({}), &m);  // insertorder=hashed is the default
  EXPECT_EQ("user1000385178204227360", w->BuildKeyName(5));
  EXPECT_EQ("user6284781860667377211", w->BuildKeyName(0));
  auto padded = MakeWorkload(Props({{"zeropadding", "22"}}), &m);
  EXPECT_EQ("user0006284781860667377211", padded->BuildKeyName(0));
}

TEST(CoreWorkloadTest, ValuesHaveTheFieldNamesLengthsAndYcsbCharacters) {
  Measurements m;
  auto w = MakeWorkload(Props({{"fieldcount", "3"}, {"fieldlength", "13"},
                               {"fieldnameprefix", "f"}}), &m);
  Random64 rng(1);
  const Fields values = w->BuildValues(&rng);
  ASSERT_EQ(3u, values.size());
  EXPECT_EQ("f0", values[0].first);
  EXPECT_EQ("f2", values[2].first);
  for (const auto& f : values) {
    ASSERT_EQ(13u, f.second.size());
    for (char c : f.second) {
      EXPECT_GE(c, ' ');
      EXPECT_LE(c, char(0x7f));
    }
  }
  const Fields one = w->BuildSingleValue(&rng);
  ASSERT_EQ(1u, one.size());
  EXPECT_EQ(13u, one[0].second.size());

  auto uniform = MakeWorkload(Props({{"fieldlengthdistribution", "uniform"},
                                     {"minfieldlength", "5"}, {"fieldlength", "9"}}), &m);
  std::set<size_t> lengths;
  for (int i = 0; i < 200; ++i) {
    for (const auto& f : uniform->BuildValues(&rng)) lengths.insert(f.second.size());
  }
  EXPECT_EQ((std::set<size_t>{5, 6, 7, 8, 9}), lengths);
}

TEST(CoreWorkloadTest, LoadInsertsFromInsertStartInKeyOrder) {
  Measurements m;
  auto w = MakeWorkload(Props({{"recordcount", "200"}, {"insertstart", "100"},
                               {"insertcount", "50"}, {"insertorder", "ordered"}}), &m);
  MemoryDB db;
  Random64 rng(2);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(w->DoInsert(&db, &rng).ok());
  ASSERT_EQ(50u, db.insert_order.size());
  EXPECT_EQ("user100", db.insert_order.front());
  EXPECT_EQ("user149", db.insert_order.back());
  EXPECT_EQ(10u, db.records["user120"].size());
}

TEST(CoreWorkloadTest, RunMixFollowsTheProportions) {
  Measurements m;
  auto w = MakeWorkload(Props({{"recordcount", "100"}, {"readproportion", "0.5"},
                               {"updateproportion", "0.2"}, {"scanproportion", "0.2"},
                               {"readmodifywriteproportion", "0.1"}, {"maxscanlength", "7"},
                               {"readallfields", "false"}}), &m);
  MemoryDB db;
  Random64 rng(3);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(w->DoInsert(&db, &rng).ok());
  constexpr int kOps = 20000;
  for (int i = 0; i < kOps; ++i) ASSERT_TRUE(w->DoTransaction(&db, &rng).ok());
  // A read-modify-write reads and updates: reads = 0.5 + 0.1, updates = 0.2 + 0.1.
  EXPECT_NEAR(0.6, double(db.reads) / kOps, 0.02);
  EXPECT_NEAR(0.3, double(db.updates) / kOps, 0.02);
  EXPECT_NEAR(0.2, double(db.scans) / kOps, 0.02);
  EXPECT_EQ(100, db.inserts);
  EXPECT_NEAR(0.1 * kOps, double(m.Get("READ-MODIFY-WRITE")->Operations()), 0.02 * kOps);
  EXPECT_EQ(1u, db.last_read_fields);              // readallfields=false: one field
  EXPECT_EQ(size_t(db.updates), db.updated_fields);  // writeallfields=false: one field
  EXPECT_EQ(1, *std::min_element(db.scan_lengths.begin(), db.scan_lengths.end()));
  EXPECT_EQ(7, *std::max_element(db.scan_lengths.begin(), db.scan_lengths.end()));
}

TEST(CoreWorkloadTest, RunInsertsContinueAfterRecordCountAndReadsFindEveryKey) {
  // Zipfian over a key space sized for the expected inserts: keys not yet
  // inserted are drawn again, never read.
  Measurements m;
  const Properties props = Props({{"recordcount", "100"}, {"operationcount", "2000"},
                                  {"readproportion", "0.5"}, {"updateproportion", "0"},
                                  {"insertproportion", "0.5"}, {"requestdistribution", "zipfian"}});
  auto w = MakeWorkload(props, &m);
  std::unique_ptr<MeasuredDB> db;
  MemoryDB memory;
  ASSERT_TRUE(MeasuredDB::Create(&memory, &m, props, &db).ok());
  Random64 rng(4);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(w->DoInsert(db.get(), &rng).ok());
  EXPECT_EQ(99, w->last_acknowledged_key());
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(w->DoTransaction(db.get(), &rng).ok());

  // The load's 100 inserts went through the same wrapper.
  const int64_t run_inserts = int64_t(m.Get("INSERT")->Returns(DbStatus::kOk)) - 100;
  EXPECT_NEAR(1000, run_inserts, 100);
  EXPECT_EQ(100 + run_inserts, memory.inserts);
  EXPECT_EQ(99 + run_inserts, w->last_acknowledged_key());
  // Run-phase inserts took key numbers 100, 101, ...
  EXPECT_EQ(w->BuildKeyName(100), memory.insert_order[100]);
  EXPECT_EQ(w->BuildKeyName(101), memory.insert_order[101]);
  EXPECT_EQ(0u, m.Get("READ")->Returns(DbStatus::kNotFound));
  EXPECT_GT(m.Get("READ")->Returns(DbStatus::kOk), 800u);
}

TEST(CoreWorkloadTest, LatestReadsTheNewestInsertsMost) {
  Measurements m;
  auto w = MakeWorkload(Props({{"recordcount", "1000"}, {"readproportion", "1"},
                               {"updateproportion", "0"}, {"requestdistribution", "latest"},
                               {"insertorder", "ordered"}}), &m);
  MemoryDB db;
  Random64 rng(5);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(w->DoInsert(&db, &rng).ok());
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(w->DoTransaction(&db, &rng).ok());
  auto hottest = std::max_element(db.read_counts.begin(), db.read_counts.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ("user999", hottest->first);
  EXPECT_GT(db.read_counts["user998"], db.read_counts["user900"]);
  EXPECT_EQ(0, db.read_counts.count("user0"));  // YCSB's latest never reads key 0
}

TEST(CoreWorkloadTest, BadPropertiesAreErrorsNamingTheProperty) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"requestdistribution", "pareto"}}, "requestdistribution"},
      {{{"fieldcount", "0"}}, "fieldcount"},
      {{{"fieldcount", "ten"}}, "fieldcount"},
      {{{"insertorder", "random"}}, "insertorder"},
      {{{"readproportion", "-1"}}, "readproportion"},
      {{{"readallfields", "yes"}}, "readallfields"},
      {{{"requestdistribution", "hotspot"}, {"hotspotdatafraction", "1.5"}}, "hotspotdatafraction"},
      {{{"requestdistribution", "exponential"}, {"exponential.percentile", "100"}},
       "exponential.percentile"},
      {{{"scanlengthdistribution", "latest"}}, "scanlengthdistribution"},
      {{{"fieldlengthdistribution", "histogram"}}, "fieldlengthdistribution"},
      {{{"dataintegrity", "true"}}, "dataintegrity"},
      {{{"recordcount", "100"}, {"insertstart", "50"}, {"insertcount", "60"}}, "insertcount"},
      // Found by tests/fuzz/ycsb_fuzzer: sums past 2^63 (undefined behaviour),
      // allocations and zeta sums beyond any machine, before any operation.
      {{{"recordcount", "4611686018427387904"}, {"insertstart", "9000000000000000000"},
        {"insertcount", "9000000000000000000"}}, "insertcount"},
      {{{"requestdistribution", "zipfian"}, {"insertproportion", "1"},
        {"operationcount", "9223372036854775807"}}, "operationcount"},
      {{{"fieldcount", "100000000000"}}, "fieldcount"},
      {{{"zeropadding", "100000000000"}}, "zeropadding"},
      {{{"fieldlengthdistribution", "zipfian"}, {"fieldlength", "10000000000"}},
       "fieldlengthdistribution"},
      {{{"minscanlength", "0"}, {"maxscanlength", "9223372036854775807"}}, "scanlengthdistribution"},
      {{{"requestdistribution", "latest"}}, "recordcount"},
      {{{"recordcount", "9223372036854775806"}}, "recordcount"},
  };
  for (const auto& c : cases) {
    Measurements m;
    std::unique_ptr<CoreWorkload> w;
    rocksdb::Status s = CoreWorkload::Create(Props(c.first), &m, &w);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.second;
    EXPECT_NE(std::string::npos, s.ToString().find(c.second)) << s.ToString();
  }
}

TEST(RecordCodecTest, UsesYcsbsLengthPrefixedLayout) {
  std::string encoded;
  EncodeFields({{"ab", "xyz"}, {"c", ""}}, &encoded);
  EXPECT_EQ(std::string("\0\0\0\2ab\0\0\0\3xyz\0\0\0\1c\0\0\0\0", 22), encoded);

  Fields all, some;
  ASSERT_TRUE(DecodeFields(encoded, nullptr, &all));
  EXPECT_EQ((Fields{{"ab", "xyz"}, {"c", ""}}), all);
  const std::vector<std::string> wanted = {"c"};
  ASSERT_TRUE(DecodeFields(encoded, &wanted, &some));
  EXPECT_EQ((Fields{{"c", ""}}), some);

  Fields truncated;
  EXPECT_FALSE(DecodeFields(rocksdb::Slice(encoded.data(), encoded.size() - 1), nullptr, &truncated));
  EXPECT_FALSE(DecodeFields(rocksdb::Slice(encoded.data(), 3), nullptr, &truncated));

  MergeFields({{"c", "new"}, {"d", "added"}}, &all);
  EXPECT_EQ((Fields{{"ab", "xyz"}, {"c", "new"}, {"d", "added"}}), all);
}

TEST(LatencyHistogramTest, ExactBelow2048AndWithinATenthOfAPercentAbove) {
  LatencyHistogram h;
  for (int v = 1; v <= 100; ++v) h.Record(v);
  LatencyHistogram::Snapshot s = h.Take();
  EXPECT_EQ(100u, s.count);
  EXPECT_DOUBLE_EQ(50.5, s.Mean());
  EXPECT_EQ(1, s.min);
  EXPECT_EQ(100, s.max);
  EXPECT_EQ(95, s.ValueAtPercentile(95));
  EXPECT_EQ(99, s.ValueAtPercentile(99));
  EXPECT_EQ(50, s.ValueAtPercentile(50));
  EXPECT_EQ(100, s.ValueAtPercentile(100));

  for (int64_t v : {2047LL, 2048LL, 5000LL, 123456LL, 98765432LL}) {
    const int64_t lo = LatencyHistogram::LowestEquivalent(v);
    const int64_t hi = LatencyHistogram::HighestEquivalent(v);
    EXPECT_LE(lo, v);
    EXPECT_GE(hi, v);
    EXPECT_LE(double(hi - lo), 0.001 * double(v)) << v;
    EXPECT_EQ(lo, LatencyHistogram::ValueAtIndex(LatencyHistogram::IndexFor(v)));
  }
  EXPECT_EQ(2047, LatencyHistogram::HighestEquivalent(2047));  // exact
  EXPECT_EQ(5003, LatencyHistogram::HighestEquivalent(5000));  // buckets of 4 above 4096

  LatencyHistogram big;
  big.Record(5000);
  big.Record(-3);  // as 0
  big.Record(int64_t(1) << 50);  // clamped
  s = big.Take();
  EXPECT_EQ(0, s.min);
  EXPECT_EQ(LatencyHistogram::kMaxValue, s.max);
  EXPECT_EQ(5003, s.ValueAtPercentile(50));
}

TEST(LatencyHistogramTest, IntervalIsTheDifferenceOfSnapshots) {
  LatencyHistogram h;
  h.Record(10);
  h.Record(20);
  const LatencyHistogram::Snapshot first = h.Take();
  h.Record(300);
  h.Record(400);
  h.Record(500);
  const LatencyHistogram::Snapshot interval = h.Take().Minus(first);
  EXPECT_EQ(3u, interval.count);
  EXPECT_DOUBLE_EQ(400, interval.Mean());
  EXPECT_EQ(300, interval.min);
  EXPECT_EQ(500, interval.max);
  EXPECT_EQ(400, interval.ValueAtPercentile(50));
}

TEST(MeasuredDBTest, FailedOperationsAreTimedApartAndCounted) {
  Measurements m;
  MemoryDB memory;
  std::unique_ptr<MeasuredDB> db;
  ASSERT_TRUE(MeasuredDB::Create(&memory, &m, Properties(), &db).ok());
  Fields out;
  db->Insert("t", "k", {{"f", "v"}});
  db->Read("t", "k", nullptr, &out);
  db->Read("t", "missing", nullptr, &out);
  db->Update("t", "missing", {{"f", "v"}});
  EXPECT_EQ(1u, m.Get("READ")->Operations());
  EXPECT_EQ(1u, m.Get("READ-FAILED")->Operations());
  EXPECT_EQ(1u, m.Get("READ")->Returns(DbStatus::kOk));
  EXPECT_EQ(1u, m.Get("READ")->Returns(DbStatus::kNotFound));
  EXPECT_EQ(1u, m.Get("UPDATE")->Returns(DbStatus::kNotFound));
  EXPECT_EQ(0u, m.Get("UPDATE")->Operations());

  Measurements each;
  Properties props;
  props.Set("reportlatencyforeacherror", "true");
  ASSERT_TRUE(MeasuredDB::Create(&memory, &each, props, &db).ok());
  db->Read("t", "missing", nullptr, &out);
  EXPECT_EQ(1u, each.Get("READ-NOT_FOUND")->Operations());
}

TEST(ReportTest, RowsAreYcsbsAndTextIsYcsbsFormat) {
  Measurements m;
  OneMeasurement* read = m.Get("READ");
  for (int v : {10, 20, 30, 40}) read->Measure(v);
  read->ReportStatus(DbStatus::kOk);
  read->ReportStatus(DbStatus::kNotFound);
  m.Get("UNUSED");
  const std::string text = RenderText(BuildReport(4, 2000, m, {95, 99, 99.9}));
  EXPECT_EQ(
      "[OVERALL], RunTime(ms), 2000\n"
      "[OVERALL], Throughput(ops/sec), 2.0\n"
      "[READ], Operations, 4\n"
      "[READ], AverageLatency(us), 25.0\n"
      "[READ], MinLatency(us), 10\n"
      "[READ], MaxLatency(us), 40\n"
      "[READ], 95thPercentileLatency(us), 40\n"
      "[READ], 99thPercentileLatency(us), 40\n"
      "[READ], 99.9PercentileLatency(us), 40\n"
      "[READ], Return=OK, 1\n"
      "[READ], Return=NOT_FOUND, 1\n",
      text);
  const std::string json = RenderJsonArray(BuildReport(4, 2000, m, {95}));
  EXPECT_NE(std::string::npos, json.find("\"metric\": \"OVERALL\""));
  EXPECT_LT(json.find("\"metric\""), json.find("\"measurement\""));  // YCSB's key order
}

TEST(ReportTest, NumbersPrintAsJavaPrintsThem) {
  EXPECT_EQ("61728.39506172839", JavaDoubleToString(61728.39506172839));
  EXPECT_EQ("100.0", JavaDoubleToString(100));
  EXPECT_EQ("13.996", JavaDoubleToString(13.996));
  EXPECT_EQ("0.001", JavaDoubleToString(0.001));
  EXPECT_EQ("1.0E-4", JavaDoubleToString(0.0001));
  EXPECT_EQ("1.0E7", JavaDoubleToString(1e7));
  EXPECT_EQ("1.2345678E7", JavaDoubleToString(12345678));
  EXPECT_EQ("9999999.0", JavaDoubleToString(9999999));
  EXPECT_EQ("-2.5", JavaDoubleToString(-2.5));
  EXPECT_EQ("0.0", JavaDoubleToString(0));
  EXPECT_EQ("NaN", JavaDoubleToString(std::nan("")));
  EXPECT_EQ("Infinity", JavaDoubleToString(INFINITY));

  EXPECT_EQ("12.5", FormatDecimal2(12.5));
  EXPECT_EQ("3", FormatDecimal2(3.0));
  EXPECT_EQ("0.07", FormatDecimal2(0.0749));
  EXPECT_EQ("2.68", FormatDecimal2(2.675000001));

  EXPECT_EQ("95th", PercentileName(95));
  EXPECT_EQ("1st", PercentileName(1));
  EXPECT_EQ("2nd", PercentileName(2));
  EXPECT_EQ("11th", PercentileName(11));
  EXPECT_EQ("99.9", PercentileName(99.9));
}

}  // namespace
}  // namespace ycsb
}  // namespace tierfs
