// Per-tier statistics as one table (kTierTickers, kTierHistograms): every row
// round-trips through the STATS file and shows in `tierfs --json stats` and in
// the columns of `tierfs stats`; a STATS file written before the table loads.
// The checks loop over the table, so a statistic added to it is checked too.
#include <gtest/gtest.h>

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>
#include <nlohmann/json.hpp>

#include "env/prometheus_text.h"
#include "env/stats_report.h"
#include "tests/test_util.h"
#include "util/size.h"

namespace tierfs {
namespace {

using nlohmann::json;
using rocksdb::FileOptions;
using rocksdb::IOOptions;

// A value for every (tier, ticker) that no other pair has.
uint64_t Distinct(size_t tier, size_t row) { return 1000003 * (tier + 1) + 7919 * (row + 1); }

LatencyHistogram DistinctHistogram(size_t tier, size_t row) {
  LatencyHistogram h;
  h.buckets[3 + row] = 10 + tier;
  h.buckets[20] = 1 + row;
  h.count = h.buckets[3 + row] + h.buckets[20];
  h.sum_us = Distinct(tier, row);
  return h;
}

void ExpectSameHistogram(const LatencyHistogram& want, const LatencyHistogram& got,
                         const std::string& what) {
  EXPECT_EQ(want.count, got.count) << what;
  EXPECT_EQ(want.sum_us, got.sum_us) << what;
  for (int b = 0; b < LatencyHistogram::kBuckets; ++b) {
    EXPECT_EQ(want.buckets[b], got.buckets[b]) << what << " bucket " << b;
  }
}

json HistogramJson(const LatencyHistogram& h) {
  const std::vector<uint64_t> buckets(h.buckets, h.buckets + LatencyHistogram::kBuckets);
  return json{{"count", h.count}, {"sum_us", h.sum_us}, {"buckets", buckets}};
}

class StatsTest : public ::testing::Test {
 protected:
  StatsTest() : dir_("stats") {}

