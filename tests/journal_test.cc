// Tests of the segment map's on-disk format (env/journal_format.h) and of the
// journal built on it (env/journal.h).
//
// The decoder must tell a torn tail (the process died while appending: drop
// the partial record, keep going) from damage (a bad record followed by good
// ones: refuse, naming the file and offset), so most tests here build a file,
// damage it in one precise way and check which of the two the decoder says.
#include "env/journal_format.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rocksdb/file_system.h>

#include "env/journal.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

using test::ScratchDir;

const char kFname[] = "/meta/JOURNAL-000042";

// One record of every type but End (which closes snapshots), with fields that
// exercise the encoding: a long name, an empty name, large integers, kNoTier.
std::vector<JournalRecord> EveryRecordType() {
  return {
      JournalRecord::Mkdir("/db"),
      JournalRecord::Bind(7, FileKind::kSst, "/db/000007.sst"),
      JournalRecord::Bind(0xfedcba9876543210ull, FileKind::kManifest, "/db/MANIFEST-000001"),
      JournalRecord::Segment(7, 0, 0),
      JournalRecord::Segment(7, 0x123456789ull, 3),
      JournalRecord::Segment(7, 2, kNoTier),
      JournalRecord::Rename("/db/000008.dbtmp", "/db/CURRENT"),
      JournalRecord::Unbind("/db/000007.sst"),
      JournalRecord::Bind(9, FileKind::kOther, std::string(3000, 'n')),
      JournalRecord::Unbind(""),
      JournalRecord::Rmdir("/db/archive"),
  };
}

// A file as bytes plus where each record starts.
struct Built {
  std::string bytes;
  std::vector<size_t> offsets;  // offset of record i
};

Built Build(char kind, uint64_t generation, const std::vector<JournalRecord>& records) {
  Built b;
  EncodeHeader(kind, generation, &b.bytes);
  for (const JournalRecord& r : records) {
    b.offsets.push_back(b.bytes.size());
    EncodeRecord(r, &b.bytes);
  }
  return b;
}

Built BuildSnapshot(uint64_t generation, const std::vector<JournalRecord>& records) {
  Built b = Build(kSnapshotKind, generation, records);
  b.offsets.push_back(b.bytes.size());
  EncodeRecord(JournalRecord::End(records.size()), &b.bytes);
  return b;
}

void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(char(v >> (8 * i)));
}

// A record framed by hand, with a correct checksum over whatever it holds.
std::string RawRecord(uint8_t type, const std::string& payload) {
  std::string body(1, char(type));
  body += payload;
  std::string out;
  PutFixed32(&out, uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(body.data()),
                                  uInt(body.size()))));
  PutFixed32(&out, uint32_t(payload.size()));
  return out + body;
}

bool Contains(const rocksdb::Status& s, const std::string& fragment) {
  return s.ToString().find(fragment) != std::string::npos;
}

// ------------------------------------------------------------------ format

TEST(JournalFormatTest, EveryRecordTypeRoundTrips) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kJournalKind, 42, records);
  DecodedFile out;
  ASSERT_TRUE(DecodeFile(b.bytes, kFname, &out).ok());
  EXPECT_EQ(out.kind, kJournalKind);
  EXPECT_EQ(out.generation, 42u);
  ASSERT_EQ(out.records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_TRUE(out.records[i] == records[i]) << "record " << i;
  }
  EXPECT_FALSE(out.torn_tail);
  EXPECT_EQ(out.valid_bytes, b.bytes.size());
}

TEST(JournalFormatTest, SnapshotRoundTripsAndEndIsNotARecord) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = BuildSnapshot(3, records);
  DecodedFile out;
  ASSERT_TRUE(DecodeFile(b.bytes, "SNAPSHOT-000003", &out).ok());
  EXPECT_EQ(out.kind, kSnapshotKind);
  EXPECT_EQ(out.generation, 3u);
  ASSERT_EQ(out.records.size(), records.size());
  EXPECT_TRUE(std::equal(records.begin(), records.end(), out.records.begin()));
  EXPECT_EQ(out.valid_bytes, b.bytes.size());
}

TEST(JournalFormatTest, EmptySnapshotHoldsOnlyEnd) {
  Built b = BuildSnapshot(1, {});
  DecodedFile out;
  ASSERT_TRUE(DecodeFile(b.bytes, "SNAPSHOT-000001", &out).ok());
  EXPECT_TRUE(out.records.empty());
}

