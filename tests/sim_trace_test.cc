// The trace format (core/trace_format.h), its CSV forms (tools/sim/trace_csv.h),
// windows and totals (tools/sim/trace_window.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/trace_format.h"
#include "tests/test_util.h"
#include "tools/sim/trace_csv.h"
#include "tools/sim/trace_window.h"

namespace tierfs {
namespace {

using sim::CsvFormat;

TraceHeader SampleHeader() {
  TraceHeader h;
  h.segment_size = 1 << 20;
  h.start_unix_ns = 1764547200000000000ull;
  h.tiers = {{10ull << 30, "optane", "/mnt/fast"}, {1ull << 40, "hdd", "/mnt/slow"}};
  h.source = "tierfs";
  return h;
}

std::vector<TraceRecord> SampleRecords() {
  std::vector<TraceRecord> out;
  TraceRecord a;  // every optional field
  a.time_ns = 1000;
  a.stream = 3;
  a.file_id = 42;
  a.offset = 5ull << 30;
  a.size = 4096;
  a.type = IoType::kUserRead;
  a.priority = TracePriority::kUser;
  a.kind = FileKind::kSst;
  a.level = 6;
  a.tier = 1;
  a.latency_ns = 12200000;
  out.push_back(a);
  TraceRecord b;  // none of them
  b.time_ns = 1000;
  b.file_id = 7;
  b.size = 65536;
  b.type = IoType::kWrite;
  b.kind = FileKind::kWal;
  out.push_back(b);
  TraceRecord c = a;
  c.time_ns = 999999999999ull;
  c.type = IoType::kBackgroundRead;
  c.priority = TracePriority::kLow;
  c.kind = FileKind::kVolume;
  out.push_back(c);
  // Every event (versions 2 and 3), a move's outcome packed in its size.
  for (uint8_t e = uint8_t(TraceEvent::kDelete); e <= uint8_t(TraceEvent::kStart); ++e) {
    TraceRecord d;
    d.time_ns = c.time_ns + e;
    d.stream = e;
    d.event = TraceEvent(e);
    d.file_id = 100 + e;
    d.kind = FileKind::kSst;
    d.offset = e;
    d.size = d.event == TraceEvent::kMove
                 ? EncodeMoveOutcome(Move::kReplicate, true, MoveCause::kEviction, true)
                 : 1000 * e;
    d.tier = d.event == TraceEvent::kPlace || d.event == TraceEvent::kMove ||
                     d.event == TraceEvent::kHeld
                 ? 1
                 : -1;
    if (d.event == TraceEvent::kHeld) d.level = 3;
    out.push_back(d);
  }
  return out;
}

TEST(TraceFormatTest, MoveOutcomesPackIntoTheSizeField) {
  Move::Op op;
  bool made, started;
  MoveCause cause;
  DecodeMoveOutcome(EncodeMoveOutcome(Move::kPrefetch, false, MoveCause::kManual, true), &op,
                    &made, &cause, &started);
  EXPECT_EQ(Move::kPrefetch, op);
  EXPECT_FALSE(made);
  EXPECT_EQ(MoveCause::kManual, cause);
  EXPECT_TRUE(started);
  DecodeMoveOutcome(EncodeMoveOutcome(Move::kDropCopy, true, MoveCause::kPlanned), &op, &made,
                    &cause, &started);
  EXPECT_EQ(Move::kDropCopy, op);
  EXPECT_TRUE(made);
  EXPECT_EQ(MoveCause::kPlanned, cause);
  EXPECT_FALSE(started);
}

TEST(TraceFormatTest, AVersionOneTraceHasNoEvents) {
  TraceHeader h;
  h.version = 1;
  std::string bytes = TraceEncoder::EncodeHeader(h);
  TraceRecord io;
  io.size = 4096;
  TraceRecord event;
  event.event = TraceEvent::kDelete;
  TraceEncoder enc;
  enc.Append(io, &bytes);
  enc.Append(event, &bytes);
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(bytes, &error)) << error;
  TraceRecord r;
  EXPECT_TRUE(reader.Next(&r, &error)) << error;  // version 1 I/O still reads
  EXPECT_FALSE(reader.Next(&r, &error));
  EXPECT_NE(std::string::npos, error.find("malformed record 1")) << error;
}

TEST(TraceFormatTest, AVersionTwoTraceReadsItsLastCodeAsQueued) {
  // Version 2 wrote an event's code in the flags alone, `queued` (7) the
  // last: no code byte follows it there.
  TraceHeader h;
  h.version = 2;
  TraceRecord queued = MakeEvent(TraceEvent::kQueued, 9, FileKind::kSst, 4, 0, 1);
  std::string bytes = TraceEncoder::EncodeHeader(h);
  const size_t at = bytes.size();
  TraceEncoder().Append(queued, &bytes);
  ASSERT_EQ(char(7), bytes[at + 1]) << "version 3 writes queued's code in a byte of its own";
  bytes.erase(at + 1, 1);
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(bytes, &error)) << error;
  TraceRecord r;
  ASSERT_TRUE(reader.Next(&r, &error)) << error;
  EXPECT_TRUE(r == queued);
  // Written again (as `tierfs-trace cut` writes what it read), it is a
  // version 3 trace, and the same record reads back.
  test::ScratchDir dir("trace-v2");
  const std::string path = dir.path() + "/again.trace";
  {
    TraceWriter writer;
    ASSERT_TRUE(writer.Open(path, reader.header(), &error)) << error;
    ASSERT_TRUE(writer.Append(r, &error)) << error;
    ASSERT_TRUE(writer.Close(&error)) << error;
  }
  TraceHeader again;
  std::vector<TraceRecord> back;
  ASSERT_TRUE(ReadTrace(path, &again, &back, &error)) << error;
  EXPECT_EQ(TraceHeader::kVersion, again.version);
  ASSERT_EQ(1u, back.size());
  EXPECT_TRUE(back[0] == queued);
  // Version 3: a file that ends right after a code byte is cut short, not
  // damaged.
  bytes = TraceEncoder::EncodeHeader(TraceHeader());
  const size_t record_at = bytes.size();
  TraceEncoder().Append(queued, &bytes);
  bytes.resize(record_at + 2);  // flags, code
  TraceReader cut;
  ASSERT_TRUE(cut.OpenBuffer(bytes, &error)) << error;
  EXPECT_FALSE(cut.Next(&r, &error));
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_TRUE(cut.truncated());
  // Version 3: a code byte past the last event is damage.
  bytes = TraceEncoder::EncodeHeader(TraceHeader());
  const size_t held_at = bytes.size();
  TraceEncoder().Append(MakeEvent(TraceEvent::kHeld, 9, FileKind::kSst, 0, 100, 0), &bytes);
  bytes[held_at + 1] = char(uint8_t(TraceEvent::kStart));  // one past the last code
  TraceReader damaged;
  ASSERT_TRUE(damaged.OpenBuffer(bytes, &error)) << error;
  EXPECT_FALSE(damaged.Next(&r, &error));
  EXPECT_NE(std::string::npos, error.find("malformed record 0")) << error;
}

