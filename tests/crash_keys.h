// Keys, values and options shared by the crash test and its child.
#pragma once

#include <cstdio>
#include <string>

#include <rocksdb/options.h>

namespace tierfs {
namespace test {

inline std::string CrashKey(long i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "k%012ld", i);
  return buf;
}

inline std::string CrashValue(long i) {
  std::string v = "value-" + std::to_string(i) + "-";
  v.resize(1000, char('A' + i % 26));
  return v;
}

// Small memtables and files: flushes and compactions (and so segment
// placement on several tiers) happen within the first second.
inline rocksdb::Options CrashDBOptions() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  o.write_buffer_size = 128 << 10;
  o.target_file_size_base = 128 << 10;
  o.max_bytes_for_level_base = 512 << 10;
  o.level0_file_num_compaction_trigger = 2;
  return o;
}

}  // namespace test
}  // namespace tierfs