TEST(JournalFormatTest, HeaderOnlyJournalIsEmpty) {
  Built b = Build(kJournalKind, 1, {});
  ASSERT_EQ(b.bytes.size(), kJournalHeaderSize);
  DecodedFile out;
  ASSERT_TRUE(DecodeFile(b.bytes, kFname, &out).ok());
  EXPECT_TRUE(out.records.empty());
  EXPECT_FALSE(out.torn_tail);
  EXPECT_EQ(out.valid_bytes, kJournalHeaderSize);
}

TEST(JournalFormatTest, RecordsAreDistinguishedByEveryField) {
  // operator== is what the round-trip tests rely on.
  EXPECT_FALSE(JournalRecord::Segment(1, 2, 3) == JournalRecord::Segment(1, 2, 4));
  EXPECT_FALSE(JournalRecord::Segment(1, 2, 3) == JournalRecord::Segment(1, 3, 3));
  EXPECT_FALSE(JournalRecord::Bind(1, FileKind::kSst, "a") ==
               JournalRecord::Bind(1, FileKind::kWal, "a"));
  EXPECT_FALSE(JournalRecord::Rename("a", "b") == JournalRecord::Rename("a", "c"));
  EXPECT_FALSE(JournalRecord::Mkdir("a") == JournalRecord::Rmdir("a"));
  EXPECT_FALSE(JournalRecord::End(1) == JournalRecord::End(2));
}

TEST(JournalFormatTest, TornTailAnywhereInTheLastRecordIsDropped) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kJournalKind, 42, records);
  size_t last = b.offsets.back();
  for (size_t cut = last + 1; cut < b.bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    DecodedFile out;
    rocksdb::Status s = DecodeFile(b.bytes.substr(0, cut), kFname, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(out.torn_tail);
    ASSERT_EQ(out.records.size(), records.size() - 1);
    EXPECT_TRUE(out.records.back() == records[records.size() - 2]);
    EXPECT_EQ(out.valid_bytes, last);
  }
}

TEST(JournalFormatTest, CutAtARecordBoundaryIsNotTorn) {
  Built b = Build(kJournalKind, 42, EveryRecordType());
  DecodedFile out;
  ASSERT_TRUE(DecodeFile(b.bytes.substr(0, b.offsets[3]), kFname, &out).ok());
  EXPECT_FALSE(out.torn_tail);
  EXPECT_EQ(out.records.size(), 3u);
}

TEST(JournalFormatTest, TrailingZerosAreATornTail) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kJournalKind, 42, records);
  for (size_t zeros : {1, 8, 9, 100, 4096}) {
    SCOPED_TRACE(std::to_string(zeros) + " zeros");
    DecodedFile out;
    rocksdb::Status s = DecodeFile(b.bytes + std::string(zeros, '\0'), kFname, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(out.torn_tail);
    EXPECT_EQ(out.records.size(), records.size());
    EXPECT_EQ(out.valid_bytes, b.bytes.size());
  }
}

TEST(JournalFormatTest, DamagedLastRecordIsATornTail) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kJournalKind, 42, records);
  b.bytes[b.bytes.size() - 1] ^= 0x40;  // last byte of the last payload
  DecodedFile out;
  ASSERT_TRUE(DecodeFile(b.bytes, kFname, &out).ok());
  EXPECT_TRUE(out.torn_tail);
  EXPECT_EQ(out.records.size(), records.size() - 1);
  EXPECT_EQ(out.valid_bytes, b.offsets.back());
}

TEST(JournalFormatTest, CorruptMiddleRecordNamesFileAndOffset) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kJournalKind, 42, records);
  size_t middle = b.offsets[records.size() / 2];
  b.bytes[middle + 9 + 2] ^= 0x01;  // a byte of its payload
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, kFname, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, kFname)) << s.ToString();
  EXPECT_TRUE(Contains(s, "offset " + std::to_string(middle))) << s.ToString();
}

TEST(JournalFormatTest, CorruptChecksumFieldInTheMiddleIsCorruption) {
  Built b = Build(kJournalKind, 42, EveryRecordType());
  b.bytes[b.offsets[1]] ^= 0xff;
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, kFname, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, "offset " + std::to_string(b.offsets[1]))) << s.ToString();
}

TEST(JournalFormatTest, BadHeaderMagicIsCorruption) {
  Built b = Build(kJournalKind, 42, EveryRecordType());
  b.bytes[0] = 'X';
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, kFname, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, kFname)) << s.ToString();
}

