// The ceilings (tools/sim/ceiling.h): exact values on traces small enough to
// work out by hand — the top pages, reads across pages and segments, the
// capacity's edges, deleted and re-created files, Belady on a textbook
// sequence — and against exhaustive search on random small traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>

#include "tools/sim/ceiling.h"
#include "tools/sim/compare.h"
#include "tools/sim/page_trace.h"
#include "tools/sim/report.h"
#include "tools/sim/workloads.h"

namespace tierfs {
namespace sim {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kSeg = 64 << 10;

// Records in trace order (the ceilings read no times): an I/O is a record
// whose event is kNone.
TraceRecord Io(IoType type, uint64_t file, uint64_t offset, uint64_t size) {
  TraceRecord r = MakeEvent(TraceEvent::kNone, file, FileKind::kSst, offset, size, -1);
  r.type = type;
  return r;
}
TraceRecord Read(uint64_t file, uint64_t offset, uint64_t size = kPage) {
  return Io(IoType::kUserRead, file, offset, size);
}
TraceRecord Write(uint64_t file, uint64_t offset, uint64_t size = kPage) {
  return Io(IoType::kWrite, file, offset, size);
}
TraceRecord Delete(uint64_t file) {
  return MakeEvent(TraceEvent::kDelete, file, FileKind::kSst, 0, 0, -1);
}
// `n` reads of page `page` of file 0.
void ReadPage(std::vector<TraceRecord>* trace, uint64_t page, int n) {
  for (int i = 0; i < n; ++i) trace->push_back(Read(0, page * kPage));
}

// Pages 0, 1, 2 and 5 of file 0 read 3, 1, 2 and 5 times, in that order.
std::vector<TraceRecord> FourPages() {
  std::vector<TraceRecord> t;
  ReadPage(&t, 0, 3);
  ReadPage(&t, 1, 1);
  ReadPage(&t, 2, 2);
  ReadPage(&t, 5, 5);
  return t;
}

// The ceiling `spec` (as --ceilings spells one) of tier 0 `capacity` bytes.
CeilingResult Ceiling(const std::vector<TraceRecord>& trace, const std::string& spec,
                      uint64_t capacity, uint64_t segment = kSeg) {
  std::vector<CeilingSpec> specs;
  std::vector<CeilingResult> results;
  std::string error;
  EXPECT_TRUE(ParseCeilingSpecs(spec, &specs, &error)) << error;
  EXPECT_TRUE(ComputeCeilings(trace, segment, capacity, specs, &results, &error)) << error;
  return results.empty() ? CeilingResult() : results[0];
}

TEST(CeilingTest, BestStaticHoldsTheMostReadPages) {
  const CeilingResult r = Ceiling(FourPages(), "best-static", 2 * kPage);
  EXPECT_EQ("best-static-4K", r.name);
  EXPECT_EQ(2u, r.pages);
  EXPECT_EQ(2u, r.held);
  EXPECT_EQ(11u, r.reads);
  EXPECT_EQ(11u, r.pieces);
  EXPECT_EQ(11 * kPage, r.bytes);
  // Pages 5 and 0: 8 of 11 reads.
  EXPECT_DOUBLE_EQ(8.0 / 11, r.share);
  EXPECT_DOUBLE_EQ(8.0 / 11, r.strict_share);
  EXPECT_DOUBLE_EQ(8.0 / 11, r.byte_share);
  EXPECT_DOUBLE_EQ(8.0 / 11, r.request_share);
}

TEST(CeilingTest, CapacityEdges) {
  const std::vector<TraceRecord> t = FourPages();
  for (const char* kind : {"best-static", "best-static-freed", "belady-copies"}) {
    SCOPED_TRACE(kind);
    // Less than a page holds nothing.
    CeilingResult r = Ceiling(t, kind, kPage - 1);
    EXPECT_EQ(0u, r.pages);
    EXPECT_EQ(0u, r.held);
    EXPECT_EQ(0.0, r.share);
    EXPECT_EQ(0.0, r.request_share);
    // Room for the four pages read: a static placement holds them all and
    // serves every read; the copies serve every read but the first of each
    // page, and page 1 (read once) is never copied.
    const bool copies = std::string(kind) == "belady-copies";
    const uint64_t held = copies ? 3 : 4;
    const double all = copies ? 7.0 / 11 : 1.0;
    r = Ceiling(t, kind, 4 * kPage);
    EXPECT_EQ(4u, r.pages);
    EXPECT_EQ(held, r.held);
    EXPECT_DOUBLE_EQ(all, r.share);
    EXPECT_DOUBLE_EQ(all, r.strict_share);
    // More room changes nothing; the capacity is rounded down to pages.
    r = Ceiling(t, kind, 100 * kPage + 4095);
    EXPECT_EQ(100u, r.pages);
    EXPECT_EQ(held, r.held);
    EXPECT_DOUBLE_EQ(all, r.share);
  }
  // A trace without user reads has no share.
  const CeilingResult none = Ceiling({Write(0, 0)}, "best-static", kPage);
  EXPECT_EQ(0u, none.reads);
  EXPECT_EQ(0.0, none.share);
}

TEST(CeilingTest, OnlyUserReadsCount) {
  // Compaction reads of page 0 and writes of page 1 are no user's: the one
  // page of room goes to page 2, read once, and serves every user read.
  std::vector<TraceRecord> t;
  for (int i = 0; i < 10; ++i) t.push_back(Io(IoType::kBackgroundRead, 0, 0, kPage));
  for (int i = 0; i < 10; ++i) t.push_back(Write(0, kPage));
  t.push_back(Read(0, 2 * kPage));
  const CeilingResult r = Ceiling(t, "best-static", kPage);
  EXPECT_EQ(1u, r.reads);
  EXPECT_DOUBLE_EQ(1.0, r.share);
  EXPECT_DOUBLE_EQ(1.0, r.request_share);
}

TEST(CeilingTest, AReadAcrossPagesCountsByItsBytesOrWhole) {
  // A: 8 KiB from 2 KiB, three times: 2 KiB of page 0, 4 KiB of page 1,
  // 2 KiB of page 2 (one piece: one segment). B and C: pages 3 and 4 once.
  // Page values: 0.75, 1.5, 0.75, 1, 1.
  std::vector<TraceRecord> t;
  for (int i = 0; i < 3; ++i) t.push_back(Read(0, 2048, 8192));
  t.push_back(Read(0, 3 * kPage));
  t.push_back(Read(0, 4 * kPage));
  const CeilingResult r = Ceiling(t, "best-static", 3 * kPage);
  EXPECT_EQ(5u, r.pieces);
  // share: the best three pages, 1, 3 and 4: half of each A, B and C.
  EXPECT_DOUBLE_EQ((3 * 0.5 + 2) / 5, r.share);
  // Whole pieces: those pages hold B and C whole (2 of 5); pages 0-2 hold A
  // whole, three times.
  EXPECT_DOUBLE_EQ(3.0 / 5, r.strict_share);
  EXPECT_DOUBLE_EQ(3.0 / 5, r.request_share);
  EXPECT_DOUBLE_EQ(24.0 / 32, r.byte_share);
  EXPECT_EQ(3u, r.held);
}

TEST(CeilingTest, PiecesAreCutAtSegmentBoundaries) {
  // R1: 8 KiB across the first segment boundary (pages 15 and 16): two
  // pieces, as the simulator counts it. R2: page 15 alone. One page of
  // room: page 15 (value 2) serves two of three pieces and R2 whole.
  const std::vector<TraceRecord> t = {Read(0, 15 * kPage, 2 * kPage), Read(0, 15 * kPage)};
  CeilingResult r = Ceiling(t, "best-static", kPage);
  EXPECT_EQ(2u, r.reads);
  EXPECT_EQ(3u, r.pieces);
  EXPECT_DOUBLE_EQ(2.0 / 3, r.share);
  EXPECT_DOUBLE_EQ(2.0 / 3, r.strict_share);
  EXPECT_DOUBLE_EQ(2.0 / 3, r.byte_share);
  EXPECT_DOUBLE_EQ(1.0 / 2, r.request_share);
  // With 64 KiB pages (one per segment) and room for one of them: page 0
  // (both pieces of page 15) beats page 1 (one piece).
  r = Ceiling(t, "best-static:64K", 64 << 10);
  EXPECT_EQ("best-static-64K", r.name);
  EXPECT_DOUBLE_EQ(2.0 / 3, r.share);
  EXPECT_DOUBLE_EQ(1.0 / 2, r.request_share);
  // 16 KiB pages: 20 KiB of room is one page.
  r = Ceiling(t, "best-static:16K", 20 << 10);
  EXPECT_EQ(1u, r.pages);
  EXPECT_DOUBLE_EQ(2.0 / 3, r.share);
}

TEST(CeilingTest, DeletedFilesFreeTheirSpaceOnlyInTheFreedVariant) {
  // File 1 is written, its page 0 read four times, deleted; then file 2 is
  // written and its page 0 read three times. One page of room: held for
  // the whole run it serves file 1's reads; freed at the delete, both.
  std::vector<TraceRecord> t = {Write(1, 0, 2 * kPage)};
  for (int i = 0; i < 4; ++i) t.push_back(Read(1, 0));
  t.push_back(Delete(1));
  t.push_back(Write(2, 0));
  for (int i = 0; i < 3; ++i) t.push_back(Read(2, 0));
  EXPECT_DOUBLE_EQ(4.0 / 7, Ceiling(t, "best-static", kPage).share);
  const CeilingResult freed = Ceiling(t, "best-static-freed", kPage);
  EXPECT_DOUBLE_EQ(1.0, freed.share);
  EXPECT_EQ(2u, freed.held);
  // Copies: the first read of each file misses.
  EXPECT_DOUBLE_EQ(5.0 / 7, Ceiling(t, "belady-copies", kPage).share);
}

TEST(CeilingTest, AFileWrittenAgainAfterItsDeleteIsANewFile) {
  // The same file id, deleted between: two pages, not one.
  std::vector<TraceRecord> t = {Write(1, 0), Read(1, 0), Read(1, 0), Delete(1), Write(1, 0),
                                Read(1, 0), Read(1, 0)};
  EXPECT_DOUBLE_EQ(0.5, Ceiling(t, "best-static", kPage).share);
  EXPECT_DOUBLE_EQ(1.0, Ceiling(t, "best-static-freed", kPage).share);
  EXPECT_DOUBLE_EQ(0.5, Ceiling(t, "belady-copies", kPage).share);
}

TEST(CeilingTest, FreedSpaceIsNotGivenTwice) {
  // Files 1 and 2 both live while file 3 is written: one page of room
  // holds one of them at a time. 1 is read 3 times, 2 twice, 3 once, after
  // 1 and 2 are deleted: 1 and 3 fit (one after the other), 2 does not.
  std::vector<TraceRecord> t = {Write(1, 0), Write(2, 0)};
  for (int i = 0; i < 3; ++i) t.push_back(Read(1, 0));
  for (int i = 0; i < 2; ++i) t.push_back(Read(2, 0));
  t.push_back(Delete(1));
  t.push_back(Delete(2));
  t.push_back(Write(3, 0));
  t.push_back(Read(3, 0));
  const CeilingResult r = Ceiling(t, "best-static-freed", kPage);
  EXPECT_DOUBLE_EQ(4.0 / 6, r.share);
  EXPECT_EQ(2u, r.held);
}

TEST(CeilingTest, BeladyOnTheTextbookSequence) {
  // Silberschatz's reference string, three frames: optimal replacement with
  // every miss loaded faults 9 times (11 hits); Belady with bypass (a page
  // not read again before every cached one is not copied in) hits 12 times,
  // the optimum (found by exhaustive search).
  const int seq[] = {7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1};
  std::vector<TraceRecord> t;
  for (int p : seq) ReadPage(&t, uint64_t(p), 1);
  const CeilingResult r = Ceiling(t, "belady-copies", 3 * kPage);
  EXPECT_DOUBLE_EQ(12.0 / 20, r.share);
  EXPECT_DOUBLE_EQ(12.0 / 20, r.strict_share);
  // Copies made: 7, 0, 1 into free frames, 2 (7 out), 3 (1 out), 1 again
  // (3 out); 4 and the last 7 are never read again.
  EXPECT_EQ(6u, r.held);
}

TEST(CeilingTest, AWriteDropsACopy) {
  // Page 0 read, written, read: the copy would be stale, so it is not worth
  // making; without the write the second read hits.
  std::vector<TraceRecord> t = {Read(0, 0), Write(0, 0), Read(0, 0)};
  CeilingResult r = Ceiling(t, "belady-copies", kPage);
  EXPECT_EQ(0.0, r.share);
  EXPECT_EQ(0u, r.held);
  r = Ceiling({Read(0, 0), Read(0, 0)}, "belady-copies", kPage);
  EXPECT_DOUBLE_EQ(0.5, r.share);
  // A write between two hits drops the copy: read, read (hit), write, read
  // (miss, copied again), read (hit).
  t = {Read(0, 0), Read(0, 0), Write(0, 0), Read(0, 0), Read(0, 0)};
  r = Ceiling(t, "belady-copies", kPage);
  EXPECT_DOUBLE_EQ(0.5, r.share);
  EXPECT_EQ(2u, r.held);
}

TEST(CeilingTest, BeladyCountsAReadAcrossPagesByItsParts) {
  // 8 KiB at 2 KiB (pages 0-2), twice, one page of room: page 0 is copied,
  // and stays (it is read again sooner than pages 1 and 2, the parts in
  // order): the second read finds 2 KiB of its 8.
  const std::vector<TraceRecord> t = {Read(0, 2048, 8192), Read(0, 2048, 8192)};
  const CeilingResult r = Ceiling(t, "belady-copies", kPage);
  EXPECT_DOUBLE_EQ(0.25 / 2, r.share);
  EXPECT_EQ(0.0, r.strict_share);
  EXPECT_DOUBLE_EQ(2048.0 / 16384, r.byte_share);
  // With room for three, the second read hits whole.
  EXPECT_DOUBLE_EQ(0.5, Ceiling(t, "belady-copies", 3 * kPage).request_share);
}

TEST(CeilingTest, BeladyWarmCountsBytesAndStartsWithTheBestContents) {
  // 100 bytes of page 0 and 4000 of page 1 read twice each, interleaved.
  // MIN on pages, cold, one page of room: one copy serves one second read,
  // page 0's (read again first): 100 bytes. Warm and on bytes, 4000 bytes of
  // room: page 0's 100 bytes and 3900 of page 1's, held from the start,
  // serve 8000 of the 8200 bytes read (as would page 1 alone: MIN keeps the
  // bytes read again soonest).
  const std::vector<TraceRecord> t = {Read(0, 0, 100), Read(0, kPage, 4000), Read(0, 0, 100),
                                      Read(0, kPage, 4000)};
  EXPECT_DOUBLE_EQ(100.0 / 8200, Ceiling(t, "belady-copies", kPage).byte_share);
  const CeilingResult warm = Ceiling(t, "belady-warm", 4000);
  EXPECT_EQ("belady-warm-4K", warm.name);
  EXPECT_EQ(0u, warm.pages);  // capacity / page size
  EXPECT_EQ(4u, warm.reads);
  EXPECT_EQ(8200u, warm.bytes);
  EXPECT_DOUBLE_EQ(8000.0 / 8200, warm.byte_share);
  EXPECT_DOUBLE_EQ((1 + 3900.0 / 4000 + 1 + 3900.0 / 4000) / 4, warm.share);  // its schedule's
  EXPECT_DOUBLE_EQ(2.0 / 4, warm.strict_share);
  EXPECT_EQ(0u, warm.held);  // nothing taken in after the start
  // 4100 bytes: both, from the start.
  EXPECT_DOUBLE_EQ(1.0, Ceiling(t, "belady-warm", 4100).byte_share);
  // 4050: page 0's bytes and 3950 of page 1's.
  EXPECT_DOUBLE_EQ(8000.0 / 8200 + 100.0 / 8200, Ceiling(t, "belady-warm", 4050).byte_share);
  // A write places its bytes: written, then read, served; nothing of room,
  // nothing served.
  const std::vector<TraceRecord> w = {Write(1, 0, 100), Read(1, 0, 100), Read(1, 0, 100)};
  EXPECT_DOUBLE_EQ(1.0, Ceiling(w, "belady-warm", 100).byte_share);
  EXPECT_EQ(0.0, Ceiling(w, "belady-warm", 0).byte_share);
  // A read across a segment boundary is two pieces, each counted.
  const CeilingResult two = Ceiling({Read(0, kSeg - 100, 200)}, "belady-warm", 100);
  EXPECT_EQ(2u, two.pieces);
  EXPECT_DOUBLE_EQ(0.5, two.byte_share);
  EXPECT_DOUBLE_EQ(0.5, two.share);  // one piece whole, the other missed
}

TEST(CeilingTest, BeladyWarmIsTheOptimumOfEveryScheduleOfUnits) {
  // Reads and writes of whole 1 KiB units at random over two files of six
  // units (a page is four), a cache of a few units: the most bytes served by
  // any schedule that starts with any units, takes in units of the pages an
  // access touches (or not) and drops any, found by search. With every
  // access and the capacity in whole units, bytes do no better than units.
  // And copies of pages, started cold, a write dropping them, never beat it.
  constexpr uint64_t kUnit = 1024;
  constexpr int kFileUnits = 8;  // file f's unit u is bit f * 8 + u; u < 6
  std::mt19937_64 rng(23);
  for (int round = 0; round < 60; ++round) {
    struct Op {
      bool read;
      int file, first, n;
    };
    std::vector<Op> ops;
    std::vector<TraceRecord> t;
    for (int i = 0; i < 10; ++i) {
      const int file = rng() % 4 == 0 ? 1 : 0;
      const int first = int(rng() % 6), n = 1 + int(rng() % std::min<uint64_t>(3, 6 - first));
      const bool read = rng() % 6 != 0;
      ops.push_back(Op{read, file, first, n});
      const uint64_t off = uint64_t(first) * kUnit, size = uint64_t(n) * kUnit;
      t.push_back(read ? Read(uint64_t(file), off, size) : Write(uint64_t(file), off, size));
    }
    const int frames = 1 + int(rng() % 3);
    std::map<std::pair<size_t, uint32_t>, uint64_t> memo;
    std::function<uint64_t(size_t, uint32_t)> best = [&](size_t i, uint32_t cache) {
      if (i == ops.size()) return uint64_t(0);
      auto known = memo.find({i, cache});
      if (known != memo.end()) return known->second;
      const Op& op = ops[i];
      uint64_t hits = 0;
      uint32_t pages = 0;  // the units of the pages touched
      for (int u = op.first; u < op.first + op.n; ++u) {
        const int bit = op.file * kFileUnits + u;
        if (op.read && (cache & (1u << bit))) hits += kUnit;
        for (int v = u / 4 * 4; v < u / 4 * 4 + 4 && v < 6; ++v) {
          pages |= 1u << (op.file * kFileUnits + v);
        }
      }
      // After the access: any set of at most `frames` units among those held
      // and those of the pages touched.
      uint64_t most = 0;
      const uint32_t can = cache | pages;
      for (uint32_t next = can;; next = (next - 1) & can) {
        if (__builtin_popcount(next) <= frames) most = std::max(most, best(i + 1, next));
        if (next == 0) break;
      }
      memo[{i, cache}] = hits + most;
      return hits + most;
    };
    const uint32_t all = 0x3f | 0x3f << kFileUnits;
    uint64_t most = 0;
    for (uint32_t start = all;; start = (start - 1) & all) {
      if (__builtin_popcount(start) <= frames) most = std::max(most, best(0, start));
      if (start == 0) break;
    }
    const CeilingResult r = Ceiling(t, "belady-warm", uint64_t(frames) * kUnit);
    if (r.bytes == 0) continue;  // no reads drawn
    EXPECT_DOUBLE_EQ(double(most) / double(r.bytes), r.byte_share) << "round " << round;
    EXPECT_GE(Ceiling(t, "belady-warm", kPage).byte_share + 1e-12,
              Ceiling(t, "belady-copies", kPage).byte_share)
        << "round " << round;
  }
}

// Random traces of reads of one to three pages over a few pages: the
// ceilings against exhaustive search.
std::vector<TraceRecord> RandomReads(std::mt19937_64& rng, int reads, int pages) {
  std::vector<TraceRecord> t;
  for (int i = 0; i < reads; ++i) {
    const uint64_t start = rng() % (uint64_t(pages) * 2) * 2048;  // half pages
    const uint64_t size = 2048 * (1 + rng() % 4);
    t.push_back(Read(0, std::min(start, uint64_t(pages) * kPage - size), size));
  }
  return t;
}

TEST(CeilingTest, BestStaticShareIsTheOptimumOfEverySubset) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    const int pages = 6;
    const std::vector<TraceRecord> t = RandomReads(rng, 12, pages);
    PageTrace pt;
    std::string error;
    ASSERT_TRUE(BuildPageTrace(t, kPage, kSeg, &pt, &error)) << error;
    const uint64_t room = 1 + rng() % 4;
    const CeilingResult r = Ceiling(t, "best-static", room * kPage);
    // Every subset of at most `room` of the read pages.
    double best_share = 0, best_strict = 0;
    for (uint32_t mask = 0; mask < (1u << pt.pages()); ++mask) {
      if (uint64_t(__builtin_popcount(mask)) > room) continue;
      double share = 0, strict = 0;
      for (size_t piece = 0; piece < pt.pieces(); ++piece) {
        uint64_t bytes = 0, hit = 0;
        for (uint64_t part = pt.piece_start[piece]; part < pt.piece_start[piece + 1]; ++part) {
          bytes += pt.part_bytes[part];
          if (mask >> pt.part_page[part] & 1) hit += pt.part_bytes[part];
        }
        share += double(hit) / double(bytes);
        strict += hit == bytes;
      }
      best_share = std::max(best_share, share / double(pt.pieces()));
      best_strict = std::max(best_strict, strict / double(pt.pieces()));
    }
    EXPECT_NEAR(best_share, r.share, 1e-12) << "round " << round;
    // The strict share found is achievable and at most the optimum, which
    // `share` bounds.
    EXPECT_LE(r.strict_share, best_strict + 1e-12) << "round " << round;
    EXPECT_LE(best_strict, r.share + 1e-12) << "round " << round;
  }
}

