// How a YCSB record (its fields) is stored in one RocksDB value: the layout
// of YCSB's own RocksDB binding (RocksDBClient.serializeValues), so databases
// loaded by either client read the same.
//
//   one entry per field, in no particular order, nothing before or after:
//   +-------------+------------------+--------------+-----------------+
//   | name length | name             | value length | value           |
//   | 4 bytes     | name length      | 4 bytes      | value length    |
//   | big-endian  | bytes (UTF-8)    | big-endian   | bytes           |
//   +-------------+------------------+--------------+-----------------+
//
// No magic, version or checksum: YCSB's format has none, and RocksDB
// checksums its blocks.
#pragma once

#include <string>
#include <vector>

#include <rocksdb/slice.h>

#include "tools/ycsb/db.h"

namespace tierfs {
namespace ycsb {

// Appends the encoding of `fields` to *out.
void EncodeFields(const Fields& fields, std::string* out);

// Decodes `value` and appends to *out the fields named in *wanted (all when
// wanted is null). False if the value is truncated (a corrupt record).
bool DecodeFields(const rocksdb::Slice& value, const std::vector<std::string>* wanted,
                  Fields* out);

// Sets each field of `updates` in *record: replaces the value of a field of
// the same name, or adds the field.
void MergeFields(const Fields& updates, Fields* record);

}  // namespace ycsb
}  // namespace tierfs
