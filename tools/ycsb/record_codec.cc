#include "tools/ycsb/record_codec.h"

#include <algorithm>
#include <cstdint>

namespace tierfs {
namespace ycsb {

namespace {

void PutLength(uint32_t n, std::string* out) {
  const char bytes[4] = {char(n >> 24), char(n >> 16), char(n >> 8), char(n)};
  out->append(bytes, 4);
}

// Reads a length-prefixed byte string at *pos; false if it runs off the end.
bool GetString(const rocksdb::Slice& in, size_t* pos, rocksdb::Slice* s) {
  if (in.size() - *pos < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data() + *pos);
  const uint32_t n = uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
  *pos += 4;
  if (in.size() - *pos < n) return false;
  *s = rocksdb::Slice(in.data() + *pos, n);
  *pos += n;
  return true;
}

}  // namespace

void EncodeFields(const Fields& fields, std::string* out) {
  for (const auto& field : fields) {
    PutLength(uint32_t(field.first.size()), out);
    out->append(field.first);
    PutLength(uint32_t(field.second.size()), out);
    out->append(field.second);
  }
}

bool DecodeFields(const rocksdb::Slice& value, const std::vector<std::string>* wanted,
                  Fields* out) {
  size_t pos = 0;
  while (pos < value.size()) {
    rocksdb::Slice name, data;
    if (!GetString(value, &pos, &name) || !GetString(value, &pos, &data)) return false;
    if (wanted == nullptr ||
        std::find(wanted->begin(), wanted->end(), name.ToString()) != wanted->end()) {
      out->emplace_back(name.ToString(), data.ToString());
    }
  }
  return true;
}

void MergeFields(const Fields& updates, Fields* record) {
  for (const auto& update : updates) {
    auto it = std::find_if(record->begin(), record->end(),
                           [&](const auto& field) { return field.first == update.first; });
    if (it == record->end()) {
      record->push_back(update);
    } else {
      it->second = update.second;
    }
  }
}

}  // namespace ycsb
}  // namespace tierfs
