// ConfDB (tools/tune/confdb.h) and the warm start (warm_start.h): trials
// round-trip through RocksDB by cluster and model, a corrupt value is refused
// with its key named, the stored best configurations are ranked by grade, and
// a warm-started optimizer evaluates them before anything else.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_util.h"
#include "tools/tune/confdb.h"
#include "tools/tune/optimizer.h"
#include "tools/tune/warm_start.h"

namespace tierfs {
namespace tune {
namespace {

const char kSpace[] =
    "tiers /fast:128M:optane,/slow:8G:sata-ssd\n"
    "policy categorical fast-first lru cde hintstor\n"
    "segment_size discrete 64K 256K 1M 4M\n"
    "migration_queue numeric 1..64 log\n"
    "fast_headroom numeric 0..50 unit=% default=5\n"
    "hintstor.interval numeric 256..262144 log default=16384\n";

ConfTrial Trial(const std::string& workload, const std::string& uri, double grade) {
  ConfTrial t;
  t.workload = workload;
  t.uri = uri;
  t.grade = grade;
  t.measured.mean_us = 100 + grade;
  t.measured.p99_us = 900;
  t.measured.throughput = 5000;
  return t;
}

TEST(ConfDb, RoundTripsByModelAndCluster) {
  test::ScratchDir dir("tune_confdb");
  const std::string path = dir.path() + "/confdb";
  std::string error;
  {
    std::unique_ptr<ConfDb> db;
    ASSERT_TRUE(ConfDb::Open(path, &db, &error)) << error;
    ConfEntry a{{Trial("YCSB-B", "tierfs://a", -0.25), Trial("YCSB-B", "tierfs://b", 0.5)},
                {{"YCSB-B", {0.5, -1.25}}}};
    ASSERT_TRUE(db->Add("00000000000000aa", 1, a, &error)) << error;
    // The same (workload, URI) replaces; another workload's is kept beside it.
    ConfEntry b{{Trial("YCSB-B", "tierfs://b", 0.125), Trial("YCSB-C", "tierfs://b", -0.5)},
                {{"YCSB-C", {2, 3}}}};
    ASSERT_TRUE(db->Add("00000000000000aa", 1, b, &error)) << error;
    ASSERT_TRUE(db->Add("00000000000000bb", 1, {{Trial("LUN0", "tierfs://c", -1)}, {}}, &error));
  }
  std::unique_ptr<ConfDb> db;
  ASSERT_TRUE(ConfDb::Open(path, &db, &error)) << error;
  ConfEntry entry;
  ASSERT_TRUE(db->Get("00000000000000aa", 1, &entry, &error)) << error;
  std::vector<ConfTrial>& trials = entry.trials;
  EXPECT_EQ(entry.positions,
            (std::map<std::string, std::vector<double>>{{"YCSB-B", {0.5, -1.25}},
                                                        {"YCSB-C", {2, 3}}}));
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[0].uri, "tierfs://a");
  EXPECT_DOUBLE_EQ(trials[0].grade, -0.25);
  EXPECT_DOUBLE_EQ(trials[0].measured.mean_us, 99.75);
  EXPECT_DOUBLE_EQ(trials[0].measured.p99_us, 900);
  EXPECT_DOUBLE_EQ(trials[0].measured.throughput, 5000);
  EXPECT_DOUBLE_EQ(trials[1].grade, 0.125);
  EXPECT_EQ(trials[2].workload, "YCSB-C");
  // Another model's cluster 1 is another key.
  ASSERT_TRUE(db->Get("00000000000000bb", 1, &entry, &error));
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].uri, "tierfs://c");
  ASSERT_TRUE(db->Get("00000000000000aa", 2, &entry, &error));
  EXPECT_TRUE(trials.empty());
  std::vector<std::pair<std::string, ConfEntry>> all;
  ASSERT_TRUE(db->List(&all, &error)) << error;
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].first, "model/00000000000000aa/cluster/1");
}

TEST(ConfDb, RefusesACorruptValueNamingItsKey) {
  test::ScratchDir dir("tune_confdb");
  std::string error;
  std::unique_ptr<ConfDb> db;
  ASSERT_TRUE(ConfDb::Open(dir.path() + "/confdb", &db, &error)) << error;
  const std::string key = ConfDb::Key("00000000000000aa", 3);
  ASSERT_TRUE(
      db->PutRaw(key, "{\"format\": \"tierfs-tune confdb 1\", \"trials\": [{\"uri\"", &error));
  ConfEntry entry;
  EXPECT_FALSE(db->Get("00000000000000aa", 3, &entry, &error));
  EXPECT_NE(error.find("key 'model/00000000000000aa/cluster/3'"), std::string::npos) << error;
  EXPECT_NE(error.find("corrupt value"), std::string::npos) << error;
  // Adding to it fails the same way and leaves it as it was.
  EXPECT_FALSE(db->Add("00000000000000aa", 3, {{Trial("W", "tierfs://a", 0)}, {}}, &error));
  EXPECT_NE(error.find("cluster/3"), std::string::npos) << error;
  // JSON that is not ConfDB's.
  ASSERT_TRUE(db->PutRaw(key, "[1, 2]", &error));
  EXPECT_FALSE(db->Get("00000000000000aa", 3, &entry, &error));
  EXPECT_NE(error.find("not a ConfDB value"), std::string::npos) << error;
  std::vector<std::pair<std::string, ConfEntry>> all;
  EXPECT_FALSE(db->List(&all, &error));
  // A grade that is not a number.
  ASSERT_TRUE(db->PutRaw(key, "{\"format\": \"tierfs-tune confdb 1\", \"trials\": [{\"workload\": "
                              "\"W\", \"uri\": \"u\", \"grade\": \"low\", \"mean_us\": 1, "
                              "\"p99_us\": 1, \"throughput\": 1}], \"positions\": {}}",
                         &error));
  EXPECT_FALSE(db->Get("00000000000000aa", 3, &entry, &error));
  EXPECT_NE(error.find("cluster/3"), std::string::npos) << error;
}

