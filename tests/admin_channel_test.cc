// The admin channel's files as text: ParseAdminRequest (the store's server
// reads requests with it) and ParseAdminResponse (the tool reads answers).
// The channel end to end is migration_test's.
#include <gtest/gtest.h>

#include "env/admin_channel.h"
#include "env/tier_stats_json.h"

namespace tierfs {
namespace {

TEST(AdminChannelTest, ARequestReadsWithItsDefaults) {
  AdminRequest r;
  ASSERT_TRUE(ParseAdminRequest(R"({"command":"migrate","path":"/db/1.sst","tier":1,"first":2})", &r).ok());
  EXPECT_EQ("migrate", r.command);
  EXPECT_EQ("/db/1.sst", r.path);
  EXPECT_EQ(1, r.tier);
  EXPECT_EQ(2u, r.first);
  EXPECT_EQ(~uint64_t(0), r.last);
  ASSERT_TRUE(ParseAdminRequest(R"({"command":"queue"})", &r).ok());
  EXPECT_EQ(-1, r.tier);
}

// Found by tests/fuzz/admin_fuzzer: a number read as an integer it does not
// fit (2^64 + 4e9 written as a float) was converted with undefined behaviour.
TEST(AdminChannelTest, ANumberOutOfRangeIsAnError) {
  AdminRequest r;
  rocksdb::Status s = ParseAdminRequest(R"({"command":"migrate","last":18446744077709551615})", &r);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("\"last\": expected an integer")) << s.ToString();
  EXPECT_TRUE(ParseAdminRequest(R"({"command":"pin","tier":3000000000})", &r).IsInvalidArgument());
  EXPECT_TRUE(ParseAdminRequest(R"({"command":"pin","tier":1.5})", &r).IsInvalidArgument());
  EXPECT_TRUE(ParseAdminRequest(R"({"command":"migrate","first":-1})", &r).IsInvalidArgument());
}

TEST(AdminChannelTest, ARequestOfTheWrongShapeIsAnError) {
  AdminRequest r;
  EXPECT_TRUE(ParseAdminRequest("[1, 2]", &r).IsInvalidArgument());
  EXPECT_TRUE(ParseAdminRequest("{\"command\":", &r).IsInvalidArgument());
  EXPECT_TRUE(ParseAdminRequest(R"({"command":7})", &r).IsInvalidArgument());
  EXPECT_TRUE(ParseAdminRequest(R"({"command":"pin","tier":"1"})", &r).IsInvalidArgument());
}

// An answer with a value of the wrong type threw out of SendAdminRequest,
// and the tool died of the uncaught exception.
TEST(AdminChannelTest, AMalformedResponseIsCorruptionNotAnException) {
  AdminResponse resp;
  rocksdb::Status s = ParseAdminResponse(R"({"ok":"yes","message":3})", &resp);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(ParseAdminResponse(R"({"ok":true,"migration":{"done":-4}})", &resp).IsCorruption());
  ASSERT_TRUE(ParseAdminResponse(R"({"ok":true,"message":"done","migration":{"enabled":true,)"
                                 R"("queue":["manual a"],"done":3},"errors":{"stats_load":2}})",
                                 &resp)
                  .ok());
  EXPECT_TRUE(resp.ok);
  EXPECT_EQ("done", resp.message);
  EXPECT_TRUE(resp.migration.enabled);
  EXPECT_EQ(1u, resp.migration.queue.size());
  EXPECT_EQ(3u, resp.migration.done);
  EXPECT_EQ(2u, resp.errors[size_t(StoreError::kStatsLoad)]);
}

// `tierfs watch` takes differences of two "stats" answers: every counter,
// gauge and histogram must come back as the store had it.
TEST(AdminChannelTest, AStatsAnswerCarriesEveryStatisticWhole) {
  AdminResponse resp;
  ASSERT_TRUE(ParseAdminResponse(
                  R"({"ok":true,"message":"done","sampled_ns":123456789,"copies_in_flight":2,)"
                  R"("tiers":[{"tier":0,"path":"/t0","device":"optane","capacity":100,)"
                  R"("used_bytes":40,"reads":7,"page_copy_bytes":8192,)"
                  R"("read_latency":{"count":3,"sum_us":30,"buckets":[0,1,2]}},)"
                  R"({"tier":1,"user_reads":5}]})",
                  &resp)
                  .ok());
  ASSERT_EQ(2u, resp.tiers.size());
  EXPECT_EQ(123456789, resp.sampled_ns);
  EXPECT_EQ(2u, resp.copies_in_flight);
  const TierStats& t0 = resp.tiers[0];
  EXPECT_EQ("optane", t0.device);
  EXPECT_EQ(100u, t0.capacity);
  EXPECT_EQ(40u, t0.used_bytes);
  EXPECT_EQ(7u, t0.Get(TierTicker::kReads));
  EXPECT_EQ(8192u, t0.Get(TierTicker::kPageCopyBytes));  // a gauge, too
  EXPECT_EQ(3u, t0.Get(TierHistogram::kReadLatency).count);
  EXPECT_EQ(30u, t0.Get(TierHistogram::kReadLatency).sum_us);
  EXPECT_EQ(2u, t0.Get(TierHistogram::kReadLatency).buckets[2]);
  EXPECT_EQ(1, resp.tiers[1].index);
  EXPECT_EQ(5u, resp.tiers[1].Get(TierTicker::kUserReads));
  EXPECT_TRUE(ParseAdminResponse(R"({"ok":true,"tiers":{"tier":0}})", &resp).IsCorruption());
  EXPECT_TRUE(ParseAdminResponse(R"({"ok":true,"tiers":[{"reads":-1}]})", &resp).IsCorruption());
  // Answers to the other requests carry no statistics.
  ASSERT_TRUE(ParseAdminResponse(R"({"ok":true,"message":"done"})", &resp).ok());
  EXPECT_TRUE(resp.tiers.empty());
}

// Every row of the statistics table goes through the stats answer and back:
// a ticker or histogram added to the table is carried without more code.
TEST(AdminChannelTest, EveryStatisticSurvivesTheRoundTrip) {
  std::vector<TierStats> in(2);
  for (size_t t = 0; t < in.size(); ++t) {
    in[t].index = int(t);
    in[t].path = "/t" + std::to_string(t);
    in[t].device = t ? "sata-ssd" : "optane";
    in[t].capacity = 1000 + t;
    in[t].used_bytes = 500 + t;
    for (size_t i = 0; i < kNumTierTickers; ++i) in[t].tickers[i] = 100 * t + i + 1;
    for (size_t h = 0; h < kNumTierHistograms; ++h) {
      LatencyHistogram& hist = in[t].histograms[h];
      hist.count = 7 + h;
      hist.sum_us = 70 + h + t;
      for (int b = 0; b < LatencyHistogram::kBuckets; ++b) hist.buckets[b] = b * (h + 1) + t;
    }
  }
  const std::vector<TierStats> out =
      TierStatsFromJsonLossless(nlohmann::json::parse(TierStatsToJsonLossless(in).dump()));
  ASSERT_EQ(in.size(), out.size());
  for (size_t t = 0; t < in.size(); ++t) {
    EXPECT_EQ(in[t].index, out[t].index);
    EXPECT_EQ(in[t].path, out[t].path);
    EXPECT_EQ(in[t].device, out[t].device);
    EXPECT_EQ(in[t].capacity, out[t].capacity);
    EXPECT_EQ(in[t].used_bytes, out[t].used_bytes);
    EXPECT_EQ(in[t].tickers, out[t].tickers);
    for (size_t h = 0; h < kNumTierHistograms; ++h) {
      const LatencyHistogram &a = in[t].histograms[h], &b = out[t].histograms[h];
      EXPECT_EQ(a.count, b.count) << kTierHistograms[h].name;
      EXPECT_EQ(a.sum_us, b.sum_us) << kTierHistograms[h].name;
      for (int k = 0; k < LatencyHistogram::kBuckets; ++k) {
        EXPECT_EQ(a.buckets[k], b.buckets[k]) << kTierHistograms[h].name << " bucket " << k;
      }
    }
  }
}

}  // namespace
}  // namespace tierfs
