// The tuner's search space (tools/tune/space.h): the default file parses and
// its default is TierFS's own configuration; every point renders as a URI
// the simulator takes, with policy parameters only under their policy and
// the constraints kept; bad files are refused naming the line and the key.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/sim/simulator.h"
#include "tools/tune/space.h"

namespace tierfs {
namespace tune {
namespace {

const char kTiers[] = "tiers /fast:128M:optane,/slow:8G:sata-ssd\n";

// The default file as a simulated search explores it: its live-only
// rocksdb.NAME keys left out, as tierfs-tune does (tune_live_test covers them).
Space LoadDefault() {
  Space space;
  std::string error;
  EXPECT_TRUE(Space::Load(std::string(TIERFS_SOURCE_DIR) + "/tools/tune/space.txt", &space,
                          &error))
      << error;
  EXPECT_TRUE(space.HasLive());
  return space.WithoutLive();
}

TEST(TuneSpace, DefaultFileRendersTierFsDefaults) {
  const Space space = LoadDefault();
  ASSERT_GT(space.size(), 10u);
  sim::SimConfig ours, theirs;
  std::string error;
  ASSERT_TRUE(sim::ParseSimConfig(space.Render(space.Default()), &ours, &error)) << error;
  ASSERT_TRUE(sim::ParseSimConfig("tierfs://" + space.tiers(), &theirs, &error)) << error;
  EXPECT_EQ(ours.policy, theirs.policy);
  EXPECT_EQ(ours.segment_size, theirs.segment_size);
  EXPECT_EQ(ours.migration.queue, theirs.migration.queue);
  EXPECT_EQ(ours.migration.rate, theirs.migration.rate);
  EXPECT_EQ(ours.migration.plan_ms, theirs.migration.plan_ms);
  EXPECT_EQ(ours.migration.busy_share, theirs.migration.busy_share);
  EXPECT_EQ(ours.migration.fast_headroom_pct, theirs.migration.fast_headroom_pct);
  EXPECT_EQ(ours.migration.fast_headroom_bytes, theirs.migration.fast_headroom_bytes);
  EXPECT_EQ(ours.migration.fast_headroom_auto, theirs.migration.fast_headroom_auto);
  EXPECT_EQ(ours.copies.enabled, theirs.copies.enabled);
  EXPECT_EQ(ours.copies.page, theirs.copies.page);
  EXPECT_EQ(ours.copies.share_pct, theirs.copies.share_pct);
  EXPECT_TRUE(ours.policy_params.empty());
}

TEST(TuneSpace, RandomPointsRenderUrisTheSimulatorTakes) {
  const Space space = LoadDefault();
  Rng rng(7);
  std::vector<std::string> policies;
  for (int i = 0; i < 300; ++i) {
    const Point p = space.Random(&rng);
    ASSERT_TRUE(space.Feasible(p));
    const std::string uri = space.Render(p);
    sim::SimConfig config;
    std::string error;
    ASSERT_TRUE(sim::ParseSimConfig(uri, &config, &error)) << uri << ": " << error;
    ASSERT_NE(sim::MakeSimPolicy(config, nullptr, &error), nullptr) << uri << ": " << error;
    // The tiers are the file's, whatever the point.
    ASSERT_EQ(sim::DescribeTiers(config), "/fast:128.0 MiB:optane,/slow:8.0 GiB:sata-ssd");
    // Each parameter's value is in the configuration as rendered.
    const int seg = space.Find("segment_size");
    ASSERT_NE(uri.find(";segment_size:" + space.Value(p, size_t(seg))), std::string::npos);
    // A policy's own keys appear only under that policy, and the constraint holds.
    for (const auto& [key, value] : config.policy_params) {
      ASSERT_TRUE(space.Find(config.policy + "." + key) >= 0) << uri;
    }
    if (config.policy == "hintstor") {
      ASSERT_EQ(config.policy_params.count("interval"), 1u) << uri;
    }
    if (config.policy == "fast-first") {
      ASSERT_TRUE(config.policy_params.empty()) << uri;
    }
    ASSERT_LE(config.copies.page, config.segment_size) << uri;
    policies.push_back(config.policy);
  }
  for (const char* name : {"fast-first", "lru", "cde", "hintstor", "mutant"}) {
    EXPECT_NE(std::find(policies.begin(), policies.end(), name), policies.end()) << name;
  }
}

TEST(TuneSpace, NeighboursChangeOneActiveParameterAndStayFeasible) {
  const Space space = LoadDefault();
  Rng rng(3);
  Point p = space.Default();
  for (int i = 0; i < 200; ++i) {
    const Point n = space.Neighbor(p, &rng);
    ASSERT_TRUE(space.Feasible(n));
    int changed = 0;
    for (size_t k = 0; k < space.size(); ++k) changed += n[k] != p[k];
    ASSERT_EQ(changed, 1);
    p = n;
  }
  for (const Point& a : space.Adjacent(space.Default())) {
    ASSERT_TRUE(space.Feasible(a));
    ASSERT_NE(space.Render(a), space.Render(space.Default()));
  }
}

TEST(TuneSpace, TheCopiesPolicyAndUnitAreTunableFromTierFsDefaults) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(std::string(kTiers) +
                               "copy_policy categorical s3-fifo tinylfu w-tinylfu\n"
                               "copy_unit categorical page block\n",
                           "t", &space, &error))
      << error;
  // Without default=, TierFS's own: tinylfu, block.
  EXPECT_EQ(space.Render(space.Default()),
            "tierfs:///fast:128M:optane,/slow:8G:sata-ssd;copy_policy:tinylfu;copy_unit:block");
  Rng rng(3);
  for (int i = 0; i < 20; ++i) {
    sim::SimConfig config;
    const std::string uri = space.Render(space.Random(&rng));
    EXPECT_TRUE(sim::ParseSimConfig(uri, &config, &error)) << uri << ": " << error;
  }
  EXPECT_FALSE(Space::Parse(std::string(kTiers) + "copy_policy categorical lfu\n", "t", &space,
                            &error));
  EXPECT_NE(std::string::npos, error.find("copy_policy")) << error;
}

TEST(TuneSpace, SizesAndPercentagesRenderAsTheGrammarSpellsThem) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(std::string(kTiers) +
                               "migration_rate numeric 4M..1G log\n"
                               "fast_headroom numeric 0..50 unit=% default=7\n"
                               "copy_page discrete 16K 4K 8K\n",
                           "t", &space, &error))
      << error;
  Point p = space.Default();
  EXPECT_EQ(space.Render(p),
            "tierfs:///fast:128M:optane,/slow:8G:sata-ssd;migration_rate:64M;fast_headroom:7%;"
            "copy_page:8K");
  // Discrete values are ordered by number, whatever the file's order.
  EXPECT_EQ(space.params()[2].values, (std::vector<std::string>{"4K", "8K", "16K"}));
  // A size range moves in whole units of its low end (here MiB).
  Rng rng(1);
  for (int i = 0; i < 50; ++i) {
    p = space.Random(&rng);
    EXPECT_EQ(uint64_t(p[0]) % (1 << 20), 0u);
  }
}