TEST(CeilingTest, BeladyIsTheOptimumOfEveryCopySchedule) {
  // One-page reads: the most hits of any schedule that copies a page in on
  // a read (or not) and drops any, found by search.
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    std::vector<int> seq;
    std::vector<TraceRecord> t;
    for (int i = 0; i < 12; ++i) {
      seq.push_back(int(rng() % 5));
      ReadPage(&t, uint64_t(seq.back()), 1);
    }
    const size_t frames = 1 + rng() % 3;
    std::map<std::pair<size_t, std::vector<int>>, int> memo;
    std::function<int(size_t, std::vector<int>)> best = [&](size_t i, std::vector<int> cache) {
      if (i == seq.size()) return 0;
      std::sort(cache.begin(), cache.end());
      auto known = memo.find({i, cache});
      if (known != memo.end()) return known->second;
      int most;
      if (std::find(cache.begin(), cache.end(), seq[i]) != cache.end()) {
        most = 1 + best(i + 1, cache);
      } else {
        most = best(i + 1, cache);  // not copied
        for (size_t v = 0; v <= cache.size(); ++v) {
          if (v == cache.size() && cache.size() == frames) break;
          std::vector<int> next = cache;
          if (v < cache.size()) {
            next[v] = seq[i];  // replaces one
          } else {
            next.push_back(seq[i]);  // into free room
          }
          most = std::max(most, best(i + 1, next));
        }
      }
      memo[{i, cache}] = most;
      return most;
    };
    const CeilingResult r = Ceiling(t, "belady-copies", frames * kPage);
    EXPECT_DOUBLE_EQ(best(0, {}) / 12.0, r.share) << "round " << round;
  }
}

