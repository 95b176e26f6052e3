// Tests of the URI and configuration-file parser (tierfs/file_system.h: ParseUri,
// ParseConfigFile, ValidateOptions) and of the size helpers (core/config.h).
//
// Every refusal is checked for the part of the input it must name: a user who
// mistypes one field of a long URI has to be told which one.
#include "core/config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cstring>

#include "agents/policy.h"
#include "engine/page_copies.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using test::ScratchDir;

constexpr uint64_t kKiB = 1ull << 10;
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kTiB = 1ull << 40;

// Expects `s` to be an InvalidArgument whose message contains every fragment.
void ExpectRefused(const rocksdb::Status& s, const std::vector<std::string>& fragments) {
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  for (const std::string& f : fragments) {
    EXPECT_NE(s.ToString().find(f), std::string::npos)
        << "message does not name '" << f << "': " << s.ToString();
  }
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() : dir_("config") {}

  // Creates <scratch>/<name> and returns its path.
  std::string Tier(const std::string& name) { return dir_.Sub(name); }

  rocksdb::Status Parse(const std::string& uri) { return ParseUri(uri, &options_); }

  ScratchDir dir_;
  Options options_;
};

// ---------------------------------------------------------------- inline URIs

TEST_F(ConfigTest, OneTierTakesDefaults) {
  std::string t0 = Tier("t0");
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":10G").ok());
  ASSERT_EQ(options_.tiers.size(), 1u);
  EXPECT_EQ(options_.tiers[0].path, t0);
  EXPECT_EQ(options_.tiers[0].capacity, 10 * kGiB);
  EXPECT_EQ(options_.tiers[0].device, "none");
  EXPECT_EQ(options_.segment_size, 1 * kMiB);
  EXPECT_EQ(options_.policy, "fast-first");
}

TEST_F(ConfigTest, FastHeadroomIsAutoAPercentageOrASize) {
  const std::string t = "tierfs://" + Tier("t0") + ":1G," + Tier("t1") + ":10G";
  ASSERT_TRUE(Parse(t).ok());
  EXPECT_EQ(5u, options_.migration.fast_headroom_pct);  // the default: 5% or more
  EXPECT_EQ(0u, options_.migration.fast_headroom_bytes);
  EXPECT_TRUE(options_.migration.fast_headroom_auto);
  ASSERT_TRUE(Parse(t + ";fast_headroom:12%").ok());
  EXPECT_EQ(12u, options_.migration.fast_headroom_pct);
  EXPECT_FALSE(options_.migration.fast_headroom_auto);  // kept as given
  ASSERT_TRUE(Parse(t + ";fast_headroom:auto").ok());
  EXPECT_TRUE(options_.migration.fast_headroom_auto);
  EXPECT_EQ(5u, options_.migration.fast_headroom_pct);
  ASSERT_TRUE(Parse(t + ";fast_headroom:64M").ok());
  EXPECT_EQ(64 * kMiB, options_.migration.fast_headroom_bytes);
  options_ = Options();
  ASSERT_TRUE(Parse(t + ";fast_headroom:0").ok());  // none at all, not the default
  EXPECT_EQ(0u, options_.migration.fast_headroom_bytes);
  EXPECT_EQ(0u, options_.migration.fast_headroom_pct);
  for (const char* bad : {"101%", "lots", "-5%"}) {
    rocksdb::Status s = Parse(t + ";fast_headroom:" + bad);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(std::string::npos, s.ToString().find(std::string("fast_headroom '") + bad)) << s.ToString();
  }
}

