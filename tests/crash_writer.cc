// The child of the crash test: opens a database on TierFS and writes keys
// from argv[3] upward with synced writes, printing each key number to stdout
// once its Put has returned. The parent kills it with SIGKILL at a random
// moment; every number printed must survive.
//
//   crash_writer URI DBPATH FIRST_KEY
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "db/open.h"
#include "tests/crash_keys.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: crash_writer URI DBPATH FIRST_KEY\n");
    return 2;
  }
  rocksdb::Options options = tierfs::test::CrashDBOptions();
  std::unique_ptr<tierfs::TierDB> db;
  rocksdb::Status s = tierfs::OpenDB(argv[1], options, argv[2], &db);
  if (!s.ok()) {
    fprintf(stderr, "crash_writer: open: %s\n", s.ToString().c_str());
    return 1;
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  for (long i = atol(argv[3]);; ++i) {
    s = db->db->Put(wo, tierfs::test::CrashKey(i), tierfs::test::CrashValue(i));
    if (!s.ok()) {
      fprintf(stderr, "crash_writer: put %ld: %s\n", i, s.ToString().c_str());
      return 1;
    }
    std::string line = std::to_string(i) + "\n";
    if (write(1, line.data(), line.size()) != ssize_t(line.size())) return 1;
  }
}
