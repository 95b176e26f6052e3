// `tierfs check` (env/store_check.h) on a real store: a RocksDB database
// written through TierFS and closed. Each test damages the store as a crash,
// a bug or an operator could, and checks that the check finds it, that repair
// fixes it (the next check is clean and every key still reads back), or, for
// data already lost, that repair refuses, names the file and segment, and
// changes nothing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/config.h"
#include "env/posix_util.h"
#include "env/store.h"
#include "env/store_check.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"
#include "tierfs/tierfs.h"

namespace tierfs {
namespace {

constexpr int kKeys = 3000;
constexpr uint64_t kSegment = 64 << 10;

std::string Key(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}
std::string Value(int i) { return test::RandomBytes(1000, uint32_t(i)); }

std::string Describe(const std::vector<CheckFinding>& findings) {
  std::string out;
  for (const CheckFinding& f : findings) {
    out += std::string(CheckKindName(f.kind)) + " tier " + std::to_string(f.tier) + " " + f.file +
           ":" + std::to_string(f.segment) + " " + f.path + ": " + f.detail + " -> " +
           RepairOutcomeName(f.outcome) + ": " + f.note + "\n";
  }
  return out;
}

// A segment of a table file: its name, id, index, home and bytes.
struct Seg {
  std::string file;
  uint64_t id = 0;
  uint64_t segment = 0;
  int home = -1;
};

class StoreCheckTest : public ::testing::Test {
 protected:
  StoreCheckTest() : dir_("store_check") {
    // A small tier 0, so the database spills onto tier 1: both tiers hold
    // table segments.
    uri_ = test::MakeUri(dir_, {"1M", "64M"}, ";segment_size:64K");
    EXPECT_TRUE(ParseUri(uri_, &options_).ok());
  }

  void SetUp() override { WriteDatabase(); }

  rocksdb::Options DBOptions() const {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.write_buffer_size = 256 << 10;
    o.compression = rocksdb::kNoCompression;
    return o;
  }

  void WriteDatabase() {
    std::unique_ptr<TierDB> db;
    ASSERT_TRUE(OpenDB(uri_, DBOptions(), "/db", &db).ok());
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db->db->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(db->db->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(db->Close().ok());
  }

  // Every key reads back through TierFS with its value.
  void ExpectAllKeys() {
    std::unique_ptr<TierDB> db;
    rocksdb::Options o = DBOptions();
    o.create_if_missing = false;
    ASSERT_TRUE(OpenDB(uri_, o, "/db", &db).ok());
    int bad = 0;
    for (int i = 0; i < kKeys; ++i) {
      std::string v;
      rocksdb::Status s = db->db->Get(rocksdb::ReadOptions(), Key(i), &v);
      if (!s.ok() || v != Value(i)) ++bad;
    }
    EXPECT_EQ(0, bad) << "keys that did not read back";
    ASSERT_TRUE(db->Close().ok());
  }

  CheckReport Check(bool repair) {
    CheckReport report;
    CheckOptions check;
    check.repair = repair;
    rocksdb::Status s = CheckStore(options_, check, &report);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return report;
  }

  void ExpectClean() {
    CheckReport r = Check(false);
    EXPECT_TRUE(r.clean()) << Describe(r.findings);
    EXPECT_GT(r.segments, 0u);
  }

  // A full 64 KiB segment of a table file whose home is `tier`, and (with
  // `op`) a data operation run on it with the store open.
  Seg TableSegment(int tier) {
    std::shared_ptr<rocksdb::FileSystem> fs;
    EXPECT_TRUE(NewTierFileSystem(uri_, &fs).ok());
    std::vector<SegmentReport> segs;
    EXPECT_TRUE(ListSegments(fs.get(), "/db", &segs).ok());
    Seg out;
    for (const SegmentReport& r : segs) {
      if (r.tier == tier && r.bytes == kSegment && r.file.size() > 4 &&
          r.file.substr(r.file.size() - 4) == ".sst") {
        out.file = r.file;
        out.segment = r.segment;
        out.home = r.tier;
        out.id = StoreOf(fs.get())->Find(TierFileSystem::Normalize(r.file))->id;
        break;
      }
    }
    EXPECT_TRUE(Close(fs.get()).ok());
    return out;
  }

  std::string DataPath(int tier, uint64_t id) const {
    char buf[24];
    snprintf(buf, sizeof(buf), "/%016llx", (unsigned long long)id);
    return dir_.path() + "/tier" + std::to_string(tier) + "/data" + buf;
  }

  const CheckFinding* Find(const CheckReport& r, CheckKind kind) const {
    for (const CheckFinding& f : r.findings) {
      if (f.kind == kind) return &f;
    }
    return nullptr;
  }

  // Every file under the tiers: its size, its allocated bytes, and the
  // contents of the metadata files.
  std::map<std::string, std::string> Fingerprint() const {
    std::map<std::string, std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
      if (!entry.is_regular_file()) continue;
      const std::string path = entry.path().string();
      std::string value = std::to_string(entry.file_size()) + "/" +
                          std::to_string(AllocatedBytes(path));
      if (path.find("/meta/") != std::string::npos) {
        for (const std::string& line : test::ReadLines(path)) value += line + "\n";
      }
      out[path] = value;
    }
    return out;
  }