std::string Encode(const TraceHeader& h, const std::vector<TraceRecord>& records) {
  std::string bytes = TraceEncoder::EncodeHeader(h);
  TraceEncoder enc;
  for (const TraceRecord& r : records) enc.Append(r, &bytes);
  return bytes;
}

TEST(TraceFormatTest, RecordsAndHeaderSurviveARoundTrip) {
  const TraceHeader h = SampleHeader();
  const std::vector<TraceRecord> records = SampleRecords();
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(Encode(h, records), &error)) << error;
  EXPECT_EQ(h.segment_size, reader.header().segment_size);
  EXPECT_EQ(h.start_unix_ns, reader.header().start_unix_ns);
  ASSERT_EQ(2u, reader.header().tiers.size());
  EXPECT_EQ("hdd", reader.header().tiers[1].device);
  EXPECT_EQ("/mnt/slow", reader.header().tiers[1].path);
  EXPECT_EQ(1ull << 40, reader.header().tiers[1].capacity);
  EXPECT_EQ("tierfs", reader.header().source);
  for (const TraceRecord& want : records) {
    TraceRecord got;
    ASSERT_TRUE(reader.Next(&got, &error)) << error;
    EXPECT_TRUE(got == want) << "record " << reader.records();
  }
  TraceRecord extra;
  EXPECT_FALSE(reader.Next(&extra, &error));
  EXPECT_TRUE(error.empty());
  EXPECT_FALSE(reader.truncated());
}