TEST(CeilingTest, FinerPagesNeverDoWorseAndFreedNeverWorseThanStatic) {
  WorkloadOptions w;
  w.requests = 20000;
  std::vector<TraceRecord> trace;
  std::string error;
  ASSERT_TRUE(Generate("YCSB-B", w, &trace, &error)) << error;
  std::vector<CeilingSpec> specs;
  ASSERT_TRUE(ParseCeilingSpecs(kDefaultCeilings, &specs, &error)) << error;
  std::vector<CeilingResult> r;
  const uint64_t fast = Footprint(trace, kSeg) / 10;
  ASSERT_TRUE(ComputeCeilings(trace, kSeg, fast, specs, &r, &error)) << error;
  ASSERT_EQ(5u, r.size());
  EXPECT_EQ("best-static-4K", r[0].name);
  EXPECT_EQ("best-static-16K", r[1].name);
  EXPECT_EQ("best-static-64K", r[2].name);
  EXPECT_EQ("best-static-freed-4K", r[3].name);
  EXPECT_EQ("belady-copies-4K", r[4].name);
  // A placement of 64 KiB pages is one of 16 KiB pages, and of 4 KiB pages.
  EXPECT_GE(r[0].share, r[1].share);
  EXPECT_GE(r[1].share, r[2].share);
  EXPECT_GE(r[0].strict_share, r[2].strict_share);
  // At the segment's size a piece lies in one page: both counts agree.
  EXPECT_DOUBLE_EQ(r[2].share, r[2].strict_share);
  EXPECT_GE(r[3].share, r[0].share);
  EXPECT_GT(r[0].share, 0.3);  // a skewed workload: 10% of room serves much
  for (const CeilingResult& c : r) {
    EXPECT_EQ(fast, c.spec.capacity) << c.name;
    EXPECT_LE(c.strict_share, c.share + 1e-12) << c.name;
  }
}

