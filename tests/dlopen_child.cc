// A host that loads TierFS as a plugin loader does: dlopen, a store used by
// URI only, the database closed, dlclose, and the process goes on and exits.
// exit_order_test runs it.
//
//   dlopen_child LIBTIERFS URI DBPATH KEYS
//
// Writes KEYS keys ("key<n>" = "value<n>"), closes the database and lets go
// of the Env, then dlclose()s the library and prints "mapped after dlclose:
// yes|no" (libtierfs is linked -z nodelete: RocksDB's object registry keeps
// its factory, so unloading it would leave the registry calling unmapped
// code). Then it creates the Env from the URI once more and opens the
// database again, which works only while the library is still there, and
// exits 0. Not linked with libtierfs.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "tests/host_db.h"

namespace {

int Fail(const char* what, const std::string& why) {
  fprintf(stderr, "dlopen_child: %s: %s\n", what, why.c_str());
  return 2;
}

bool Mapped(const std::string& library) {
  char* real = realpath(library.c_str(), nullptr);
  if (real == nullptr) return false;
  const std::string path = real;
  free(real);
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const bool ends_with_path =
        line.size() >= path.size() &&
        line.compare(line.size() - path.size(), path.size(), path) == 0;
    if (ends_with_path) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: dlopen_child LIBTIERFS URI DBPATH KEYS\n");
    return 2;
  }
  const char* library = argv[1];
  const long keys = atol(argv[4]);
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Fail("dlopen", dlerror());

  std::shared_ptr<rocksdb::Env> guard;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = tierfs::test::OpenDbOnUri(argv[2], argv[3], 256 << 10, &guard, &db);
  if (!s.ok()) return Fail("open", s.ToString());
  for (long i = 0; i < keys; ++i) {
    s = db->Put(rocksdb::WriteOptions(), "key" + std::to_string(i), "value" + std::to_string(i));
    if (!s.ok()) return Fail("put", s.ToString());
  }
  s = db->Close();
  if (!s.ok()) return Fail("close", s.ToString());
  delete db;
  guard.reset();

  if (dlclose(handle) != 0) return Fail("dlclose", dlerror());
  printf("mapped after dlclose: %s\n", Mapped(library) ? "yes" : "no");
  fflush(stdout);

  // The registry still names tierfs://: the library it points into must be
  // there, and a store works as before.
  s = tierfs::test::OpenDbOnUri(argv[2], argv[3], 256 << 10, &guard, &db);
  if (!s.ok()) return Fail("reopen after dlclose", s.ToString());
  std::string value;
  s = db->Get(rocksdb::ReadOptions(), "key0", &value);
  if (keys > 0 && (!s.ok() || value != "value0")) return Fail("get after dlclose", s.ToString());
  s = db->Close();
  if (!s.ok()) return Fail("close after dlclose", s.ToString());
  delete db;
  printf("reopened after dlclose\n");
  return 0;
}