TEST(ConfDb, StartsFromTheNearestWorkloadsBest) {
  ConfEntry entry;
  entry.trials = {Trial("A", "tierfs://a1", -1.0), Trial("A", "tierfs://a2", -0.5),
                  Trial("A", "tierfs://a3", 0.1),  Trial("B", "tierfs://b1", -0.2),
                  Trial("B", "tierfs://a1", -0.1),  // already taken from A
                  Trial("B", "tierfs://b2", 0.0),  Trial("C", "tierfs://c1", -3.0)};
  entry.positions = {{"A", {5, 0}}, {"B", {0, 1}}};  // C has none
  // Near B: B's best, A's best, C's (no position, last); then B's second
  // (a1, taken), A's second, ...
  EXPECT_EQ(BestConfigurations(entry, 10, {0, 0}),
            (std::vector<std::string>{"tierfs://b1", "tierfs://a1", "tierfs://c1", "tierfs://a2",
                                      "tierfs://b2", "tierfs://a3"}));
  EXPECT_EQ(BestConfigurations(entry, 2, {5, 0.5}),
            (std::vector<std::string>{"tierfs://a1", "tierfs://b1"}));
  // No position: by name.
  EXPECT_EQ(BestConfigurations(entry, 3),
            (std::vector<std::string>{"tierfs://a1", "tierfs://b1", "tierfs://c1"}));
  EXPECT_TRUE(BestConfigurations(ConfEntry(), 5, {0, 0}).empty());
  // Two configurations A measured alike count once (the first by URI).
  entry.trials.push_back(Trial("A", "tierfs://a0", -1.0));
  EXPECT_EQ(BestConfigurations(entry, 3, {5, 0}),
            (std::vector<std::string>{"tierfs://a0", "tierfs://b1", "tierfs://c1"}));
  EXPECT_EQ(BestConfigurations(entry, 4, {5, 0})[3], "tierfs://a2");
}

TEST(Space, PointOfInvertsRender) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(kSpace, "test", &space, &error)) << error;
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    const Point p = space.Random(&rng);
    Point q;
    ASSERT_TRUE(space.PointOf(space.Render(p), &q)) << space.Render(p);
    EXPECT_EQ(space.Render(q), space.Render(p));
  }
  Point q;
  EXPECT_FALSE(space.PointOf("tierfs:///fast:1G:optane,/slow:8G:sata-ssd;policy:lru", &q));
  const std::string uri = space.Render(space.Default());
  EXPECT_FALSE(space.PointOf(uri + ";copies:on", &q));  // a key this space does not have
  std::string bad = uri;
  bad.replace(bad.find("segment_size:"), 17, "segment_size:128K");
  EXPECT_FALSE(space.PointOf(bad, &q)) << bad;  // not among the listed values
}

// Records the order in which configurations are asked for.
class Recorder : public Objective {
 public:
  explicit Recorder(const Space* space) : space_(space) {}
  std::vector<std::string> asked;
  bool Value(const Point& p, double* value, std::string* error) override {
    (void)error;
    asked.push_back(space_->Render(p));
    *value = double(asked.size());
    return true;
  }

 private:
  const Space* space_;
};

TEST(WarmStart, EvaluatesStoredConfigurationsFirst) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(kSpace, "test", &space, &error)) << error;
  Rng rng(11);
  const std::vector<std::string> stored = {space.Render(space.Random(&rng)),
                                           "tierfs:///other:1G:optane;policy:lru",
                                           space.Render(space.Random(&rng))};
  for (const std::string& name : OptimizerNames()) {
    Recorder recorder(&space);
    Budget budget(&space, &recorder, 12);
    std::unique_ptr<Optimizer> optimizer = NewOptimizer(name, &error);
    std::vector<std::string> skipped;
    ASSERT_TRUE(RunWarm(optimizer.get(), space, 1, stored, &budget, &skipped)) << name;
    ASSERT_GE(recorder.asked.size(), 3u) << name;
    EXPECT_EQ(recorder.asked[0], stored[0]) << name;
    EXPECT_EQ(recorder.asked[1], stored[2]) << name;
    EXPECT_EQ(skipped, std::vector<std::string>{stored[1]}) << name;
    EXPECT_EQ(budget.trials().size(), 12u) << name;  // the stored ones count
    // The optimizer goes on from there: its default next.
    EXPECT_EQ(recorder.asked[2], space.Render(space.Default())) << name;
  }
  // A budget smaller than the store stops the warm start.
  Recorder recorder(&space);
  Budget budget(&space, &recorder, 1);
  std::unique_ptr<Optimizer> optimizer = NewOptimizer("bayes", &error);
  ASSERT_TRUE(RunWarm(optimizer.get(), space, 1, stored, &budget));
  EXPECT_EQ(recorder.asked, std::vector<std::string>{stored[0]});
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
