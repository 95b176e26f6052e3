// Crash test: a child process writes with synced Puts while this process kills
// it with SIGKILL at random moments, many times. After each kill the database
// is reopened here: every key the child acknowledged must read back, and the
// database must verify. TIERFS_CRASH_ITERATIONS sets the number of kills
// (default 30; tests/crash_long.sh runs hundreds).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>

#include "db/open.h"
#include "env/tier_fs.h"
#include "tests/crash_keys.h"
#include "tests/test_util.h"

namespace tierfs {
namespace {

// Runs the child until `run_ms` passed, kills it, and returns the last key it
// acknowledged (first - 1 if none).
long RunAndKill(const std::string& uri, long first, int run_ms, bool* child_failed) {
  int pipefd[2];
  if (pipe(pipefd) != 0) abort();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 1);
    close(pipefd[0]);
    close(pipefd[1]);
    std::string exe = std::string(TIERFS_BUILD_DIR) + "/tests/crash_writer";
    std::string first_s = std::to_string(first);
    execl(exe.c_str(), exe.c_str(), uri.c_str(), "/db", first_s.c_str(), (char*)nullptr);
    _exit(127);
  }
  close(pipefd[1]);
  fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
  long last = first - 1;
  std::string pending;
  auto read_lines = [&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) {
      pending.append(buf, size_t(n));
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        last = std::stol(pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
    }
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(run_ms);
  int status = 0;
  bool exited = false;
  while (std::chrono::steady_clock::now() < deadline) {
    read_lines();
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    usleep(1000);
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  read_lines();  // what it printed before dying was acknowledged
  close(pipefd[0]);
  *child_failed = exited;  // the child never exits by itself
  return last;
}

// Kills the writer `iterations` times at random moments; after each kill,
// reopens and checks every acknowledged key.
void KillAndVerify(const std::string& uri, int iterations, bool expect_slow_tier) {
  std::mt19937 rng(uint32_t(time(nullptr)));
  long next = 0;
  long max_acked = -1;
  bool used_slow_tier = false;
  for (int iter = 0; iter < iterations; ++iter) {
    // Mostly mid-run kills, some during open and recovery.
    int run_ms = iter % 4 == 0 ? 5 + int(rng() % 60) : 100 + int(rng() % 500);
    bool child_failed = false;
    long acked = RunAndKill(uri, next, run_ms, &child_failed);
    ASSERT_FALSE(child_failed) << "the writer exited by itself in iteration " << iter;
    max_acked = std::max(max_acked, acked);

    std::unique_ptr<TierDB> db;
    rocksdb::Status s = OpenDB(uri, test::CrashDBOptions(), "/db", &db);
    ASSERT_TRUE(s.ok()) << "iteration " << iter << ": " << s.ToString();
    ASSERT_TRUE(db->db->VerifyChecksum().ok()) << "iteration " << iter;
    for (long i = 0; i <= max_acked; ++i) {
      std::string v;
      s = db->db->Get(rocksdb::ReadOptions(), test::CrashKey(i), &v);
      ASSERT_TRUE(s.ok()) << "iteration " << iter << ": acknowledged key " << i << " of "
                          << max_acked << " lost: " << s.ToString();
      ASSERT_EQ(test::CrashValue(i), v) << "iteration " << iter << " key " << i;
    }
    std::vector<FileInfo> files;
    ASSERT_TRUE(ListFiles(db->fs.get(), "/db", &files).ok());
    for (const FileInfo& f : files) used_slow_tier |= f.segments_per_tier[1] > 0;
    next = max_acked + 1;
  }
  EXPECT_GT(max_acked, 1000) << "the writer made too little progress to test anything";
  if (expect_slow_tier) {
    EXPECT_TRUE(used_slow_tier) << "no segment ever reached the slow tier";
  }
  printf("crash test: %d kills, %ld acknowledged keys verified\n", iterations, max_acked + 1);
}

int Iterations(int fallback) {
  const char* env = getenv("TIERFS_CRASH_ITERATIONS");
  return env ? atoi(env) : fallback;
}

TEST(CrashTest, SyncedWritesSurviveSigkillAtAnyMoment) {
  test::ScratchDir dir("crash");
  KillAndVerify(test::MakeUri(dir, {"1M", "256M"}, ";segment_size:64K"), Iterations(30), true);
}

// Whole-file segments on a fast tier smaller than a table file: files that
// outgrow tier 0 are relocated while being written (copy, sync, commit,
// punch), so kills land in the middle of relocations.
TEST(CrashTest, SyncedWritesSurviveSigkillDuringRelocation) {
  test::ScratchDir dir("crash-relocate");
  KillAndVerify(test::MakeUri(dir, {"512K", "256M"}, ";segment_size:whole"), Iterations(15), true);
}

}  // namespace
}  // namespace tierfs