TEST_F(ConfigTest, LevelRoomAndWalRoomAreOnOrOff) {
  const std::string t = "tierfs://" + Tier("t0") + ":1G," + Tier("t1") + ":10G";
  for (const std::string key : {"level_room", "wal_room"}) {
    SCOPED_TRACE(key);
    bool* const flag = key == "level_room" ? &options_.migration.level_room
                                           : &options_.migration.wal_room;
    ASSERT_TRUE(Parse(t).ok());
    EXPECT_TRUE(*flag);  // the default
    ASSERT_TRUE(Parse(t + ";" + key + ":off").ok());
    EXPECT_FALSE(*flag);
    ASSERT_TRUE(Parse(t + ";" + key + ":on").ok());
    EXPECT_TRUE(*flag);
    rocksdb::Status s = Parse(t + ";" + key + ":yes");
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_NE(std::string::npos, s.ToString().find(key + " 'yes'")) << s.ToString();
  }
}

TEST_F(ConfigTest, HotPageCopyKeys) {
  const std::string t = "tierfs://" + Tier("t0") + ":1G," + Tier("t1") + ":10G";
  ASSERT_TRUE(Parse(t).ok());
  EXPECT_TRUE(options_.copies.enabled);  // the defaults
  EXPECT_EQ(8u << 10, options_.copies.page);
  EXPECT_EQ(75u, options_.copies.share_pct);
  EXPECT_TRUE(options_.copies.inherit);
  EXPECT_EQ(CopyPolicy::kTinyLfu, options_.copies.policy);
  ASSERT_TRUE(Parse(t + ";copies:off;copy_page:16K;copy_share:30%;copy_inherit:off;"
                        "copy_policy:s3-fifo").ok());
  EXPECT_FALSE(options_.copies.enabled);
  EXPECT_EQ(16u << 10, options_.copies.page);
  EXPECT_EQ(30u, options_.copies.share_pct);
  EXPECT_FALSE(options_.copies.inherit);
  EXPECT_EQ(CopyPolicy::kS3Fifo, options_.copies.policy);
  ASSERT_TRUE(Parse(t + ";copy_policy:w-tinylfu").ok());
  EXPECT_EQ(CopyPolicy::kWTinyLfu, options_.copies.policy);
  ASSERT_TRUE(Parse(t + ";copy_share:0").ok());  // none: the same as copies:off
  EXPECT_EQ(0u, options_.copies.share_pct);
  for (const char* bad : {"copies:maybe", "copy_page:12K", "copy_page:2K", "copy_page:128K",
                          "copy_share:101%", "copy_share:half", "copy_inherit:1",
                          "copy_policy:lfu", "copy_policy:"}) {
    rocksdb::Status s = Parse(t + ";" + bad);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    const std::string key(bad, strchr(bad, ':'));
    EXPECT_NE(std::string::npos, s.ToString().find("bad " + key + " '")) << s.ToString();
  }
}

TEST_F(ConfigTest, StatsLogIsAnAbsolutePathWithAnInterval) {
  const std::string t = "tierfs://" + Tier("t0") + ":1G," + Tier("t1") + ":10G";
  ASSERT_TRUE(Parse(t).ok());
  EXPECT_EQ("", options_.stats_log);
  EXPECT_EQ(1000u, options_.stats_log_ms);  // the default
  ASSERT_TRUE(Parse(t + ";stats_log:/tmp/x.jsonl;stats_log_ms:250").ok());
  EXPECT_EQ("/tmp/x.jsonl", options_.stats_log);
  EXPECT_EQ(250u, options_.stats_log_ms);
  ExpectRefused(Parse(t + ";stats_log:relative.jsonl"), {"stats_log", "relative.jsonl"});
  ExpectRefused(Parse(t + ";stats_log_ms:0"), {"stats_log_ms", "'0'"});
  EXPECT_EQ(10000u, options_.metrics_ms);  // the default
  ASSERT_TRUE(Parse(t + ";metrics_file:/tmp/tierfs.prom;metrics_ms:500").ok());
  EXPECT_EQ("/tmp/tierfs.prom", options_.metrics_file);
  EXPECT_EQ(500u, options_.metrics_ms);
  ExpectRefused(Parse(t + ";metrics_file:tierfs.prom"), {"metrics_file", "tierfs.prom"});
  ExpectRefused(Parse(t + ";metrics_ms:soon"), {"metrics_ms", "'soon'"});
}