// Warm-up: page 0 read 3 times, page 1 once; then measured: page 1 five
// times, page 0 once. One page of tier 0.
std::vector<TraceRecord> HeatThatShifts(size_t* measured_from) {
  std::vector<TraceRecord> t;
  ReadPage(&t, 0, 3);
  ReadPage(&t, 1, 1);
  *measured_from = t.size();
  ReadPage(&t, 1, 5);
  ReadPage(&t, 0, 1);
  return t;
}

CeilingResult Learned(const std::vector<TraceRecord>& trace, size_t measured_from,
                      const std::string& spec, uint64_t capacity, std::string* error) {
  std::vector<CeilingSpec> specs;
  std::vector<CeilingResult> results;
  EXPECT_TRUE(ParseCeilingSpecs(spec, &specs, error)) << *error;
  if (!ComputeCeilings(trace, kSeg, capacity, specs, &results, error, measured_from)) return {};
  return results[0];
}

TEST(CeilingTest, TheReferencesThatLearnSeeOnlyTheWarmup) {
  size_t from;
  const std::vector<TraceRecord> t = HeatThatShifts(&from);
  std::string error;
  // With hindsight: page 1, 5 of the 6 measured reads.
  const CeilingResult best = Learned(t, from, "best-static", kPage, &error);
  EXPECT_EQ(6u, best.reads);
  EXPECT_DOUBLE_EQ(5.0 / 6, best.share);
  // Chosen on the warm-up: page 0, 1 of 6.
  const CeilingResult past = Learned(t, from, "past-static", kPage, &error);
  EXPECT_EQ("past-static-4K", past.name);
  EXPECT_EQ(6u, past.reads);
  EXPECT_EQ(1u, past.held);
  EXPECT_DOUBLE_EQ(1.0 / 6, past.share);
  // LFU: page 0 (3 reads) is copied at its second read; page 1 replaces it
  // only when read more often than 3 times, at its fourth read (the third
  // measured), then hits twice; page 0 (4 reads) does not get back in.
  const CeilingResult lfu = Learned(t, from, "lfu-copies", kPage, &error);
  EXPECT_EQ("lfu-copies-4K", lfu.name);
  EXPECT_EQ(6u, lfu.reads);
  EXPECT_EQ(2u, lfu.held);  // copies made: page 0, then page 1
  EXPECT_DOUBLE_EQ(2.0 / 6, lfu.share);
  // Without a warm-up LFU counts from the start of what it is given.
  const CeilingResult cold = Ceiling(t, "lfu-copies", kPage);
  EXPECT_EQ(10u, cold.reads);
  EXPECT_DOUBLE_EQ((1.0 + 2.0) / 10, cold.share);  // page 0's third read, page 1's last two
}