TEST(TuneSpace, EncodingIsOneHotForCategoriesAndPositionForTheRest) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(std::string(kTiers) +
                               "policy categorical fast-first lru hintstor\n"
                               "segment_size discrete 256K 1M 4M\n"
                               "migration_queue numeric 1..100\n"
                               "hintstor.interval numeric 1024..4096 log default=2048\n",
                           "t", &space, &error))
      << error;
  Point p = {1, 2, 100, 4096};  // lru, 4M, 100; interval inactive (its default encodes)
  const std::vector<double> e = space.Encode(p);
  ASSERT_EQ(e.size(), 3u + 1 + 1 + 1);
  EXPECT_DOUBLE_EQ(e[0], 0);
  EXPECT_NEAR(e[1], std::sqrt(0.5), 1e-12);
  EXPECT_DOUBLE_EQ(e[2], 0);
  EXPECT_DOUBLE_EQ(e[3], 1);
  EXPECT_DOUBLE_EQ(e[4], 1);
  EXPECT_NEAR(e[5], 0.5, 1e-12);  // 2048 is halfway on a log scale from 1024 to 4096
  // Manhattan: policy differs (1), segment 1 of 2 steps (0.5), queue 0; the
  // interval is active in one point only (1).
  const Point q = {2, 1, 100, 4096};
  EXPECT_NEAR(space.Manhattan(p, q), 2.5, 1e-12);
  EXPECT_EQ(space.Render(p).find("hintstor.interval"), std::string::npos);
  EXPECT_NE(space.Render(q).find("hintstor.interval:4096"), std::string::npos);
}

struct BadFile {
  const char* text;  // after the tiers line, unless it starts with '!'
  const char* expect;
};

