// Tests of the segment map's namespace (env/namespace.h): names, hard links,
// directories, replay of journal records and snapshots.
#include "env/namespace.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

using Names = std::vector<std::string>;

Names Sorted(Names v) {
  std::sort(v.begin(), v.end());
  return v;
}

void SetTier(FileEntry* e, uint64_t segment, uint8_t tier) {
  WriterLock lock(&e->mu);
  e->segments.Set(segment, tier, 0);
}

uint8_t TierOf(const FileEntry& e, uint64_t segment) {
  ReaderLock lock(&e.mu);
  return e.TierOf(segment);
}

TEST(NamespaceTest, ParentOfAPath) {
  EXPECT_EQ(Namespace::Parent("/db/sub/000001.sst"), "/db/sub");
  EXPECT_EQ(Namespace::Parent("/db"), "/");
  EXPECT_EQ(Namespace::Parent("/"), "/");
  EXPECT_EQ(Namespace::Parent("relative"), "/");
}

TEST(NamespaceTest, RootExistsAndIsEmpty) {
  Namespace ns;
  EXPECT_TRUE(ns.IsDir("/"));
  EXPECT_FALSE(ns.HasChildren("/"));
  EXPECT_TRUE(ns.Children("/").empty());
  EXPECT_TRUE(ns.files().empty());
}

TEST(NamespaceTest, BindMakesParentsDirectories) {
  Namespace ns;
  EXPECT_EQ(ns.Bind("/db/sub/000001.sst", 1, FileKind::kSst), nullptr);
  EXPECT_TRUE(ns.IsDir("/db"));
  EXPECT_TRUE(ns.IsDir("/db/sub"));
  EXPECT_FALSE(ns.IsDir("/db/sub/000001.sst"));
  std::shared_ptr<FileEntry> e = ns.Find("/db/sub/000001.sst");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->id, 1u);
  EXPECT_EQ(e->kind, FileKind::kSst);
  EXPECT_EQ(e->links, 1);
  EXPECT_EQ(ns.FindId(1), e);
  EXPECT_EQ(ns.Find("/db/sub"), nullptr);  // a directory is not a file
}

TEST(NamespaceTest, MkdirMakesParentsAndRmdirRemovesOne) {
  Namespace ns;
  ns.Mkdir("/a/b/c");
  EXPECT_TRUE(ns.IsDir("/a"));
  EXPECT_TRUE(ns.IsDir("/a/b"));
  EXPECT_TRUE(ns.IsDir("/a/b/c"));
  EXPECT_FALSE(ns.IsDir("/a/b/c/d"));
  ns.Rmdir("/a/b/c");
  EXPECT_FALSE(ns.IsDir("/a/b/c"));
  EXPECT_TRUE(ns.IsDir("/a/b"));
  ns.Rmdir("/");
  EXPECT_TRUE(ns.IsDir("/"));  // the root cannot go
}

TEST(NamespaceTest, NewIdIsAboveEveryBoundId) {
  Namespace ns;
  uint64_t first = ns.NewId();
  EXPECT_NE(ns.NewId(), first);
  ns.Bind("/f", 100, FileKind::kOther);
  EXPECT_GT(ns.NewId(), 100u);
}

class NamespaceTreeTest : public ::testing::Test {
 protected:
  NamespaceTreeTest() {
    ns_.Bind("/db/a", 1, FileKind::kSst);
    ns_.Bind("/db/b", 2, FileKind::kWal);
    ns_.Bind("/db/sub/c", 3, FileKind::kOther);
    ns_.Bind("/db/sub/deeper/d", 4, FileKind::kOther);
    ns_.Mkdir("/db/empty");
    ns_.Bind("/db2/x", 5, FileKind::kOther);  // shares the "/db" prefix
    ns_.Bind("/dbfile", 6, FileKind::kOther);
  }
  Namespace ns_;
};

TEST_F(NamespaceTreeTest, ChildrenListsEachDirectEntryOnce) {
  EXPECT_EQ(Sorted(ns_.Children("/db")), (Names{"a", "b", "empty", "sub"}));
  EXPECT_EQ(Sorted(ns_.Children("/db/sub")), (Names{"c", "deeper"}));
  EXPECT_EQ(Sorted(ns_.Children("/db/sub/deeper")), (Names{"d"}));
  EXPECT_EQ(Sorted(ns_.Children("/")), (Names{"db", "db2", "dbfile"}));
  EXPECT_TRUE(ns_.Children("/db/empty").empty());
}

TEST_F(NamespaceTreeTest, ChildrenOfADirectoryWithExplicitAndImplicitParents) {
  // "/db/sub" exists both because files are under it and because of Mkdir.
  ns_.Mkdir("/db/sub");
  ns_.Mkdir("/db/sub/deeper/deepest");
  EXPECT_EQ(Sorted(ns_.Children("/db")), (Names{"a", "b", "empty", "sub"}));
  EXPECT_EQ(Sorted(ns_.Children("/db/sub/deeper")), (Names{"d", "deepest"}));
}