  test::ScratchDir dir_;
  std::string uri_;
  Options options_;
};

TEST_F(StoreCheckTest, AStoreAtRestIsClean) {
  CheckReport r = Check(false);
  EXPECT_TRUE(r.clean()) << Describe(r.findings);
  EXPECT_GT(r.generation, 0u);
  EXPECT_GT(r.files, 3u);
  ASSERT_EQ(2u, r.tiers.size());
  EXPECT_GT(r.tiers[0].homes, 0u);
  EXPECT_GT(r.tiers[1].homes, 0u);  // the database spilled over
  for (const CheckTierSummary& t : r.tiers) EXPECT_LE(t.allocated, t.charged) << t.root;
  // Repair of a clean store does nothing.
  r = Check(true);
  EXPECT_TRUE(r.clean());
  EXPECT_FALSE(r.repaired);
}

TEST_F(StoreCheckTest, AnOrphanBackingFileIsFoundAndDeleted) {
  const std::string orphan = DataPath(1, 0xdead);
  const std::string junk = test::RandomBytes(20000, 7);
  const int fd = open(orphan.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(junk.size()), write(fd, junk.data(), junk.size()));
  close(fd);

  CheckReport r = Check(false);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  EXPECT_EQ(CheckKind::kOrphanFile, r.findings[0].kind);
  EXPECT_EQ(orphan, r.findings[0].path);
  EXPECT_EQ(0xdeadu, r.findings[0].file_id);
  EXPECT_EQ(CheckAction::kRepair, r.findings[0].action);
  EXPECT_EQ(0, access(orphan.c_str(), F_OK)) << "a check alone changes nothing";

  r = Check(true);
  ASSERT_EQ(1u, r.findings.size());
  EXPECT_EQ(RepairOutcome::kFixed, r.findings[0].outcome) << Describe(r.findings);
  EXPECT_NE(std::string::npos, r.findings[0].note.find("deleted")) << r.findings[0].note;
  EXPECT_TRUE(r.repaired);
  EXPECT_TRUE(r.remaining.empty()) << Describe(r.remaining);
  EXPECT_NE(0, access(orphan.c_str(), F_OK));
  ExpectClean();
  ExpectAllKeys();
}

TEST_F(StoreCheckTest, AForeignFileIsReportedAndLeftAlone) {
  const std::string foreign = dir_.path() + "/tier1/data/notes.txt";
  ASSERT_TRUE(CreateFileIfMissing(foreign).ok());
  const std::string orphan = DataPath(1, 0xdead);
  ASSERT_TRUE(CreateFileIfMissing(orphan).ok());
  CheckReport r = Check(true);
  ASSERT_EQ(2u, r.findings.size()) << Describe(r.findings);
  const CheckFinding* f = Find(r, CheckKind::kForeignFile);
  ASSERT_NE(nullptr, f);
  EXPECT_EQ(foreign, f->path);
  EXPECT_EQ(CheckAction::kLeaveAlone, f->action);
  EXPECT_EQ(RepairOutcome::kNone, f->outcome);
  // It does not stop the repair of the rest.
  EXPECT_EQ(RepairOutcome::kFixed, Find(r, CheckKind::kOrphanFile)->outcome);
  EXPECT_EQ(0, access(foreign.c_str(), F_OK));
  EXPECT_NE(0, access(orphan.c_str(), F_OK));
  ASSERT_EQ(1u, r.remaining.size()) << Describe(r.remaining);
  EXPECT_EQ(CheckKind::kForeignFile, r.remaining[0].kind);
}

TEST_F(StoreCheckTest, ATierWithoutItsMarkerIsRefused) {
  ASSERT_EQ(0, unlink((dir_.path() + "/tier1/TIERFS-TIER").c_str()));
  const auto before = Fingerprint();
  CheckReport r = Check(true);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  EXPECT_EQ(CheckKind::kMarker, r.findings[0].kind);
  EXPECT_EQ(RepairOutcome::kRefused, r.findings[0].outcome);
  EXPECT_NE(std::string::npos, r.findings[0].detail.find("tier 1")) << r.findings[0].detail;
  EXPECT_EQ(before, Fingerprint());
}

TEST_F(StoreCheckTest, StrayDataOfAHalfDoneMoveIsFoundAndPunched) {
  const Seg seg = TableSegment(0);
  ASSERT_FALSE(seg.file.empty());
  // A copy of the segment on tier 1 that never committed.
  const std::string path = DataPath(1, seg.id);
  const std::string junk = test::RandomBytes(kSegment, 8);
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(junk.size()),
            pwrite(fd, junk.data(), junk.size(), off_t(seg.segment * kSegment)));
  close(fd);

