// The admin channel lets no one else in (env/admin_access.h): its directory
// is private to the store's owner, a request file of another user's or
// writable by others is refused (logged, removed, not run), and a request
// naming a path outside the store's namespace is refused. The tests that
// give files to another user need root (chown); they skip otherwise.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "env/admin_access.h"
#include "env/admin_channel.h"
#include "tests/test_util.h"
#include "tierfs/tierfs.h"

namespace tierfs {
namespace {

using rocksdb::IOOptions;

constexpr uid_t kOtherUid = 12345;

// True once `done` holds, checked every 10 ms for up to 5 s.
bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

mode_t ModeOf(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

class AdminAccessTest : public ::testing::Test {
 protected:
  AdminAccessTest()
      : dir_("admin_access"),
        options_(test::MakeOptions(dir_, {"8M", "64M"})),
        meta_(dir_.path() + "/tier0/meta"),
        admin_(meta_ + "/admin") {}
  ~AdminAccessTest() override {
    if (fs_) Close(fs_.get()).PermitUncheckedError();
  }

  void Open() { ASSERT_TRUE(NewTierFileSystem(options_, &fs_).ok()); }

  // Creates /db/000001.sst, one segment, placed on tier 0 (fast-first).
  void WriteTableFile() {
    ASSERT_TRUE(fs_->CreateDir("/db", IOOptions(), nullptr).ok());
    std::unique_ptr<rocksdb::FSWritableFile> f;
    ASSERT_TRUE(fs_->NewWritableFile("/db/000001.sst", rocksdb::FileOptions(), &f, nullptr).ok());
    ASSERT_TRUE(f->Append(std::string(4096, 'x'), IOOptions(), nullptr).ok());
    ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  }
  // The tier of the table file's segment 0.
  int TableFileTier() {
    std::vector<SegmentReport> segments;
    EXPECT_TRUE(ListSegments(fs_.get(), "/db", &segments).ok());
    return segments.empty() ? -1 : segments[0].tier;
  }

  // Writes a request file as another process would, with `mode`.
  void WriteRequest(const std::string& name, const std::string& text, mode_t mode) {
    const std::string tmp = admin_ + "/" + name + ".tmp";
    std::ofstream(tmp) << text;
    ASSERT_EQ(0, chmod(tmp.c_str(), mode));
    ASSERT_EQ(0, rename(tmp.c_str(), (admin_ + "/" + name).c_str()));
  }

  // The LOG's lines containing `text`.
  size_t LogCount(const std::string& text) const {
    size_t n = 0;
    for (const std::string& line : test::ReadLines(meta_ + "/LOG")) {
      n += line.find(text) != std::string::npos;
    }
    return n;
  }
  std::string Log() const {
    std::string all;
    for (const std::string& line : test::ReadLines(meta_ + "/LOG")) all += line + "\n";
    return all;
  }

  // A MIGRATE of `path` to tier 1.
  static AdminRequest Migrate(const std::string& path) {
    DataOpRequest r;
    r.path = path;
    r.tier = 1;
    return r;
  }
  AdminResponse Send(const AdminRequest& req) {
    AdminResponse resp;
    rocksdb::Status s = SendAdminRequest(meta_, req, &resp, 5000);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return resp;
  }

  test::ScratchDir dir_;
  const Options options_;
  const std::string meta_, admin_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
};

TEST_F(AdminAccessTest, TheChannelDirectoryIsCreatedPrivateToTheStoresOwner) {
  Open();
  ASSERT_TRUE(WaitFor([&] { return Exists(admin_); }));
  struct stat st;
  ASSERT_EQ(0, lstat(admin_.c_str(), &st));
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(0700u, st.st_mode & 07777);
  EXPECT_EQ(geteuid(), st.st_uid);
  // The tool's requests work through it.
  EXPECT_TRUE(Send(QueueRequest()).ok);
}

TEST_F(AdminAccessTest, AnOpenChannelDirectoryIsMadePrivate) {
  Open();
  ASSERT_TRUE(WaitFor([&] { return Exists(admin_); }));
  ASSERT_EQ(0, chmod(admin_.c_str(), 0777));
  EXPECT_TRUE(WaitFor([&] { return ModeOf(admin_) == 0700; })) << std::oct << ModeOf(admin_);
}

TEST_F(AdminAccessTest, AChannelDirectoryOfAnotherUserIsNotServed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the directory to another user";
  Open();
  ASSERT_TRUE(WaitFor([&] { return Exists(admin_); }));
  ASSERT_EQ(0, chown(admin_.c_str(), kOtherUid, kOtherUid));
  WriteRequest("REQ-1-0.json", R"({"command":"queue"})", 0600);
  const std::string why = "admin_channel: admin channel not served: IO error: the admin channel " +
                          admin_ + " belongs to uid 12345, not to uid 0";
  ASSERT_TRUE(WaitFor([&] { return LogCount(why) > 0; })) << Log();
  // Several polls later: still not served, and logged once.
  std::this_thread::sleep_for(std::chrono::milliseconds(4 * AdminServer::kPollMillis));
  EXPECT_TRUE(Exists(admin_ + "/REQ-1-0.json"));
  EXPECT_FALSE(Exists(admin_ + "/RESP-1-0.json"));
  EXPECT_EQ(1u, LogCount(why)) << Log();
  // The tool, for its part, says whose the channel is.
  rocksdb::Status s = OpenAdminDirForClient(admin_);
  EXPECT_NE(std::string::npos, s.ToString().find("belongs to uid 12345, not to uid 0: run the "
                                                 "tool as its owner"))
      << s.ToString();
}

TEST_F(AdminAccessTest, ARequestFileOfAnotherUserIsRefusedRemovedAndNotRun) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the request to another user";
  Open();
  WriteTableFile();
  ASSERT_EQ(0, TableFileTier());
  ASSERT_TRUE(WaitFor([&] { return Exists(admin_); }));
  // Written private, then given away before the server sees it: renamed into
  // place from a .tmp the server ignores.
  const std::string tmp = admin_ + "/REQ-7-0.json.tmp";
  std::ofstream(tmp) << R"({"command":"migrate","path":"/db/000001.sst","tier":1})";
  ASSERT_EQ(0, chmod(tmp.c_str(), 0600));
  ASSERT_EQ(0, chown(tmp.c_str(), kOtherUid, kOtherUid));
  ASSERT_EQ(0, rename(tmp.c_str(), (admin_ + "/REQ-7-0.json").c_str()));
  ASSERT_TRUE(WaitFor([&] { return !Exists(admin_ + "/REQ-7-0.json"); }));
  EXPECT_FALSE(Exists(admin_ + "/RESP-7-0.json"));
  EXPECT_EQ(1u, LogCount("admin_channel: admin request REQ-7-0.json: Invalid argument: refused: " +
                         admin_ + "/REQ-7-0.json is owned by uid 12345, not by the store's owner "
                                  "(uid 0)"))
      << Log();
  // Not run: the file stays where it was, while the same request of the
  // owner's moves it.
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * AdminServer::kPollMillis));
  EXPECT_EQ(0, TableFileTier());
  EXPECT_TRUE(Send(Migrate("/db/000001.sst")).ok);
  EXPECT_TRUE(WaitFor([&] { return TableFileTier() == 1; }));
}

