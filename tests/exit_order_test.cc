// Hosts that end with a TierFS store still open, run as child processes
// (tests/exit_child.cc): one keeps its Env in a static, one never deletes its
// database, one calls exit() from a second thread while the main thread
// writes. Each must exit 0; its keys read back at the next open; STATS is
// saved and says at which save point (env/store_close.cc); and the next
// open's LOG says what the saved statistics miss, including for a host that
// was killed and could save nothing.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"
#include "tierfs/db.h"

namespace tierfs {
namespace {

using nlohmann::json;

constexpr long kKeys = 20000;

class ExitOrderTest : public ::testing::Test {
 protected:
  ExitOrderTest() : dir_("exit_order"), uri_(test::MakeUri(dir_, {"64M", "1G"})) {}

  std::string Meta() const { return dir_.path() + "/tier0/meta"; }

  // Runs exit_child MODE with `keys`; its stdout in *out. With kill_after_ms
  // >= 0, SIGKILLs it that long after its store opened (a new "open:" line
  // in the LOG). Returns the wait status.
  int RunChild(const std::string& mode, long keys, std::string* out, int kill_after_ms = -1) {
    // "dlopen": dlopen_child, which loads libtierfs itself.
    const bool dl = mode == "dlopen";
    const std::string exe =
        std::string(TIERFS_BUILD_DIR) + (dl ? "/tests/dlopen_child" : "/tests/exit_child");
    const std::string first = dl ? std::string(TIERFS_BUILD_DIR) + "/libtierfs.so" : mode;
    const std::string keys_arg = std::to_string(keys);
    const size_t opens_before = OpenLines();
    int pipefd[2];
    if (pipe(pipefd) != 0) abort();
    pid_t pid = fork();
    if (pid == 0) {
      dup2(pipefd[1], 1);
      close(pipefd[0]);
      close(pipefd[1]);
      execl(exe.c_str(), exe.c_str(), first.c_str(), uri_.c_str(), "/db", keys_arg.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(pipefd[1]);
    if (kill_after_ms >= 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (OpenLines() == opens_before && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms));
      kill(pid, SIGKILL);
    }
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) out->append(buf, size_t(n));
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }

  // Runs exit_child MODE with kKeys and expects it to exit 0 (not by a
  // signal); its stdout in *out.
  void RunToCleanExit(const std::string& mode, std::string* out) {
    const int status = RunChild(mode, kKeys, out);
    ASSERT_TRUE(WIFEXITED(status)) << "signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(0, WEXITSTATUS(status));
  }

  // The LOG's lines of a clean save with POSIX calls at `point` ("exit",
  // "close").
  size_t PosixSaves(const std::string& point) const {
    return LogLines(point + " (saved with POSIX calls): errors over the store's life: none").size();
  }

  size_t OpenLines() const {
    size_t n = 0;
    for (const std::string& line : test::ReadLines(Meta() + "/LOG")) {
      n += line.find(" open: journal generation ") != std::string::npos;
    }
    return n;
  }

  // The LOG's lines containing `text`.
  std::vector<std::string> LogLines(const std::string& text) const {
    std::vector<std::string> found;
    for (const std::string& line : test::ReadLines(Meta() + "/LOG")) {
      if (line.find(text) != std::string::npos) found.push_back(line);
    }
    return found;
  }
  std::string Log() const {
    std::string all;
    for (const std::string& line : test::ReadLines(Meta() + "/LOG")) all += line + "\n";
    return all;
  }

