// The info log alone (env/info_log.h): one whole line per message from many
// threads, a timestamp on each, the size bound with its one rotation, and a
// log that cannot be written saying so.
#include "env/info_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/test_util.h"

namespace tierfs {
namespace {

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

TEST(InfoLogTest, OneTimestampedLinePerMessageFromManyThreads) {
  test::ScratchDir dir("info_log");
  const std::string path = dir.path() + "/LOG";
  {
    InfoLog log(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&log, t] {
        for (int i = 0; i < 500; ++i) EXPECT_TRUE(log.Log("thread %d message %d\nsame line", t, i));
      });
    }
    for (std::thread& th : threads) th.join();
  }
  const std::vector<std::string> lines = test::ReadLines(path);
  ASSERT_EQ(2000u, lines.size());
  const std::regex shape(
      R"(\d{4}/\d\d/\d\d-\d\d:\d\d:\d\d\.\d{6} [0-9a-f]+ thread \d message \d+ same line)");
  for (const std::string& line : lines) EXPECT_TRUE(std::regex_match(line, shape)) << line;
}

TEST(InfoLogTest, RotatesOnceToLogOldAndStaysBounded) {
  test::ScratchDir dir("info_log");
  const std::string path = dir.path() + "/LOG";
  const std::string filler(100, 'x');
  {
    InfoLog log(path, /*may_rotate=*/true, /*max_bytes=*/4096);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(log.Log("%d %s", i, filler.c_str()));
  }
  EXPECT_LE(FileSize(path), 4096u);
  EXPECT_LE(FileSize(path + ".old"), 4096u);
  EXPECT_GT(FileSize(path + ".old"), 2048u);
  // The newest line is the last of LOG; LOG.old ends where LOG begins.
  const std::vector<std::string> now = test::ReadLines(path);
  const std::vector<std::string> old = test::ReadLines(path + ".old");
  ASSERT_FALSE(now.empty());
  ASSERT_FALSE(old.empty());
  EXPECT_NE(std::string::npos, now.back().find(" 999 " + filler));
  auto number = [](const std::string& line) {
    std::istringstream in(line);
    std::string date, thread;
    int n = -1;
    in >> date >> thread >> n;
    return n;
  };
  EXPECT_EQ(number(old.back()) + 1, number(now.front()));
}

TEST(InfoLogTest, AReaderNeverRotatesAndAppendsToTheSameFile) {
  test::ScratchDir dir("info_log");
  const std::string path = dir.path() + "/LOG";
  InfoLog writer(path, true, 1 << 20);
  InfoLog reader(path, /*may_rotate=*/false, /*max_bytes=*/64);
  ASSERT_TRUE(writer.Log("from the writer"));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(reader.Log("from the reader %d", i));
  ASSERT_TRUE(writer.Log("the writer again"));
  EXPECT_NE(0, access((path + ".old").c_str(), F_OK));
  const std::vector<std::string> lines = test::ReadLines(path);
  ASSERT_EQ(12u, lines.size());
  EXPECT_NE(std::string::npos, lines.front().find("from the writer"));
  EXPECT_NE(std::string::npos, lines.back().find("the writer again"));
}

TEST(InfoLogTest, ALogThatCannotBeWrittenSaysSo) {
  test::ScratchDir dir("info_log");
  InfoLog log(dir.path() + "/no-such-dir/LOG");
  EXPECT_FALSE(log.Log("nowhere to go"));
}

TEST(InfoLogTest, ALongMessageIsCutNotSplit) {
  test::ScratchDir dir("info_log");
  const std::string path = dir.path() + "/LOG";
  {
    InfoLog log(path);
    ASSERT_TRUE(log.Log("%s", std::string(10000, 'y').c_str()));
    ASSERT_TRUE(log.Log("next"));
  }
  const std::vector<std::string> lines = test::ReadLines(path);
  ASSERT_EQ(2u, lines.size());
  EXPECT_LT(lines[0].size(), 4200u);
  EXPECT_NE(std::string::npos, lines[1].find("next"));
}

}  // namespace
}  // namespace tierfs