TEST_F(NamespaceTreeTest, HasChildren) {
  EXPECT_TRUE(ns_.HasChildren("/"));
  EXPECT_TRUE(ns_.HasChildren("/db"));
  EXPECT_TRUE(ns_.HasChildren("/db/sub/deeper"));
  EXPECT_FALSE(ns_.HasChildren("/db/empty"));
  ns_.Mkdir("/db/empty/only-a-dir");
  EXPECT_TRUE(ns_.HasChildren("/db/empty"));
  ns_.Mkdir("/lonely");
  ns_.Mkdir("/lonely2/x");  // a sibling with a common prefix is not a child
  ns_.Bind("/lonely3", 9, FileKind::kOther);
  EXPECT_FALSE(ns_.HasChildren("/lonely"));
}

TEST_F(NamespaceTreeTest, FilesUnderIsRecursiveAndStopsAtTheDirectory) {
  Names names;
  for (const auto& [name, entry] : ns_.FilesUnder("/db")) {
    names.push_back(name);
    EXPECT_EQ(ns_.Find(name), entry);
  }
  EXPECT_EQ(Sorted(names), (Names{"/db/a", "/db/b", "/db/sub/c", "/db/sub/deeper/d"}));
  EXPECT_EQ(ns_.FilesUnder("/db/empty").size(), 0u);
  EXPECT_EQ(ns_.FilesUnder("/").size(), 6u);
}

TEST(NamespaceTest, UnbindReturnsTheFileOnlyWithItsLastName) {
  Namespace ns;
  ns.Bind("/a", 5, FileKind::kSst);
  EXPECT_EQ(ns.Bind("/dir/b", 5, FileKind::kSst), nullptr);  // hard link
  std::shared_ptr<FileEntry> e = ns.Find("/a");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(ns.Find("/dir/b"), e);
  EXPECT_EQ(e->links, 2);
  EXPECT_EQ(ns.files().size(), 1u);

  EXPECT_EQ(ns.Unbind("/a"), nullptr);
  EXPECT_EQ(ns.Find("/a"), nullptr);
  EXPECT_EQ(ns.Find("/dir/b"), e);
  EXPECT_EQ(ns.FindId(5), e);
  EXPECT_EQ(e->links, 1);

  EXPECT_EQ(ns.Unbind("/dir/b"), e);
  EXPECT_EQ(ns.FindId(5), nullptr);
  EXPECT_EQ(e->links, 0);
  EXPECT_TRUE(ns.files().empty());
}

TEST(NamespaceTest, UnbindOfMissingNameReturnsNothing) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  EXPECT_EQ(ns.Unbind("/b"), nullptr);
  EXPECT_NE(ns.Find("/a"), nullptr);
}

TEST(NamespaceTest, BindOverAnotherFileReturnsTheReplacedFile) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  std::shared_ptr<FileEntry> replaced = ns.Bind("/a", 2, FileKind::kOther);
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(replaced->id, 1u);
  EXPECT_EQ(ns.Find("/a")->id, 2u);
  EXPECT_EQ(ns.FindId(1), nullptr);
}

TEST(NamespaceTest, BindOverAHardLinkedFileReplacesNothing) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  ns.Bind("/b", 1, FileKind::kOther);
  EXPECT_EQ(ns.Bind("/a", 2, FileKind::kOther), nullptr);
  EXPECT_EQ(ns.Find("/b")->id, 1u);
  EXPECT_EQ(ns.Find("/b")->links, 1);
}

// Binding a name to the file it already names changes nothing: no file lost
// its last name, and the file stays findable by id.
TEST(NamespaceTest, BindOfANameToItsOwnFileIsANoOp) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kSst);
  std::shared_ptr<FileEntry> e = ns.Find("/a");
  EXPECT_EQ(ns.Bind("/a", 1, FileKind::kSst), nullptr);
  EXPECT_EQ(ns.Find("/a"), e);
  EXPECT_EQ(ns.FindId(1), e);
  EXPECT_EQ(e->links, 1);
}

TEST(NamespaceTest, RenameMovesTheBinding) {
  Namespace ns;
  ns.Bind("/db/000005.dbtmp", 1, FileKind::kTemp);
  std::shared_ptr<FileEntry> e = ns.Find("/db/000005.dbtmp");
  EXPECT_EQ(ns.Rename("/db/000005.dbtmp", "/other/CURRENT"), nullptr);
  EXPECT_EQ(ns.Find("/db/000005.dbtmp"), nullptr);
  EXPECT_EQ(ns.Find("/other/CURRENT"), e);
  EXPECT_TRUE(ns.IsDir("/other"));
  EXPECT_EQ(ns.FindId(1), e);
  EXPECT_EQ(e->links, 1);
}

