// Ceilings: how much of a trace's user reads tier 0 could serve at best,
// computed from the trace alone (no device model, no replay), at page
// granularity. They are what a hot-page mechanism is judged against, next
// to the segment oracle (tools/sim/oracle.h), which places and moves whole
// segments and is judged on latency.
//
//   best-static        The best placement of pages fixed for the whole run,
//                      chosen with hindsight: pages ranked by their value
//                      (below) and the top `capacity / page` of them held.
//                      A page holds its space for the whole run, its file
//                      deleted or not. Exactly optimal for `share`.
//   best-static-freed  The same, but a page holds space only while it
//                      exists: from the start (or its first write, if it
//                      is written before it is read) until its file's
//                      delete event, so space of deleted files is reused.
//                      Pages are taken greedily in the same order while at
//                      no time more than `capacity / page` of the held ones
//                      exist: never below best-static, not proven optimal.
//   belady-copies      A read-copy cache of `capacity / page` pages under
//                      Belady's MIN: a page read may be copied in (or not:
//                      one never read again is not), a full cache evicts
//                      the page read again latest, a write to a page drops
//                      its copy. It minimizes the misses counted per page
//                      read, which is the ceiling of any copy cache of that
//                      size with copies made on reads.
//   belady-warm        Belady's MIN started warm, on bytes: a cache of
//                      `capacity` bytes of any files, holding at the start
//                      whatever serves most (a store that held the right
//                      data already), taking bytes in on a user read of
//                      them or on their write (a home placed on tier 0), a
//                      write leaving held bytes valid, evicting the bytes
//                      read again latest (in part if need be). Byte for
//                      byte MIN is optimal, so its byte_share is the most
//                      any tier 0 of that capacity can serve of the user
//                      reads' bytes when bytes come in only with an access
//                      of their page, whatever its unit up to the page, its
//                      policy and its homes or copies: the ceiling of a
//                      byte share. Not of a move between accesses (free
//                      moves at any time could serve every read). The
//                      larger the page, the looser: at 64 KiB segments on
//                      YCSB windows it is 1.0, a segment's next access
//                      coming soon enough that the bytes waited for at any
//                      moment (about a read per segment) fit many times
//                      over (lab notebook, "A ceiling of 1.0"). Its other shares
//                      are those of its schedule, not their optimum; its
//                      `pages` is the capacity in bytes and `held` the bytes
//                      it took in during the window.
//
// The ceilings above know the future. On traces where a page is read a few
// times in the window (YCSB's zipfian over a million records: the best
// static 8 KiB pages of a 10% tier 0 are read about twice each in it), they
// count luck as skill: the pages that happened to be read twice are no
// hotter than the many read once, and no one can tell them apart before
// (on the large capture of benchmarks/results/fast_tier-large.md the best
// static placement of the last quarter serves 32.7% of its reads, the one
// chosen by the three quarters before 12.7%). With a warm-up (the part
// before `measured_from`) two references that do not know the future:
//   past-static        The best static placement of pages by the warm-up's
//                      reads (best-static's choice made on the warm-up),
//                      measured on the rest: what knowing the past exactly
//                      and betting on it gives.
//   lfu-copies         A read-copy cache of `capacity / page` pages with exact
//                      counts of every read since the trace began, fully
//                      associative: a missed page read at least twice is
//                      copied if there is room or it was read more often
//                      than the least read copy, which it then replaces; a
//                      write drops a copy. What the copies' admission
//                      (TinyLFU, engine/page_copies.h) approximates with a
//                      sketch, 16-way sets and a bounded memory.
//
// What is counted (the same user reads and pieces as the simulator's
// TierResult::user_read_share; see page_trace.h):
//   share          the pieces of user reads, each counted by the fraction of
//                  its bytes on tier 0: (sum of fractions) / pieces. A piece
//                  within one page counts 0 or 1, as a segment's does in the
//                  simulator, so this is comparable with user_read_share. A
//                  page's value is the sum of the fractions its parts bring.
//   strict_share   pieces whose every byte is on tier 0 / pieces.
//   byte_share     user-read bytes on tier 0 / user-read bytes.
//   request_share  user reads whose every byte is on tier 0 / user reads.
// strict_share <= share. For best-static, share is the optimum over every
// static placement of the pages, so also an upper bound of strict_share's
// optimum (which, with reads across pages, is a harder problem).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace_format.h"

