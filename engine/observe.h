// Where every piece of I/O ends, in the live store (Store::Observe) and in the
// simulator's replay alike: the segment's statistics count it, and the policy
// hears of it with what it took.
#pragma once

#include <cstdint>

#include "agents/policy.h"
#include "core/segment_table.h"

namespace tierfs {

// `heat` may be null (a segment with no statistics slot yet). `copy`: a read
// served by a copy, not the segment's home (Request::copy).
inline void ObserveRequest(Policy& policy, SegmentHeat* heat, uint64_t seq, IoType type,
                           uint64_t file_id, FileKind kind, uint64_t segment, uint64_t offset,
                           uint64_t size, int tier, uint64_t latency_ns, bool copy = false) {
  if (heat) heat->Touch(seq, type);
  Request req;
  req.seq = seq;
  req.type = type;
  req.file_id = file_id;
  req.kind = kind;
  req.segment = segment;
  req.offset = offset;
  req.size = size;
  req.tier = tier;
  req.copy = copy;
  policy.OnRequest(req, latency_ns);
}

}  // namespace tierfs
