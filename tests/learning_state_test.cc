// A learning policy's weights kept with the store: saved at a clean close in
// <tier 0>/meta/AGENTS, loaded at open; a damaged file costs the warm start,
// never the open.
#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>

#include "tests/test_util.h"

namespace tierfs {
namespace {

// Writes a few MiB through `fs` so the placement agent has decisions to learn.
void Write(rocksdb::FileSystem* fs, const std::string& name) {
  std::unique_ptr<rocksdb::FSWritableFile> f;
  ASSERT_TRUE(fs->NewWritableFile(name, {}, &f, nullptr).ok());
  const std::string block = test::RandomBytes(64 << 10, 7);
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(f->Append(block, {}, nullptr).ok());
  ASSERT_TRUE(f->Close({}, nullptr).ok());
}

std::string PolicyState(const rocksdb::FileSystem* fs) {
  MigrationInfo info;
  EXPECT_TRUE(GetMigrationInfo(fs, &info).ok());
  return info.policy_state;
}

TEST(LearningStateTest, WeightsAreSavedAtCloseAndLoadedAtOpen) {
  test::ScratchDir dir("learning_state");
  const std::string uri = test::MakeUri(dir, {"2M", "64M"}, ";segment_size:64K;policy:harmonia");
  const std::string agents = dir.path() + "/tier0/meta/AGENTS";
  {
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
    EXPECT_EQ("none saved", PolicyState(fs.get()));
    Write(fs.get(), "/db/000001.sst");
  }
  struct stat st;
  ASSERT_EQ(0, stat(agents.c_str(), &st)) << "no " << agents;
  EXPECT_GT(st.st_size, 1000);
  {
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
    EXPECT_EQ("loaded from " + agents, PolicyState(fs.get()));
  }

  // Damaged: the store opens, the policy starts untrained and says why.
  {
    std::fstream f(agents, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(st.st_size / 2);
    f.put('\x55');
  }
  {
    test::StderrCapture capture;  // said in the store's LOG, not on stderr
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(uri, &fs).ok());
    EXPECT_EQ("", capture.Finish());
    const std::string state = PolicyState(fs.get());
    EXPECT_EQ(0u, state.rfind("refused", 0)) << state;
    EXPECT_NE(std::string::npos, state.find("checksum")) << state;
    bool logged = false;
    for (const std::string& line : test::ReadLines(dir.path() + "/tier0/meta/LOG")) {
      logged |= line.find(state + "; policy harmonia starts untrained") != std::string::npos;
    }
    EXPECT_TRUE(logged) << state;
    Write(fs.get(), "/db/000002.sst");
  }
  // Another policy's state is refused by name.
  {
    std::shared_ptr<rocksdb::FileSystem> fs;
    ASSERT_TRUE(NewTierFileSystem(test::MakeUri(dir, {"2M", "64M"}, ";segment_size:64K;policy:sibyl"),
                                  &fs)
                    .ok());
    const std::string state = PolicyState(fs.get());
    EXPECT_NE(std::string::npos, state.find("harmonia's, not sibyl's")) << state;
  }
}

}  // namespace
}  // namespace tierfs
