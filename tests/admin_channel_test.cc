// The admin channel's files as text (env/admin_protocol.h): the typed
// requests and their encoder and decoder (DecodeAdminRequest: the store's
// server reads requests with it) and the answers' (DecodeAdminResponse: the
// tool reads answers with it).
// The channel end to end is migration_test's.
#include <gtest/gtest.h>

#include "env/admin_channel.h"
#include "env/tier_stats_json.h"

namespace tierfs {
namespace {

// Every request struct goes to text and back whole: the tool's encoder and
// the server's decoder agree.
TEST(AdminChannelTest, EveryRequestSurvivesTheRoundTrip) {
  DataOpRequest move;
  move.op = DataOp::kReplicate;
  move.path = "/db/1.sst";
  move.tier = 2;
  move.first = 3;
  move.last = 5;
  DataOpRequest drop;
  drop.op = DataOp::kDropCopy;
  drop.path = "/db/2.sst";
  const std::vector<AdminRequest> requests = {
      move, drop, PinRequest{"", "users", 1}, UnpinRequest{"/db/3.sst", ""},
      HintRequest{"", "default", AccessHint::kReadIntensive}, QueueRequest(), ErrorsRequest(),
      StatsRequest()};
  for (const AdminRequest& in : requests) {
    const std::string text = EncodeAdminRequest(in);
    AdminRequest out;
    ASSERT_TRUE(DecodeAdminRequest(text, &out).ok()) << text;
    EXPECT_EQ(in.index(), out.index()) << text;
    EXPECT_EQ(OpOf(in), OpOf(out)) << text;
    EXPECT_EQ(EncodeAdminRequest(out), text);
  }
  AdminRequest out;
  ASSERT_TRUE(DecodeAdminRequest(EncodeAdminRequest(move), &out).ok());
  const DataOpRequest& m = std::get<DataOpRequest>(out);
  EXPECT_EQ(DataOp::kReplicate, m.op);
  EXPECT_EQ("/db/1.sst", m.path);
  EXPECT_EQ(2, m.tier);
  EXPECT_EQ(3u, m.first);
  EXPECT_EQ(5u, m.last);
  EXPECT_EQ(R"({"first":0,"last":18446744073709551615,"op":"drop-copy","path":"/db/2.sst","v":2})",
            EncodeAdminRequest(drop));
  const HintRequest cold{"/db/4.sst", "", AccessHint::kCold};
  ASSERT_TRUE(DecodeAdminRequest(EncodeAdminRequest(cold), &out).ok());
  EXPECT_EQ(AccessHint::kCold, std::get<HintRequest>(out).hint);
}

TEST(AdminChannelTest, ARequestReadsWithItsDefaults) {
  AdminRequest r;
  ASSERT_TRUE(
      DecodeAdminRequest(R"({"v":2,"op":"migrate","path":"/db/1.sst","tier":1,"first":2})", &r)
          .ok());
  const DataOpRequest& m = std::get<DataOpRequest>(r);
  EXPECT_EQ(DataOp::kMigrate, m.op);
  EXPECT_EQ("/db/1.sst", m.path);
  EXPECT_EQ(1, m.tier);
  EXPECT_EQ(2u, m.first);
  EXPECT_EQ(~uint64_t(0), m.last);
  ASSERT_TRUE(DecodeAdminRequest(R"({"v":2,"op":"pin","column_family":"cf"})", &r).ok());
  EXPECT_EQ(-1, std::get<PinRequest>(r).tier);
  ASSERT_TRUE(DecodeAdminRequest(R"({"v":2,"op":"queue"})", &r).ok());
  EXPECT_EQ(AdminOp::kQueue, OpOf(r));
}

// Status::ToString of a decode that failed, "" if it did not.
std::string RequestError(const std::string& text) {
  AdminRequest r;
  rocksdb::Status s = DecodeAdminRequest(text, &r);
  EXPECT_TRUE(s.ok() || s.IsInvalidArgument()) << s.ToString();
  return s.ok() ? "" : s.ToString();
}

// A request is never half understood: another version, an unknown op and a
// field its op does not take are refused, each named.
TEST(AdminChannelTest, UnknownVersionsOpsAndFieldsAreRefusedByName) {
  EXPECT_NE(std::string::npos, RequestError(R"({"op":"queue"})").find("no \"v\""));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":1,"op":"queue"})").find("admin protocol version 1"));
  EXPECT_NE(std::string::npos, RequestError(R"({"v":"1","op":"queue"})").find("\"v\""));
  EXPECT_NE(std::string::npos, RequestError(R"({"v":2})").find("no \"op\""));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"warp"})").find("unknown admin op 'warp' (known: "));
  // The old format's "command" is not this one's "op".
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"command":"queue"})").find("no \"op\""));
  EXPECT_NE(std::string::npos, RequestError(R"({"v":2,"op":"queue","path":"/db/1.sst"})")
                                   .find("unknown field \"path\" in a \"queue\" request "
                                         "(it takes: none)"));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"drop-copy","path":"/a","tier":1})")
                .find("unknown field \"tier\" in a \"drop-copy\" request (it takes: path, "
                      "first, last)"));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"migrate","path":"/a","tier":1,"priority":9})")
                .find("unknown field \"priority\""));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"hint","path":"/a","hint":"lukewarm"})")
                .find("unknown access hint 'lukewarm'"));
}