TEST(CeilingTest, LfuCopiesNeverBeatBeladyAndAWriteDropsACopy) {
  std::vector<TraceRecord> t;
  ReadPage(&t, 0, 3);
  t.push_back(Write(0, 0));
  ReadPage(&t, 0, 2);
  // Copied at the second read, hit at the third; the write drops it, and it
  // is copied again at the next read (its count is 4), hit at the last.
  const CeilingResult lfu = Ceiling(t, "lfu-copies", kPage);
  EXPECT_EQ(2u, lfu.held);
  EXPECT_DOUBLE_EQ(2.0 / 5, lfu.share);
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<TraceRecord> r;
    for (int i = 0; i < 200; ++i) {
      const uint64_t page = rng() % 12;
      r.push_back(rng() % 10 == 0 ? Write(page % 2, page * kPage) : Read(page % 2, page * kPage));
    }
    const uint64_t cap = (1 + rng() % 4) * kPage;
    EXPECT_LE(Ceiling(r, "lfu-copies", cap).share, Ceiling(r, "belady-copies", cap).share + 1e-12)
        << "trial " << trial;
  }
}

TEST(CeilingTest, PastStaticNeedsAWarmupWithReads) {
  std::string error;
  Learned(FourPages(), 0, "past-static", kPage, &error);
  EXPECT_NE(std::string::npos, error.find("needs a warm-up")) << error;
}

