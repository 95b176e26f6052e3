// The user reads of a trace at page granularity: what the ceilings
// (tools/sim/ceiling.h) are computed from. Built in one pass over the trace.
//
// A user read is an I/O record of type IoType::kUserRead, as the simulator
// counts one (TierResult::user_reads): not a background (compaction, flush)
// read, not a write, not an event. It is cut, as the simulator cuts it, into
// pieces at segment boundaries, and each piece into parts at page
// boundaries. A read of size 0 is one byte, as in the simulator.
//
//   user read   |------------------------------------|
//   segments    |            |            |            |
//   pieces          |--------|------------|------|
//   pages       |   |   |   |   |   |   |   |   |   |
//   parts           |---|---||---|---|---||---|--|
//
// Time is counted in parts: the clock of an event (a write, a delete) is the
// number of user-read parts before it. A page is one page of one incarnation
// of a file: a file written again after its delete event is a new file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace sim {

struct PageTrace {
  uint64_t page_size = 0;
  uint64_t segment_size = 0;

  // Per part, in trace order: the page it lies in (a dense id) and its bytes.
  std::vector<uint32_t> part_page;
  std::vector<uint32_t> part_bytes;
  // Per piece: its first part; a last entry holds the number of parts.
  std::vector<uint64_t> piece_start;
  // Per user read: its first piece; a last entry holds the number of pieces.
  std::vector<uint64_t> read_start;

  // A write to a page: before part `clock`. In trace order.
  struct Write {
    uint64_t clock;
    uint32_t page;
  };
  std::vector<Write> writes;

  // Per page: the clock from which it exists (0, or its first write if it
  // is written before it is read) and the clock its file was deleted
  // (UINT64_MAX if it never was).
  std::vector<uint64_t> born;
  std::vector<uint64_t> died;
  // Per page: its file's incarnation (dense, in order of first record) and
  // its number in the file (offset / page_size).
  std::vector<uint32_t> file;
  std::vector<uint64_t> number;

  size_t parts() const { return part_page.size(); }
  size_t pieces() const { return piece_start.size() - 1; }
  size_t reads() const { return read_start.size() - 1; }
  size_t pages() const { return born.size(); }
};

// Builds *out from `trace` (records in time order). `page_size` and
// `segment_size` are positive multiples of 4096, the page at most 1 GiB.
// False and *error otherwise, or if the trace has more than 2^32 - 1 pages.
bool BuildPageTrace(const std::vector<TraceRecord>& trace, uint64_t page_size,
                    uint64_t segment_size, PageTrace* out, std::string* error);

}  // namespace sim
}  // namespace tierfs