TEST(TraceFormatTest, ARecordCostsFewBytes) {
  TraceRecord r;
  r.time_ns = 100;
  r.file_id = 12;
  r.offset = 1 << 20;
  r.size = 4096;
  std::string out;
  TraceEncoder enc;
  enc.Append(r, &out);
  EXPECT_LE(out.size(), 12u);
}

TEST(TraceFormatTest, TimesNeverDecrease) {
  std::vector<TraceRecord> records = SampleRecords();
  records[1].time_ns = 10;  // earlier than the record before: clamped
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(Encode(SampleHeader(), records), &error)) << error;
  TraceRecord r;
  ASSERT_TRUE(reader.Next(&r, &error));
  ASSERT_TRUE(reader.Next(&r, &error));
  EXPECT_EQ(1000u, r.time_ns);
}

TEST(TraceFormatTest, ACutShortFileEndsAtItsLastWholeRecord) {
  const std::string whole = Encode(SampleHeader(), SampleRecords());
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(whole.substr(0, whole.size() - 3), &error)) << error;
  TraceRecord r;
  int n = 0;
  while (reader.Next(&r, &error)) n++;
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(int(SampleRecords().size()) - 1, n);
  EXPECT_TRUE(reader.truncated());
}

TEST(TraceFormatTest, BadHeadersAreNamed) {
  std::string error;
  TraceReader a;
  EXPECT_FALSE(a.OpenBuffer("NOTATRACE and more bytes", &error));
  EXPECT_NE(std::string::npos, error.find("bad magic")) << error;

  std::string bytes = Encode(SampleHeader(), {});
  bytes[20] ^= 0x01;  // inside the header: the checksum catches it
  TraceReader b;
  EXPECT_FALSE(b.OpenBuffer(bytes, &error));
  EXPECT_NE(std::string::npos, error.find("checksum")) << error;

  TraceHeader future = SampleHeader();
  future.version = 9;
  TraceReader c;
  EXPECT_FALSE(c.OpenBuffer(Encode(future, {}), &error));
  EXPECT_NE(std::string::npos, error.find("version 9")) << error;
}

TEST(TraceFormatTest, AMalformedRecordIsAnError) {
  std::string bytes = TraceEncoder::EncodeHeader(SampleHeader());
  bytes += std::string(1, char(0x00));  // a user read
  bytes += std::string(1, char(0x7f));  // of a file kind that does not exist
  bytes += std::string(70, char(0));
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(bytes, &error)) << error;
  TraceRecord r;
  EXPECT_FALSE(reader.Next(&r, &error));
  EXPECT_NE(std::string::npos, error.find("malformed record 0")) << error;
}

TEST(TraceFormatTest, FilesRoundTripAndMissingFilesAreNamed) {
  test::ScratchDir dir("trace_format");
  const std::string path = dir.path() + "/t.trace";
  TraceWriter writer;
  std::string error;
  ASSERT_TRUE(writer.Open(path, SampleHeader(), &error)) << error;
  // Enough records to cross the writer's buffer more than once.
  std::vector<TraceRecord> want;
  for (int i = 0; i < 200000; ++i) {
    TraceRecord r = SampleRecords()[size_t(i % 3)];
    r.time_ns = uint64_t(i) * 1000;
    r.offset = uint64_t(i) * 4096;
    want.push_back(r);
    ASSERT_TRUE(writer.Append(r, &error)) << error;
  }
  ASSERT_TRUE(writer.Close(&error)) << error;
  TraceHeader h;
  std::vector<TraceRecord> got;
  ASSERT_TRUE(ReadTrace(path, &h, &got, &error)) << error;
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(want[i] == got[i]) << i;

  EXPECT_FALSE(ReadTrace(dir.path() + "/missing.trace", &h, &got, &error));
  EXPECT_NE(std::string::npos, error.find("missing.trace")) << error;
}

// --- CSV -------------------------------------------------------------------