TEST_F(ConfigTest, TwoTiersWithDevicesKeepTheirOrder) {
  std::string t0 = Tier("t0"), t1 = Tier("t1");
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":512M:nvme," + t1 + ":1T:hdd").ok());
  ASSERT_EQ(options_.tiers.size(), 2u);
  EXPECT_EQ(options_.tiers[0].path, t0);
  EXPECT_EQ(options_.tiers[0].capacity, 512 * kMiB);
  EXPECT_EQ(options_.tiers[0].device, "nvme");
  EXPECT_EQ(options_.tiers[1].path, t1);
  EXPECT_EQ(options_.tiers[1].capacity, 1 * kTiB);
  EXPECT_EQ(options_.tiers[1].device, "hdd");
}

TEST_F(ConfigTest, ThreeTiersWithEveryUnit) {
  std::string t0 = Tier("t0"), t1 = Tier("t1"), t2 = Tier("t2");
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":64K:optane," + t1 + ":3G:sata-ssd," + t2 +
                    ":2T:custom-100-50-500")
                  .ok());
  ASSERT_EQ(options_.tiers.size(), 3u);
  EXPECT_EQ(options_.tiers[0].capacity, 64 * kKiB);
  EXPECT_EQ(options_.tiers[1].capacity, 3 * kGiB);
  EXPECT_EQ(options_.tiers[2].capacity, 2 * kTiB);
  EXPECT_EQ(options_.tiers[0].device, "optane");
  EXPECT_EQ(options_.tiers[1].device, "sata-ssd");
  EXPECT_EQ(options_.tiers[2].device, "custom-100-50-500");
  EXPECT_EQ(options_.tiers[2].path, t2);
}

TEST_F(ConfigTest, CapacityWithoutUnitIsBytes) {
  ASSERT_TRUE(Parse("tierfs://" + Tier("t0") + ":4096").ok());
  EXPECT_EQ(options_.tiers[0].capacity, 4096u);
}

TEST_F(ConfigTest, EveryDeviceNameIsAccepted) {
  std::string t0 = Tier("t0");
  for (const char* device : {"none", "optane", "nvme", "sata-ssd", "hdd", "custom-100-50-500"}) {
    SCOPED_TRACE(device);
    rocksdb::Status s = Parse("tierfs://" + t0 + ":1G:" + device);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(options_.tiers[0].device, device);
  }
}

TEST_F(ConfigTest, SegmentSizeOption) {
  std::string t0 = Tier("t0");
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":1G;segment_size:4M").ok());
  EXPECT_EQ(options_.segment_size, 4 * kMiB);
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":1G;segment_size:64K").ok());
  EXPECT_EQ(options_.segment_size, 64 * kKiB);
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":1G;segment_size:whole").ok());
  EXPECT_EQ(options_.segment_size, 0u);
}

TEST_F(ConfigTest, PolicyOption) {
  std::string t0 = Tier("t0");
  for (const char* policy : {"fast-first", "fast-only", "slow-only"}) {
    SCOPED_TRACE(policy);
    ASSERT_TRUE(Parse("tierfs://" + t0 + ":1G;policy:" + policy).ok());
    EXPECT_EQ(options_.policy, policy);
  }
}

TEST_F(ConfigTest, SeveralOptionsTogether) {
  std::string t0 = Tier("t0"), t1 = Tier("t1");
  ASSERT_TRUE(
      Parse("tierfs://" + t0 + ":1G:nvme," + t1 + ":10G:hdd;segment_size:2M;policy:slow-only")
          .ok());
  EXPECT_EQ(options_.tiers.size(), 2u);
  EXPECT_EQ(options_.segment_size, 2 * kMiB);
  EXPECT_EQ(options_.policy, "slow-only");
}

