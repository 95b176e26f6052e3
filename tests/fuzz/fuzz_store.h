// A small store for the fuzzers that need one (admin, stats): two tiers in a
// scratch directory (fuzz_util.h), 64 KiB segments, migration off, and four
// files written through the file system, so requests and statistics rows
// find real files and segments (the seed corpora refer to them).
#pragma once

#include <memory>
#include <string>

#include <rocksdb/file_system.h>

#include "tests/fuzz/fuzz_util.h"
#include "tierfs/file_system.h"
#include "tierfs/hints.h"

namespace tierfs {
namespace fuzz {

struct FuzzStore {
  std::string dir;
  std::string uri;
};

inline void WriteFile(rocksdb::FileSystem* fs, const std::string& path, size_t bytes) {
  std::unique_ptr<rocksdb::FSWritableFile> f;
  rocksdb::IOStatus s = fs->NewWritableFile(path, rocksdb::FileOptions(), &f, nullptr);
  if (s.ok()) s = f->Append(std::string(bytes, 'x'), rocksdb::IOOptions(), nullptr);
  if (s.ok()) s = f->Sync(rocksdb::IOOptions(), nullptr);
  if (s.ok()) s = f->Close(rocksdb::IOOptions(), nullptr);
  if (!s.ok()) {
    fprintf(stderr, "cannot write %s: %s\n", path.c_str(), s.ToString().c_str());
    abort();
  }
}

// Creates the store and its files, and closes it. The files are at logical
// paths of their own (/fuzz/db/...), the same whatever the scratch
// directory: ids 1 to 3 are 000001.sst (5 segments), 000002.log (2) and
// MANIFEST-000003 (1), id 4 is CURRENT (written as 000004.dbtmp, renamed);
// segments 0-2 of 000001.sst have a copy on tier 1, segments 3-4 live there.
inline FuzzStore MakeFuzzStore(const char* tag) {
  FuzzStore store;
  store.dir = ScratchDir(tag);
  store.uri = "tierfs://" + store.dir + "/t0:4M," + store.dir +
              "/t1:64M;segment_size:64K;migration:off;policy:lru";
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::IOOptions io;
  rocksdb::Status s = NewTierFileSystem(store.uri, &fs);
  if (s.ok()) s = fs->CreateDirIfMissing("/fuzz", io, nullptr);
  if (s.ok()) s = fs->CreateDirIfMissing("/fuzz/db", io, nullptr);
  if (!s.ok()) {
    fprintf(stderr, "cannot open the fuzzers' store: %s\n", s.ToString().c_str());
    abort();
  }
  WriteFile(fs.get(), "/fuzz/db/000001.sst", 300 << 10);
  WriteFile(fs.get(), "/fuzz/db/000002.log", 100 << 10);
  WriteFile(fs.get(), "/fuzz/db/MANIFEST-000003", 10 << 10);
  WriteFile(fs.get(), "/fuzz/db/000004.dbtmp", 1 << 10);
  s = fs->RenameFile("/fuzz/db/000004.dbtmp", "/fuzz/db/CURRENT", io, nullptr);
  if (s.ok()) {
    s = ApplyDataOp(fs.get(), DataOp::kReplicate, "/fuzz/db/000001.sst", 1, 0, 2, true);
  }
  if (s.ok()) s = ApplyDataOp(fs.get(), DataOp::kMigrate, "/fuzz/db/000001.sst", 1, 3, 4, true);
  if (s.ok()) s = Close(fs.get());
  if (!s.ok()) {
    fprintf(stderr, "cannot set up the fuzzers' store: %s\n", s.ToString().c_str());
    abort();
  }
  return store;
}

}  // namespace fuzz
}  // namespace tierfs