  CheckReport r = Check(false);
  const CheckFinding* f = Find(r, CheckKind::kStrayData);
  ASSERT_NE(nullptr, f) << Describe(r.findings);
  EXPECT_EQ(1, f->tier);
  EXPECT_EQ(seg.file, f->file);
  EXPECT_EQ(int64_t(seg.segment), f->segment);
  EXPECT_EQ(kSegment, f->bytes);

  r = Check(true);
  EXPECT_TRUE(r.remaining.empty()) << Describe(r.remaining);
  EXPECT_FALSE(HasData(path, seg.segment * kSegment, kSegment));
  ExpectClean();
  ExpectAllKeys();
}

TEST_F(StoreCheckTest, AccountDriftIsFoundAndFreed) {
  // Blocks preallocated past a backing file's end, as a forwarded Allocate
  // would leave them: the device holds bytes no account charges.
  const Seg seg = TableSegment(1);
  ASSERT_FALSE(seg.file.empty());
  const std::string path = DataPath(1, seg.id);
  const uint64_t before = AllocatedBytes(path);
  const int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  struct stat st;
  ASSERT_EQ(0, fstat(fd, &st));
  ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, 1 << 20));
  close(fd);
  ASSERT_GE(AllocatedBytes(path), before + (1 << 20));

  CheckReport r = Check(false);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  const CheckFinding& f = r.findings[0];
  EXPECT_EQ(CheckKind::kAccountDrift, f.kind);
  EXPECT_EQ(CheckAction::kRepair, f.action);
  EXPECT_EQ(path, f.path);
  EXPECT_EQ(seg.file, f.file);
  EXPECT_GE(f.bytes, uint64_t(1 << 20) - kBlockSize);  // past the file's allowance
  EXPECT_GT(r.tiers[1].allocated, r.tiers[1].charged);

  r = Check(true);
  ASSERT_EQ(1u, r.findings.size());
  EXPECT_EQ(RepairOutcome::kFixed, r.findings[0].outcome) << Describe(r.findings);
  EXPECT_TRUE(r.remaining.empty()) << Describe(r.remaining);
  EXPECT_EQ(before, AllocatedBytes(path));
  EXPECT_EQ(uint64_t(st.st_size), uint64_t(std::filesystem::file_size(path)));
  ExpectClean();
  ExpectAllKeys();
}

