// Workload characterization (tools/tune/window_features.h, kmeans.h,
// characterize.h) on data whose clusters are known: the window features of
// hand-made traces, k-means and the silhouette on separated blobs, and a
// model built from read-heavy sequential and write-heavy random traces that
// puts them in different clusters and a new trace of either kind in its own.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_util.h"
#include "tools/tune/characterize.h"
#include "tools/tune/rng.h"
#include "tools/tune/window_features.h"

namespace tierfs {
namespace tune {
namespace {

// Read-heavy sequential: 95% reads of 128 KiB, each starting where the
// previous ended, 20 us apart; the writes append elsewhere.
std::vector<TraceRecord> SequentialReads(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<TraceRecord> out;
  uint64_t t = 0, read_at = 0, write_at = uint64_t(64) << 30;
  for (size_t i = 0; i < n; ++i) {
    TraceRecord r;
    t += 10000 + rng.Below(20000);
    r.time_ns = t;
    r.size = 128 << 10;
    if (rng.Uniform() < 0.95) {
      r.type = IoType::kUserRead;
      r.offset = read_at;
      read_at += r.size;
    } else {
      r.type = IoType::kWrite;
      r.file_id = 1;
      r.offset = write_at;
      write_at += r.size;
    }
    out.push_back(r);
  }
  return out;
}

// Write-heavy random: 80% writes of 4-16 KiB at random 4 KiB-aligned offsets
// of a 4 GiB volume, 200 us apart on average.
std::vector<TraceRecord> RandomWrites(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<TraceRecord> out;
  uint64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    TraceRecord r;
    t += 1000 + rng.Below(400000);
    r.time_ns = t;
    r.type = rng.Uniform() < 0.8 ? IoType::kWrite : IoType::kUserRead;
    r.size = (1 + rng.Below(4)) * 4096;
    r.offset = rng.Below(uint64_t(1) << 20) * 4096;
    out.push_back(r);
  }
  return out;
}

TEST(WindowFeatures, CutsWindowsOfThreeThousandRequests) {
  EXPECT_EQ(WindowFeatures(SequentialReads(12100, 1)).size(), 4u);   // the 100 dropped
  EXPECT_EQ(WindowFeatures(SequentialReads(13600, 1)).size(), 5u);   // 1,600 is over half
  EXPECT_EQ(WindowFeatures(SequentialReads(700, 1)).size(), 1u);     // shorter than a window
  EXPECT_TRUE(WindowFeatures({}).empty());
  // Events are not requests.
  std::vector<TraceRecord> trace = SequentialReads(3000, 1);
  trace.insert(trace.begin() + 10, MakeEvent(TraceEvent::kDelete, 1, FileKind::kOther, 0, 0, -1));
  EXPECT_EQ(WindowFeatures(trace).size(), 1u);
}

TEST(WindowFeatures, MeasureWhatTheyName) {
  const std::vector<std::string>& names = FeatureNames();
  auto at = [&](const std::vector<double>& f, const std::string& name) {
    return f[size_t(std::find(names.begin(), names.end(), name) - names.begin())];
  };
  const std::vector<double> seq = WindowFeatures(SequentialReads(3000, 2))[0];
  const std::vector<double> rnd = WindowFeatures(RandomWrites(3000, 2))[0];
  ASSERT_EQ(seq.size(), names.size());
  EXPECT_NEAR(at(seq, "read_share"), 0.95, 0.02);
  EXPECT_NEAR(at(rnd, "read_share"), 0.2, 0.03);
  EXPECT_NEAR(at(seq, "log_size"), std::log(128.0 * 1024), 1e-9);
  EXPECT_NEAR(at(seq, "log_size_sd"), 0, 1e-9);
  EXPECT_GT(at(seq, "sequential"), 0.98);  // all but each file's first
  EXPECT_LT(at(rnd, "sequential"), 0.01);
  EXPECT_LT(at(seq, "log_seek"), 0.01);
  EXPECT_GT(at(rnd, "log_seek"), 10);  // ln(KiB) of gigabyte jumps
  EXPECT_NEAR(at(seq, "log_gap"), std::log1p(20.0), 0.1);
  EXPECT_LT(at(seq, "reuse_share"), 0.01);  // a stream that never comes back
}

TEST(KMeans, FindsSeparatedBlobsAndTheirNumber) {
  Rng rng(7);
  std::vector<Vec> points;
  std::vector<size_t> truth;
  const Vec centers[3] = {{0, 0}, {10, 0}, {0, 10}};
  for (size_t i = 0; i < 90; ++i) {
    const Vec& c = centers[i % 3];
    points.push_back({c[0] + rng.Normal(), c[1] + rng.Normal()});
    truth.push_back(i % 3);
  }
  std::vector<double> silhouettes;
  KMeansResult r = ChooseK(points, 6, 1, &silhouettes);
  ASSERT_EQ(r.centroids.size(), 3u);
  EXPECT_GT(silhouettes[3], silhouettes[2]);
  EXPECT_GT(silhouettes[3], silhouettes[4]);
  // The same partition as the truth, up to the clusters' names.
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t j = 0; j < points.size(); ++j) {
      ASSERT_EQ(truth[i] == truth[j], r.labels[i] == r.labels[j]) << i << " " << j;
    }
  }
  // Each centroid near a center.
  for (const Vec& c : centers) {
    EXPECT_LT(SquaredDistance(r.centroids[Nearest(r.centroids, c)], c), 0.5);
  }
  // Deterministic per seed.
  EXPECT_EQ(ChooseK(points, 6, 1).labels, r.labels);
}