TEST_F(AdminAccessTest, ARequestFileWritableByOthersIsRefused) {
  Open();
  ASSERT_TRUE(WaitFor([&] { return Exists(admin_); }));
  WriteRequest("REQ-8-0.json", R"({"command":"queue"})", 0620);
  WriteRequest("REQ-8-1.json", R"({"command":"queue"})", 0602);
  ASSERT_TRUE(WaitFor([&] {
    return !Exists(admin_ + "/REQ-8-0.json") && !Exists(admin_ + "/REQ-8-1.json");
  }));
  EXPECT_FALSE(Exists(admin_ + "/RESP-8-0.json"));
  EXPECT_FALSE(Exists(admin_ + "/RESP-8-1.json"));
  EXPECT_EQ(1u, LogCount("REQ-8-0.json is writable by others than its owner (mode 0620)")) << Log();
  EXPECT_EQ(1u, LogCount("REQ-8-1.json is writable by others than its owner (mode 0602)")) << Log();
  // A symbolic link is refused, not followed.
  const std::string target = dir_.path() + "/elsewhere.json";
  std::ofstream(target) << R"({"command":"queue"})";
  ASSERT_EQ(0, symlink(target.c_str(), (admin_ + "/REQ-8-2.json").c_str()));
  ASSERT_TRUE(WaitFor([&] { return !Exists(admin_ + "/REQ-8-2.json"); }));
  EXPECT_EQ(1u, LogCount("REQ-8-2.json is a symbolic link")) << Log();
  EXPECT_TRUE(Exists(target));
  // A request of the owner's, private, is answered.
  WriteRequest("REQ-8-3.json", R"({"command":"queue"})", 0600);
  EXPECT_TRUE(WaitFor([&] { return Exists(admin_ + "/RESP-8-3.json"); }));
}

TEST_F(AdminAccessTest, ARequestNamingAPathOutsideTheStoresNamespaceIsRefused) {
  Open();
  WriteTableFile();

  AdminResponse resp = Send(Migrate("/etc/passwd"));
  EXPECT_FALSE(resp.ok);
  EXPECT_NE(std::string::npos,
            resp.message.find("refused: path '/etc/passwd' is outside the store's namespace"))
      << resp.message;
  resp = Send(PinRequest{"/db/../../etc/passwd", "", 1});
  EXPECT_FALSE(resp.ok);
  EXPECT_NE(std::string::npos, resp.message.find("refused: path '/db/../../etc/passwd' is not "
                                                 "normalized (it reads as '/etc/passwd')"))
      << resp.message;
  resp = Send(HintRequest{"db/000001.sst", "", AccessHint::kHot});
  EXPECT_FALSE(resp.ok);
  EXPECT_NE(std::string::npos, resp.message.find("refused: path 'db/000001.sst' is not absolute"))
      << resp.message;
  EXPECT_EQ(3u, LogCount("admin_channel: admin request REQ-")) << Log();
  EXPECT_EQ(1u, LogCount("refused: path '/etc/passwd' is outside the store's namespace")) << Log();
  // A path in the namespace is served.
  resp = Send(Migrate("/db/000001.sst"));
  EXPECT_TRUE(resp.ok) << resp.message;
}

TEST_F(AdminAccessTest, TheToolWritesItsRequestsPrivate) {
  Open();
  const mode_t old_umask = umask(0);  // would leave a plain create at 0666
  const std::string path = dir_.path() + "/request.json";
  rocksdb::Status s = WritePrivateFile(path, "{}");
  umask(old_umask);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(0600u, ModeOf(path));
}

}  // namespace
}  // namespace tierfs