std::string WriteFile(const test::ScratchDir& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(TraceCsvTest, PlainCsvRoundTripsOffsetsSizesDirectionsAndTimes) {
  test::ScratchDir dir("trace_csv");
  std::vector<TraceRecord> records(3);
  records[0] = {0, 0, 0, 4096, 8192, IoType::kUserRead};
  records[1] = {1500, 0, 0, 0, 512, IoType::kWrite};
  records[2] = {2000000001, 0, 0, 1ull << 40, 4096, IoType::kUserRead};
  const std::string csv = dir.path() + "/out.csv";
  FILE* f = fopen(csv.c_str(), "w");
  ASSERT_TRUE(f);
  ASSERT_TRUE(sim::WriteCsvTrace(records, sim::NanosPerUnit("s"), false, f));
  fclose(f);
  std::vector<TraceRecord> back;
  std::string error;
  ASSERT_TRUE(sim::ReadCsvTrace(csv, CsvFormat::kPlain, sim::NanosPerUnit("s"), &back, &error))
      << error;
  ASSERT_EQ(3u, back.size());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(records[i].offset, back[i].offset);
    EXPECT_EQ(records[i].size, back[i].size);
    EXPECT_EQ(records[i].type, back[i].type);
    EXPECT_EQ(records[i].time_ns, back[i].time_ns) << i;
    EXPECT_EQ(FileKind::kVolume, back[i].kind);
  }
}

TEST(TraceCsvTest, ReadsMsrAndSystorTracesSortedAndFromZero) {
  test::ScratchDir dir("trace_csv");
  std::vector<TraceRecord> r;
  std::string error;
  // MSR Cambridge: Timestamp (100 ns ticks),Hostname,DiskNumber,Type,Offset,Size,ResponseTime
  const std::string msr = WriteFile(dir, "msr.csv",
                                    "128166372003061629,hm,1,Read,383496192,32768,4146\n"
                                    "128166372002999996,hm,0,Write,3221225472,4096,7000\n");
  ASSERT_TRUE(sim::ReadCsvTrace(msr, CsvFormat::kMsr, 1, &r, &error)) << error;
  ASSERT_EQ(2u, r.size());
  EXPECT_EQ(0u, r[0].time_ns);  // the earlier one first
  EXPECT_EQ(IoType::kWrite, r[0].type);
  EXPECT_EQ(0u, r[0].file_id);
  EXPECT_EQ((128166372003061629ull - 128166372002999996ull) * 100, r[1].time_ns);
  EXPECT_EQ(1u, r[1].file_id);
  EXPECT_EQ(1u, r[1].stream);
  EXPECT_EQ(383496192u, r[1].offset);
  EXPECT_EQ(32768u, r[1].size);

  // SYSTOR'17: Timestamp (s),Response,IOType,LUN,Offset,Size, with a header.
  const std::string systor = WriteFile(dir, "systor.csv",
                                       "Timestamp,Response,IOType,LUN,Offset,Size\n"
                                       "1487155201.000000,0.000393,W,4,2881372160,4096\n"
                                       "1487155201.250000,0.000100,R,4,2881376256,8192\n");
  ASSERT_TRUE(sim::ReadCsvTrace(systor, CsvFormat::kSystor, 1, &r, &error)) << error;
  ASSERT_EQ(2u, r.size());
  EXPECT_EQ(IoType::kWrite, r[0].type);
  EXPECT_EQ(4u, r[0].file_id);
  EXPECT_NEAR(250000000.0, double(r[1].time_ns), 1000.0);
  EXPECT_EQ(8192u, r[1].size);
}

TEST(TraceCsvTest, AMalformedLineIsNamedAfterTheFirstRequest) {
  test::ScratchDir dir("trace_csv");
  const std::string path = WriteFile(dir, "bad.csv", "offset,size,rw,time\n0,4096,R,0.5\n4096,x,W,1\n");
  std::vector<TraceRecord> r;
  std::string error;
  EXPECT_FALSE(sim::ReadCsvTrace(path, CsvFormat::kPlain, 1e9, &r, &error));
  EXPECT_NE(std::string::npos, error.find("line 3")) << error;
  EXPECT_NE(std::string::npos, error.find("4096,x,W,1")) << error;
}

TEST(TraceCsvTest, FormatAndUnitNamesAreChecked) {
  CsvFormat f;
  EXPECT_TRUE(sim::ParseCsvFormat("systor", &f));
  EXPECT_EQ(CsvFormat::kSystor, f);
  EXPECT_FALSE(sim::ParseCsvFormat("blktrace", &f));
  EXPECT_EQ(1e3, sim::NanosPerUnit("us"));
  EXPECT_EQ(0, sim::NanosPerUnit("minutes"));
}

