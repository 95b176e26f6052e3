// An audit of a quiet TierFS store (no write, move or placement running), for
// the tests of the move protocol: the capacity account against the segment
// map, and the backing files against both.
//
// The account, per tier, must be what recovery would charge
// (store_recovery.cc): for every placed segment whose home is the tier, its
// bytes in whole blocks; the same for every extra copy there; and one block of
// allowance for every file with a home or a copy there. The device must hold
// no data of a file on a tier that is neither the home nor the copy of the
// segment it falls in (a half-done or abandoned move, or a copy dropped but
// never punched), must hold the data of every home and copy, and must hold no
// more bytes than the account charges.
#pragma once

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/config.h"
#include "env/hot_pages.h"
#include "env/posix_util.h"
#include "env/tier_fs.h"
#include "tests/test_util.h"

namespace tierfs {
namespace test {

struct Audit {
  std::vector<uint64_t> used;       // per tier: GetTierStats used_bytes
  std::vector<uint64_t> expected;   // per tier: what the segment map accounts for
  std::vector<uint64_t> allocated;  // per tier: bytes the backing files occupy
  std::vector<uint64_t> homes, copies;
  uint64_t page_copies = 0;  // bytes of hot-page copies (tier 0)
  std::string problems;  // one line per inconsistency; "" if none
};

// Where each segment of the bulk files under `dir` lives: (file, segment) ->
// home, copy tier (-1 none), and whether the copy is a PREFETCH (not durable).
struct Placement {
  int home = -1, copy = -1;
  bool volatile_copy = false;
  bool operator==(const Placement& o) const {
    return home == o.home && copy == o.copy && volatile_copy == o.volatile_copy;
  }
};
using PlacementMap = std::map<std::pair<std::string, uint64_t>, Placement>;

inline PlacementMap Placements(rocksdb::FileSystem* fs, const std::string& dir) {
  PlacementMap map;
  Store* store = StoreOf(fs);
  std::vector<SegmentReport> segs;
  if (!store || !ListSegments(fs, dir, &segs).ok()) return map;
  for (const SegmentReport& r : segs) {
    Placement& p = map[{r.file, r.segment}];
    p.home = r.tier;
    p.copy = r.copy_tier;
    std::shared_ptr<FileEntry> e = store->Find(r.file);
    p.volatile_copy = e && e->segments.copy_is_volatile(r.segment);
  }
  return map;
}

// ListSegments' report for every file under `dir`, metadata files (CURRENT,
// MANIFEST, OPTIONS, ...) too: the account charges their segments as it
// charges bulk files'. False if the store cannot be inspected.
inline bool ListAllSegments(rocksdb::FileSystem* fs, const std::string& dir,
                            std::vector<SegmentReport>* out) {
  Store* store = StoreOf(fs);
  std::vector<FileInfo> files;
  if (!store || !ListFiles(fs, dir, &files).ok()) return false;
  out->clear();
  for (const FileInfo& f : files) {
    std::shared_ptr<FileEntry> e = store->Find(TierFileSystem::Normalize(f.name));
    if (!e) continue;
    ReaderLock lock(&e->mu);
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      const uint8_t t = e->segments.tier(s);
      if (t == kNoTier) continue;
      SegmentReport r;
      r.file = f.name;
      r.segment = s;
      r.tier = t;
      const uint8_t c = e->segments.copy(s);
      r.copy_tier = c == kNoTier ? -1 : c;
      r.bytes = store->ContentEnd(*e, s) - store->SegmentStart(s);
      out->push_back(r);
    }
  }
  return true;
}

// Hot-page copies on tier 0, slot by slot (engine/page_copies.h): their
// bytes join tier 0's expected account and must be what its counter says.
template <typename Problem>
void AuditPageCopies(Store* store, const std::vector<TierStats>& stats, Audit* a,
                     const Problem& problem) {
  HotPages* hot = store->hot_pages();
  if (!hot) return;
  const uint64_t bytes = hot->copies().ChargedBytes();
  a->expected[0] += bytes;
  a->page_copies = bytes;
  if (stats[0].Get(TierTicker::kPageCopyBytes) != bytes) {
    problem("tier 0: counts " + std::to_string(stats[0].Get(TierTicker::kPageCopyBytes)) +
            " bytes of page copies, its slots hold " + std::to_string(bytes));
  }
}

// Tier t's account and segment and copy counters against what the audit
// found (`expected_from` names where the expected bytes came from).
template <typename Problem>
void AuditTierCounters(const TierStats& stats, int t, const Audit& a, const char* expected_from,
                       const Problem& problem) {
  const std::string tier = "tier " + std::to_string(t) + ": ";
  if (stats.used_bytes != a.expected[t]) {
    problem(tier + "account says " + std::to_string(stats.used_bytes) + " bytes used, " +
            expected_from + " " + std::to_string(a.expected[t]));
  }
  if (stats.Get(TierTicker::kSegments) != a.homes[t]) {
    problem(tier + "counts " + std::to_string(stats.Get(TierTicker::kSegments)) +
            " segments, the map has " + std::to_string(a.homes[t]));
  }
  if (stats.Get(TierTicker::kCopies) != a.copies[t]) {
    problem(tier + "counts " + std::to_string(stats.Get(TierTicker::kCopies)) +
            " copies, the map has " + std::to_string(a.copies[t]));
  }
}

// The audit of the files under `dir`: bulk files only (the segments
// ListSegments reports), or with `all_files` every file, for a store whose
// whole account is under `dir` (a database at "/").
inline Audit AuditStore(rocksdb::FileSystem* fs, const std::string& dir, bool all_files = false) {
  Audit a;
  Store* store = StoreOf(fs);
  if (!store) {
    a.problems = "not a TierFS\n";
    return a;
  }
  auto problem = [&](const std::string& line) { a.problems += line + "\n"; };
  const int tiers = store->NumTiers();
  std::vector<TierStats> stats;
  std::vector<SegmentReport> segs;
  std::vector<FileInfo> files;
  const bool listed = all_files ? ListAllSegments(fs, dir, &segs) : ListSegments(fs, dir, &segs).ok();
  if (!GetTierStats(fs, &stats).ok() || !listed || !ListFiles(fs, dir, &files).ok()) {
    a.problems = "inspection failed\n";
    return a;
  }
  a.expected.assign(tiers, 0);
  a.homes.assign(tiers, 0);
  a.copies.assign(tiers, 0);
  std::set<std::pair<std::string, int>> allowances;
  std::map<std::pair<std::string, uint64_t>, const SegmentReport*> by_segment;
  for (const SegmentReport& r : segs) {
    by_segment[{r.file, r.segment}] = &r;
    a.expected[r.tier] += RoundUp(r.bytes);
    a.homes[r.tier]++;
    allowances.insert({r.file, r.tier});
    if (r.copy_tier >= 0) {
      a.expected[r.copy_tier] += RoundUp(r.bytes);
      a.copies[r.copy_tier]++;
      allowances.insert({r.file, r.copy_tier});
    }
  }
  for (const auto& fa : allowances) a.expected[fa.second] += kBlockSize;
  AuditPageCopies(store, stats, &a, problem);
  for (int t = 0; t < tiers; ++t) {
    a.used.push_back(stats[t].used_bytes);
    a.allocated.push_back(AllocatedOnTier(store->tier(t).root));
    const std::string tier = "tier " + std::to_string(t) + ": ";
    AuditTierCounters(stats[t], t, a, "the segment map accounts for", problem);
    if (a.allocated[t] > stats[t].used_bytes) {
      problem(tier + "the device holds " + std::to_string(a.allocated[t]) +
              " bytes, more than the " + std::to_string(stats[t].used_bytes) + " accounted");
    }
  }
  // The backing files against the map.
  // Segment size 0 is "whole file": one segment as large as any file.
  const uint64_t seg_size = store->SegmentSize() ? store->SegmentSize() : ~0ull;
  for (const FileInfo& f : files) {
    std::shared_ptr<FileEntry> e = store->Find(TierFileSystem::Normalize(f.name));
    if (!e) continue;
    for (int t = 0; t < tiers; ++t) {
      const std::string path = store->tier(t).DataPath(e->id);
      for (const auto& [begin, end] : DataExtents(path)) {
        for (uint64_t s = begin / seg_size; s * seg_size < end; ++s) {
          auto it = by_segment.find({f.name, s});
          const SegmentReport* r = it == by_segment.end() ? nullptr : it->second;
          const uint64_t start = s * seg_size;
          const uint64_t data_end = std::min(end, start + seg_size);
          if (!r || (r->tier != t && r->copy_tier != t)) {
            problem(f.name + " segment " + std::to_string(s) + ": data on tier " +
                    std::to_string(t) + " [" + std::to_string(std::max(begin, start)) + ", " +
                    std::to_string(data_end) + ") which is neither its home (" +
                    (r ? std::to_string(r->tier) : std::string("none")) + ") nor its copy (" +
                    (r ? std::to_string(r->copy_tier) : std::string("none")) + ")");
          } else if (data_end > start + RoundUp(r->bytes)) {
            problem(f.name + " segment " + std::to_string(s) + ": data on tier " +
                    std::to_string(t) + " up to " + std::to_string(data_end) +
                    ", past its content end " + std::to_string(start + r->bytes));
          }
        }
      }
    }
  }
  for (const SegmentReport& r : segs) {
    std::shared_ptr<FileEntry> e = store->Find(TierFileSystem::Normalize(r.file));
    if (!e || r.bytes == 0) continue;
    const uint64_t start = r.segment * seg_size;
    for (int t : {r.tier, r.copy_tier}) {
      if (t >= 0 && !HasData(store->tier(t).DataPath(e->id), start, r.bytes)) {
        problem(r.file + " segment " + std::to_string(r.segment) + ": its " +
                (t == r.tier ? "home" : "copy") + " on tier " + std::to_string(t) +
                " holds no data");
      }
    }
  }
  return a;
}

// The bytes of `path`'s data extents on its device, unwritten (preallocated)
// ones included, from FIEMAP; st_blocks where FIEMAP is not supported
// (tmpfs). Delayed allocations count (ext4 reports them unsynced). Not
// st_blocks alone: ext4 counts there the block it keeps a
// file's extent tree in once the file has more than four extents (a backing
// file with holes between segments), which holds no data.
inline uint64_t MappedBytes(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  constexpr unsigned kBatch = 64;
  std::vector<char> buf(sizeof(struct fiemap) + kBatch * sizeof(struct fiemap_extent));
  auto* map = reinterpret_cast<struct fiemap*>(buf.data());
  uint64_t total = 0, start = 0;
  for (;;) {
    memset(buf.data(), 0, buf.size());
    map->fm_start = start;
    map->fm_length = FIEMAP_MAX_OFFSET - start;
    map->fm_extent_count = kBatch;
    if (ioctl(fd, FS_IOC_FIEMAP, map) != 0) {
      struct stat st;
      total = fstat(fd, &st) == 0 ? uint64_t(st.st_blocks) * 512 : 0;
      break;
    }
    if (map->fm_mapped_extents == 0) break;
    const struct fiemap_extent& last = map->fm_extents[map->fm_mapped_extents - 1];
    for (unsigned i = 0; i < map->fm_mapped_extents; ++i) total += map->fm_extents[i].fe_length;
    if (last.fe_flags & FIEMAP_EXTENT_LAST) break;
    start = last.fe_logical + last.fe_length;
  }
  close(fd);
  return total;
}

// The leak audit of a whole quiet store, metadata files (MANIFEST, CURRENT,
// OPTIONS, LOG, ...) included, for the end of a soak: that the bytes in use
// are the live files' and nothing else.
//   - Every placed segment of every file is charged its content in whole
//     blocks, no more (a charge left from a write's reservation or a
//     preallocation is a leak); the account of each tier is those charges,
//     its extra copies', one block of allowance per file with a home or a
//     copy there, and tier 0's hot-page copies.
//   - Every backing file belongs to a file of the namespace (an orphan is a
//     leak until the next recovery deletes it), holds data only in segments
//     whose home or copy is its tier and only up to their content's end, and
//     holds the data of every home and copy.
//   - The blocks the backing files' data occupies (MappedBytes, so
//     preallocated blocks count) are exactly the charged content: the
//     account without the allowances and the hot-page copies (which live in
//     meta/PAGES).
// Audit::homes and ::copies count segments; ::expected is the account the
// map implies; ::allocated the backing files' data (MappedBytes).
inline Audit AuditEveryFile(rocksdb::FileSystem* fs) {
  Audit a;
  Store* store = StoreOf(fs);
  if (!store) {
    a.problems = "not a TierFS\n";
    return a;
  }
  auto problem = [&](const std::string& line) { a.problems += line + "\n"; };
  const int tiers = store->NumTiers();
  std::vector<TierStats> stats;
  std::vector<FileInfo> files;
  if (!GetTierStats(fs, &stats).ok() || !ListFiles(fs, "/", &files).ok()) {
    a.problems = "inspection failed\n";
    return a;
  }
  a.expected.assign(tiers, 0);
  a.homes.assign(tiers, 0);
  a.copies.assign(tiers, 0);
  std::vector<uint64_t> content(tiers, 0);  // charged content: what the blocks must be
  // Segment size 0 is "whole file": one segment as large as any file.
  const uint64_t seg_size = store->SegmentSize() ? store->SegmentSize() : ~0ull;
  std::map<uint64_t, std::string> ids;  // file id -> a name (hard links: one entry)
  for (const FileInfo& f : files) {
    std::shared_ptr<FileEntry> e = store->Find(TierFileSystem::Normalize(f.name));
    if (!e) {
      problem(f.name + ": listed, but not found");
      continue;
    }
    if (!ids.emplace(e->id, f.name).second) continue;
    const uint64_t size = e->size.load();
    uint8_t with_data = 0;  // tiers holding a home or a copy of the file
    for (uint64_t s = 0; s < e->segments.size(); ++s) {
      const uint8_t home = e->segments.tier(s);
      if (home == kNoTier) continue;
      const uint64_t start = s * seg_size;
      const uint64_t bytes = size > start ? std::min(size - start, seg_size) : 0;
      const std::string where = f.name + " segment " + std::to_string(s);
      if (e->segments.charged(s) != RoundUp(bytes)) {
        problem(where + " on tier " + std::to_string(home) + ": charged " +
                std::to_string(e->segments.charged(s)) + " bytes for " + std::to_string(bytes) +
                " bytes of content");
      }
      a.expected[home] += RoundUp(bytes);
      content[home] += RoundUp(bytes);
      a.homes[home]++;
      with_data |= uint8_t(1u << home);
      const uint8_t copy = e->segments.copy(s);
      if (copy != kNoTier) {
        a.expected[copy] += RoundUp(bytes);
        content[copy] += RoundUp(bytes);
        a.copies[copy]++;
        with_data |= uint8_t(1u << copy);
      }
      for (uint8_t t : {home, copy}) {
        if (t != kNoTier && bytes > 0 &&
            !HasData(store->tier(t).DataPath(e->id), start, bytes)) {
          problem(where + ": its " + std::string(t == home ? "home" : "copy") + " on tier " +
                  std::to_string(t) + " holds no data");
        }
      }
    }
    for (int t = 0; t < tiers; ++t) {
      if (with_data & (1u << t)) a.expected[t] += kBlockSize;
      const std::string path = store->tier(t).DataPath(e->id);
      for (const auto& [begin, end] : DataExtents(path)) {
        for (uint64_t s = begin / seg_size; s * seg_size < end; ++s) {
          const uint64_t start = s * seg_size;
          const uint64_t data_end = std::min(end, start + seg_size);
          const uint8_t home = e->segments.tier(s);
          const uint8_t copy = e->segments.copy(s);
          const uint64_t bytes = size > start ? std::min(size - start, seg_size) : 0;
          if (home != t && copy != t) {
            problem(f.name + " segment " + std::to_string(s) + ": data on tier " +
                    std::to_string(t) + " [" + std::to_string(std::max(begin, start)) + ", " +
                    std::to_string(data_end) + ") which is neither its home nor its copy");
          } else if (data_end > start + RoundUp(bytes)) {
            problem(f.name + " segment " + std::to_string(s) + ": data on tier " +
                    std::to_string(t) + " up to " + std::to_string(data_end) +
                    ", past its content's end " + std::to_string(start + bytes));
          }
        }
      }
    }
  }
  AuditPageCopies(store, stats, &a, problem);
  for (int t = 0; t < tiers; ++t) {
    const std::string tier = "tier " + std::to_string(t) + ": ";
    a.used.push_back(stats[t].used_bytes);
    AuditTierCounters(stats[t], t, a, "the files' segments account for", problem);
    // Backing files of no file: left by a crash, deleted by recovery; in a
    // running store, a leak.
    std::vector<std::string> children;
    if (!store->base()->GetChildren(store->tier(t).data_dir, rocksdb::IOOptions(), &children,
                                    nullptr).ok()) {
      problem(tier + "cannot list " + store->tier(t).data_dir);
    }
    uint64_t mapped = 0;
    for (const std::string& c : children) {
      char* end = nullptr;
      const uint64_t id = strtoull(c.c_str(), &end, 16);
      if (c.size() != 16 || *end != '\0' || !ids.count(id)) {
        problem(tier + "backing file data/" + c + " belongs to no file");
      }
      mapped += MappedBytes(store->tier(t).data_dir + "/" + c);
    }
    a.allocated.push_back(mapped);
    if (mapped != content[t]) {
      problem(tier + "the backing files' data occupies " + std::to_string(mapped) +
              " bytes, the segments charged there hold " + std::to_string(content[t]));
    }
  }
  return a;
}

}  // namespace test
}  // namespace tierfs