TEST_F(StoreCheckTest, AStaleDurableCopyIsFoundAndDropped) {
  const Seg seg = TableSegment(0);
  ASSERT_FALSE(seg.file.empty());
  {
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(uri_, &fs).ok());
    rocksdb::Status s = ApplyDataOp(fs.get(), DataOp::kReplicate, seg.file, 1, seg.segment,
                                    seg.segment, /*wait=*/true);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(Close(fs.get()).ok());
  }
  ExpectClean();  // a copy with its home's bytes is valid
  // The copy goes stale: a byte of it changes, as a write that missed
  // dropping it would leave it.
  const std::string copy = DataPath(1, seg.id);
  const off_t at = off_t(seg.segment * kSegment + 100);
  const int fd = open(copy.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c;
  ASSERT_EQ(1, pread(fd, &c, 1, at));
  c ^= 0x5a;
  ASSERT_EQ(1, pwrite(fd, &c, 1, at));
  close(fd);

  CheckReport r = Check(false);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  const CheckFinding& f = r.findings[0];
  EXPECT_EQ(CheckKind::kStaleCopy, f.kind);
  EXPECT_EQ(1, f.tier);
  EXPECT_EQ(seg.file, f.file);
  EXPECT_EQ(int64_t(seg.segment), f.segment);
  EXPECT_NE(std::string::npos, f.detail.find("at byte " + std::to_string(at))) << f.detail;
  EXPECT_EQ(uint64_t(1) * kSegment, r.tiers[1].copies * kSegment);

  r = Check(true);
  ASSERT_EQ(1u, r.findings.size());
  EXPECT_EQ(RepairOutcome::kFixed, r.findings[0].outcome) << Describe(r.findings);
  EXPECT_TRUE(r.remaining.empty()) << Describe(r.remaining);
  EXPECT_FALSE(HasData(copy, seg.segment * kSegment, kSegment));
  CheckReport after = Check(false);
  EXPECT_TRUE(after.clean()) << Describe(after.findings);
  EXPECT_EQ(0u, after.tiers[1].copies);
  ExpectAllKeys();
}

TEST_F(StoreCheckTest, StalePageCopiesAreFoundAndEmptied) {
  // What a process that made hot-page copies leaves in PAGES when it ends
  // without destroying its store (killed, or the store kept to the end).
  const std::string pages = dir_.path() + "/tier0/meta/PAGES";
  const std::string bytes = test::RandomBytes(64 << 10, 9);
  const int fd = open(pages.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ssize_t(bytes.size()), write(fd, bytes.data(), bytes.size()));
  close(fd);

  CheckReport r = Check(false);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  EXPECT_EQ(CheckKind::kStalePageCopies, r.findings[0].kind);
  EXPECT_EQ(pages, r.findings[0].path);
  EXPECT_EQ(uint64_t(64 << 10), r.findings[0].bytes);

  r = Check(true);
  EXPECT_EQ(RepairOutcome::kFixed, r.findings[0].outcome) << Describe(r.findings);
  EXPECT_EQ(0u, AllocatedBytes(pages));
  ExpectClean();
  ExpectAllKeys();

  // Beside a state that is not one (damaged): stale too, and both go.
  const int again = open(pages.c_str(), O_WRONLY, 0644);
  ASSERT_GE(again, 0);
  ASSERT_EQ(ssize_t(bytes.size()), write(again, bytes.data(), bytes.size()));
  close(again);
  const int state = open((pages + ".state").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(state, 0);
  ASSERT_EQ(5, write(state, "TFSPA", 5));
  close(state);
  r = Check(false);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  EXPECT_NE(std::string::npos, r.findings[0].detail.find("not a saved copy state"))
      << r.findings[0].detail;
  r = Check(true);
  EXPECT_EQ(RepairOutcome::kFixed, r.findings[0].outcome) << Describe(r.findings);
  EXPECT_NE(0, access((pages + ".state").c_str(), F_OK));
  ExpectClean();
}

TEST_F(StoreCheckTest, AMissingSegmentIsRefusedAndNothingChanges) {
  const Seg seg = TableSegment(1);
  ASSERT_FALSE(seg.file.empty());
  const std::string path = DataPath(1, seg.id);
  ASSERT_TRUE(PunchHole(path, seg.segment * kSegment, kSegment).ok());
  // A repairable finding beside it, which repair must leave too.
  const std::string orphan = DataPath(0, 0xbeef);
  ASSERT_TRUE(CreateFileIfMissing(orphan).ok());

  CheckReport r = Check(false);
  const CheckFinding* f = Find(r, CheckKind::kMissingSegment);
  ASSERT_NE(nullptr, f) << Describe(r.findings);
  EXPECT_EQ(CheckAction::kRefuse, f->action);
  EXPECT_EQ(seg.file, f->file);
  EXPECT_EQ(int64_t(seg.segment), f->segment);
  EXPECT_EQ(1, f->tier);
  EXPECT_EQ(kSegment, f->bytes);
  EXPECT_NE(nullptr, Find(r, CheckKind::kOrphanFile));

  const auto before = Fingerprint();
  r = Check(true);
  EXPECT_FALSE(r.repaired);
  for (const CheckFinding& x : r.findings) {
    EXPECT_EQ(RepairOutcome::kRefused, x.outcome) << Describe(r.findings);
  }
  f = Find(r, CheckKind::kMissingSegment);
  ASSERT_NE(nullptr, f);
  EXPECT_NE(std::string::npos, f->note.find("data lost")) << f->note;
  EXPECT_NE(std::string::npos, f->note.find(seg.file)) << f->note;
  EXPECT_EQ(before, Fingerprint()) << "a refused repair changed the store";
  EXPECT_EQ(0, access(orphan.c_str(), F_OK));
}

TEST_F(StoreCheckTest, AStoreOpenInAProcessIsRefused) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(NewTierFileSystem(uri_, &fs).ok());
  CheckReport r;
  rocksdb::Status s = CheckStore(options_, CheckOptions(), &r);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("/meta/LOCK")) << s.ToString();
  EXPECT_TRUE(r.findings.empty());
  ASSERT_TRUE(Close(fs.get()).ok());
  ExpectClean();
}