  void Open() {
    uri_ = test::MakeUri(dir_, {"64K", "8M"}, ";segment_size:16K");
    rocksdb::Status s = NewTierFileSystem(uri_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::vector<TierStats> Stats() {
    std::vector<TierStats> stats;
    EXPECT_TRUE(GetTierStats(fs_.get(), &stats).ok());
    return stats;
  }
  std::string StatsPath() const { return dir_.path() + "/tier0/meta/STATS"; }
  json ReadStatsFile() {
    std::string text;
    rocksdb::FileSystem* local = rocksdb::FileSystem::Default().get();
    EXPECT_TRUE(rocksdb::ReadFileToString(local, StatsPath(), &text).ok());
    return json::parse(text);
  }
  void WriteStatsFile(const json& doc) {
    ASSERT_TRUE(rocksdb::WriteStringToFile(rocksdb::FileSystem::Default().get(), doc.dump(1),
                                           StatsPath(), true)
                    .ok());
  }
  // A store with a file on both tiers, closed cleanly: gauges are non-zero
  // and STATS exists. Returns its statistics before the close.
  std::vector<TierStats> MakeClosedStore() {
    Open();
    std::unique_ptr<rocksdb::FSWritableFile> f;
    EXPECT_TRUE(fs_->NewWritableFile("/db/000001.sst", FileOptions(), &f, nullptr).ok());
    EXPECT_TRUE(f->Append(test::RandomBytes(100000, 1), IOOptions(), nullptr).ok());
    EXPECT_TRUE(f->Close(IOOptions(), nullptr).ok());
    std::vector<TierStats> stats = Stats();
    fs_.reset();
    return stats;
  }

  test::ScratchDir dir_;
  std::string uri_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
};

TEST_F(StatsTest, EveryStatisticRoundTripsThroughTheStatsFile) {
  const std::vector<TierStats> live = MakeClosedStore();
  ASSERT_GT(live[0].Get(TierTicker::kSegments) + live[1].Get(TierTicker::kSegments), 0u);
  // Every row gets a value of its own; gauges too, which must not load.
  json doc = ReadStatsFile();
  for (size_t t = 0; t < 2; ++t) {
    json& tier = doc["tiers"][t];
    for (size_t i = 0; i < kNumTierTickers; ++i) tier[kTierTickers[i].name] = Distinct(t, i);
    for (size_t i = 0; i < kNumTierHistograms; ++i) {
      tier[kTierHistograms[i].name] = HistogramJson(DistinctHistogram(t, i));
    }
  }
  WriteStatsFile(doc);

  Open();
  std::vector<TierStats> loaded = Stats();
  ASSERT_EQ(2u, loaded.size());
  for (size_t t = 0; t < 2; ++t) {
    for (const TierTickerInfo& info : kTierTickers) {
      const uint64_t want = info.kind == TickerKind::kCounter ? Distinct(t, size_t(info.id))
                                                              : live[t].Get(info.id);
      EXPECT_EQ(want, loaded[t].Get(info.id)) << "tier " << t << " " << info.name;
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      ExpectSameHistogram(DistinctHistogram(t, size_t(info.id)), loaded[t].Get(info.id),
                          "tier " + std::to_string(t) + " " + info.name);
    }
  }

  fs_.reset();  // a clean close writes STATS again: the same counters, no gauges
  const json saved = ReadStatsFile();
  for (size_t t = 0; t < 2; ++t) {
    const json& tier = saved["tiers"][t];
    for (const TierTickerInfo& info : kTierTickers) {
      if (info.kind == TickerKind::kGauge) {
        EXPECT_FALSE(tier.contains(info.name)) << info.name;
        continue;
      }
      ASSERT_TRUE(tier.contains(info.name)) << "tier " << t << " " << info.name;
      EXPECT_EQ(Distinct(t, size_t(info.id)), tier[info.name].get<uint64_t>()) << info.name;
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      ASSERT_TRUE(tier.contains(info.name)) << "tier " << t << " " << info.name;
      EXPECT_EQ(HistogramJson(DistinctHistogram(t, size_t(info.id))), tier[info.name]) << info.name;
    }
  }
}

// A tier as STATS held it before the statistics became a table (version 1,
// commit 60cccee): these keys must keep loading, whatever is added later.
json OldTier(uint64_t base) {
  json t;
  const char* keys[] = {"reads", "read_bytes", "writes", "write_bytes", "syncs", "spills_in",
                        "user_reads", "moves_in", "moves_out", "moved_bytes_in",
                        "moved_bytes_out", "copies_in", "copy_bytes_in", "copies_dropped"};
  uint64_t v = base;
  for (const char* k : keys) t[k] = v++;
  std::vector<uint64_t> buckets(32, 0);
  buckets[4] = 2;
  t["read_latency"] = {{"count", 2}, {"sum_us", 20 + base}, {"buckets", buckets}};
  buckets[4] = 0;
  buckets[12] = 3;
  t["write_latency"] = {{"count", 3}, {"sum_us", 6000 + base}, {"buckets", buckets}};
  buckets[12] = 0;
  buckets[14] = 1;
  t["sync_latency"] = {{"count", 1}, {"sum_us", 9000 + base}, {"buckets", buckets}};
  return t;
}

TEST_F(StatsTest, AStatsFileFromBeforeTheTableStillLoads) {
  MakeClosedStore();
  json doc = ReadStatsFile();
  doc["tiers"] = json::array({OldTier(100), OldTier(500)});
  WriteStatsFile(doc);

  Open();
  std::vector<TierStats> s = Stats();
  ASSERT_EQ(2u, s.size());
  for (size_t t = 0; t < 2; ++t) {
    const uint64_t b = t == 0 ? 100 : 500;
    EXPECT_EQ(b + 0, s[t].Get(TierTicker::kReads));
    EXPECT_EQ(b + 1, s[t].Get(TierTicker::kReadBytes));
    EXPECT_EQ(b + 2, s[t].Get(TierTicker::kWrites));
    EXPECT_EQ(b + 3, s[t].Get(TierTicker::kWriteBytes));
    EXPECT_EQ(b + 4, s[t].Get(TierTicker::kSyncs));
    EXPECT_EQ(b + 5, s[t].Get(TierTicker::kSpillsIn));
    EXPECT_EQ(b + 6, s[t].Get(TierTicker::kUserReads));
    EXPECT_EQ(b + 7, s[t].Get(TierTicker::kMovesIn));
    EXPECT_EQ(b + 8, s[t].Get(TierTicker::kMovesOut));
    EXPECT_EQ(b + 9, s[t].Get(TierTicker::kMovedBytesIn));
    EXPECT_EQ(b + 10, s[t].Get(TierTicker::kMovedBytesOut));
    EXPECT_EQ(b + 11, s[t].Get(TierTicker::kCopiesIn));
    EXPECT_EQ(b + 12, s[t].Get(TierTicker::kCopyBytesIn));
    EXPECT_EQ(b + 13, s[t].Get(TierTicker::kCopiesDropped));
    EXPECT_EQ(2u, s[t].Get(TierHistogram::kReadLatency).count);
    EXPECT_EQ(2u, s[t].Get(TierHistogram::kReadLatency).buckets[4]);
    EXPECT_EQ(20 + b, s[t].Get(TierHistogram::kReadLatency).sum_us);
    EXPECT_EQ(3u, s[t].Get(TierHistogram::kWriteLatency).buckets[12]);
    EXPECT_EQ(6000 + b, s[t].Get(TierHistogram::kWriteLatency).sum_us);
    EXPECT_EQ(1u, s[t].Get(TierHistogram::kSyncLatency).buckets[14]);
    EXPECT_EQ(9000 + b, s[t].Get(TierHistogram::kSyncLatency).sum_us);
  }

  // Saved again, every old key keeps its name and value.
  fs_.reset();
  const json saved = ReadStatsFile();
  for (size_t t = 0; t < 2; ++t) {
    const json old = OldTier(t == 0 ? 100 : 500);
    for (const auto& [key, value] : old.items()) {
      ASSERT_TRUE(saved["tiers"][t].contains(key)) << key;
      EXPECT_EQ(value, saved["tiers"][t][key]) << key;
    }
  }
}

// Tiers with a distinct value in every ticker and histogram.
std::vector<TierStats> DistinctStats() {
  std::vector<TierStats> stats(2);
  for (size_t t = 0; t < stats.size(); ++t) {
    TierStats& s = stats[t];
    s.index = int(t);
    s.path = "/tier" + std::to_string(t);
    s.device = t == 0 ? "nvme" : "hdd";
    s.capacity = uint64_t(64) << (20 + t);
    s.used_bytes = s.capacity / 4;
    for (size_t i = 0; i < kNumTierTickers; ++i) s.tickers[i] = Distinct(t, i);
    for (size_t i = 0; i < kNumTierHistograms; ++i) s.histograms[i] = DistinctHistogram(t, i);
  }
  return stats;
}

TEST_F(StatsTest, UserReadsOnAnEmulatedTierCountTheirBytesAndWhatTheDeviceModelChargedThem) {
  // Everything on tier 1, a sata-ssd model (110 us a read, 500 MB/s); tier 0
  // has no model and so no device time to count.
  uri_ = test::MakeUri(dir_, {"8M", "8M:sata-ssd"}, ";segment_size:16K;policy:slow-only");
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.sst", FileOptions(), &w, nullptr).ok());
  ASSERT_TRUE(w->Append(test::RandomBytes(64 << 10, 1), IOOptions(), nullptr).ok());
  ASSERT_TRUE(w->Fsync(IOOptions(), nullptr).ok());  // no write-back left to queue behind
  ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000001.sst", FileOptions(), &r, nullptr).ok());
  char buf[4096];
  rocksdb::Slice got;
  const auto device_ns = [&](int t) { return Stats()[t].Get(TierTicker::kUserReadDeviceNanos); };
  const auto user_bytes = [&](int t) { return Stats()[t].Get(TierTicker::kUserReadBytes); };
  const uint64_t before = device_ns(1), bytes_before = user_bytes(1);

  IOOptions compaction;  // a background read: counted as a read, not as the user's
  compaction.rate_limiter_priority = rocksdb::Env::IO_LOW;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(r->Read(uint64_t(i) * 16384, sizeof(buf), compaction, &got, buf, nullptr).ok());
  }
  EXPECT_EQ(before, device_ns(1));
  EXPECT_EQ(bytes_before, user_bytes(1));

  constexpr int kReads = 8;
  for (int i = 0; i < kReads; ++i) {
    ASSERT_TRUE(r->Read(uint64_t(i % 4) * 16384, sizeof(buf), IOOptions(), &got, buf, nullptr).ok());
  }
  // Each read: 110 us + 4 KiB at 500 MB/s (8.2 us), more only if it queued.
  const uint64_t charged = device_ns(1) - before;
  EXPECT_GE(charged, uint64_t(kReads) * 118000) << "less than the model's service time";
  EXPECT_LT(charged, uint64_t(kReads) * 20 * 1000 * 1000) << "more than any queue here";
  EXPECT_EQ(0u, device_ns(0));
  EXPECT_EQ(bytes_before + kReads * sizeof(buf), user_bytes(1));  // the byte share's unit
  EXPECT_EQ(0u, user_bytes(0));
}

TEST_F(StatsTest, ToolJsonHasEveryStatistic) {
  const std::vector<TierStats> stats = DistinctStats();
  const json out = TierStatsToJson(stats);
  ASSERT_EQ(2u, out.size());
  for (size_t t = 0; t < 2; ++t) {
    const json& j = out[t];
    EXPECT_EQ(int(t), j["tier"].get<int>());
    EXPECT_EQ(stats[t].path, j["path"].get<std::string>());
    EXPECT_EQ(stats[t].device, j["device"].get<std::string>());
    EXPECT_EQ(stats[t].capacity, j["capacity"].get<uint64_t>());
    EXPECT_EQ(stats[t].used_bytes, j["used_bytes"].get<uint64_t>());
    for (const TierTickerInfo& info : kTierTickers) {
      ASSERT_TRUE(j.contains(info.name)) << info.name;
      EXPECT_EQ(stats[t].Get(info.id), j[info.name].get<uint64_t>()) << info.name;
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      const std::string p = info.prefix;
      ASSERT_TRUE(j.contains(p + "_avg_us")) << p;
      ASSERT_TRUE(j.contains(p + "_p99_us")) << p;
      EXPECT_DOUBLE_EQ(stats[t].Get(info.id).Average(), j[p + "_avg_us"].get<double>()) << p;
      EXPECT_DOUBLE_EQ(stats[t].Get(info.id).Percentile(99), j[p + "_p99_us"].get<double>()) << p;
    }
  }
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

// True if `header` heads a column of `table` (its first line) whose cell in
// row `row` is `cell`, both right-aligned on the same character.
bool HasColumn(const std::vector<std::string>& table, size_t row, const std::string& header,
               const std::string& cell) {
  const std::string& head = table[0];
  for (size_t at = head.find(header); at != std::string::npos; at = head.find(header, at + 1)) {
    const size_t end = at + header.size();
    if ((at > 0 && head[at - 1] != ' ') || (end < head.size() && head[end] != ' ')) continue;
    const std::string& line = table[row];
    if (end >= cell.size() && end <= line.size() &&
        line.compare(end - cell.size(), cell.size(), cell) == 0 &&
        (end == cell.size() || line[end - cell.size() - 1] == ' ')) {
      return true;
    }
  }
  return false;
}

TEST_F(StatsTest, ToolColumnsShowEveryStatistic) {
  const std::vector<TierStats> stats = DistinctStats();
  const std::vector<std::string> lines = Lines(TierStatsTables(stats));
  // Two tables of a header and a row per tier, a blank line between.
  ASSERT_EQ(2 * (1 + stats.size()) + 1, lines.size()) << TierStatsTables(stats);
  std::vector<std::string> tables[2] = {
      {lines.begin(), lines.begin() + 3}, {lines.begin() + 4, lines.end()}};
  for (size_t t = 0; t < 2; ++t) {
    const size_t row = 1 + t;
    for (const TierTickerInfo& info : kTierTickers) {
      const std::vector<std::string>& table = tables[info.group == StatGroup::kIO ? 0 : 1];
      const uint64_t v = stats[t].Get(info.id);
      const std::string cell = info.unit == StatUnit::kBytes ? FormatSize(v) : std::to_string(v);
      EXPECT_TRUE(HasColumn(table, row, info.column, cell))
          << info.name << " (column '" << info.column << "', " << cell << ")\n"
          << table[0] << "\n" << table[row];
    }
    for (const TierHistogramInfo& info : kTierHistograms) {
      const LatencyHistogram& h = stats[t].Get(info.id);
      char avg[32], p99[32];
      snprintf(avg, sizeof(avg), "%.0fus", h.Average());
      snprintf(p99, sizeof(p99), "%.0fus", h.Percentile(99));
      EXPECT_TRUE(HasColumn(tables[0], row, std::string(info.column) + " avg", avg)) << info.name;
      EXPECT_TRUE(HasColumn(tables[0], row, std::string(info.column) + " p99", p99)) << info.name;
    }
    EXPECT_EQ(0u, tables[0][row].rfind(std::to_string(t) + " ", 0)) << "rows start with the tier";
    EXPECT_NE(std::string::npos, tables[0][row].find(stats[t].path));
  }
}

// The tool itself, on a store closed with a distinct value in every counter:
// `tierfs --json stats` has every counter's value, and both outputs are what
// the functions tested above make of the statistics the store reports.
TEST_F(StatsTest, TheToolPrintsTheTablesOfTheStoresStatistics) {
  if (access(test::ToolPath().c_str(), X_OK) != 0) {
    GTEST_SKIP() << "no " << test::ToolPath() << ": build target tierfs_tool";
  }
  MakeClosedStore();
  json doc = ReadStatsFile();
  for (size_t t = 0; t < 2; ++t) {
    for (size_t i = 0; i < kNumTierTickers; ++i) {
      doc["tiers"][t][kTierTickers[i].name] = Distinct(t, i);
    }
  }
  WriteStatsFile(doc);
  Options ro = test::MakeOptions(dir_, {"64K", "8M"}, ";segment_size:16K");
  ro.read_only = true;
  ASSERT_TRUE(NewTierFileSystem(ro, &fs_).ok());
  const std::vector<TierStats> stats = Stats();
  fs_.reset();

  auto run = [&](const std::string& args) {
    std::string out;
    EXPECT_EQ(0, test::RunTool("--fs_uri='" + uri_ + "' " + args, &out)) << out;
    return out;
  };
  const json out = json::parse(run("--json stats"));
  EXPECT_EQ(TierStatsToJson(stats), out);
  ASSERT_EQ(2u, out.size());
  for (size_t t = 0; t < 2; ++t) {
    for (const TierTickerInfo& info : kTierTickers) {
      if (info.kind != TickerKind::kCounter) continue;
      EXPECT_EQ(Distinct(t, size_t(info.id)), out[t][info.name].get<uint64_t>()) << info.name;
    }
  }
  EXPECT_EQ(0u, run("stats").rfind(TierStatsTables(stats), 0));
}

// ---- The statistics log (URI key stats_log): live counters over time ----

// The whole lines of a statistics log; a last line still being written (no
// newline yet) is left out.
std::vector<json> ReadStatsLog(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) {
    if (in.eof()) break;  // no '\n' after it
    lines.push_back(json::parse(line));
  }
  return lines;
}

uint64_t SumOver(const json& tiers, const char* key) {
  uint64_t sum = 0;
  for (const json& t : tiers) sum += t[key].get<uint64_t>();
  return sum;
}

// With an interval longer than the test, the log holds the line written at
// open and the final one written at close, which has the counters the store
// reported just before closing: the live ones, which `tierfs stats` from
// another process cannot see.
TEST_F(StatsTest, TheStatsLogHasALineAtOpenAndTheLiveCountersAtClose) {
  const std::string log = dir_.path() + "/stats.jsonl";
  uri_ = test::MakeUri(dir_, {"64K", "8M"}, ";segment_size:16K;migration:off;stats_log:" + log +
                                                ";stats_log_ms:3600000");
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.sst", FileOptions(), &f, nullptr).ok());
  ASSERT_TRUE(f->Append(test::RandomBytes(100000, 1), IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs_->NewRandomAccessFile("/db/000001.sst", FileOptions(), &r, nullptr).ok());
  char scratch[4096];
  rocksdb::Slice got;
  for (uint64_t off = 0; off < 5 * 16384; off += 16384) {  // one segment each
    ASSERT_TRUE(r->Read(off, sizeof(scratch), IOOptions(), &got, scratch, nullptr).ok());
  }
  r.reset();
  f.reset();  // files hold the store open: the last reference closes it
  const std::vector<TierStats> live = Stats();
  ASSERT_EQ(1u, ReadStatsLog(log).size()) << "only the line written at open, so far";
  // CPU burned by this thread between the two lines: the process's CPU time
  // (process_cpu_ns) grows by at least as much.
  const auto thread_cpu_ns = [] {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
  };
  const int64_t burn_start = thread_cpu_ns();
  volatile uint64_t spin = 0;
  while (thread_cpu_ns() - burn_start < 50000000) spin = spin + 1;
  const int64_t burned = thread_cpu_ns() - burn_start;
  fs_.reset();

  const std::vector<json> lines = ReadStatsLog(log);
  ASSERT_EQ(2u, lines.size());
  EXPECT_FALSE(lines[0].contains("final"));
  EXPECT_EQ(0u, SumOver(lines[0]["tiers"], "user_reads"));
  EXPECT_TRUE(lines[1]["final"].get<bool>());
  EXPECT_LE(lines[0]["unix_ns"].get<uint64_t>(), lines[1]["unix_ns"].get<uint64_t>());
  EXPECT_EQ(TierStatsToJson(live), lines[1]["tiers"]);
  const int64_t cpu0 = lines[0]["process_cpu_ns"].get<int64_t>();
  EXPECT_GT(cpu0, 0);
  EXPECT_GE(lines[1]["process_cpu_ns"].get<int64_t>() - cpu0, burned);
  uint64_t user_reads = 0;
  for (const TierStats& t : live) user_reads += t.Get(TierTicker::kUserReads);
  EXPECT_EQ(5u, user_reads);
}

// Lines follow at the interval while the store is open, each later than the
// one before.
TEST_F(StatsTest, TheStatsLogWritesALineEveryInterval) {
  const std::string log = dir_.path() + "/stats.jsonl";
  uri_ = test::MakeUri(dir_, {"64K", "8M"}, ";stats_log:" + log + ";stats_log_ms:5");
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ReadStatsLog(log).size() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  fs_.reset();
  const std::vector<json> lines = ReadStatsLog(log);
  ASSERT_GE(lines.size(), 5u);  // at least 3 by the interval, plus the first and the final
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_LE(lines[i - 1]["elapsed_ms"].get<uint64_t>(), lines[i]["elapsed_ms"].get<uint64_t>());
    EXPECT_EQ(2u, lines[i]["tiers"].size());
    EXPECT_EQ(i + 1 == lines.size(), lines[i].contains("final")) << "line " << i;
  }
}

// A log inside a tier would be charged to nothing and read by no one: refused
// at open, naming the file and the tier.
TEST_F(StatsTest, AStatsLogInsideATierIsRefused) {
  const std::string inside = dir_.Sub("tier1") + "/stats.jsonl";
  rocksdb::Status s =
      NewTierFileSystem(test::MakeUri(dir_, {"64K", "8M"}, ";stats_log:" + inside), &fs_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find(inside)) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("inside tier 1")) << s.ToString();
}

// ---- The metrics file (URI key metrics_file): Prometheus text, replaced ----

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Written at open, and at close with the live statistics, each time whole
// (a temporary file renamed over it, none left behind).
TEST_F(StatsTest, TheMetricsFileHoldsTheLiveStatisticsAtClose) {
  const std::string prom = dir_.path() + "/tierfs.prom";
  uri_ = test::MakeUri(dir_, {"64K", "8M"}, ";segment_size:16K;migration:off;metrics_file:" + prom +
                                                ";metrics_ms:3600000");
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs_).ok());
  const std::string at_open = ReadFile(prom);
  EXPECT_NE(std::string::npos, at_open.find("# TYPE tierfs_user_reads_total counter\n"));
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs_->NewWritableFile("/db/000001.sst", FileOptions(), &f, nullptr).ok());
  ASSERT_TRUE(f->Append(test::RandomBytes(50000, 1), IOOptions(), nullptr).ok());
  ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  f.reset();
  const std::vector<TierStats> live = Stats();
  EXPECT_EQ(at_open, ReadFile(prom)) << "rewritten only every metrics_ms";
  fs_.reset();
  // No errors, no migration thread (migration:off): the store-wide families are zeros.
  StoreMetrics metrics;
  metrics.tiers = live;
  EXPECT_EQ(StoreMetricsToPrometheus(metrics), ReadFile(prom));
  EXPECT_NE(at_open, ReadFile(prom));
  EXPECT_FALSE(std::ifstream(prom + ".tmp").good());
}