TEST(CeilingTest, SpecsParseAndName) {
  std::vector<CeilingSpec> specs;
  std::string error;
  ASSERT_TRUE(ParseCeilingSpecs("best-static:16K,belady-copies:4K:8M,best-static-freed", &specs,
                                &error))
      << error;
  ASSERT_EQ(3u, specs.size());
  EXPECT_EQ(CeilingKind::kBestStatic, specs[0].kind);
  EXPECT_EQ(16u << 10, specs[0].page_size);
  EXPECT_EQ(0u, specs[0].capacity);
  EXPECT_EQ(CeilingKind::kBeladyCopies, specs[1].kind);
  EXPECT_EQ(8u << 20, specs[1].capacity);
  EXPECT_EQ("belady-copies-4K-8M", CeilingName(specs[1]));
  EXPECT_EQ("best-static-freed-4K", CeilingName(specs[2]));
  ASSERT_TRUE(ParseCeilingSpecs("none", &specs, &error));
  EXPECT_TRUE(specs.empty());
  ASSERT_TRUE(ParseCeilingSpecs("belady-warm:8K", &specs, &error)) << error;
  EXPECT_EQ(CeilingKind::kBeladyWarm, specs[0].kind);
  EXPECT_EQ("belady-warm-8K", CeilingName(specs[0]));
  for (const char* bad : {"best-static:5K", "worst:4K", "best-static:4K:8M:1", "belady-copies:4K:0",
                          "best-static:2G"}) {
    EXPECT_FALSE(ParseCeilingSpecs(bad, &specs, &error)) << bad;
    EXPECT_NE(std::string::npos, error.find("bad ceiling")) << error;
  }
  // A capacity of its own wins over tier 0's.
  const CeilingResult r = Ceiling({Read(0, 0), Read(0, 0)}, "best-static:4K:4K", 0);
  EXPECT_EQ(1u, r.pages);
  EXPECT_DOUBLE_EQ(1.0, r.share);
}

