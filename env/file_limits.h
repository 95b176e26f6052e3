// The largest logical file TierFS holds, and what it bounds: the segments of
// one file.
//
// A file's segment table keeps one slot (58 bytes, core/segment_table.h) per
// segment up to the highest placed, so the highest segment a journal record
// may name decides how much memory recovery allocates for that file. Writes
// past kMaxFileSize are refused (SegmentWriter::Write), so the store never
// journals a segment at or beyond MaxSegmentsPerFile, and recovery refuses a
// record that does (Namespace::Apply) rather than grow a table to it: a
// damaged record naming segment 2^40 made the open fail with std::bad_alloc
// after trying to allocate 64 TiB.
//
// 1 TiB is far above any file RocksDB writes (table files are sized by
// target_file_size_base, MANIFEST by max_manifest_file_size, 1 GiB by
// default). The table of a file that size: 2^20 segments, 58 MiB, at the
// default 1 MiB segment size; 2^28 segments at the smallest (4 KiB).
#pragma once

#include <cstdint>

namespace tierfs {

constexpr uint64_t kMaxFileSize = uint64_t(1) << 40;  // 1 TiB

// Segments of a file of kMaxFileSize bytes: every offset below kMaxFileSize
// lies in a segment below this. `segment_size` 0 ("whole file") is one
// segment.
constexpr uint64_t MaxSegmentsPerFile(uint64_t segment_size) {
  return segment_size == 0 ? 1 : (kMaxFileSize + segment_size - 1) / segment_size;
}

}  // namespace tierfs