TEST_F(StatsTest, AMetricsFileInsideATierIsRefused) {
  const std::string inside = dir_.Sub("tier0") + "/tierfs.prom";
  rocksdb::Status s =
      NewTierFileSystem(test::MakeUri(dir_, {"64K", "8M"}, ";metrics_file:" + inside), &fs_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("metrics file '" + inside)) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("inside tier 0")) << s.ToString();
}

// The exposition's shape for one tier: counters *_total, gauges bare, the
// histogram's cumulative buckets at powers of two microseconds.
TEST(PrometheusTextTest, NamesTypesAndBuckets) {
  TierStats t;
  t.index = 1;
  t.path = "/mnt/a \"b\"";
  t.device = "hdd";
  t.capacity = 1000;
  t.tickers[size_t(TierTicker::kReads)] = 7;
  t.tickers[size_t(TierTicker::kSegments)] = 3;
  LatencyHistogram& h = t.histograms[size_t(TierHistogram::kReadLatency)];
  h.buckets[0] = 1;  // 0 us
  h.buckets[3] = 2;  // [4, 8) us
  h.count = 3;
  h.sum_us = 12;
  const std::string text = TierStatsToPrometheus({t});
  const std::string labels = "tier=\"1\",device=\"hdd\",path=\"/mnt/a \\\"b\\\"\"";
  const std::vector<std::string> lines = {
      "# TYPE tierfs_reads_total counter", "tierfs_reads_total{" + labels + "} 7",
        "# TYPE tierfs_segments gauge", "tierfs_segments{" + labels + "} 3",
        "tierfs_capacity_bytes{" + labels + "} 1000",
        "# TYPE tierfs_read_latency_seconds histogram",
        "tierfs_read_latency_seconds_bucket{" + labels + ",le=\"1e-06\"} 1",
        "tierfs_read_latency_seconds_bucket{" + labels + ",le=\"4e-06\"} 1",
        "tierfs_read_latency_seconds_bucket{" + labels + ",le=\"8e-06\"} 3",
        "tierfs_read_latency_seconds_bucket{" + labels + ",le=\"+Inf\"} 3",
        "tierfs_read_latency_seconds_sum{" + labels + "} 1.2e-05",
      "tierfs_read_latency_seconds_count{" + labels + "} 3"};
  for (const std::string& line : lines) {
    EXPECT_NE(std::string::npos, text.find(line + "\n")) << line << "\n" << text;
  }
  for (const TierTickerInfo& info : kTierTickers) {
    EXPECT_NE(std::string::npos, text.find(std::string("# HELP tierfs_") + info.name)) << info.name;
  }
}

