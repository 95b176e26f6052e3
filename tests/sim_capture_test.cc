// Trace capture (env/trace_capture.h) from a RocksDB on TierFS, and its
// replay in the simulator.
#include <gtest/gtest.h>

#include <rocksdb/db.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/trace_format.h"
#include "tests/crash_keys.h"
#include "tests/test_util.h"
#include "tierfs/db.h"
#include "tools/sim/compare.h"
#include "tools/sim/simulator.h"

namespace tierfs {
namespace {

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

// crash_test's small LSM (flushes and compactions within a second), with
// TierFS's listener so table files carry their levels.
rocksdb::Options SmallLsm() {
  rocksdb::Options o = test::CrashDBOptions();
  o.listeners.push_back(NewTierFSListener());
  return o;
}

// Loads and reads a small database; the trace runs from open to close.
void LoadAndRead(const std::string& uri) {
  std::unique_ptr<TierDB> tdb;
  rocksdb::Status s = OpenDB(uri, SmallLsm(), "/db", &tdb);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string value(400, 'v');
  for (int i = 0; i < 6000; ++i) ASSERT_TRUE(tdb->db->Put({}, Key(i * 7919 % 6000), value).ok());
  ASSERT_TRUE(tdb->db->Flush({}).ok());
  ASSERT_TRUE(tdb->db->CompactRange({}, nullptr, nullptr).ok());
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  std::string got;
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(tdb->db->Get(ro, Key(i * 3), &got).ok());
}

TEST(TraceCaptureTest, RecordsWhatTheStoreServedAndReplaysInTheSimulator) {
  test::ScratchDir dir("capture");
  const std::string trace = dir.path() + "/db.trace";
  LoadAndRead(test::MakeUri(dir, {"1M", "64M"}, ";segment_size:64K;trace:" + trace));

  TraceHeader header;
  std::vector<TraceRecord> records;
  std::string error;
  bool truncated = true;
  ASSERT_TRUE(ReadTrace(trace, &header, &records, &error, &truncated)) << error;
  EXPECT_FALSE(truncated);  // closed cleanly
  EXPECT_EQ("tierfs", header.source);
  EXPECT_EQ(64u << 10, header.segment_size);
  ASSERT_EQ(2u, header.tiers.size());
  EXPECT_EQ(1u << 20, header.tiers[0].capacity);
  EXPECT_NE(0u, header.start_unix_ns);

  uint64_t user_reads = 0, writes = 0, background = 0, leveled = 0, with_latency = 0;
  std::map<TraceEvent, uint64_t> events;
  std::set<FileKind> kinds;
  std::set<int> tiers;
  uint64_t last = 0;
  for (const TraceRecord& r : records) {
    EXPECT_LE(last, r.time_ns);
    last = r.time_ns;
    if (!r.is_io()) {
      events[r.event]++;
      continue;
    }
    kinds.insert(r.kind);
    tiers.insert(r.tier);
    user_reads += r.type == IoType::kUserRead;
    background += r.type == IoType::kBackgroundRead;
    writes += r.is_write();
    if (r.kind == FileKind::kSst && r.level >= 0) leveled++;
    if (!r.is_write() && r.latency_ns > 0) with_latency++;  // a buffered write may take < 1 us
    if (r.type == IoType::kUserRead) {
      // Reads carry RocksDB's IOPriority: IO_USER or IO_TOTAL for Gets.
      EXPECT_TRUE(r.priority == TracePriority::kUser || r.priority == TracePriority::kTotal)
          << int(r.priority);
    }
  }
  EXPECT_GE(user_reads, 2000u);  // every Get read at least one block (no block cache fill)
  EXPECT_GT(writes, 100u);
  EXPECT_GT(background, 0u);  // compaction input
  EXPECT_GT(leveled, 0u);     // the listener's levels
  EXPECT_EQ(user_reads + background, with_latency);
  EXPECT_TRUE(kinds.count(FileKind::kWal));
  EXPECT_TRUE(kinds.count(FileKind::kSst));
  EXPECT_TRUE(tiers.count(0) && tiers.count(1));  // the 1 MiB tier 0 spilled
  // What the decisions depend on, and the decisions: every segment placed,
  // files deleted by compaction, writers closed, WAL syncs.
  EXPECT_GT(events[TraceEvent::kPlace], 10u);
  EXPECT_GT(events[TraceEvent::kDelete], 0u);
  EXPECT_GT(events[TraceEvent::kSettle], 0u);
  EXPECT_GT(events[TraceEvent::kSync], 0u);

  // The simulator replays it on the tiers it was captured with.
  sim::SimConfig config;
  ASSERT_TRUE(sim::ParseSimConfig(test::MakeUri(dir, {"1M", "64M"}, ";segment_size:64K"), &config,
                                  &error))
      << error;
  sim::SimResult result;
  ASSERT_TRUE(sim::RunPolicy(records, config, &result, &error)) << error;
  const uint64_t io = uint64_t(std::count_if(records.begin(), records.end(),
                                             [](const TraceRecord& r) { return r.is_io(); }));
  EXPECT_EQ(io, result.requests);
  EXPECT_GT(result.tiers[0].hit_ratio, 0.0);
  EXPECT_GT(result.tiers[1].hit_ratio, 0.0);
}

TEST(TraceCaptureTest, OneThreadsReadsFollowEachOtherOnItsClock) {
  // One thread's random reads on an emulated sata-ssd (about 119 us each):
  // in the trace each is issued after the one before it completed, as a
  // synchronous client's are, though the thread sleeps its device time in
  // batches (DeviceModel::WaitUntil). The simulator replays a stream as such
  // a client: a trace whose reads overlap made its replay fall behind.
  test::ScratchDir dir("capture");
  const std::string trace = dir.path() + "/reads.trace";
  {
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(test::MakeUri(dir, {"8M", "8M:sata-ssd"},
                                                ";segment_size:16K;policy:slow-only;trace:" + trace),
                                  &fs)
                    .ok());
    std::unique_ptr<rocksdb::FSWritableFile> w;
    ASSERT_TRUE(fs->NewWritableFile("/db/000001.sst", rocksdb::FileOptions(), &w, nullptr).ok());
    ASSERT_TRUE(w->Append(test::RandomBytes(1 << 20, 3), rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(w->Fsync(rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(w->Close(rocksdb::IOOptions(), nullptr).ok());
    std::unique_ptr<rocksdb::FSRandomAccessFile> r;
    ASSERT_TRUE(fs->NewRandomAccessFile("/db/000001.sst", rocksdb::FileOptions(), &r, nullptr).ok());
    char buf[4096];
    rocksdb::Slice got;
    for (int i = 0; i < 200; ++i) {
      const uint64_t offset = uint64_t(i * 37 % 250) * 4096;
      ASSERT_TRUE(r->Read(offset, sizeof(buf), rocksdb::IOOptions(), &got, buf, nullptr).ok());
    }
  }
  TraceHeader header;
  std::vector<TraceRecord> records;
  std::string error;
  ASSERT_TRUE(ReadTrace(trace, &header, &records, &error)) << error;
  std::vector<const TraceRecord*> reads;
  for (const TraceRecord& r : records) {
    if (r.is_io() && r.type == IoType::kUserRead && r.kind == FileKind::kSst) {
      reads.push_back(&r);
    }
  }
  ASSERT_EQ(200u, reads.size());
  int overlapping = 0;
  for (size_t i = 1; i < reads.size(); ++i) {
    ASSERT_GT(reads[i - 1]->latency_ns, 100u * 1000) << "a read faster than the device model";
    if (reads[i]->time_ns + 1000 < reads[i - 1]->time_ns + reads[i - 1]->latency_ns) overlapping++;
  }
  EXPECT_EQ(0, overlapping) << "reads issued before the one before them completed";
}

TEST(TraceCaptureTest, StartAndStopThroughTheApiAndErrorsNameTheProblem) {
  test::ScratchDir dir("capture");
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(test::MakeUri(dir, {"1M", "64M"}), &fs).ok());
  const std::string trace = dir.path() + "/api.trace";

  // Inside a tier, in a missing directory: refused, naming it.
  rocksdb::Status s = StartTrace(fs.get(), dir.path() + "/tier1/x.trace");
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("inside tier 1")) << s.ToString();
  s = StartTrace(fs.get(), dir.path() + "/no/such/dir/x.trace");
  EXPECT_NE(std::string::npos, s.ToString().find("does not exist")) << s.ToString();
  uint64_t n = 0;
  EXPECT_FALSE(StopTrace(fs.get(), &n).ok());  // none running

  ASSERT_TRUE(StartTrace(fs.get(), trace).ok());
  s = StartTrace(fs.get(), trace + "2");
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  {
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs->NewWritableFile("/db/000001.log", {}, &f, nullptr).ok());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(f->Append(std::string(1000, 'x'), {}, nullptr).ok());
    ASSERT_TRUE(f->Close({}, nullptr).ok());
  }
  ASSERT_TRUE(StopTrace(fs.get(), &n).ok());
  // The store's clock (an empty store holds nothing); ten appends; before
  // the first, its segment's placement; at the close, the settled size.
  EXPECT_EQ(13u, n);
  TraceHeader header;
  std::vector<TraceRecord> all;
  std::string error;
  ASSERT_TRUE(ReadTrace(trace, &header, &all, &error)) << error;
  ASSERT_EQ(13u, all.size());
  EXPECT_EQ(TraceEvent::kStart, all[0].event);
  const std::vector<TraceRecord> records(all.begin() + 1, all.end());
  EXPECT_EQ(TraceEvent::kPlace, records[0].event);
  EXPECT_EQ(records[1].tier, records[0].tier);  // where the appends went
  EXPECT_EQ(FileKind::kWal, records[1].kind);
  EXPECT_TRUE(records[1].is_write());
  EXPECT_EQ(9000u, records[10].offset);
  EXPECT_EQ(TraceEvent::kSettle, records[11].event);
  EXPECT_EQ(10000u, records[11].size);
  EXPECT_EQ(1000u, records[9].size);

  // A bad trace key in the URI is refused at parse time.
  Options options;
  s = ParseUri(test::MakeUri(dir, {"1M"}, ";trace:relative.trace"), &options);
  EXPECT_NE(std::string::npos, s.ToString().find("relative.trace")) << s.ToString();
}

}  // namespace
}  // namespace tierfs
