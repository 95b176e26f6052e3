// The child of the crash test. The parent kills it with SIGKILL at a random
// moment; what it printed before must survive.
//
//   crash_writer URI DBPATH FIRST KEYS
//     Opens a database on TierFS and makes synced writes numbered from FIRST
//     upward, write i putting CrashValue(i) in key slot i % KEYS
//     (tests/crash_keys.h), and prints each write's number to stdout once its
//     Put has returned: every write printed must survive until the slot is
//     written again.
//
//   crash_writer --mover URI SEED
//     Opens the TierFS store whose files under /moves the parent wrote and
//     synced (tests/crash_files.h), and moves their segments until killed:
//     HintStor operations (migrate, replicate, prefetch, drop-copy) run here
//     with wait, pins run by the migration thread, and the policy's own plans.
//     A reader thread checks every byte it reads meanwhile (hot-page copies
//     included: half its reads are small ones at hot places). Prints the number
//     of operations done after each one. Exits (which the parent reports) only
//     on an unexpected status or a wrong byte.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/crash_files.h"
#include "tests/crash_keys.h"
#include "tierfs/tierfs.h"

namespace {

int RunWriter(const char* uri, const char* db_path, long first, long keys) {
  rocksdb::Options options = tierfs::test::CrashDBOptions();
  std::unique_ptr<tierfs::TierDB> db;
  rocksdb::Status s = tierfs::OpenDB(uri, options, db_path, &db);
  if (!s.ok()) {
    fprintf(stderr, "crash_writer: open: %s\n", s.ToString().c_str());
    return 1;
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  for (long i = first;; ++i) {
    s = db->db->Put(wo, tierfs::test::CrashKey(i % keys), tierfs::test::CrashValue(i));
    if (!s.ok()) {
      fprintf(stderr, "crash_writer: put %ld: %s\n", i, s.ToString().c_str());
      return 1;
    }
    std::string line = std::to_string(i) + "\n";
    if (write(1, line.data(), line.size()) != ssize_t(line.size())) return 1;
  }
}

struct MovedFile {
  std::string path;
  uint32_t number = 0;
  uint64_t size = 0;
  uint64_t segments = 0;
  std::unique_ptr<rocksdb::FSRandomAccessFile> reader;  // held open, as a table cache does
};

[[noreturn]] void Die(const std::string& what) {
  fprintf(stderr, "crash_writer --mover: %s\n", what.c_str());
  fflush(stderr);
  _exit(3);
}

// Reads random ranges of the files through their open handles forever; every
// other read is a small one at one of a few hot places of the file, so that
// hot-page copies are made, served and dropped while the moves run and when
// the kill comes.
void ReadForever(std::vector<MovedFile>* files, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string scratch(256 << 10, '\0');
  for (uint64_t i = 0;; ++i) {
    MovedFile& f = (*files)[rng() % files->size()];
    const bool hot = i % 2 == 0;
    const uint64_t off = hot ? (rng() % 8) * 5000 % f.size : rng() % f.size;
    const uint64_t len = hot ? 1 + rng() % 4096 : 1 + rng() % scratch.size();
    const size_t n = size_t(std::min<uint64_t>(len, f.size - off));
    rocksdb::Slice got;
    rocksdb::IOStatus s = f.reader->Read(off, n, rocksdb::IOOptions(), &got, &scratch[0], nullptr);
    if (!s.ok() || got.size() != n) {
      Die("read " + f.path + " at " + std::to_string(off) + ": " + s.ToString());
    }
    std::string bad = tierfs::test::CheckPattern(f.number, off, got.data(), got.size());
    if (!bad.empty()) Die("read: " + bad);
  }
}

// Pins random files to random tiers and waits for the migration thread to
// move them, forever.
void PinForever(rocksdb::FileSystem* fs, const std::vector<MovedFile>* files, int tiers,
                uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (;;) {
    const MovedFile& f = (*files)[rng() % files->size()];
    rocksdb::Status s = tierfs::Pin(fs, f.path, "", int(rng() % tiers));
    if (s.ok()) s = tierfs::WaitForManualMoves(fs, 60000);
    if (s.ok()) s = tierfs::Pin(fs, f.path, "", -1);
    if (!s.ok()) Die("pin " + f.path + ": " + s.ToString());
  }
}

int RunMover(const char* uri, uint64_t seed) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = tierfs::NewTierFileSystem(uri, &fs);
  if (!s.ok()) Die("open: " + s.ToString());
  std::vector<tierfs::TierStats> stats;
  std::vector<tierfs::FileInfo> infos;
  if (!tierfs::GetTierStats(fs.get(), &stats).ok() ||
      !tierfs::ListFiles(fs.get(), "/moves", &infos).ok()) {
    Die("cannot inspect the store");
  }
  const int tiers = int(stats.size());
  std::vector<MovedFile> files(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    MovedFile& f = files[i];
    f.path = infos[i].name;
    f.number = uint32_t(tierfs::test::MoveFileNumber(f.path));
    f.size = infos[i].size;
    if (f.size != tierfs::test::MoveFileSize(f.number)) {
      Die(f.path + " holds " + std::to_string(f.size) + " bytes at open, not " +
          std::to_string(tierfs::test::MoveFileSize(f.number)));
    }
    f.segments = (f.size + (64 << 10) - 1) / (64 << 10);
    s = fs->NewRandomAccessFile(f.path, rocksdb::FileOptions(), &f.reader, nullptr);
    if (!s.ok()) Die("open " + f.path + ": " + s.ToString());
  }
  if (files.empty()) Die("no files under /moves");
  std::thread(ReadForever, &files, seed + 1).detach();
  std::thread(PinForever, fs.get(), &files, tiers, seed + 2).detach();

  using tierfs::DataOp;
  static const DataOp kOps[] = {DataOp::kMigrate, DataOp::kMigrate, DataOp::kReplicate,
                                DataOp::kPrefetch, DataOp::kDropCopy};
  std::mt19937_64 rng(seed);
  for (long done = 1;; ++done) {
    const MovedFile& f = files[rng() % files.size()];
    const DataOp op = kOps[rng() % 5];
    const int tier = int(rng() % tiers);
    uint64_t first = rng() % f.segments, last = first + (rng() % 3 == 0 ? rng() % 6 : 0);
    if (rng() % 10 == 0) {
      first = 0;  // the whole file
      last = f.segments - 1;
    }
    s = tierfs::ApplyDataOp(fs.get(), op, f.path, tier, first, last, /*wait=*/true);
    // The files are closed: nothing but a full destination may stop a move.
    if (!s.ok() && !s.IsNoSpace()) {
      Die(std::string(tierfs::DataOpName(op)) + " " + f.path + " " + std::to_string(first) + "-" +
          std::to_string(last) + " to tier " + std::to_string(tier) + ": " + s.ToString());
    }
    std::string line = std::to_string(done) + "\n";
    if (write(1, line.data(), line.size()) != ssize_t(line.size())) _exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--mover") {
    return RunMover(argv[2], strtoull(argv[3], nullptr, 10));
  }
  const long first = argc == 5 ? atol(argv[3]) : -1;
  const long keys = argc == 5 ? atol(argv[4]) : 0;
  if (argc != 5 || first < 0 || keys <= 0) {
    fprintf(stderr,
            "usage: crash_writer URI DBPATH FIRST KEYS   (FIRST >= 0, KEYS > 0)\n"
            "       crash_writer --mover URI SEED\n");
    return 2;
  }
  return RunWriter(argv[1], argv[2], first, keys);
}