TEST_F(ConfigTest, ReparsingResetsEarlierOptions) {
  std::string t0 = Tier("t0"), t1 = Tier("t1");
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":1G," + t1 + ":1G;segment_size:whole;policy:fast-only").ok());
  ASSERT_TRUE(Parse("tierfs://" + t0 + ":1G").ok());
  EXPECT_EQ(options_.tiers.size(), 1u);
  EXPECT_EQ(options_.segment_size, 1 * kMiB);
  EXPECT_EQ(options_.policy, "fast-first");
}

TEST_F(ConfigTest, EightTiersIsTheMaximumAccepted) {
  std::string uri = "tierfs://";
  for (int i = 0; i < 8; ++i) uri += (i ? "," : "") + Tier("t" + std::to_string(i)) + ":1G";
  rocksdb::Status s = Parse(uri);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(options_.tiers.size(), 8u);
}

// ---------------------------------------------------------- config:FILE form

TEST_F(ConfigTest, ConfigFileWithCommentsAndBlankLines) {
  std::string t0 = Tier("t0"), t1 = Tier("t1");
  std::string conf = dir_.path() + "/tierfs.conf";
  WriteFile(conf,
            "# TierFS test configuration\n"
            "\n"
            "tier = " + t0 + " 512M nvme   # the fast one\n"
            "  tier=" + t1 + "\t2T\n"
            "segment_size = 256K\n"
            "policy = fast-only\n"
            "   # trailing comment line\n");
  rocksdb::Status s = Parse("tierfs://config:" + conf);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(options_.tiers.size(), 2u);
  EXPECT_EQ(options_.tiers[0].path, t0);
  EXPECT_EQ(options_.tiers[0].capacity, 512 * kMiB);
  EXPECT_EQ(options_.tiers[0].device, "nvme");
  EXPECT_EQ(options_.tiers[1].path, t1);
  EXPECT_EQ(options_.tiers[1].capacity, 2 * kTiB);
  EXPECT_EQ(options_.tiers[1].device, "none");
  EXPECT_EQ(options_.segment_size, 256 * kKiB);
  EXPECT_EQ(options_.policy, "fast-only");
}

TEST_F(ConfigTest, ConfigFileParsedDirectlyMatchesUriForm) {
  std::string t0 = Tier("t0");
  std::string conf = dir_.path() + "/direct.conf";
  WriteFile(conf, "tier = " + t0 + " 1G custom-100-50-500\nsegment_size = whole\n");
  Options direct;
  ASSERT_TRUE(ParseConfigFile(conf, &direct).ok());
  ASSERT_TRUE(Parse("tierfs://config:" + conf).ok());
  ASSERT_EQ(direct.tiers.size(), 1u);
  EXPECT_EQ(direct.tiers[0].device, "custom-100-50-500");
  EXPECT_EQ(direct.segment_size, 0u);
  EXPECT_EQ(options_.tiers[0].path, direct.tiers[0].path);
  EXPECT_EQ(options_.segment_size, direct.segment_size);
}

// ------------------------------------------------------------- URI refusals

TEST_F(ConfigTest, RefusesMissingScheme) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse(t0 + ":1G"), {"tierfs://", t0});
  ExpectRefused(Parse("file://" + t0 + ":1G"), {"tierfs://", "file://"});
}

TEST_F(ConfigTest, RefusesEqualsSign) {
  std::string uri = "tierfs://" + Tier("t0") + ":1G;segment_size=1M";
  ExpectRefused(Parse(uri), {"'='", "segment_size=1M"});
}

TEST_F(ConfigTest, RefusesUriWithoutTier) {
  ExpectRefused(Parse("tierfs://"), {"no tier"});
  ExpectRefused(Parse("tierfs://;policy:fast-only"), {"no tier"});
}

