// Keys, values and options shared by the crash test and its child.
#pragma once

#include <cstdio>
#include <string>

#include <rocksdb/options.h>

namespace tierfs {
namespace test {

// The writer's write number i goes to key slot i % keys (the key space, so
// that a long run keeps a bounded amount of live data) with CrashValue(i):
// a slot's value says which write put it there.
inline std::string CrashKey(long slot) {
  char buf[24];
  snprintf(buf, sizeof(buf), "k%012ld", slot);
  return buf;
}

inline std::string CrashValue(long i) {
  std::string v = "value-" + std::to_string(i) + "-";
  v.resize(1000, char('A' + i % 26));
  return v;
}

// The write number a value made by CrashValue records, or -1.
inline long CrashValueNumber(const std::string& v) {
  long i = -1;
  return sscanf(v.c_str(), "value-%ld-", &i) == 1 ? i : -1;
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
  // A soak opens the database thousands of times, each open starting a LOG:
  // keep ten old ones, not RocksDB's default thousand.
  o.keep_log_file_num = 10;
  return o;
}

}  // namespace test
}  // namespace tierfs