TEST(JournalFormatTest, BadHeaderChecksumIsCorruption) {
  Built b = Build(kJournalKind, 42, EveryRecordType());
  b.bytes[16] ^= 0x01;  // generation, covered by the header crc
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, kFname, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, kFname)) << s.ToString();

  Built c = Build(kJournalKind, 42, {});
  c.bytes[24] ^= 0x01;  // the crc itself
  EXPECT_TRUE(DecodeFile(c.bytes, kFname, &out).IsCorruption());
}

TEST(JournalFormatTest, ShortOrEmptyFileIsCorruption) {
  Built b = Build(kJournalKind, 42, {});
  DecodedFile out;
  EXPECT_TRUE(DecodeFile("", kFname, &out).IsCorruption());
  EXPECT_TRUE(DecodeFile(b.bytes.substr(0, kJournalHeaderSize - 1), kFname, &out).IsCorruption());
}

TEST(JournalFormatTest, OtherVersionIsNotSupported) {
  // A valid header of version 2: the crc is recomputed over the changed bytes.
  std::string h;
  EncodeHeader(kJournalKind, 1, &h);
  h[8] = 2;
  h.resize(24);
  PutFixed32(&h, uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(h.data()), 24)));
  DecodedFile out;
  rocksdb::Status s = DecodeFile(h, kFname, &out);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_TRUE(Contains(s, "version 2")) << s.ToString();
}

TEST(JournalFormatTest, SnapshotWithoutEndIsCorruption) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kSnapshotKind, 5, records);  // no End
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, "SNAPSHOT-000005", &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, "SNAPSHOT-000005")) << s.ToString();
}

TEST(JournalFormatTest, SnapshotCutInsideEndIsCorruption) {
  Built b = BuildSnapshot(5, EveryRecordType());
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes.substr(0, b.bytes.size() - 3), "SNAPSHOT-000005", &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(JournalFormatTest, EndWithWrongCountIsCorruption) {
  std::vector<JournalRecord> records = EveryRecordType();
  Built b = Build(kSnapshotKind, 5, records);
  EncodeRecord(JournalRecord::End(records.size() + 1), &b.bytes);
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, "SNAPSHOT-000005", &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, std::to_string(records.size() + 1))) << s.ToString();
}

TEST(JournalFormatTest, DataAfterEndIsCorruption) {
  Built b = BuildSnapshot(5, EveryRecordType());
  EncodeRecord(JournalRecord::Mkdir("/late"), &b.bytes);
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, "SNAPSHOT-000005", &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST(JournalFormatTest, AbsurdLengthMidFileIsCorruption) {
  Built b = Build(kJournalKind, 42, EveryRecordType());
  size_t at = b.offsets[2];
  for (int i = 0; i < 4; ++i) b.bytes[at + 4 + i] = char(0x7f);  // length 0x7f7f7f7f
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, kFname, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, "offset " + std::to_string(at))) << s.ToString();
  EXPECT_TRUE(Contains(s, kFname)) << s.ToString();
}

TEST(JournalFormatTest, UnknownRecordTypeMidFileIsCorruption) {
  Built b = Build(kJournalKind, 42, {JournalRecord::Mkdir("/a")});
  size_t at = b.bytes.size();
  b.bytes += RawRecord(99, "whatever");
  EncodeRecord(JournalRecord::Mkdir("/b"), &b.bytes);
  DecodedFile out;
  rocksdb::Status s = DecodeFile(b.bytes, kFname, &out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, "offset " + std::to_string(at))) << s.ToString();
}

TEST(JournalFormatTest, PayloadOfTheWrongShapeMidFileIsCorruption) {
  // A Mkdir whose string length runs past its payload, and one with extra
  // bytes after its string, both with valid checksums.
  std::string overlong;
  PutFixed32(&overlong, 100);
  overlong += "short";
  std::string extra;
  PutFixed32(&extra, 2);
  extra += "/a" + std::string("junk");
  for (const std::string& payload : {overlong, extra}) {
    Built b = Build(kJournalKind, 42, {JournalRecord::Mkdir("/a")});
    b.bytes += RawRecord(uint8_t(RecordType::kMkdir), payload);
    EncodeRecord(JournalRecord::Mkdir("/b"), &b.bytes);
    DecodedFile out;
    EXPECT_TRUE(DecodeFile(b.bytes, kFname, &out).IsCorruption());
  }
}

// ----------------------------------------------------------------- journal