TEST_F(ConfigTest, RefusesTierWithOneField) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0), {"tier 0", t0, "PATH:CAPACITY"});
}

TEST_F(ConfigTest, RefusesTierWithFourFields) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G:nvme:extra"),
                {"tier 0", t0 + ":1G:nvme:extra"});
}

TEST_F(ConfigTest, RefusalNamesTheMalformedTierAmongSeveral) {
  std::string t0 = Tier("t0"), t1 = Tier("t1");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G," + t1), {"tier 1", t1});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G,," + t1 + ":1G"), {"tier 1"});
}

TEST_F(ConfigTest, RefusesBadCapacity) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":10X"), {"'10X'", "capacity"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1.5G"), {"'1.5G'"});
  ExpectRefused(Parse("tierfs://" + t0 + ":G"), {"'G'"});
  ExpectRefused(Parse("tierfs://" + t0 + ":"), {"capacity", "''"});
}

TEST_F(ConfigTest, RefusesZeroCapacity) {
  std::string t0 = Tier("t0"), t1 = Tier("t1");
  ExpectRefused(Parse("tierfs://" + t0 + ":0"), {"tier 0", t0, "capacity"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G," + t1 + ":0G"), {"tier 1", t1, "capacity"});
}

TEST_F(ConfigTest, RefusesUnknownDevice) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G:floppy"), {"tier 0", "'floppy'"});
}

TEST_F(ConfigTest, RefusesMalformedCustomDevice) {
  std::string t0 = Tier("t0");
  for (const char* device : {"custom-100-50", "custom-a-50-500", "custom-100-50-0",
                             "custom--50-500", "custom-100-50-500-7", "custom-"}) {
    SCOPED_TRACE(device);
    ExpectRefused(Parse("tierfs://" + t0 + ":1G:" + device),
                  {"tier 0", std::string("'") + device + "'"});
  }
}

TEST_F(ConfigTest, RefusesUnknownKey) {
  ExpectRefused(Parse("tierfs://" + Tier("t0") + ":1G;colour:red"), {"'colour'", "unknown key"});
}

TEST_F(ConfigTest, RefusesOptionWithoutValue) {
  ExpectRefused(Parse("tierfs://" + Tier("t0") + ":1G;verbose"), {"'verbose'", "KEY:VALUE"});
}

TEST_F(ConfigTest, RefusesUnknownPolicy) {
  ExpectRefused(Parse("tierfs://" + Tier("t0") + ":1G;policy:random"), {"'random'", "policy"});
}

// Found by tests/fuzz/uri_fuzzer's checks: a parameter too large for the
// integer a policy keeps it in (1e30 requests) was converted with undefined
// behaviour, and so was a device model whose service time overflows.
TEST_F(ConfigTest, RefusesNumbersBeyondWhatTheyDescribe) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;policy:mutant;mutant.min_age:1e30"),
                {"malformed parameter", "mutant.min_age:1e30"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;policy:cde;cde.half_life:-1e300"),
                {"malformed parameter", "cde.half_life"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G:custom-1e300-1-1"), {"custom-1e300-1-1", "1e9"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G:custom-1-1-1e-300"), {"custom-1-1-1e-300"});
  rocksdb::Status s = Parse("tierfs://" + t0 + ":1G:custom-1000000000-1-0.001;policy:mutant;"
                            "mutant.min_age:9007199254740992");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(ConfigTest, RefusesSegmentSizeNotMultipleOfBlock) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;segment_size:1000"), {"segment_size", "1000", "4096"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;segment_size:4097"), {"segment_size", "4097"});
}

TEST_F(ConfigTest, RefusesGarbageSegmentSize) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;segment_size:big"), {"segment_size", "'big'"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;segment_size:1.5M"), {"'1.5M'"});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G;segment_size:0"), {"segment_size", "'0'"});
}

