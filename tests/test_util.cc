#include "tests/test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

#include "env/posix_util.h"

namespace tierfs {
namespace test {

ScratchDir::ScratchDir(const std::string& tag, const std::string& parent) {
  const char* tmp = getenv("TMPDIR");
  const std::string under = !parent.empty() ? parent : tmp && *tmp ? tmp : "/tmp";
  std::string templ = under + "/tierfs-" + tag + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) abort();
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  if (getenv("TIERFS_KEEP_TEST_DIRS")) return;
  std::string cmd = "rm -rf '" + path_ + "'";
  if (system(cmd.c_str()) != 0) fprintf(stderr, "could not remove %s\n", path_.c_str());
}

std::string ScratchDir::Sub(const std::string& name) const {
  std::string p = path_ + "/" + name;
  mkdir(p.c_str(), 0755);
  return p;
}

std::string MakeUri(const ScratchDir& dir, const std::vector<std::string>& capacities,
                    const std::string& extra) {
  std::string uri = "tierfs://";
  for (size_t i = 0; i < capacities.size(); ++i) {
    if (i) uri += ",";
    uri += dir.Sub("tier" + std::to_string(i)) + ":" + capacities[i];
  }
  return uri + extra;
}

Options MakeOptions(const ScratchDir& dir, const std::vector<std::string>& capacities,
                    const std::string& extra) {
  Options options;
  rocksdb::Status s = ParseUri(MakeUri(dir, capacities, extra), &options);
  if (!s.ok()) {
    fprintf(stderr, "MakeOptions: %s\n", s.ToString().c_str());
    abort();
  }
  return options;
}

uint64_t AllocatedOnTier(const std::string& tier_root) {
  std::string data = tier_root + "/data";
  uint64_t total = 0;
  DIR* d = opendir(data.c_str());
  if (!d) return 0;
  while (struct dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    total += AllocatedBytes(data + "/" + e->d_name);
  }
  closedir(d);
  return total;
}

std::string ReadAll(rocksdb::FileSystem* fs, const std::string& path) {
  std::string data;
  rocksdb::IOStatus s = rocksdb::ReadFileToString(fs, path, &data);
  if (!s.ok()) return "<error: " + s.ToString() + ">";
  return data;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string ToolPath() { return std::string(TIERFS_BUILD_DIR) + "/tierfs"; }

int RunTool(const std::string& args, std::string* output) {
  output->clear();
  FILE* p = popen((ToolPath() + " " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) output->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

StderrCapture::StderrCapture() {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/tierfs-stderr-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  fd_ = mkstemp(buf.data());
  if (fd_ < 0) abort();
  path_ = buf.data();
  fflush(stderr);
  saved_ = dup(2);
  dup2(fd_, 2);
}

StderrCapture::~StderrCapture() {
  if (saved_ >= 0) Finish();
}

std::string StderrCapture::Finish() {
  fflush(stderr);
  dup2(saved_, 2);
  close(saved_);
  saved_ = -1;
  close(fd_);
  std::ifstream in(path_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path_.c_str());
  return text;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng());
  return s;
}

}  // namespace test
}  // namespace tierfs