class JournalTest : public ::testing::Test {
 protected:
  JournalTest() : scratch_("journal"), fs_(rocksdb::FileSystem::Default().get()) {
    meta_ = scratch_.Sub("meta");
  }

  rocksdb::IOStatus Load() {
    return Journal::Load(fs_, meta_, &generation_, &records_, &torn_);
  }

  std::vector<std::string> MetaFiles() {
    std::vector<std::string> children;
    EXPECT_TRUE(fs_->GetChildren(meta_, rocksdb::IOOptions(), &children, nullptr).ok());
    children.erase(std::remove_if(children.begin(), children.end(),
                                  [](const std::string& c) { return c == "." || c == ".."; }),
                   children.end());
    std::sort(children.begin(), children.end());
    return children;
  }

  void WriteRaw(const std::string& path, const std::string& bytes) {
    ASSERT_TRUE(rocksdb::WriteStringToFile(fs_, bytes, path, true).ok());
  }

  std::string ReadRaw(const std::string& path) {
    std::string data;
    EXPECT_TRUE(rocksdb::ReadFileToString(fs_, path, &data).ok());
    return data;
  }

  static std::vector<JournalRecord> Dirs(const std::string& prefix, int n) {
    std::vector<JournalRecord> out;
    for (int i = 0; i < n; ++i) out.push_back(JournalRecord::Mkdir(prefix + std::to_string(i)));
    return out;
  }

  ScratchDir scratch_;
  rocksdb::FileSystem* fs_;
  std::string meta_;
  uint64_t generation_ = 99;
  std::vector<JournalRecord> records_;
  bool torn_ = true;
};

TEST_F(JournalTest, LoadOfMissingDirectoryIsANewStore) {
  records_.push_back(JournalRecord::Mkdir("/stale"));
  ASSERT_TRUE(Journal::Load(fs_, scratch_.path() + "/no-such-meta", &generation_, &records_,
                            &torn_)
                  .ok());
  EXPECT_EQ(generation_, 0u);
  EXPECT_TRUE(records_.empty());
  EXPECT_FALSE(torn_);
}

TEST_F(JournalTest, LoadOfEmptyDirectoryIsANewStore) {
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 0u);
  EXPECT_TRUE(records_.empty());
}

TEST_F(JournalTest, SnapshotThenAppendsLoadInOrder) {
  std::vector<JournalRecord> snapshot = Dirs("/snap", 3);
  std::vector<JournalRecord> appended = EveryRecordType();
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, snapshot, &j).ok());
  EXPECT_EQ(j->generation(), 1u);
  uint64_t lsn = 0;
  for (const JournalRecord& r : appended) ASSERT_TRUE(j->Append(r, &lsn).ok());
  EXPECT_EQ(j->records_since_snapshot(), appended.size());
  ASSERT_TRUE(j->SyncTo(lsn).ok());

  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 1u);
  EXPECT_FALSE(torn_);
  std::vector<JournalRecord> expected = snapshot;
  expected.insert(expected.end(), appended.begin(), appended.end());
  ASSERT_EQ(records_.size(), expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), records_.begin()));
}

TEST_F(JournalTest, AppendIsVisibleWithoutSync) {
  // Append writes through to the OS: a killed process loses nothing.
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, {}, &j).ok());
  uint64_t lsn = 0;
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/unsynced"), &lsn).ok());
  ASSERT_TRUE(Load().ok());
  ASSERT_EQ(records_.size(), 1u);
  EXPECT_TRUE(records_[0] == JournalRecord::Mkdir("/unsynced"));
}

// The exit path's sync (POSIX alone) opens the journal by its name: a file
// that is not there is an error naming it, sticky as any failed sync; and a
// journal let go at exit refuses appends.
TEST_F(JournalTest, SyncForExitSyncsTheCurrentFileByNameAndAbandonRefusesAppends) {
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 3, {}, &j).ok());
  uint64_t lsn = 0;
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/a"), &lsn).ok());
  EXPECT_TRUE(j->SyncAllForExit().ok());
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/b"), &lsn).ok());
  const std::string name = Journal::JournalName(meta_, 3);
  const std::string moved = meta_ + "/moved";
  ASSERT_EQ(0, rename(name.c_str(), moved.c_str()));
  rocksdb::IOStatus s = j->SyncAllForExit();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string::npos, s.ToString().find("open " + name)) << s.ToString();
  EXPECT_FALSE(j->Append(JournalRecord::Mkdir("/c"), &lsn).ok());  // sticky
  ASSERT_EQ(0, rename(moved.c_str(), name.c_str()));

  std::unique_ptr<Journal> k;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 4, {}, &k).ok());
  k->Abandon();
  s = k->Append(JournalRecord::Mkdir("/d"), &lsn);
  EXPECT_NE(std::string::npos, s.ToString().find("let go at process exit")) << s.ToString();
}

