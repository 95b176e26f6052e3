// The child of exit_order_test: a host program that ends in one of the ways
// real hosts do, with a TierFS store open. Each must exit 0 and leave its
// writes readable.
//
//   exit_child static-env URI DBPATH KEYS
//     Keeps the Env from Env::CreateFromUri in a static shared_ptr (as a YCSB
//     client does), writes KEYS keys, deletes the database and returns from
//     main: the store is destroyed during static destruction.
//   exit_child leak-db URI DBPATH KEYS
//     Writes KEYS keys and returns without deleting the database: the store
//     is never destroyed.
//   exit_child exit-thread URI DBPATH KEYS
//     The main thread writes keys until the process ends; a second thread
//     calls exit(0) once KEYS keys were written, printing "acked N" first
//     (every key below N was acknowledged). The memtable holds them all:
//     writes reach TierFS as WAL appends only (see main).
//
// Keys are "key<n>" with value "value<n>"; writes are not synced (the store
// and the OS keep them; a process exit loses none).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "tests/host_db.h"

namespace {

// Destroyed during static destruction, after main returns.
std::shared_ptr<rocksdb::Env> static_guard;

std::string Key(long i) { return "key" + std::to_string(i); }
std::string Value(long i) { return "value" + std::to_string(i); }

int Fail(const char* what, const rocksdb::Status& s) {
  fprintf(stderr, "exit_child: %s: %s\n", what, s.ToString().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: exit_child static-env|leak-db|exit-thread URI DBPATH KEYS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const long keys = atol(argv[4]);
  std::shared_ptr<rocksdb::Env> local_guard;
  rocksdb::DB* db = nullptr;
  // exit-thread: no memtable switch while exit() runs. RocksDB's own write
  // path, used by a thread after exit() destroyed RocksDB's statics, crashes
  // now and then (in DBImpl::MaybeScheduleFlushOrCompaction); that is not
  // the store's to test. The WAL's appends still reach TierFS (the parent
  // gives small segments, so new ones are placed during the exit). The
  // others: a few flushes and compactions.
  const bool exit_thread = mode == "exit-thread";
  rocksdb::Status s = tierfs::test::OpenDbOnUri(argv[2], argv[3],
                                                exit_thread ? 64 << 20 : 256 << 10,
                                                exit_thread ? &local_guard : &static_guard, &db);
  if (!s.ok()) return Fail("open", s);

  if (mode == "exit-thread") {
    std::atomic<long> written{0};
    std::thread exiter([&] {
      while (written.load() < keys) std::this_thread::yield();
      printf("acked %ld\n", written.load());
      fflush(stdout);
      exit(0);
    });
    exiter.detach();
    for (long i = 0;; ++i) {
      s = db->Put(rocksdb::WriteOptions(), Key(i), Value(i));
      if (!s.ok()) return Fail("put", s);
      written.store(i + 1);
    }
  }

  for (long i = 0; i < keys; ++i) {
    s = db->Put(rocksdb::WriteOptions(), Key(i), Value(i));
    if (!s.ok()) return Fail("put", s);
  }
  if (mode == "static-env") {
    s = db->Close();
    if (!s.ok()) return Fail("close", s);
    delete db;
  } else if (mode != "leak-db") {
    fprintf(stderr, "exit_child: unknown mode %s\n", mode.c_str());
    return 2;
  }
  return 0;
}