TEST(CeilingTest, CompareComputesThemPerConfigurationBesideThePolicies) {
  CompareOptions o;
  o.configs = {"perf", "cost"};
  o.workloads = {"YCSB-B", "ssd-02"};
  o.policies = {"fast-first"};
  o.requests = 3000;
  std::string error;
  ASSERT_TRUE(ParseCeilingSpecs("best-static:4K,belady-copies:4K", &o.ceilings, &error)) << error;
  std::vector<Cell> cells;
  std::vector<CeilingCell> ceilings;
  ASSERT_TRUE(Compare(o, &cells, &error, &ceilings)) << error;
  ASSERT_EQ(2u * 2u * 2u, ceilings.size());  // workloads x configs x ceilings
  // perf and cost have the same tier 0: the same ceilings.
  EXPECT_EQ("YCSB-B", ceilings[0].workload);
  EXPECT_EQ("perf", ceilings[0].config);
  EXPECT_EQ("cost", ceilings[2].config);
  EXPECT_EQ(ceilings[0].result.share, ceilings[2].result.share);
  EXPECT_GT(ceilings[0].result.share, 0);
  const std::string md = UserReadShareMarkdown(cells, {"fast-only", "fast-first"}, ceilings);
  EXPECT_NE(std::string::npos, md.find("| workload | fast-first | best-static-4K | belady-copies-4K |"))
      << md;
  EXPECT_NE(std::string::npos, md.find("| **mean** |")) << md;
  const std::string csv = CeilingsCsv(ceilings);
  EXPECT_EQ(9, std::count(csv.begin(), csv.end(), '\n'));  // header and 8 rows
}

}  // namespace
}  // namespace sim
}  // namespace tierfs