TEST(TuneSpace, BadFilesAreRefusedNamingLineAndKey) {
  const BadFile cases[] = {
      {"migraton_rate numeric 4M..1G\n", "line 2 (migraton_rate): unknown key"},
      {"copy_page discrete 4K 3K\n", "line 2 (copy_page): "},
      {"copy_page discrete 4K 128K\n", "bad copy_page '128K'"},
      {"\nfast_capacity numeric 1G..2G\n", "line 3 (fast_capacity): tier capacities are fixed"},
      {"tier numeric 1..2\n", "line 2 (tier): tier capacities are fixed"},
      {"!segment_size discrete 1M\n", "line 1 (segment_size): the 'tiers' line must come first"},
      {"!# nothing\n", "no 'tiers' line"},
      {"migration_queue numeric 10..1\n", "line 2 (migration_queue): expected 'numeric LOW..HIGH'"},
      {"migration_queue numeric 0..8 log\n", "line 2 (migration_queue): a log range must start"},
      {"migration_queue numeric 1..8 default=9\n",
       "line 2 (migration_queue): default '9' is outside"},
      {"migration_queue numeric 0..8\n",
       "line 2 (migration_queue): Invalid argument: option 'migration_queue:0': bad "},
      {"policy categorical fast-first nosuch\n", "line 2 (policy): "},
      {"policy categorical lru cde\n", "line 2 (policy): TierFS's default 'fast-first' is not"},
      {"policy categorical fast-first hintstor\nhintstor.bogus numeric 1..4 default=2\n",
       "line 3 (hintstor.bogus): "},
      {"hintstor.interval numeric 1..4\n", "line 2 (hintstor.interval): no TierFS default known"},
      {"fast_headroom numeric 0..50 unit=%\n",
       "line 2 (fast_headroom): TierFS's default 'auto' is not a number"},
      {"segment_size discrete 1M 2M\nsegment_size discrete 1M\n",
       "line 3 (segment_size): declared twice"},
      {"copy_page discrete 4K 8K log\n", "line 2 (copy_page): log and unit= are for numeric"},
      {"segment_size oddkind 1M\n", "line 2 (segment_size): unknown kind 'oddkind'"},
      {"segment_size discrete 1M fast\n", "discrete value 'fast' is not a number"},
      {"copy_page discrete 4K 8K\nconstraint copy_page <= segmnt\n",
       "line 3 (constraint): 'segmnt' is neither a parameter nor a number"},
      {"copy_page discrete 8K 16K\nconstraint copy_page < 8K\n",
       "line 3 (constraint): the default configuration breaks 'copy_page < 8K'"},
      {"constraint a ~ b\n", "line 2 (constraint): expected 'constraint A OP B'"},
      {"copy_page discrete 4K 8K\nconstraint copy_page + <= 8K\n",
       "line 3 (constraint): expected 'constraint A OP B'"},
      {"copy_page discrete 4K 8K\nconstraint 0*copy_page <= 8K\n",
       "line 3 (constraint): expected 'constraint A OP B'"},
      {"policy categorical fast-first lru\ncopy_page discrete 4K 8K\n"
       "constraint copy_page + 2*policy <= 8K\n",
       "line 4 (constraint): 'policy' is categorical"},
      {"copy_page discrete 8K 16K\nconstraint copy_page + 2*copy_page <= 16K\n",
       "line 3 (constraint): the default configuration breaks 'copy_page + 2*copy_page <= 16K'"},
      {"hintstor.interval numeric 1024..4096 default=2048\n",
       "line 2 (hintstor.interval): the policy hintstor is never chosen in this space"},
      {"policy categorical fast-first lru\nmutant.interval numeric 1..9 default=2\n",
       "line 3 (mutant.interval): the policy mutant is never chosen"},
      {"fixed hintstor.interval 5\n", "line 2 (hintstor.interval): a POLICY.PARAM cannot be fixed"},
  };
  for (const BadFile& c : cases) {
    const std::string text =
        c.text[0] == '!' ? std::string(c.text + 1) : kTiers + std::string(c.text);
    Space space;
    std::string error;
    EXPECT_FALSE(Space::Parse(text, "space.txt", &space, &error)) << text;
    EXPECT_NE(error.find(c.expect), std::string::npos) << "got: " << error;
    EXPECT_EQ(error.rfind("space.txt", 0), 0u) << error;
  }
  Space space;
  std::string error;
  EXPECT_FALSE(Space::Load("/nonexistent/space.txt", &space, &error));
  EXPECT_NE(error.find("cannot read space file '/nonexistent/space.txt'"), std::string::npos);
}