TEST_F(ConfigTest, RefusesMoreThanEightTiers) {
  std::string uri = "tierfs://";
  for (int i = 0; i < 9; ++i) uri += (i ? "," : "") + Tier("t" + std::to_string(i)) + ":1G";
  ExpectRefused(Parse(uri), {"1 to 8 tiers", "got 9"});
}

TEST_F(ConfigTest, RefusesRelativePath) {
  ExpectRefused(Parse("tierfs://relative/t0:1G"), {"relative/t0", "absolute"});
}

TEST_F(ConfigTest, RefusesTierInsideAnother) {
  std::string outer = Tier("t0");
  std::string inner = dir_.Sub("t0/inner");
  ExpectRefused(Parse("tierfs://" + outer + ":1G," + inner + ":1G"),
                {"overlaps", outer, inner});
  // The containing tier listed second is caught too.
  ExpectRefused(Parse("tierfs://" + inner + ":1G," + outer + ":1G"),
                {"overlaps", outer, inner});
}

TEST_F(ConfigTest, RefusesIdenticalTiers) {
  std::string t0 = Tier("t0");
  ExpectRefused(Parse("tierfs://" + t0 + ":1G," + t0 + ":1G"), {"tier 1", "overlaps", t0});
  ExpectRefused(Parse("tierfs://" + t0 + ":1G," + t0 + "/:1G"), {"tier 1", "overlaps"});
}

