// Tests of RocksDB file-name classification (env/file_name.h).
#include "env/file_name.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

struct Case {
  const char* name;
  FileKind kind;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"000123.sst", FileKind::kSst},
      {"000123.ldb", FileKind::kSst},
      {"000001.log", FileKind::kWal},
      {"000001.blob", FileKind::kBlob},
      {"MANIFEST-000005", FileKind::kManifest},
      {"CURRENT", FileKind::kCurrent},
      {"IDENTITY", FileKind::kIdentity},
      {"LOCK", FileKind::kLock},
      {"LOG", FileKind::kInfoLog},
      {"LOG.old.1234", FileKind::kInfoLog},
      {"OPTIONS-000007", FileKind::kOptions},
      {"000005.dbtmp", FileKind::kTemp},
      {"foo.txt", FileKind::kOther},
      {"12a.sst", FileKind::kOther},
      {".sst", FileKind::kOther},
      {"000123.sst.bak", FileKind::kOther},
      {"000123", FileKind::kOther},
      {"MANIFEST-", FileKind::kOther},
      {"MANIFEST-00000x", FileKind::kOther},
      {"CURRENT.bak", FileKind::kOther},
      {"current", FileKind::kOther},
      {"LOGS", FileKind::kOther},
      {"", FileKind::kOther},
  };
  return cases;
}

TEST(FileNameTest, BareNames) {
  for (const Case& c : Cases()) {
    EXPECT_EQ(ClassifyFileName(c.name), c.kind)
        << "'" << c.name << "' classified as " << FileKindName(ClassifyFileName(c.name));
  }
}

TEST(FileNameTest, NamesUnderDirectories) {
  for (const char* dir : {"/", "/db/", "/var/lib/rocks/db-1/", "relative/dir/"}) {
    for (const Case& c : Cases()) {
      std::string path = std::string(dir) + c.name;
      EXPECT_EQ(ClassifyFileName(path), c.kind)
          << "'" << path << "' classified as " << FileKindName(ClassifyFileName(path));
    }
  }
}

TEST(FileNameTest, OnlyTheLastComponentCounts) {
  // Directories named like RocksDB files do not make their contents so.
  EXPECT_EQ(ClassifyFileName("/000001.sst/foo.txt"), FileKind::kOther);
  EXPECT_EQ(ClassifyFileName("/MANIFEST-000001/CURRENT"), FileKind::kCurrent);
  EXPECT_EQ(ClassifyFileName("/LOG/000009.log"), FileKind::kWal);
  EXPECT_EQ(ClassifyFileName("/db/CURRENT/"), FileKind::kOther);  // trailing slash: no name
}

TEST(FileNameTest, BulkKindsAreTheDataFiles) {
  EXPECT_TRUE(IsBulkKind(ClassifyFileName("/db/000123.sst")));
  EXPECT_TRUE(IsBulkKind(ClassifyFileName("/db/000001.log")));
  EXPECT_TRUE(IsBulkKind(ClassifyFileName("/db/000001.blob")));
  EXPECT_FALSE(IsBulkKind(ClassifyFileName("/db/MANIFEST-000005")));
  EXPECT_FALSE(IsBulkKind(ClassifyFileName("/db/LOG")));
  EXPECT_FALSE(IsBulkKind(ClassifyFileName("/db/000005.dbtmp")));
}

}  // namespace
}  // namespace tierfs
