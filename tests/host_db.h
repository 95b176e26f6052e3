// What the test hosts (exit_child, dlopen_child: programs that reach TierFS by
// URI only, as an application does) share: opening a database on the Env a
// URI names.
#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

namespace tierfs {
namespace test {

// Creates the Env of `uri` (its owner in *guard) and opens (creating) the
// database at `db_path` on it.
inline rocksdb::Status OpenDbOnUri(const char* uri, const char* db_path, size_t write_buffer_size,
                                   std::shared_ptr<rocksdb::Env>* guard, rocksdb::DB** db) {
  rocksdb::Env* env = nullptr;
  rocksdb::Status s =
      rocksdb::Env::CreateFromUri(rocksdb::ConfigOptions(), "", uri, &env, guard);
  if (!s.ok()) return s;
  rocksdb::Options options;
  options.env = env;
  options.create_if_missing = true;
  options.write_buffer_size = write_buffer_size;
  return rocksdb::DB::Open(options, db_path, db);
}

}  // namespace test
}  // namespace tierfs
