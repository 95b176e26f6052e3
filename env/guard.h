// Exceptions must not reach RocksDB ("RocksDB is not exception-safe"): every
// entry point RocksDB calls runs its body through Guard.
#pragma once

#include <exception>
#include <string>

#include <rocksdb/io_status.h>

namespace tierfs {

// `path` is a std::string or a string literal: a literal costs nothing on the
// path that does not throw (every read passes here).
template <typename P, typename F>
rocksdb::IOStatus Guard(const char* op, const P& path, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return rocksdb::IOStatus::IOError(std::string("TierFS ") + op + " " + path + ": " + e.what());
  } catch (...) {
    return rocksdb::IOStatus::IOError(std::string("TierFS ") + op + " " + path +
                                      ": unknown exception");
  }
}

}  // namespace tierfs