// The store-wide families: the error counters by kind, the migration engine's
// counters and its queues' lengths, without the tier labels.
TEST(PrometheusTextTest, StoreErrorsAndMigration) {
  StoreMetrics m;
  m.errors[size_t(StoreError::kEvictionMove)] = 2;
  m.migration.enabled = true;
  auto move = [](bool manual, uint64_t file, uint64_t segment, int to) {
    MoveInfo info;
    info.manual = manual;
    info.file_id = file;
    info.segment = segment;
    info.to = to;
    return info;
  };
  m.migration.queue = {move(true, 7, 0, 0), move(false, 7, 1, 1), move(false, 8, 0, 1)};
  m.migration.running = move(false, 9, 0, 0);
  m.migration.done = 5;
  m.migration.bytes = 1 << 20;
  m.migration.skipped = 1;
  m.migration.given_up = 3;
  m.migration.waits = 4;
  const std::string text = StoreMetricsToPrometheus(m);
  const std::vector<std::string> lines = {
      "# TYPE tierfs_store_errors_total counter",
      "tierfs_store_errors_total{kind=\"eviction_move\"} 2",
      "tierfs_store_errors_total{kind=\"journal_rotation\"} 0",
      "# TYPE tierfs_migration_enabled gauge", "tierfs_migration_enabled 1",
      "# TYPE tierfs_migration_moves_total counter", "tierfs_migration_moves_total 5",
      "tierfs_migration_moved_bytes_total 1048576", "tierfs_migration_skipped_total 1",
      "tierfs_migration_given_up_total 3", "tierfs_migration_waits_total 4",
      "# TYPE tierfs_migration_queue_length gauge",
      "tierfs_migration_queue_length{queue=\"manual\"} 1",
      "tierfs_migration_queue_length{queue=\"planned\"} 2", "tierfs_migration_running 1"};
  for (const std::string& line : lines) {
    EXPECT_NE(std::string::npos, text.find(line + "\n")) << line << "\n" << text;
  }
  for (const StoreErrorInfo& info : kStoreErrors) {
    const std::string label = std::string("kind=\"") + info.name + "\"";
    EXPECT_NE(std::string::npos, text.find(label)) << info.name;
  }
}

}  // namespace
}  // namespace tierfs