TEST(TuneSpace, FixedKeysAndAFixedPolicyBindTheirParameters) {
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(std::string(kTiers) +
                               "fixed policy hintstor\nfixed copies off\n"
                               "hintstor.interval numeric 1024..4096 default=2048\n",
                           "t", &space, &error))
      << error;
  EXPECT_EQ(space.Render(space.Default()),
            "tierfs:///fast:128M:optane,/slow:8G:sata-ssd;policy:hintstor;copies:off;"
            "hintstor.interval:2048");
}

// A memory budget is a constraint on a sum: the block cache plus two
// memtables within what the default spends. Every point a search can draw
// keeps it, a point that breaks it is not a configuration of the space, and
// a simulated search (which drops the live keys) drops the budget with them.
TEST(TuneSpace, ASumConstraintKeepsAMemoryBudget) {
  const std::string text = std::string(kTiers) +
                           "segment_size discrete 64K 1M\n"
                           "rocksdb.block_cache_size numeric 1M..256M log\n"
                           "rocksdb.write_buffer_size numeric 1M..128M log\n"
                           "constraint rocksdb.block_cache_size+2*rocksdb.write_buffer_size "
                           "<= 136M\n"
                           "constraint 2 * segment_size + 64K > 192K\n";
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(text, "space.txt", &space, &error)) << error;
  const int cache = space.Find("rocksdb.block_cache_size");
  const int buffer = space.Find("rocksdb.write_buffer_size");
  const int segment = space.Find("segment_size");
  ASSERT_GE(cache, 0);
  ASSERT_GE(buffer, 0);
  ASSERT_GE(segment, 0);
  // RocksDB's defaults (8M + 2 x 64M) spend exactly the budget.
  EXPECT_TRUE(space.Feasible(space.Default()));

  Point p = space.Default();
  p[size_t(cache)] = 128 << 20;
  p[size_t(buffer)] = 4 << 20;  // 128M + 8M: at the budget
  EXPECT_TRUE(space.Feasible(p));
  p[size_t(buffer)] = 5 << 20;  // 1M over
  EXPECT_FALSE(space.Feasible(p));
  Point q;
  EXPECT_FALSE(space.PointOf(space.Render(p), &q)) << "a point over budget is not in the space";
  p = space.Default();
  p[size_t(segment)] = 0;  // 2 x 64K + 64K is not over 192K
  EXPECT_FALSE(space.Feasible(p));

  Rng rng(7);
  int big_caches = 0;
  for (int i = 0; i < 300; ++i) {
    const Point r = space.Random(&rng);
    ASSERT_TRUE(space.Feasible(r));
    EXPECT_LE(r[size_t(cache)] + 2 * r[size_t(buffer)], double(136 << 20));
    big_caches += r[size_t(cache)] > (64 << 20);
    const Point n = space.Neighbor(r, &rng);
    EXPECT_TRUE(space.Feasible(n));
  }
  EXPECT_GT(big_caches, 0) << "the budget still lets the cache grow past its default";

  const Space sim = space.WithoutLive();
  EXPECT_EQ(sim.size(), 1u);
  Point s = sim.Default();
  s[0] = 0;
  EXPECT_FALSE(sim.Feasible(s)) << "the constraint without live keys is kept";
}

}  // namespace
}  // namespace tune
}  // namespace tierfs

namespace tierfs {
namespace tune {
namespace {

// tierfs-tune --tiers: the same space on another device configuration.
TEST(TuneSpace, TiersCanBeReplacedByTheCaller) {
  const std::string text = std::string(kTiers) + "segment_size discrete 64K 1M\n";
  Space space;
  std::string error;
  ASSERT_TRUE(Space::Parse(text, "space.txt", &space, &error, "/f:32M:optane,/s:4G:hdd")) << error;
  EXPECT_EQ(space.tiers(), "/f:32M:optane,/s:4G:hdd");
  EXPECT_EQ(space.Render(space.Default()).rfind("tierfs:///f:32M:optane,/s:4G:hdd;", 0), 0u)
      << space.Render(space.Default());
  EXPECT_FALSE(Space::Parse(text, "space.txt", &space, &error, "/f:32M:floppy"));
  EXPECT_NE(error.find("line 1 (tiers): --tiers '/f:32M:floppy': "), std::string::npos) << error;
}

}  // namespace
}  // namespace tune
}  // namespace tierfs