// Found by tests/fuzz/trace_fuzzer: time deltas that add up past 2^64 ns
// wrapped around, and the next record's time went back. Damage: an error.
TEST(TraceFormatTest, ATimeThatOverflowsIsAnError) {
  std::string bytes = TraceEncoder::EncodeHeader(SampleHeader());
  for (int i = 0; i < 2; ++i) {
    bytes += std::string(1, char(0x00));  // a user read
    bytes += std::string(1, char(FileKind::kSst));
    bytes += std::string(9, char(0xff)) + std::string(1, char(0x01));  // delta 2^64 - 1
    bytes += std::string(4, char(0x00));  // stream, file, offset, size
  }
  TraceReader reader;
  std::string error;
  ASSERT_TRUE(reader.OpenBuffer(bytes, &error)) << error;
  TraceRecord r;
  ASSERT_TRUE(reader.Next(&r, &error)) << error;
  EXPECT_EQ(UINT64_MAX, r.time_ns);
  EXPECT_FALSE(reader.Next(&r, &error));
  EXPECT_NE(std::string::npos, error.find("malformed record 1 (its time overflows 64 bits)"))
      << error;
}

// A window keeps the records of [from, to], both ends included, times from
// its start, and moves the header's wall clock with them.
TEST(TraceWindowTest, AWindowKeepsItsRecordsAndTheirWallClock) {
  const std::vector<TraceRecord> all = SampleRecords();  // times 1000, 1000, c, then events c + 1 ...
  const uint64_t c = all[2].time_ns;
  TraceHeader h = SampleHeader();
  const std::vector<TraceRecord> w = sim::TraceWindow(all, 1000, c + 2, &h);
  ASSERT_EQ(5u, w.size());  // a, b, c, and the events at c + 1, c + 2
  EXPECT_EQ(0u, w[0].time_ns);
  EXPECT_EQ(c - 1000, w[2].time_ns);
  EXPECT_EQ(TraceEvent::kSettle, w[4].event);
  EXPECT_EQ(SampleHeader().start_unix_ns + 1000, h.start_unix_ns);
  EXPECT_EQ(all[3].offset, w[3].offset);
  EXPECT_TRUE(sim::TraceWindow(all, 1001, c - 1).empty());
  EXPECT_EQ(all.size() - 2, sim::TraceWindow(all, 1001, UINT64_MAX).size());
}

// Totals count I/O by type and bytes written by file kind.
TEST(TraceWindowTest, TotalsCountWritesByFileKind) {
  const sim::TraceTotals t = sim::CountTrace(SampleRecords());
  EXPECT_EQ(1u, t.user_reads);
  EXPECT_EQ(1u, t.background_reads);
  EXPECT_EQ(1u, t.writes);
  EXPECT_EQ(65536u, t.write_bytes);
  EXPECT_EQ(2 * 4096u, t.read_bytes);
  ASSERT_EQ(1u, t.written_by_kind.size());
  EXPECT_EQ(65536u, t.written_by_kind.at("wal"));
  EXPECT_EQ(1u, t.events.at(TraceEvent::kPlace));
  EXPECT_EQ(2u, t.files);
  // The one user read's measured latency, the background read's left out.
  EXPECT_DOUBLE_EQ(12200.0, t.user_read_latency_us);
  EXPECT_DOUBLE_EQ(12200.0, t.user_read_p99_us);
}

// The user reads' latency: the mean, and the 99th percentile of a hundred.
TEST(TraceWindowTest, TotalsGiveTheUserReadsLatency) {
  std::vector<TraceRecord> records(100);
  for (size_t i = 0; i < records.size(); ++i) {
    records[i].type = IoType::kUserRead;
    records[i].size = 4096;
    records[i].latency_ns = (i + 1) * 1000;  // 1 .. 100 us
  }
  const sim::TraceTotals t = sim::CountTrace(records);
  EXPECT_DOUBLE_EQ(50.5, t.user_read_latency_us);
  EXPECT_DOUBLE_EQ(100.0, t.user_read_p99_us);
}

}  // namespace
}  // namespace tierfs