TEST_F(ConfigTest, SiblingWithCommonPrefixIsNotAnOverlap) {
  std::string a = Tier("tier"), b = Tier("tier2");
  rocksdb::Status s = Parse("tierfs://" + a + ":1G," + b + ":1G");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// The same directory spelled another way ("x/../t0") is still the same tier:
// two tiers sharing one root would overwrite each other's files.
TEST_F(ConfigTest, RefusesIdenticalTiersSpelledDifferently) {
  std::string t0 = Tier("t0");
  Tier("t1");
  std::string alias = dir_.path() + "/t1/../t0";
  ExpectRefused(Parse("tierfs://" + t0 + ":1G," + alias + ":1G"), {"tier 1", "overlaps"});
}

TEST_F(ConfigTest, RefusesMissingTierDirectory) {
  std::string missing = dir_.path() + "/no-such-dir";
  ExpectRefused(Parse("tierfs://" + missing + ":1G"), {missing, "does not exist"});
}

TEST_F(ConfigTest, RefusesTierThatIsARegularFile) {
  std::string file = dir_.path() + "/plain-file";
  WriteFile(file, "x");
  ExpectRefused(Parse("tierfs://" + file + ":1G"), {file, "not a directory"});
}

// --------------------------------------------------------- config refusals

TEST_F(ConfigTest, RefusesUnreadableConfigFile) {
  std::string missing = dir_.path() + "/missing.conf";
  ExpectRefused(Parse("tierfs://config:" + missing), {missing});
  Options direct;
  ExpectRefused(ParseConfigFile(missing, &direct), {missing});
}

// A directory cannot be read as a file (read() fails with EISDIR); the
// refusal must say which path was given, not complain about tiers.
TEST_F(ConfigTest, RefusesDirectoryAsConfigFile) {
  std::string d = dir_.Sub("conf.d");
  ExpectRefused(Parse("tierfs://config:" + d), {d});
}

TEST_F(ConfigTest, RefusesConfigLineWithoutEquals) {
  std::string t0 = Tier("t0");
  std::string conf = dir_.path() + "/noeq.conf";
  WriteFile(conf, "# comment\ntier = " + t0 + " 1G\nsegment_size 1M\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"line 3", conf, "segment_size 1M"});
}

TEST_F(ConfigTest, RefusesUnknownKeyInConfigFileNamingTheLine) {
  std::string t0 = Tier("t0");
  std::string conf = dir_.path() + "/key.conf";
  WriteFile(conf, "tier = " + t0 + " 1G\n\ncolour = red\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"line 3", "'colour'"});
}

TEST_F(ConfigTest, RefusesBadTierLineInConfigFile) {
  std::string t0 = Tier("t0");
  std::string conf = dir_.path() + "/tier.conf";
  WriteFile(conf, "tier = " + t0 + " 10X\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"line 1", "'10X'"});
  WriteFile(conf, "# c\ntier = " + t0 + "\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"line 2"});
  WriteFile(conf, "tier = " + t0 + " 1G nvme extra\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"line 1"});
}

TEST_F(ConfigTest, ConfigFileIsValidatedLikeAUri) {
  std::string conf = dir_.path() + "/invalid.conf";
  WriteFile(conf, "tier = relative/t0 1G\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"relative/t0", "absolute"});
  WriteFile(conf, "tier = " + Tier("t0") + " 1G\npolicy = random\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"'random'"});
  WriteFile(conf, "# only a comment\n");
  ExpectRefused(Parse("tierfs://config:" + conf), {"got 0"});
}

// ---------------------------------------------------------- ValidateOptions

TEST_F(ConfigTest, ValidateOptionsChecksAStructBuiltInCode) {
  Options o;
  ExpectRefused(ValidateOptions(o), {"got 0"});
  o.tiers.push_back({Tier("t0"), 1 * kGiB, "nvme"});
  EXPECT_TRUE(ValidateOptions(o).ok());
  o.segment_size = 12345;
  ExpectRefused(ValidateOptions(o), {"12345"});
  o.segment_size = 0;
  EXPECT_TRUE(ValidateOptions(o).ok());
  o.tiers[0].device = "floppy";
  ExpectRefused(ValidateOptions(o), {"'floppy'"});
}

// ------------------------------------------------------ ParseSize/FormatSize

TEST(ParseSizeTest, AcceptsPlainNumbersAndUnits) {
  uint64_t v = 99;
  ASSERT_TRUE(ParseSize("0", &v));
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(ParseSize("4096", &v));
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(ParseSize("64K", &v));
  EXPECT_EQ(v, 64 * kKiB);
  ASSERT_TRUE(ParseSize("10M", &v));
  EXPECT_EQ(v, 10 * kMiB);
  ASSERT_TRUE(ParseSize("1G", &v));
  EXPECT_EQ(v, kGiB);
  ASSERT_TRUE(ParseSize("2T", &v));
  EXPECT_EQ(v, 2 * kTiB);
  ASSERT_TRUE(ParseSize("3g", &v));
  EXPECT_EQ(v, 3 * kGiB);
  ASSERT_TRUE(ParseSize("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  ASSERT_TRUE(ParseSize("16777215T", &v));  // (2^24 - 1) TiB fits
  EXPECT_EQ(v, 16777215ull << 40);
}

TEST(ParseSizeTest, RefusesOverflow) {
  uint64_t v = 0;
  EXPECT_FALSE(ParseSize("18446744073709551616", &v));  // 2^64
  EXPECT_FALSE(ParseSize("99999999999999999999", &v));
  EXPECT_FALSE(ParseSize("16777216T", &v));             // 2^64 bytes
  EXPECT_FALSE(ParseSize("17179869184G", &v));          // 2^64 bytes
  EXPECT_FALSE(ParseSize("18014398509481984K", &v));    // 2^64 bytes
}

TEST(ParseSizeTest, RefusesMalformedText) {
  uint64_t v = 0;
  for (const char* bad : {"", "1.5G", "G", "10X", "-1", "1 G", " 1G", "1GG", "0x10"}) {
    EXPECT_FALSE(ParseSize(bad, &v)) << "'" << bad << "'";
  }
}

TEST(FormatSizeTest, PicksTheLargestUnitBelowTheValue) {
  EXPECT_EQ(FormatSize(0), "0 B");
  EXPECT_EQ(FormatSize(1023), "1023 B");
  EXPECT_EQ(FormatSize(1024), "1.0 KiB");
  EXPECT_EQ(FormatSize(1536), "1.5 KiB");
  EXPECT_EQ(FormatSize(10 * kMiB), "10.0 MiB");
  EXPECT_EQ(FormatSize(kGiB), "1.0 GiB");
  EXPECT_EQ(FormatSize(2 * kTiB), "2.0 TiB");
  EXPECT_EQ(FormatSize(1024 * kTiB), "1024.0 TiB");
}

// The public header's URI grammar and Options::policy list what the parser
// and the policy registry accept, no more and no less: a key or policy added
// to one and not the other fails here.
std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(TIERFS_SOURCE_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The words of `text` made of [a-z0-9_.+-], in order.
std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text + " ") {
    if (isalnum(static_cast<unsigned char>(c)) || strchr("_.+-", c)) {
      w += c;
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  return out;
}

bool Has(const std::vector<std::string>& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

TEST_F(ConfigTest, PublicHeaderListsEveryKeyAndPolicy) {
  const std::string header = ReadSource("include/tierfs/options.h");
  ASSERT_FALSE(header.empty());
  const size_t from = header.find("KEY   :=");
  const size_t to = header.find("or    tierfs://config:");
  ASSERT_NE(std::string::npos, from);
  ASSERT_NE(std::string::npos, to);
  const std::vector<std::string> grammar = Words(header.substr(from, to - from));
  // The keys: the parser names every one it knows when it meets one it does not.
  rocksdb::Status s = Parse("tierfs://" + Tier("t0") + ":1G;no_such_key:1");
  ASSERT_TRUE(s.IsInvalidArgument());
  const std::string message = s.ToString();
  const size_t known = message.find("(known: ");
  ASSERT_NE(std::string::npos, known) << message;
  const std::vector<std::string> keys = Words(message.substr(known + 8));
  ASSERT_GT(keys.size(), 20u) << message;
  for (const std::string& key : keys) EXPECT_TRUE(Has(grammar, key)) << key;
  // The policies: the registry's, and the follower of RocksDB's tiering.
  std::vector<std::string> policies = PolicyNames();
  policies.push_back("rocksdb-temperature");
  const size_t option = header.find("// Policy name:");
  ASSERT_NE(std::string::npos, option);
  const std::vector<std::string> documented =
      Words(header.substr(option, header.find("std::string policy", option) - option));
  for (const std::string& p : policies) {
    EXPECT_TRUE(Has(grammar, p)) << p << " missing from the URI grammar";
    EXPECT_TRUE(Has(documented, p)) << p << " missing from Options::policy";
  }
  // And none the registry does not have: the grammar's policy list.
  const size_t list = header.find("policy (");
  ASSERT_NE(std::string::npos, list);
  for (const std::string& p : Words(header.substr(list + 8, header.find(')', list) - list - 8))) {
    EXPECT_TRUE(std::find(policies.begin(), policies.end(), p) != policies.end()) << p;
  }
  for (CopyPolicy p : {CopyPolicy::kTinyLfu, CopyPolicy::kWTinyLfu, CopyPolicy::kS3Fifo}) {
    EXPECT_TRUE(Has(grammar, CopyPolicyName(p))) << CopyPolicyName(p);
  }
}

TEST(FormatSizeTest, RoundTripsThroughParseSizeForWholeUnits) {
  for (uint64_t bytes : {kKiB, 64 * kKiB, kMiB, 7 * kGiB, 3 * kTiB}) {
    std::string text = FormatSize(bytes);  // "7.0 GiB"
    std::string compact = text.substr(0, text.find('.')) + text.substr(text.find(' ') + 1, 1);
    uint64_t parsed = 0;
    ASSERT_TRUE(ParseSize(compact, &parsed)) << compact;
    EXPECT_EQ(parsed, bytes) << text;
  }
}

}  // namespace
}  // namespace tierfs