TEST(NamespaceTest, RenameOverAnotherFileReturnsTheReplacedFile) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  ns.Bind("/b", 2, FileKind::kOther);
  std::shared_ptr<FileEntry> replaced = ns.Rename("/a", "/b");
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(replaced->id, 2u);
  EXPECT_EQ(ns.Find("/a"), nullptr);
  EXPECT_EQ(ns.Find("/b")->id, 1u);
  EXPECT_EQ(ns.FindId(2), nullptr);
  EXPECT_NE(ns.FindId(1), nullptr);
  EXPECT_EQ(ns.files().size(), 1u);
}

TEST(NamespaceTest, RenameOverAHardLinkedFileReplacesNothing) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  ns.Bind("/b", 2, FileKind::kOther);
  ns.Bind("/c", 2, FileKind::kOther);
  EXPECT_EQ(ns.Rename("/a", "/b"), nullptr);
  EXPECT_EQ(ns.Find("/b")->id, 1u);
  EXPECT_EQ(ns.Find("/c")->id, 2u);
  EXPECT_EQ(ns.Find("/c")->links, 1);
}

TEST(NamespaceTest, RenameOntoAnotherNameOfTheSameFileIsANoOp) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  ns.Bind("/b", 1, FileKind::kOther);
  EXPECT_EQ(ns.Rename("/a", "/b"), nullptr);
  ASSERT_NE(ns.Find("/a"), nullptr);
  ASSERT_NE(ns.Find("/b"), nullptr);
  EXPECT_EQ(ns.Find("/a"), ns.Find("/b"));
  EXPECT_EQ(ns.Find("/a")->links, 2);
  EXPECT_NE(ns.FindId(1), nullptr);
}

TEST(NamespaceTest, RenameOntoItselfIsANoOp) {
  Namespace ns;
  ns.Bind("/a", 1, FileKind::kOther);
  EXPECT_EQ(ns.Rename("/a", "/a"), nullptr);
  ASSERT_NE(ns.Find("/a"), nullptr);
  EXPECT_EQ(ns.Find("/a")->links, 1);
  EXPECT_NE(ns.FindId(1), nullptr);
}

TEST(NamespaceTest, ApplyReplaysEveryRecordType) {
  Namespace ns;
  ASSERT_TRUE(ns.Apply(JournalRecord::Mkdir("/db/archive")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Bind(4, FileKind::kWal, "/db/000004.log")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Segment(4, 2, 1)).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Rename("/db/000004.log", "/db/archive/000004.log")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Bind(5, FileKind::kSst, "/db/000005.sst")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Unbind("/db/000005.sst")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Mkdir("/db/tmp")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Rmdir("/db/tmp")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::End(8)).ok());

  EXPECT_TRUE(ns.IsDir("/db/archive"));
  EXPECT_FALSE(ns.IsDir("/db/tmp"));
  EXPECT_EQ(ns.Find("/db/000004.log"), nullptr);
  EXPECT_EQ(ns.Find("/db/000005.sst"), nullptr);
  EXPECT_EQ(ns.FindId(5), nullptr);
  std::shared_ptr<FileEntry> e = ns.Find("/db/archive/000004.log");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->kind, FileKind::kWal);
  // Segment 2 placed; 0 and 1 padded as nowhere.
  EXPECT_EQ(TierOf(*e, 0), kNoTier);
  EXPECT_EQ(TierOf(*e, 1), kNoTier);
  EXPECT_EQ(TierOf(*e, 2), 1);
  EXPECT_EQ(TierOf(*e, 3), kNoTier);
  ASSERT_TRUE(ns.Apply(JournalRecord::Segment(4, 2, kNoTier)).ok());
  EXPECT_EQ(TierOf(*e, 2), kNoTier);
}

TEST(NamespaceTest, ApplyOfRecordsAboutMissingFilesIsCorruption) {
  Namespace ns;
  ns.Bind("/present", 1, FileKind::kOther);

  // A segment placed by a writer after the file's last name went: ignored
  // (the data is an orphan), not a reason to refuse the store.
  rocksdb::Status s = ns.Apply(JournalRecord::Segment(77, 0, 1));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(nullptr, ns.FindId(77));

  s = ns.Apply(JournalRecord::Unbind("/missing"));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("/missing"), std::string::npos) << s.ToString();

  s = ns.Apply(JournalRecord::Rename("/gone", "/present"));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("/gone"), std::string::npos) << s.ToString();
  // The failed rename touched nothing.
  ASSERT_NE(ns.Find("/present"), nullptr);
  EXPECT_EQ(ns.Find("/present")->id, 1u);
}