TEST_F(StoreCheckTest, AnUnreadableJournalIsAFinding) {
  // The newest generation's journal (the database's files were made after
  // its snapshot), damaged in its middle.
  std::string journal;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path() + "/tier0/meta")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("JOURNAL-", 0) == 0 && name > journal) journal = name;
  }
  ASSERT_FALSE(journal.empty());
  const std::string path = dir_.path() + "/tier0/meta/" + journal;
  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c;
  ASSERT_EQ(1, pread(fd, &c, 1, 200));
  c ^= 0x40;
  ASSERT_EQ(1, pwrite(fd, &c, 1, 200));
  close(fd);
  CheckReport r = Check(true);
  ASSERT_EQ(1u, r.findings.size()) << Describe(r.findings);
  EXPECT_EQ(CheckKind::kJournal, r.findings[0].kind);
  EXPECT_EQ(RepairOutcome::kRefused, r.findings[0].outcome);
  EXPECT_NE(std::string::npos, r.findings[0].detail.find(journal)) << r.findings[0].detail;
}

// The command: a table by default, JSON with --json; exit 0 when clean.
TEST_F(StoreCheckTest, TheToolPrintsAndRepairs) {
  std::string out;
  EXPECT_EQ(0, test::RunTool("--fs_uri='" + uri_ + "' check", &out)) << out;
  EXPECT_NE(std::string::npos, out.find("clean: no findings")) << out;
  ASSERT_TRUE(CreateFileIfMissing(DataPath(1, 0xdead)).ok());
  EXPECT_EQ(1, test::RunTool("--fs_uri='" + uri_ + "' --json check", &out)) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_FALSE(j["clean"].get<bool>());
  ASSERT_EQ(1u, j["findings"].size());
  EXPECT_EQ("orphan_file", j["findings"][0]["kind"]);
  EXPECT_EQ(0, test::RunTool("--fs_uri='" + uri_ + "' check --repair", &out)) << out;
  EXPECT_NE(std::string::npos, out.find("fixed: deleted")) << out;
  EXPECT_NE(std::string::npos, out.find("after repair: clean")) << out;
}

}  // namespace
}  // namespace tierfs