TEST_F(JournalTest, LsnsIncreaseAndSyncToIsIdempotent) {
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, {}, &j).ok());
  uint64_t a = 0, b = 0, c = 0;
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/a"), &a).ok());
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/b"), &b).ok());
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/c"), &c).ok());
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_TRUE(j->SyncTo(b).ok());
  EXPECT_TRUE(j->SyncTo(b).ok());
  EXPECT_TRUE(j->SyncTo(a).ok());
  EXPECT_TRUE(j->SyncTo(c).ok());
  EXPECT_TRUE(j->SyncTo(c).ok());
  EXPECT_TRUE(j->SyncTo(0).ok());
  EXPECT_TRUE(j->SyncAll().ok());
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(records_.size(), 3u);
}

TEST_F(JournalTest, RotateStartsANewGenerationAndRemovesTheOld) {
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, Dirs("/old", 2), &j).ok());
  uint64_t lsn = 0;
  ASSERT_TRUE(j->Append(JournalRecord::Mkdir("/before-rotate"), &lsn).ok());
  ASSERT_EQ(MetaFiles(), (std::vector<std::string>{"JOURNAL-000001", "SNAPSHOT-000001"}));

  std::vector<JournalRecord> snapshot = Dirs("/new", 4);
  ASSERT_TRUE(j->Rotate(snapshot).ok());
  EXPECT_EQ(j->generation(), 2u);
  EXPECT_EQ(j->records_since_snapshot(), 0u);
  uint64_t after = 0;
  ASSERT_TRUE(j->Append(JournalRecord::Rmdir("/new0"), &after).ok());
  EXPECT_GT(after, lsn);
  ASSERT_TRUE(j->SyncTo(after).ok());

  EXPECT_EQ(MetaFiles(), (std::vector<std::string>{"JOURNAL-000002", "SNAPSHOT-000002"}));
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 2u);
  std::vector<JournalRecord> expected = snapshot;
  expected.push_back(JournalRecord::Rmdir("/new0"));
  ASSERT_EQ(records_.size(), expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), records_.begin()));
}

TEST_F(JournalTest, CreateRemovesOlderGenerationsAndTemporaries) {
  {
    std::unique_ptr<Journal> j;
    ASSERT_TRUE(Journal::Create(fs_, meta_, 3, Dirs("/g3-", 1), &j).ok());
  }
  WriteRaw(meta_ + "/SNAPSHOT-000009.tmp", "half-written");
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 4, Dirs("/g4-", 2), &j).ok());
  EXPECT_EQ(MetaFiles(), (std::vector<std::string>{"JOURNAL-000004", "SNAPSHOT-000004"}));
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 4u);
  EXPECT_EQ(records_.size(), 2u);
}

TEST_F(JournalTest, JournalWithoutSnapshotIsCorruption) {
  std::string h;
  EncodeHeader(kJournalKind, 1, &h);
  EncodeRecord(JournalRecord::Mkdir("/orphan"), &h);
  WriteRaw(Journal::JournalName(meta_, 1), h);
  rocksdb::IOStatus s = Load();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, meta_)) << s.ToString();
}

TEST_F(JournalTest, UncommittedNextGenerationIsIgnored) {
  // A rotation that wrote JOURNAL-3's header but never renamed SNAPSHOT-3 in.
  WriteRaw(Journal::SnapshotName(meta_, 2), BuildSnapshot(2, Dirs("/s", 3)).bytes);
  std::string h;
  EncodeHeader(kJournalKind, 3, &h);
  WriteRaw(Journal::JournalName(meta_, 3), h);
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 2u);
  EXPECT_EQ(records_.size(), 3u);
  // The same journal two generations ahead has lost its snapshot.
  WriteRaw(Journal::JournalName(meta_, 4), h);
  EXPECT_TRUE(Load().IsCorruption());
}