// The store removes only empty directories, so a journal that removes one
// with names under it is damaged. Replayed, it made a state whose snapshot
// rebuilt the directory (binding the names under it makes their parents):
// the journal fuzzer's round-trip finding.
TEST(NamespaceTest, ApplyOfRmdirOfANonEmptyDirectoryIsCorruption) {
  Namespace ns;
  ASSERT_TRUE(ns.Apply(JournalRecord::Mkdir("/fuzz/db")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Bind(1, FileKind::kSst, "/fuzz/db/000001.sst")).ok());
  rocksdb::Status s = ns.Apply(JournalRecord::Rmdir("/fuzz/db"));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("Rmdir '/fuzz/db'"), std::string::npos) << s.ToString();
  EXPECT_TRUE(ns.IsDir("/fuzz/db"));

  // A directory under it counts, including one Mkdir'd with a trailing slash
  // (its parent is the directory without it).
  ASSERT_TRUE(ns.Apply(JournalRecord::Mkdir("/a/b")).ok());
  EXPECT_TRUE(ns.Apply(JournalRecord::Rmdir("/a")).IsCorruption());
  ASSERT_TRUE(ns.Apply(JournalRecord::Mkdir("/c/")).ok());
  EXPECT_TRUE(ns.Apply(JournalRecord::Rmdir("/c")).IsCorruption());

  // Emptied first, it goes.
  ASSERT_TRUE(ns.Apply(JournalRecord::Unbind("/fuzz/db/000001.sst")).ok());
  ASSERT_TRUE(ns.Apply(JournalRecord::Rmdir("/fuzz/db")).ok());
  EXPECT_FALSE(ns.IsDir("/fuzz/db"));

  // What was accepted rebuilds from its snapshot.
  Namespace copy;
  for (const JournalRecord& r : ns.SnapshotRecords()) ASSERT_TRUE(copy.Apply(r).ok());
  for (const char* d : {"/fuzz", "/a", "/a/b", "/c", "/c/"}) EXPECT_TRUE(copy.IsDir(d)) << d;
  EXPECT_FALSE(copy.IsDir("/fuzz/db"));
}

TEST(NamespaceTest, SnapshotRecordsRebuildTheSameState) {
  Namespace ns;
  ns.Mkdir("/db/empty/nested");
  ns.Bind("/db/000001.sst", 1, FileKind::kSst);
  ns.Bind("/db/000002.log", 2, FileKind::kWal);
  ns.Bind("/backup/000001.sst", 1, FileKind::kSst);  // hard link
  ns.Bind("/db/MANIFEST-000003", 3, FileKind::kManifest);
  ns.Bind("/db/gone", 9, FileKind::kOther);
  ns.Unbind("/db/gone");
  SetTier(ns.FindId(1).get(), 0, 0);
  SetTier(ns.FindId(1).get(), 1, 2);
  SetTier(ns.FindId(1).get(), 3, 1);  // segment 2 nowhere
  SetTier(ns.FindId(2).get(), 0, kNoTier);
  SetTier(ns.FindId(3).get(), 0, 7);

  Namespace copy;
  for (const JournalRecord& r : ns.SnapshotRecords()) {
    ASSERT_TRUE(copy.Apply(r).ok());
  }

  auto names = ns.FilesUnder("/");
  auto copied = copy.FilesUnder("/");
  ASSERT_EQ(copied.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i].first);
    EXPECT_EQ(copied[i].first, names[i].first);
    EXPECT_EQ(copied[i].second->id, names[i].second->id);
    EXPECT_EQ(copied[i].second->kind, names[i].second->kind);
    EXPECT_EQ(copied[i].second->links, names[i].second->links);
    for (uint64_t s = 0; s < 5; ++s) {
      EXPECT_EQ(TierOf(*copied[i].second, s), TierOf(*names[i].second, s)) << "segment " << s;
    }
  }
  EXPECT_EQ(copy.Find("/db/000001.sst"), copy.Find("/backup/000001.sst"));
  EXPECT_EQ(copy.files().size(), ns.files().size());
  EXPECT_EQ(copy.FindId(9), nullptr);
  for (const char* d : {"/", "/db", "/db/empty", "/db/empty/nested", "/backup"}) {
    EXPECT_TRUE(copy.IsDir(d)) << d;
  }
  EXPECT_EQ(Sorted(copy.Children("/")), Sorted(ns.Children("/")));
  EXPECT_EQ(Sorted(copy.Children("/db")), Sorted(ns.Children("/db")));
  EXPECT_GT(copy.NewId(), 3u);
}

TEST(NamespaceTest, SnapshotOfAnEmptyNamespaceIsEmpty) {
  Namespace ns;
  EXPECT_TRUE(ns.SnapshotRecords().empty());
}

}  // namespace
}  // namespace tierfs