// Found by tests/fuzz/admin_fuzzer: a number read as an integer it does not
// fit (2^64 + 4e9 written as a float) was converted with undefined behaviour.
TEST(AdminChannelTest, ANumberOutOfRangeIsAnError) {
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"migrate","last":18446744077709551615})")
                .find("\"last\": expected an integer"));
  EXPECT_NE("", RequestError(R"({"v":2,"op":"pin","tier":3000000000})"));
  EXPECT_NE("", RequestError(R"({"v":2,"op":"pin","tier":1.5})"));
  EXPECT_NE("", RequestError(R"({"v":2,"op":"migrate","first":-1})"));
}

TEST(AdminChannelTest, ARequestOfTheWrongShapeIsAnError) {
  EXPECT_NE("", RequestError("[1, 2]"));
  EXPECT_NE("", RequestError("{\"op\":"));
  EXPECT_NE(std::string::npos, RequestError(R"({"v":2,"op":7})").find("\"op\": expected a string"));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"pin","tier":"1"})").find("\"tier\""));
  EXPECT_NE(std::string::npos,
            RequestError(R"({"v":2,"op":"unpin","path":3})").find("\"path\": expected a string"));
}

// An answer with a value of the wrong type threw out of SendAdminRequest,
// and the tool died of the uncaught exception.
TEST(AdminChannelTest, AMalformedResponseIsCorruptionNotAnException) {
  AdminResponse resp;
  rocksdb::Status s = DecodeAdminResponse(R"({"v":2,"ok":"yes","message":3})", &resp);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(
      DecodeAdminResponse(R"({"v":2,"ok":true,"migration":{"done":-4}})", &resp).IsCorruption());
  ASSERT_TRUE(DecodeAdminResponse(R"({"v":2,"ok":true,"message":"done","migration":{)"
                                  R"("enabled":true,"queue":[{"manual":true,"op":"migrate","file":7,)"
                                  R"("segment":2,"to":0}],"done":3},)"
                                  R"("errors":{"stats_load":2}})",
                                  &resp)
                  .ok());
  EXPECT_TRUE(resp.ok);
  EXPECT_EQ("done", resp.message);
  EXPECT_TRUE(resp.migration.enabled);
  ASSERT_EQ(1u, resp.migration.queue.size());
  EXPECT_EQ("migrate 7:2 -> tier 0", DescribeMove(resp.migration.queue[0]));
  EXPECT_TRUE(resp.migration.queue[0].manual);
  EXPECT_FALSE(resp.migration.running);
  EXPECT_EQ(3u, resp.migration.done);
  EXPECT_EQ(2u, resp.errors[size_t(StoreError::kStatsLoad)]);
}

TEST(AdminChannelTest, AResponseOfAnotherVersionOrWithUnknownFieldsIsRefused) {
  AdminResponse resp;
  rocksdb::Status s = DecodeAdminResponse(R"({"ok":true,"message":"done"})", &resp);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(std::string::npos, s.ToString().find("no \"v\"")) << s.ToString();
  s = DecodeAdminResponse(R"({"v":2,"ok":true,"colour":"blue"})", &resp);
  EXPECT_NE(std::string::npos, s.ToString().find("unknown field \"colour\" in an admin answer"))
      << s.ToString();
  s = DecodeAdminResponse(R"({"v":2,"ok":true,"migration":{"dune":1}})", &resp);
  EXPECT_NE(std::string::npos, s.ToString().find("unknown field \"dune\"")) << s.ToString();
  // A move of an unknown kind, or with a field it does not take.
  s = DecodeAdminResponse(R"({"v":2,"ok":true,"migration":{"running":{"op":"teleport"}}})",
                          &resp);
  EXPECT_NE(std::string::npos, s.ToString().find("unknown op \"teleport\"")) << s.ToString();
  s = DecodeAdminResponse(R"({"v":2,"ok":true,"migration":{"queue":[{"op":"migrate","by":1}]}})",
                          &resp);
  EXPECT_NE(std::string::npos, s.ToString().find("unknown field \"by\" in a move")) << s.ToString();
  // The encoder's answer reads back whole.
  AdminResponse in;
  in.ok = true;
  in.message = "queued";
  in.migration.enabled = true;
  MoveInfo manual;
  manual.manual = true;
  manual.file_id = 1;
  MoveInfo drop;
  drop.op = DataOp::kDropCopy;
  drop.file_id = 9;
  drop.segment = 4;
  drop.to = -1;
  in.migration.queue = {manual, drop};
  in.migration.running = manual;
  in.migration.bytes = 65536;
  in.errors[size_t(StoreError::kAdminChannel)] = 4;
  ASSERT_TRUE(DecodeAdminResponse(EncodeAdminResponse(in), &resp).ok());
  EXPECT_EQ(EncodeAdminResponse(in), EncodeAdminResponse(resp));
  EXPECT_EQ(in.migration.queue, resp.migration.queue);
  ASSERT_TRUE(resp.migration.running);
  EXPECT_EQ(manual, *resp.migration.running);
}

// `tierfs watch` takes differences of two "stats" answers: every counter,
// gauge and histogram must come back as the store had it.
TEST(AdminChannelTest, AStatsAnswerCarriesEveryStatisticWhole) {
  AdminResponse resp;
  ASSERT_TRUE(DecodeAdminResponse(
                  R"({"v":2,"ok":true,"message":"done","sampled_ns":123456789,)"
                  R"("copies_in_flight":2,)"
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
  EXPECT_TRUE(
      DecodeAdminResponse(R"({"v":2,"ok":true,"tiers":{"tier":0}})", &resp).IsCorruption());
  EXPECT_TRUE(
      DecodeAdminResponse(R"({"v":2,"ok":true,"tiers":[{"reads":-1}]})", &resp).IsCorruption());
  // Answers to the other requests carry no statistics.
  ASSERT_TRUE(DecodeAdminResponse(R"({"v":2,"ok":true,"message":"done"})", &resp).ok());
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