namespace tierfs {
namespace sim {

struct PageTrace;

enum class CeilingKind : uint8_t {
  kBestStatic,
  kBestStaticFreed,
  kBeladyCopies,
  kPastStatic,
  kLfuCopies,
  kBeladyWarm,
};
// Whether the kind is measured after a warm-up it learns from (past-static,
// lfu-copies), not on the measured part alone.
bool LearnsFromWarmup(CeilingKind kind);

struct CeilingSpec {
  CeilingKind kind = CeilingKind::kBestStatic;
  uint64_t page_size = 4096;  // bytes, a positive multiple of 4096. Default: 4 KiB
  uint64_t capacity = 0;      // bytes of tier 0 (or of the copy cache); 0 = tier 0's. Default: 0
};

// "best-static-4K", "belady-copies-4K", "best-static-4K-8M" (a capacity of
// its own), "belady-warm-4K", "belady-warm-64K-8M".
std::string CeilingName(const CeilingSpec& spec);

// Parses a comma-separated list of KIND[:PAGE[:CAPACITY]], KIND one of
// best-static, best-static-freed, belady-copies, belady-warm, past-static,
// lfu-copies, sizes as "4K", "16M" (PAGE a multiple of 4K up to 1G, 4K if left out);
// "none" is the empty list. False and *error naming the bad item.
bool ParseCeilingSpecs(const std::string& list, std::vector<CeilingSpec>* specs,
                       std::string* error);

// What the tools compute unless told otherwise: best-static at 4, 16 and 64
// KiB, best-static-freed and belady-copies at 4 KiB, all of tier 0's size.
constexpr const char* kDefaultCeilings =
    "best-static:4K,best-static:16K,best-static:64K,best-static-freed:4K,belady-copies:4K";

struct CeilingResult {
  std::string name;      // CeilingName(spec)
  CeilingSpec spec;      // capacity resolved (never 0)
  uint64_t pages = 0;    // capacity / page size (belady-warm: bytes)
  uint64_t held = 0;     // best-static*: pages chosen; belady-copies: copies made;
                         // belady-warm: bytes taken in during the window
  uint64_t reads = 0, pieces = 0, bytes = 0;  // user reads, their pieces and bytes
  double share = 0;
  double strict_share = 0;
  double byte_share = 0;
  double request_share = 0;
};

// One ceiling of a trace already cut into pages (spec.page_size must be
// `pages.page_size`; spec.capacity must not be 0). `measured_from`: the
// first user read measured (past-static and lfu-copies learn from the reads
// before it; the others are given the measured part only, and 0).
CeilingResult ComputeCeiling(const PageTrace& pages, const CeilingSpec& spec,
                             size_t measured_from = 0);

// Every ceiling in `specs` for `trace`, pieces cut at `segment_size` (the
// simulator's), a capacity of 0 meaning `tier0_capacity`, measured on the
// records from `measured_from` on (the ones before are a warm-up that only
// past-static and lfu-copies see). Each page size is cut once per part.
// False and *error on a bad page or segment size, or past-static without a
// warm-up.
bool ComputeCeilings(const std::vector<TraceRecord>& trace, uint64_t segment_size,
                     uint64_t tier0_capacity, const std::vector<CeilingSpec>& specs,
                     std::vector<CeilingResult>* results, std::string* error,
                     size_t measured_from = 0);

}  // namespace sim
}  // namespace tierfs
