// Fixed-width little-endian encoding of integers into byte strings, and a
// bounds-checked reader of them: the on-disk formats of the journal
// (env/journal_format.cc) and of the saved hot-page copies
// (engine/page_copies_saved.cc). Header only and dependency-free.
#pragma once

#include <cstdint>
#include <string>

namespace tierfs {

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = char(v >> (8 * i));
  dst->append(buf, 4);
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = char(v >> (8 * i));
  dst->append(buf, 8);
}

// A 32-bit length, then the bytes.
inline void PutString(std::string* dst, const std::string& s) {
  PutFixed32(dst, uint32_t(s.size()));
  dst->append(s);
}

inline uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(p[i])) << (8 * i);
  return v;
}

inline uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
  return v;
}

// Reads what the Put functions wrote, front to back; each call returns
// false, reading nothing, if too few bytes are left.
class ByteReader {
 public:
  ByteReader(const char* p, size_t n) : p_(p), end_(p + n) {}
  bool U8(uint8_t* v) {
    if (end_ - p_ < 1) return false;
    *v = uint8_t(*p_++);
    return true;
  }
  bool U32(uint32_t* v) {
    if (end_ - p_ < 4) return false;
    *v = GetFixed32(p_);
    p_ += 4;
    return true;
  }
  bool U64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    *v = GetFixed64(p_);
    p_ += 8;
    return true;
  }
  bool Str(std::string* s) {
    uint32_t n = 0;
    if (end_ - p_ < 4) return false;
    n = GetFixed32(p_);
    if (uint64_t(end_ - p_) - 4 < n) return false;
    p_ += 4;
    s->assign(p_, n);
    p_ += n;
    return true;
  }
  // `n` raw bytes into `out`.
  bool Bytes(size_t n, char* out) {
    if (uint64_t(end_ - p_) < n) return false;
    for (size_t i = 0; i < n; ++i) out[i] = p_[i];
    p_ += n;
    return true;
  }
  size_t left() const { return size_t(end_ - p_); }
  bool Done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace tierfs
