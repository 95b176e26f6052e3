// Files of known content for the tests of the move protocol: the migration
// stress test, the move crash test and its child (crash_writer --mover).
//
// The content of file number `file` is a stream of 8-byte little-endian words,
// word w being PatternWord(file, w): every byte depends on the file and its
// offset, and no block is zeros, so a byte read from the wrong file, the wrong
// offset, a punched hole or a half-copied segment is detected.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "util/splitmix64.h"

namespace tierfs {
namespace test {

inline uint64_t PatternWord(uint32_t file, uint64_t word) {
  // splitmix64's mix of (file, word): never the same word at two places in
  // practice. | 1: never a zero word.
  return SplitMix64Mix((uint64_t(file) << 40) ^ word ^ kSplitMix64Gamma) | 1;
}

// The bytes [offset, offset + n) of file `file` into out[0, n).
inline void FillPattern(uint32_t file, uint64_t offset, size_t n, char* out) {
  uint64_t pos = offset;
  const uint64_t end = offset + n;
  while (pos < end) {
    uint64_t w = PatternWord(file, pos / 8);
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = (unsigned char)(w >> (8 * i));
    size_t from = size_t(pos % 8);
    size_t take = size_t(std::min<uint64_t>(8 - from, end - pos));
    memcpy(out + (pos - offset), bytes + from, take);
    pos += take;
  }
}

inline std::string Pattern(uint32_t file, uint64_t offset, size_t n) {
  std::string s(n, '\0');
  FillPattern(file, offset, n, &s[0]);
  return s;
}

// "" if data[0, n) are the bytes at `offset` of file `file`; else where they
// first differ and what was there instead (zeros: a punched or unwritten copy).
inline std::string CheckPattern(uint32_t file, uint64_t offset, const char* data, size_t n) {
  std::string want = Pattern(file, offset, n);
  if (memcmp(want.data(), data, n) == 0) return "";
  size_t i = 0;
  while (want[i] == data[i]) ++i;
  size_t zeros = 0;
  while (i + zeros < n && data[i + zeros] == 0) ++zeros;
  char buf[200];
  snprintf(buf, sizeof(buf), "file %u: bytes differ from offset %llu (read %zu at %llu)%s",
           file, (unsigned long long)(offset + i), n, (unsigned long long)offset,
           zeros >= 8 ? ", zeros there" : "");
  return buf;
}

// The files the move tests make: /moves/0000NN.sst (a table file, so
// placement and the segment listings treat it as bulk data), of sizes that
// end inside a segment. Content is Pattern(n, ...).
inline std::string MoveFileName(uint32_t n) {
  char buf[40];
  snprintf(buf, sizeof(buf), "/moves/%06u.sst", n);
  return buf;
}

// The number in a name made by MoveFileName, or -1.
inline int MoveFileNumber(const std::string& name) {
  unsigned n = 0;
  size_t slash = name.rfind('/');
  if (sscanf(name.c_str() + (slash == std::string::npos ? 0 : slash + 1), "%u.sst", &n) != 1) {
    return -1;
  }
  return int(n);
}

inline uint64_t MoveFileSize(uint32_t n) {
  return 600 * 1024 + uint64_t(n) * 97 * 1024 + 1234 * n + 17;
}

}  // namespace test
}  // namespace tierfs