  json Stats() const {
    std::ifstream in(Meta() + "/STATS");
    return json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  static uint64_t WrittenBytes(const json& stats) {
    uint64_t total = 0;
    for (const json& tier : stats["tiers"]) total += tier.value("write_bytes", uint64_t(0));
    return total;
  }

  // Opens the database again and checks keys [0, keys); closes it.
  void ExpectKeys(long keys) {
    std::unique_ptr<TierDB> db;
    rocksdb::Options options;
    ASSERT_TRUE(OpenDB(uri_, options, "/db", &db).ok());
    long wrong = 0;
    std::string first_wrong;
    for (long i = 0; i < keys; ++i) {
      std::string value;
      rocksdb::Status s = db->db->Get(rocksdb::ReadOptions(), "key" + std::to_string(i), &value);
      if (!s.ok() || value != "value" + std::to_string(i)) {
        if (wrong++ == 0) first_wrong = "key" + std::to_string(i) + ": " + s.ToString();
      }
    }
    EXPECT_EQ(0, wrong) << "first: " << first_wrong;
    MigrationInfo info;
    ASSERT_TRUE(GetMigrationInfo(db->fs.get(), &info).ok());
    policy_state_ = info.policy_state;
    ASSERT_TRUE(db->Close().ok());
  }

  test::ScratchDir dir_;
  std::string uri_;
  // What the last ExpectKeys's store said of the policy's saved state
  // (MigrationInfo::policy_state).
  std::string policy_state_;
};

TEST_F(ExitOrderTest, HostKeepingItsEnvInAStaticExitsCleanlyAndSaves) {
  std::string out;
  ASSERT_NO_FATAL_FAILURE(RunToCleanExit("static-env", &out));
  // Saved once through RocksDB's file system when the database closed, and
  // again by the store's destructor during static destruction, with POSIX.
  EXPECT_EQ(1u, LogLines("last database closed: errors over the store's life: none").size())
      << Log();
  EXPECT_EQ(1u, PosixSaves("close")) << Log();
  const json stats = Stats();
  EXPECT_EQ("close", stats.value("saved_at", "")) << stats.dump();
  EXPECT_EQ(1u, stats.value("generation", uint64_t(0)));
  EXPECT_GT(WrittenBytes(stats), uint64_t(kKeys) * 10);
  ExpectKeys(kKeys);
  // Nothing missing: the next open has nothing to say about the statistics.
  EXPECT_TRUE(LogLines("open: the statistics are from").empty()) << Log();
  EXPECT_TRUE(LogLines("open: no statistics saved").empty()) << Log();
}

TEST_F(ExitOrderTest, HostThatNeverDeletesItsDatabaseIsSavedAtExit) {
  std::string out;
  ASSERT_NO_FATAL_FAILURE(RunToCleanExit("leak-db", &out));
  // The store is never destroyed: only the exit handler saves it.
  EXPECT_EQ(1u, PosixSaves("exit")) << Log();
  const json stats = Stats();
  EXPECT_EQ("exit", stats.value("saved_at", "")) << stats.dump();
  EXPECT_GT(WrittenBytes(stats), uint64_t(kKeys) * 10);
  ExpectKeys(kKeys);
  EXPECT_EQ(1u, LogLines("open: the statistics are from the save at exit in journal generation "
                         "1, taken when the process exited with the store open")
                    .size())
      << Log();
}

TEST_F(ExitOrderTest, ExitFromAnotherThreadWhileWritingExitsCleanlyAndSaves) {
  // Small segments: the WAL being written places new ones during the exit.
  uri_ += ";segment_size:64K";
  std::string out;
  ASSERT_NO_FATAL_FAILURE(RunToCleanExit("exit-thread", &out));
  long acked = 0;
  ASSERT_EQ(1, sscanf(out.c_str(), "acked %ld", &acked)) << out;
  EXPECT_GE(acked, kKeys);
  EXPECT_EQ(1u, PosixSaves("exit")) << Log();
  EXPECT_EQ("exit", Stats().value("saved_at", ""));
  ExpectKeys(acked);
}

// A learning policy trains on a LibTorch thread: at exit it is stopped before
// LibTorch's statics go, and its weights are saved and offered back.
TEST_F(ExitOrderTest, LearningPolicyIsStoppedAndSavedAtExit) {
  uri_ += ";policy:harmonia";
  std::string out;
  ASSERT_NO_FATAL_FAILURE(RunToCleanExit("leak-db", &out));
  EXPECT_EQ(1u, PosixSaves("exit")) << Log();
  ExpectKeys(kKeys);
  EXPECT_EQ("loaded from " + Meta() + "/AGENTS", policy_state_);
}

// A host that loads the plugin with dlopen and unloads it with dlclose after
// closing its database: dlclose leaves libtierfs mapped (-z nodelete: RocksDB's
// registry keeps its factory), the URI opens the store again afterwards, the
// process exits 0, and the close saved the statistics.
TEST_F(ExitOrderTest, HostThatDlclosesThePluginExitsCleanlyAndSaves) {
  std::string out;
  RunToCleanExit("dlopen", &out);
  EXPECT_NE(out.find("mapped after dlclose: yes"), std::string::npos) << out;
  EXPECT_NE(out.find("reopened after dlclose"), std::string::npos) << out;
  const json stats = Stats();
  ASSERT_TRUE(stats.is_object()) << "STATS unreadable";
  EXPECT_GT(WrittenBytes(stats), 0u);
  ExpectKeys(kKeys);
}

TEST_F(ExitOrderTest, KilledHostIsNamedByTheNextOpen) {
  std::string out;
  int status = RunChild("static-env", 1000, &out);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // Runs generation 2 and is killed: it cannot save anything.
  status = RunChild("static-env", 1000000000, &out, /*kill_after_ms=*/200);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(1u, Stats().value("generation", uint64_t(0)));
  ExpectKeys(1000);
  EXPECT_EQ(1u, LogLines("open: the statistics are from the save at close in journal generation "
                         "1; the store ran to generation 2 and was not saved after (the process "
                         "was killed, or crashed)")
                    .size())
      << Log();
}

TEST_F(ExitOrderTest, StoreKilledBeforeItsFirstSaveIsNamedByTheNextOpen) {
  std::string out;
  const int status = RunChild("static-env", 1000000000, &out, /*kill_after_ms=*/100);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ExpectKeys(0);
  EXPECT_EQ(1u, LogLines("open: no statistics saved: the store was never saved since it was "
                         "created")
                    .size())
      << Log();
}

}  // namespace
}  // namespace tierfs