TEST(KMeans, SilhouetteByHand) {
  // Two clusters on a line: {0, 1} and {10}. s(0) = 1 - 1/10, s(1) = 1 - 1/9,
  // s(10) = 0 (alone in its cluster).
  const std::vector<Vec> points = {{0}, {1}, {10}};
  EXPECT_NEAR(MeanSilhouette(points, {0, 0, 1}, 2), (0.9 + (1 - 1.0 / 9)) / 3, 1e-12);
}

class ModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
      training_.push_back(
          {"seq" + std::to_string(seed), WindowFeatures(SequentialReads(15000, seed))});
      training_.push_back(
          {"rnd" + std::to_string(seed), WindowFeatures(RandomWrites(15000, seed))});
    }
    std::string error;
    ASSERT_TRUE(BuildModel(training_, 6, 1, &model_, &error)) << error;
  }
  std::vector<WorkloadWindows> training_;
  WorkloadModel model_;
};

TEST_F(ModelTest, SeparatesReadSequentialFromWriteRandom) {
  ASSERT_EQ(model_.clusters(), 2u);
  ASSERT_EQ(model_.workloads.size(), 4u);
  const size_t seq = model_.workloads[0].second.cluster, rnd = model_.workloads[1].second.cluster;
  EXPECT_NE(seq, rnd);
  for (const auto& [name, a] : model_.workloads) {
    EXPECT_EQ(a.cluster, name.rfind("seq", 0) == 0 ? seq : rnd) << name;
    EXPECT_DOUBLE_EQ(a.share, 1.0) << name;  // every window, not just most
    // Its center is the mean of its points: no farther from the centroid
    // than its points are on average.
    ASSERT_EQ(a.center.size(), 2u);
    EXPECT_LE(std::sqrt(SquaredDistance(a.center, model_.centroids[a.cluster])),
              a.distance + 1e-12);
  }
  EXPECT_GT(model_.explained[0], 0.3);
  EXPECT_GE(model_.explained[0], model_.explained[1]);
}

TEST_F(ModelTest, AssignsANewTraceToItsKindsCluster) {
  const size_t seq = model_.workloads[0].second.cluster, rnd = model_.workloads[1].second.cluster;
  const Assignment a = model_.Assign(WindowFeatures(RandomWrites(9000, 99)));
  EXPECT_EQ(a.cluster, rnd);
  EXPECT_EQ(a.votes[rnd], 3u);
  const Assignment b = model_.Assign(WindowFeatures(SequentialReads(9000, 99)));
  EXPECT_EQ(b.cluster, seq);
  EXPECT_DOUBLE_EQ(b.share, 1.0);
  // A trace that changes kind half-way goes where most of its windows do.
  std::vector<TraceRecord> mixed = RandomWrites(6000, 5);
  std::vector<TraceRecord> tail = SequentialReads(3000, 5);
  for (TraceRecord& r : tail) r.time_ns += mixed.back().time_ns;
  mixed.insert(mixed.end(), tail.begin(), tail.end());
  const Assignment c = model_.Assign(WindowFeatures(mixed));
  EXPECT_EQ(c.cluster, rnd);
  EXPECT_EQ(c.votes[seq], 1u);
}

TEST_F(ModelTest, RoundTripsAndRefusesAnEditedModel) {
  test::ScratchDir dir("tune_characterize");
  const std::string path = dir.path() + "/model.json";
  std::string error;
  ASSERT_TRUE(model_.Save(path, &error)) << error;
  WorkloadModel loaded;
  ASSERT_TRUE(WorkloadModel::Load(path, &loaded, &error)) << error;
  EXPECT_EQ(loaded.Id(), model_.Id());
  EXPECT_EQ(loaded.Assign(training_[1].windows).cluster, model_.workloads[1].second.cluster);
  // Building again from the same windows and seed gives the same model.
  WorkloadModel again;
  ASSERT_TRUE(BuildModel(training_, 6, 1, &again, &error)) << error;
  EXPECT_EQ(again.Id(), model_.Id());
  // A centroid moved by hand: the id no longer matches.
  std::string text = model_.ToJson();
  const size_t at = text.find("\"centroids\"");
  ASSERT_NE(at, std::string::npos);
  const size_t digit = text.find_first_of("123456789", at);
  text[digit] = text[digit] == '9' ? '8' : char(text[digit] + 1);
  EXPECT_FALSE(WorkloadModel::FromJson(text, &loaded, &error));
  EXPECT_NE(error.find("does not match its contents"), std::string::npos) << error;
  EXPECT_FALSE(WorkloadModel::FromJson("{\"format\": 1}", &loaded, &error));
  EXPECT_FALSE(WorkloadModel::Load(dir.path() + "/missing.json", &loaded, &error));
  EXPECT_NE(error.find("missing.json"), std::string::npos) << error;
}

TEST(BuildModel, NeedsThreeWindows) {
  WorkloadModel m;
  std::string error;
  EXPECT_FALSE(BuildModel({{"one", WindowFeatures(RandomWrites(3000, 1))}}, 6, 1, &m, &error));
  EXPECT_NE(error.find("at least 3 windows"), std::string::npos) << error;
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