TEST_F(JournalTest, SnapshotWithoutJournalLoadsTheSnapshot) {
  // A crash between renaming SNAPSHOT-g into place and creating JOURNAL-g.
  WriteRaw(Journal::SnapshotName(meta_, 2), BuildSnapshot(2, Dirs("/s", 3)).bytes);
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 2u);
  EXPECT_EQ(records_.size(), 3u);
  EXPECT_FALSE(torn_);
}

TEST_F(JournalTest, LoadTakesTheNewestSnapshot) {
  // A crash after generation 2 was complete but before generation 1 was removed.
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, Dirs("/one", 1), &j).ok());
  j.reset();
  WriteRaw(Journal::SnapshotName(meta_, 2), BuildSnapshot(2, Dirs("/two", 2)).bytes);
  WriteRaw(Journal::JournalName(meta_, 2), Build(kJournalKind, 2, Dirs("/j", 1)).bytes);
  ASSERT_TRUE(Load().ok());
  EXPECT_EQ(generation_, 2u);
  ASSERT_EQ(records_.size(), 3u);
  EXPECT_TRUE(records_[0] == JournalRecord::Mkdir("/two0"));
  EXPECT_TRUE(records_[2] == JournalRecord::Mkdir("/j0"));
}

TEST_F(JournalTest, TornJournalTailIsDroppedAndReported) {
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, Dirs("/s", 1), &j).ok());
  uint64_t lsn = 0;
  for (const JournalRecord& r : Dirs("/j", 3)) ASSERT_TRUE(j->Append(r, &lsn).ok());
  j.reset();
  std::string name = Journal::JournalName(meta_, 1);
  std::string bytes = ReadRaw(name);
  WriteRaw(name, bytes.substr(0, bytes.size() - 2));
  ASSERT_TRUE(Load().ok());
  EXPECT_TRUE(torn_);
  ASSERT_EQ(records_.size(), 3u);  // snapshot's 1 + the first 2 appends
  EXPECT_TRUE(records_[2] == JournalRecord::Mkdir("/j1"));
}

TEST_F(JournalTest, CorruptJournalIsReportedWithItsName) {
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, {}, &j).ok());
  uint64_t lsn = 0;
  for (const JournalRecord& r : Dirs("/j", 3)) ASSERT_TRUE(j->Append(r, &lsn).ok());
  j.reset();
  std::string name = Journal::JournalName(meta_, 1);
  std::string bytes = ReadRaw(name);
  bytes[kJournalHeaderSize + 9 + 4] ^= 0x20;  // first record's payload
  WriteRaw(name, bytes);
  rocksdb::IOStatus s = Load();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, name)) << s.ToString();
}

TEST_F(JournalTest, SnapshotHeaderOfAnotherGenerationIsCorruption) {
  WriteRaw(Journal::SnapshotName(meta_, 3), BuildSnapshot(2, {}).bytes);
  rocksdb::IOStatus s = Load();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(Contains(s, "SNAPSHOT-000003")) << s.ToString();
}

// Create writes SNAPSHOT-g, then creates JOURNAL-g and only then writes its
// header. A process killed between the two leaves an empty (or partly written)
// JOURNAL-g beside a complete SNAPSHOT-g. Like a missing journal, that must load
// as the snapshot alone (journal.h: "A crash anywhere leaves either generation
// g or g+1 complete").
TEST_F(JournalTest, JournalCutInsideItsHeaderLoadsTheSnapshot) {
  std::unique_ptr<Journal> j;
  ASSERT_TRUE(Journal::Create(fs_, meta_, 1, Dirs("/s", 2), &j).ok());
  j.reset();
  std::string name = Journal::JournalName(meta_, 1);
  for (size_t keep : {size_t(0), size_t(10)}) {
    SCOPED_TRACE("journal of " + std::to_string(keep) + " bytes");
    WriteRaw(name, ReadRaw(name).substr(0, keep));
    rocksdb::IOStatus s = Load();
    if (s.ok()) {
      EXPECT_EQ(generation_, 1u);
      EXPECT_EQ(records_.size(), 2u);
    } else {
      ADD_FAILURE() << s.ToString();
    }
    // Restore a whole header for the next round.
    WriteRaw(name, Build(kJournalKind, 1, {}).bytes);
  }
}

TEST_F(JournalTest, FileNamesCarryTheGeneration) {
  EXPECT_EQ(Journal::SnapshotName("/m", 7), "/m/SNAPSHOT-000007");
  EXPECT_EQ(Journal::JournalName("/m", 1234567), "/m/JOURNAL-1234567");
}

}  // namespace
}  // namespace tierfs
