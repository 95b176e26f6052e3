// The ceilings (ceiling.h): one pass over the pages to value them, a sort,
// and a greedy fill for the static placements; a backward pass for each
// part's next read and a heap keyed by it for Belady (on pages, and on byte
// ranges for belady-warm).
#include "tools/sim/ceiling.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "tools/sim/page_trace.h"
#include "util/size.h"

namespace tierfs {
namespace sim {

namespace {

constexpr uint64_t kNever = UINT64_MAX;

struct KindName {
  CeilingKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {CeilingKind::kBestStatic, "best-static"},
    {CeilingKind::kBestStaticFreed, "best-static-freed"},
    {CeilingKind::kBeladyCopies, "belady-copies"},
    {CeilingKind::kPastStatic, "past-static"},
    {CeilingKind::kLfuCopies, "lfu-copies"},
    {CeilingKind::kBeladyWarm, "belady-warm"},
};

// How many held pages exist at each clock at which a candidate page comes to
// exist (the most at any time is at one of those): a segment tree with range
// add and range max, an add kept at the node it covers.
class Occupancy {
 public:
  explicit Occupancy(std::vector<uint64_t> points)
      : points_(std::move(points)), max_(4 * points_.size() + 4), add_(max_.size()) {}

  // Whether a page existing over [from, to) (`from` one of the points) can
  // be held: fewer than `limit` held pages exist at every point of it.
  bool Fits(uint64_t from, uint64_t to, int64_t limit) const {
    const auto [a, b] = Range(from, to);
    return a < b && Max(1, 0, points_.size(), a, b) < limit;
  }
  // Holds (delta 1) or lets go of (-1) such a page.
  void Hold(uint64_t from, uint64_t to, int64_t delta) {
    const auto [a, b] = Range(from, to);
    Add(1, 0, points_.size(), a, b, delta);
  }

 private:
  std::pair<size_t, size_t> Range(uint64_t from, uint64_t to) const {
    return {size_t(std::lower_bound(points_.begin(), points_.end(), from) - points_.begin()),
            size_t(std::lower_bound(points_.begin(), points_.end(), to) - points_.begin())};
  }
  // Node `node` covers points [lo, hi); the query or update is [a, b).
  int64_t Max(size_t node, size_t lo, size_t hi, size_t a, size_t b) const {
    if (a <= lo && hi <= b) return max_[node];
    const size_t mid = (lo + hi) / 2;
    int64_t m = INT64_MIN;
    if (a < mid) m = std::max(m, Max(2 * node, lo, mid, a, b));
    if (b > mid) m = std::max(m, Max(2 * node + 1, mid, hi, a, b));
    return m + add_[node];
  }
  void Add(size_t node, size_t lo, size_t hi, size_t a, size_t b, int64_t delta) {
    if (a <= lo && hi <= b) {
      add_[node] += delta;
      max_[node] += delta;
      return;
    }
    const size_t mid = (lo + hi) / 2;
    if (a < mid) Add(2 * node, lo, mid, a, b, delta);
    if (b > mid) Add(2 * node + 1, mid, hi, a, b, delta);
    max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
  }

  std::vector<uint64_t> points_;
  std::vector<int64_t> max_, add_;
};

// The four shares of CeilingResult, counted piece by piece, read by read.
class Shares {
 public:
  // A piece of the current read: `bytes` long, `hit` of them on tier 0.
  void Piece(uint64_t bytes, uint64_t hit) {
    fractions_ += double(hit) / double(bytes);
    pieces_++;
    strict_ += hit == bytes;
    all_ &= hit == bytes;
    hit_bytes_ += hit;
    bytes_ += bytes;
  }
  void EndRead() {
    reads_++;
    whole_reads_ += all_;
    all_ = true;
  }
  void Finish(CeilingResult* r) const {
    r->reads = reads_;
    r->pieces = pieces_;
    r->bytes = bytes_;
    if (pieces_ == 0) return;
    r->share = fractions_ / double(pieces_);
    r->strict_share = double(strict_) / double(pieces_);
    r->byte_share = double(hit_bytes_) / double(bytes_);
    r->request_share = double(whole_reads_) / double(reads_);
  }

 private:
  double fractions_ = 0;
  uint64_t reads_ = 0, whole_reads_ = 0, pieces_ = 0, strict_ = 0, hit_bytes_ = 0, bytes_ = 0;
  bool all_ = true;
};

// The shares of *r, given which parts tier 0 served (hit(part)).
// Counts the user reads from `from_read` on.
template <typename Hit>
void Tally(const PageTrace& t, const Hit& hit, CeilingResult* r, size_t from_read = 0) {
  Shares shares;
  for (size_t read = from_read; read < t.reads(); ++read) {
    for (uint64_t piece = t.read_start[read]; piece < t.read_start[read + 1]; ++piece) {
      uint64_t piece_bytes = 0, piece_hit = 0;
      for (uint64_t part = t.piece_start[piece]; part < t.piece_start[piece + 1]; ++part) {
        piece_bytes += t.part_bytes[part];
        if (hit(part)) piece_hit += t.part_bytes[part];
      }
      shares.Piece(piece_bytes, piece_hit);
    }
    shares.EndRead();
  }
  shares.Finish(r);
}

// A candidate of a static placement: n distinct pages, worth `value`,
// ranked as if it took `span` pages (n, or its whole aligned group).
struct Candidate {
  const uint32_t* pages;
  uint32_t n;
  uint32_t span;
  double value;
};

// A static placement (best-static, best-static-freed) filled greedily from
// `candidates`: the most value per page of its span not yet held first
// (re-ranked as their pages get held by others), ties in candidate order; a
// candidate is taken if all its pages fit at once, for as long as each must
// be held (`freed`: from its birth to its file's delete; else the whole run).
class Placement {
 public:
  Placement(const PageTrace& t, bool freed, uint64_t limit)
      : t_(t), freed_(freed), limit_(limit), on_fast_(t.pages(), 0) {
    std::vector<uint64_t> points;
    for (uint32_t p = 0; p < t.pages(); ++p) points.push_back(freed ? t.born[p] : 0);
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    occupancy_ = std::make_unique<Occupancy>(std::move(points));
  }

  void Fill(const std::vector<Candidate>& candidates) {
    using Entry = std::pair<double, uint32_t>;  // (value per page of its span, index)
    auto lower = [](const Entry& a, const Entry& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    };
    std::vector<Entry> heap;
    for (uint32_t i = 0; i < candidates.size(); ++i) {
      const Candidate& c = candidates[i];
      if (c.value > 0) heap.emplace_back(c.value / c.span, i);
    }
    std::make_heap(heap.begin(), heap.end(), lower);
    std::vector<uint32_t> fresh;
    while (!heap.empty() && (freed_ || held_ < limit_)) {
      std::pop_heap(heap.begin(), heap.end(), lower);
      const auto [density, i] = heap.back();
      heap.pop_back();
      const Candidate& c = candidates[i];
      fresh.clear();
      for (const uint32_t* p = c.pages; p < c.pages + c.n; ++p) {
        if (!on_fast_[*p]) fresh.push_back(*p);
      }
      if (fresh.empty()) continue;
      const double now = c.value / double(c.span - (c.n - fresh.size()));
      if (now < density) {  // some of its pages are held already: worth more now
        heap.emplace_back(now, i);
        std::push_heap(heap.begin(), heap.end(), lower);
        continue;
      }
      TryHold(fresh);
    }
  }

  const std::vector<uint8_t>& on_fast() const { return on_fast_; }
  uint64_t held() const { return held_; }

 private:
  // Holds all of `pages` or none.
  void TryHold(const std::vector<uint32_t>& pages) {
    if (!freed_) {
      if (held_ + pages.size() > limit_) return;
    } else {
      size_t n = 0;
      for (; n < pages.size(); ++n) {
        const uint32_t p = pages[n];
        if (!occupancy_->Fits(t_.born[p], t_.died[p], int64_t(limit_))) break;
        occupancy_->Hold(t_.born[p], t_.died[p], 1);
      }
      if (n < pages.size()) {
        while (n-- > 0) occupancy_->Hold(t_.born[pages[n]], t_.died[pages[n]], -1);
        return;
      }
    }
    for (uint32_t p : pages) on_fast_[p] = 1;
    held_ += pages.size();
  }

  const PageTrace& t_;
  const bool freed_;
  const uint64_t limit_;
  std::vector<uint8_t> on_fast_;
  std::unique_ptr<Occupancy> occupancy_;
  uint64_t held_ = 0;
};

// Each page's value: the fractions of pieces its parts bring.
std::vector<double> PageValues(const PageTrace& t, size_t to_read = SIZE_MAX) {
  std::vector<double> value(t.pages(), 0);
  const size_t to_piece = t.read_start[std::min(to_read, t.reads())];
  for (size_t piece = 0; piece < to_piece; ++piece) {
    uint64_t piece_bytes = 0;
    for (uint64_t part = t.piece_start[piece]; part < t.piece_start[piece + 1]; ++part) {
      piece_bytes += t.part_bytes[part];
    }
    for (uint64_t part = t.piece_start[piece]; part < t.piece_start[piece + 1]; ++part) {
      value[t.part_page[part]] += double(t.part_bytes[part]) / double(piece_bytes);
    }
  }
  return value;
}

// The pages read (`value` > 0) by file and number: groups of aligned pages
// are runs of it.
std::vector<uint32_t> ReadPagesInFileOrder(const PageTrace& t, const std::vector<double>& value) {
  std::vector<uint32_t> order;
  for (uint32_t p = 0; p < t.pages(); ++p) {
    if (value[p] > 0) order.push_back(p);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return t.file[a] != t.file[b] ? t.file[a] < t.file[b] : t.number[a] < t.number[b];
  });
  return order;
}

// Candidates each aligned group of `factor` pages of a file, its pages read
// (`read_pages` from ReadPagesInFileOrder), worth the sum of their values and
// ranked as one page `factor` times as large would be: a placement of such
// pages, with the pages never read left out. With factor 1, taken in order
// of value, the exact optimum of `share` (a knapsack of items of one page).
std::vector<Candidate> GroupCandidates(const PageTrace& t, const std::vector<double>& value,
                                       const std::vector<uint32_t>& read_pages, uint32_t factor) {
  std::vector<Candidate> out;
  for (size_t i = 0; i < read_pages.size();) {
    const uint32_t first = read_pages[i];
    Candidate c{&read_pages[i], 0, factor, 0};
    for (; i < read_pages.size() && t.file[read_pages[i]] == t.file[first] &&
           t.number[read_pages[i]] / factor == t.number[first] / factor;
         ++i) {
      c.n++;
      c.value += value[read_pages[i]];
    }
    out.push_back(c);
  }
  return out;
}

// Candidates the pages of whole pieces, one per distinct page range, worth
// the pieces that read it.
std::vector<Candidate> PieceCandidates(const PageTrace& t) {
  // A piece's pages are consecutive pages of one file: its first page and
  // its number of parts name them. Sorted by those, equal ranges are runs.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // (first page << 32 | parts, first part)
  ranges.reserve(t.pieces());
  for (size_t piece = 0; piece < t.pieces(); ++piece) {
    const uint64_t part = t.piece_start[piece];
    const uint64_t n = t.piece_start[piece + 1] - part;
    ranges.emplace_back(uint64_t(t.part_page[part]) << 32 | n, part);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<Candidate> out;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i == 0 || ranges[i].first != ranges[i - 1].first) {
      const uint32_t n = uint32_t(ranges[i].first);
      out.push_back(Candidate{&t.part_page[ranges[i].second], n, n, 0});
    }
    out.back().value += 1;
  }
  return out;
}

// belady-copies: Belady's MIN with bypass over the parts, in order.
std::vector<uint8_t> Belady(const PageTrace& t, uint64_t limit, uint64_t* copies) {
  const size_t n = t.parts();
  // Each part's page's next read, kNever if the page is written (its copy
  // dropped) before it is read again. A write at clock i comes before part i.
  std::vector<uint64_t> next(n);
  {
    std::vector<uint64_t> next_read(t.pages(), kNever);
    size_t w = t.writes.size();
    while (w > 0 && t.writes[w - 1].clock >= n) --w;
    for (size_t i = n; i-- > 0;) {
      next[i] = next_read[t.part_page[i]];
      next_read[t.part_page[i]] = i;
      for (; w > 0 && t.writes[w - 1].clock == i; --w) next_read[t.writes[w - 1].page] = kNever;
    }
  }
  // The cache: a max-heap of (next read, page), an entry stale unless the
  // page is cached with that next read; rebuilt when mostly stale.
  uint64_t used = 0;
  std::vector<uint8_t> cached(t.pages(), 0), hit(n, 0);
  std::vector<uint64_t> key(t.pages(), kNever);
  std::vector<std::pair<uint64_t, uint32_t>> heap;
  auto valid = [&](const std::pair<uint64_t, uint32_t>& e) {
    return cached[e.second] && key[e.second] == e.first;
  };
  auto push = [&](uint32_t page, uint64_t next_read) {
    key[page] = next_read;
    heap.emplace_back(next_read, page);
    std::push_heap(heap.begin(), heap.end());
    if (heap.size() > 2 * used + 1024) {  // at most `used` entries are valid
      heap.erase(std::remove_if(heap.begin(), heap.end(), [&](const auto& e) { return !valid(e); }),
                 heap.end());
      std::make_heap(heap.begin(), heap.end());
    }
  };
  *copies = 0;
  size_t w = 0;
  for (size_t i = 0; i < n; ++i) {
    for (; w < t.writes.size() && t.writes[w].clock <= i; ++w) {
      const uint32_t page = t.writes[w].page;
      if (cached[page]) {
        cached[page] = 0;
        --used;
      }
    }
    const uint32_t page = t.part_page[i];
    if (cached[page]) {
      hit[i] = 1;
      push(page, next[i]);
      continue;
    }
    if (next[i] == kNever || limit == 0) continue;  // a copy would never be read
    if (used == limit) {
      while (!valid(heap.front())) {
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
      }
      if (heap.front().first <= next[i]) continue;  // every cached page is read sooner
      cached[heap.front().second] = 0;
      std::pop_heap(heap.begin(), heap.end());
      heap.pop_back();
      --used;
    }
    cached[page] = 1;
    ++used;
    ++*copies;
    push(page, next[i]);
  }
  return hit;
}

// lfu-copies: exact counts of every page read, a fully associative cache of
// `limit` pages, over the reads in order; which parts it served.
std::vector<uint8_t> Lfu(const PageTrace& t, uint64_t limit, uint64_t* copies) {
  std::vector<uint32_t> count(t.pages(), 0);
  std::vector<uint8_t> cached(t.pages(), 0), hit(t.parts(), 0);
  // The copies by count: a min-heap of (count, page), an entry stale unless
  // the page is cached with that count; compacted when mostly stale.
  using Entry = std::pair<uint32_t, uint32_t>;
  const std::greater<Entry> later;
  std::vector<Entry> heap;
  uint64_t used = 0;
  auto valid = [&](const Entry& e) { return cached[e.second] && count[e.second] == e.first; };
  auto push = [&](uint32_t page) {
    heap.emplace_back(count[page], page);
    std::push_heap(heap.begin(), heap.end(), later);
    if (heap.size() > 2 * used + 1024) {
      heap.erase(
          std::remove_if(heap.begin(), heap.end(), [&](const Entry& e) { return !valid(e); }),
          heap.end());
      std::make_heap(heap.begin(), heap.end(), later);
    }
  };
  // A missed page read at least twice is copied into a free slot, or in
  // place of the least read copy if it was read more often.
  auto admit = [&](uint32_t page) {
    if (count[page] < 2 || limit == 0) return;
    if (used == limit) {
      while (!valid(heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), later);
        heap.pop_back();
      }
      if (heap.front().first >= count[page]) return;
      cached[heap.front().second] = 0;
      std::pop_heap(heap.begin(), heap.end(), later);
      heap.pop_back();
      --used;
    }
    cached[page] = 1;
    ++used;
    ++*copies;
    push(page);
  };
  *copies = 0;
  size_t w = 0;
  for (size_t read = 0, i = 0; read < t.reads(); ++read) {
    // Parts of one page in one read (a page larger than a segment is cut
    // at its boundary) are one access.
    uint32_t last = UINT32_MAX;
    for (const size_t end = t.piece_start[t.read_start[read + 1]]; i < end; ++i) {
      for (; w < t.writes.size() && t.writes[w].clock <= i; ++w) {
        const uint32_t page = t.writes[w].page;
        if (cached[page]) {
          cached[page] = 0;
          --used;
        }
      }
      const uint32_t page = t.part_page[i];
      const bool again = page == last;
      last = page;
      if (!again) count[page]++;
      if (cached[page]) {
        hit[i] = 1;
        if (!again) push(page);
      } else {
        admit(page);
      }
    }
  }
  return hit;
}

// belady-warm (ceiling.h): Belady's MIN over bytes, started warm.
//
// Bytes of one file incarnation that every access covers whole or not at all
// and that lie in one page are alike (the same reads, the same pages), so
// the cache is kept over ranges: each file cut at every access's ends, at
// the page boundaries inside an access and at a read's segment boundaries (a
// range read lies in one page and one piece). A range is held in part or
// whole.
//
// A byte read at r can be served if it is held since the last access of its
// page before r (it may be taken in then, or at the start if there was none:
// warm) — holding it since earlier buys nothing, it can be taken in again
// then. So each read of a byte asks for one interval, every interval is worth
// one byte, and at most `capacity` may overlap: the most intervals of that
// kind are kept by a sweep that takes each as it opens and, over capacity,
// drops the ones that close latest (optimal for intervals of one weight, as
// Belady's MIN is for pages). Here: after each access, a byte of the pages it
// touched is held, keyed by its next read, if its page is not touched again
// before then; the bytes keyed latest go first, a range in part if that is
// all the excess.
CeilingResult BeladyWarm(const std::vector<TraceRecord>& trace, uint64_t page_size,
                         uint64_t segment_size, uint64_t capacity) {
  constexpr uint64_t kNever = UINT64_MAX;
  // The accesses (user reads and writes) in trace order, on incarnations.
  struct Access {
    uint32_t file;
    bool read;
    uint64_t offset, end;
  };
  std::vector<Access> accesses;
  std::vector<std::vector<uint64_t>> cuts;  // per incarnation: the ranges' ends
  {
    std::unordered_map<uint64_t, uint32_t> live;  // file id -> incarnation
    for (const TraceRecord& r : trace) {
      if (r.event == TraceEvent::kDelete) {
        live.erase(r.file_id);
        continue;
      }
      if (!r.is_io() || r.type == IoType::kBackgroundRead) continue;
      auto [it, added] = live.emplace(r.file_id, uint32_t(cuts.size()));
      if (added) cuts.emplace_back();
      const Access a{it->second, !r.is_write(), r.offset, r.offset + std::max<uint64_t>(r.size, 1)};
      accesses.push_back(a);
      std::vector<uint64_t>& c = cuts[a.file];
      c.push_back(a.offset);
      c.push_back(a.end);
      for (uint64_t b = (a.offset / page_size + 1) * page_size; b < a.end; b += page_size) {
        c.push_back(b);
      }
      if (!a.read) continue;
      const uint64_t seg = segment_size;
      for (uint64_t b = (a.offset / seg + 1) * seg; b < a.end; b += seg) c.push_back(b);
    }
  }
  // Ranges numbered densely: incarnation f's range k is first[f] + k, bytes
  // [cuts[f][k], cuts[f][k + 1]).
  std::vector<uint64_t> first(cuts.size() + 1, 0);
  for (size_t f = 0; f < cuts.size(); ++f) {
    std::sort(cuts[f].begin(), cuts[f].end());
    cuts[f].erase(std::unique(cuts[f].begin(), cuts[f].end()), cuts[f].end());
    first[f + 1] = first[f] + cuts[f].size() - 1;
  }
  const uint64_t ranges = first.back();
  std::vector<uint64_t> size(ranges);
  for (size_t f = 0; f < cuts.size(); ++f) {
    for (size_t k = 0; k + 1 < cuts[f].size(); ++k) {
      size[first[f] + k] = cuts[f][k + 1] - cuts[f][k];
    }
  }
  // The ranges of incarnation f within bytes [from, to): [lo, hi).
  auto within = [&](uint32_t f, uint64_t from, uint64_t to) {
    const std::vector<uint64_t>& c = cuts[f];
    const uint64_t lo = uint64_t(std::lower_bound(c.begin(), c.end(), from) - c.begin());
    const uint64_t hi = uint64_t(std::lower_bound(c.begin(), c.end(), to) - c.begin());
    return std::make_pair(first[f] + lo, first[f] + std::max(lo, std::min(hi, c.size() - 1)));
  };
  // Each range's reads (access numbers, ascending), and a cursor to the next.
  std::vector<uint64_t> read_start(ranges + 1, 0), reads;
  for (const Access& a : accesses) {
    if (!a.read) continue;
    const auto [lo, hi] = within(a.file, a.offset, a.end);
    for (uint64_t r = lo; r < hi; ++r) read_start[r + 1]++;
  }
  for (uint64_t r = 0; r < ranges; ++r) read_start[r + 1] += read_start[r];
  reads.resize(read_start.back());
  {
    std::vector<uint64_t> fill(read_start.begin(), read_start.end() - 1);
    for (size_t i = 0; i < accesses.size(); ++i) {
      if (!accesses[i].read) continue;
      const auto [lo, hi] = within(accesses[i].file, accesses[i].offset, accesses[i].end);
      for (uint64_t r = lo; r < hi; ++r) reads[fill[r]++] = i;
    }
  }
  std::vector<uint64_t> cursor(read_start.begin(), read_start.end() - 1);
  auto next_read = [&](uint64_t r, uint64_t after) {  // `after` never decreases
    while (cursor[r] < read_start[r + 1] && reads[cursor[r]] <= after) cursor[r]++;
    return cursor[r] < read_start[r + 1] ? reads[cursor[r]] : kNever;
  };
  // Each range's page (by its first byte) and each page's accesses, likewise.
  std::vector<uint32_t> page_of(ranges);
  std::vector<std::vector<uint64_t>> touches;
  {
    std::unordered_map<uint64_t, uint32_t> ids;  // (incarnation, page number) -> page
    auto id = [&](uint32_t f, uint64_t number) {
      auto [it, added] = ids.emplace(uint64_t(f) << 40 | number, uint32_t(touches.size()));
      if (added) touches.emplace_back();
      return it->second;
    };
    for (size_t i = 0; i < accesses.size(); ++i) {
      const Access& a = accesses[i];
      for (uint64_t n = a.offset / page_size; n * page_size < a.end; ++n) {
        touches[id(a.file, n)].push_back(i);
      }
    }
    for (uint32_t f = 0; f < cuts.size(); ++f) {
      for (size_t k = 0; k + 1 < cuts[f].size(); ++k) {
        page_of[first[f] + k] = id(f, cuts[f][k] / page_size);
      }
    }
  }
  std::vector<size_t> touch_cursor(touches.size(), 0);
  auto next_touch = [&](uint32_t page, uint64_t after) {  // `after` never decreases
    const std::vector<uint64_t>& t = touches[page];
    size_t& c = touch_cursor[page];
    while (c < t.size() && t[c] <= after) c++;
    return c < t.size() ? t[c] : kNever;
  };
  // The cache: how much of each range it holds, and a max-heap of (next read,
  // range) whose entry is stale unless the range is held under that key.
  std::vector<uint64_t> held(ranges, 0), key(ranges, kNever);
  std::vector<std::pair<uint64_t, uint64_t>> heap;
  uint64_t used = 0, live_entries = 0;
  auto valid = [&](const std::pair<uint64_t, uint64_t>& e) {
    return held[e.second] != 0 && key[e.second] == e.first;
  };
  // Holds all of range r, read next at `when`.
  auto hold = [&](uint64_t r, uint64_t when) {
    if (held[r] == size[r] && key[r] == when) return;
    if (held[r] != 0) live_entries--;
    used -= held[r];
    held[r] = 0;
    key[r] = when;
    if (when == kNever) return;  // never read again: not worth a byte
    held[r] = size[r];
    used += size[r];
    live_entries++;
    heap.emplace_back(when, r);
    std::push_heap(heap.begin(), heap.end());
  };
  auto evict = [&] {
    while (used > capacity) {
      const auto [when, r] = heap.front();
      const bool stale = !valid(heap.front());
      const uint64_t out = stale ? 0 : std::min(held[r], used - capacity);
      held[r] -= out;
      used -= out;
      if (stale || held[r] == 0) {
        if (!stale) live_entries--;
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
      }
    }
    if (heap.size() > 2 * live_entries + 1024) {  // mostly stale
      heap.erase(std::remove_if(heap.begin(), heap.end(), [&](const auto& e) { return !valid(e); }),
                 heap.end());
      std::make_heap(heap.begin(), heap.end());
    }
  };
  // Warm: a range read before its page is touched otherwise, by its first read.
  for (uint64_t r = 0; r < ranges; ++r) {
    const std::vector<uint64_t>& t = touches[page_of[r]];
    const bool read = read_start[r] < read_start[r + 1];
    hold(r, read && !t.empty() && t[0] == reads[read_start[r]] ? t[0] : kNever);
  }
  evict();
  CeilingResult result;
  Shares shares;
  std::vector<uint64_t> before;  // an access's pages' held bytes before it
  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access& a = accesses[i];
    if (a.read) {
      // Served: what is held of the ranges read, by piece (a piece's ranges
      // end at its segment's boundary or the read's end).
      const auto [lo, hi] = within(a.file, a.offset, a.end);
      uint64_t piece_bytes = 0, piece_hit = 0;
      for (uint64_t r = lo; r < hi; ++r) {
        piece_bytes += size[r];
        piece_hit += held[r];
        const uint64_t end = cuts[a.file][r - first[a.file] + 1];
        if (r + 1 != hi && end % segment_size != 0) continue;
        shares.Piece(piece_bytes, piece_hit);
        piece_bytes = piece_hit = 0;
      }
      shares.EndRead();
    }
    // Then the bytes of the pages touched may be taken in.
    const auto [lo, hi] = within(a.file, a.offset / page_size * page_size,
                                 (a.end + page_size - 1) / page_size * page_size);
    before.assign(held.begin() + long(lo), held.begin() + long(hi));
    for (uint64_t r = lo; r < hi; ++r) {
      const uint64_t when = next_read(r, i);
      hold(r, when != kNever && next_touch(page_of[r], i) == when ? when : kNever);
    }
    evict();
    for (uint64_t r = lo; r < hi; ++r) result.held += held[r] - std::min(held[r], before[r - lo]);
  }
  shares.Finish(&result);
  return result;
}

}  // namespace

bool LearnsFromWarmup(CeilingKind kind) {
  return kind == CeilingKind::kPastStatic || kind == CeilingKind::kLfuCopies;
}

std::string CeilingName(const CeilingSpec& spec) {
  std::string name;
  for (const KindName& k : kKinds) {
    if (k.kind == spec.kind) name = k.name;
  }
  name += "-" + FormatSizeExact(spec.page_size);
  if (spec.capacity != 0) name += "-" + FormatSizeExact(spec.capacity);
  return name;
}

bool ParseCeilingSpecs(const std::string& list, std::vector<CeilingSpec>* specs,
                       std::string* error) {
  specs->clear();
  if (list == "none") return true;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream f(item);
    for (std::string field; std::getline(f, field, ':');) fields.push_back(field);
    CeilingSpec spec;
    bool ok = fields.size() >= 1 && fields.size() <= 3;
    bool known = false;
    for (const KindName& k : kKinds) {
      if (ok && fields[0] == k.name) {
        spec.kind = k.kind;
        known = true;
      }
    }
    ok = ok && known;
    if (ok && fields.size() >= 2) {
      ok = ParseSize(fields[1], &spec.page_size) && spec.page_size > 0 &&
           spec.page_size % 4096 == 0 && spec.page_size <= (1ull << 30);
    }
    if (ok && fields.size() == 3) ok = ParseSize(fields[2], &spec.capacity) && spec.capacity > 0;
    if (!ok) {
      *error = "bad ceiling '" + item +
               "' (expected KIND[:PAGE[:CAPACITY]], KIND one of best-static, best-static-freed, "
               "belady-copies, belady-warm, past-static, lfu-copies, PAGE a multiple of 4K up "
               "to 1G, e.g. best-static:16K)";
      return false;
    }
    specs->push_back(spec);
  }
  return true;
}

CeilingResult ComputeCeiling(const PageTrace& pages, const CeilingSpec& spec,
                             size_t measured_from) {
  CeilingResult r;
  r.name = CeilingName(spec);
  r.spec = spec;
  r.pages = spec.capacity / pages.page_size;
  if (spec.kind == CeilingKind::kBeladyCopies || spec.kind == CeilingKind::kLfuCopies) {
    const std::vector<uint8_t> hit = spec.kind == CeilingKind::kBeladyCopies
                                         ? Belady(pages, r.pages, &r.held)
                                         : Lfu(pages, r.pages, &r.held);
    Tally(pages, [&](uint64_t part) { return hit[part] != 0; }, &r, measured_from);
    return r;
  }
  if (spec.kind == CeilingKind::kPastStatic) {
    // best-static's choice by page, made on the warm-up's reads.
    const std::vector<double> value = PageValues(pages, measured_from);
    const std::vector<uint32_t> read_pages = ReadPagesInFileOrder(pages, value);
    Placement placement(pages, /*freed=*/false, r.pages);
    placement.Fill(GroupCandidates(pages, value, read_pages, 1));
    const std::vector<uint8_t>& on_fast = placement.on_fast();
    Tally(pages, [&](uint64_t part) { return on_fast[pages.part_page[part]] != 0; }, &r,
          measured_from);
    r.held = placement.held();
    return r;
  }
  // By page: `share`, the optimum. Then whichever placement holds the most
  // pieces whole: by page, by aligned groups of 2, 4, ... pages up to a
  // segment, or by whole pieces.
  const bool freed = spec.kind == CeilingKind::kBestStaticFreed;
  const std::vector<double> value = PageValues(pages);
  const std::vector<uint32_t> read_pages = ReadPagesInFileOrder(pages, value);
  auto fill = [&](const std::vector<Candidate>& candidates, bool first) {
    Placement placement(pages, freed, r.pages);
    placement.Fill(candidates);
    CeilingResult tried = r;
    const std::vector<uint8_t>& on_fast = placement.on_fast();
    Tally(pages, [&](uint64_t part) { return on_fast[pages.part_page[part]] != 0; }, &tried);
    tried.held = placement.held();
    if (first) {
      r = tried;
    } else if (tried.strict_share > r.strict_share) {
      tried.share = r.share;
      r = tried;
    }
  };
  for (uint32_t factor = 1; factor == 1 || factor * pages.page_size <= pages.segment_size;
       factor *= 2) {
    fill(GroupCandidates(pages, value, read_pages, factor), factor == 1);
  }
  fill(PieceCandidates(pages), false);
  return r;
}

bool ComputeCeilings(const std::vector<TraceRecord>& trace, uint64_t segment_size,
                     uint64_t tier0_capacity, const std::vector<CeilingSpec>& specs,
                     std::vector<CeilingResult>* results, std::string* error,
                     size_t measured_from) {
  measured_from = std::min(measured_from, trace.size());
  size_t warmup_reads = 0;  // as BuildPageTrace counts user reads
  for (size_t i = 0; i < measured_from; ++i) {
    warmup_reads += trace[i].is_io() && trace[i].type == IoType::kUserRead;
  }
  results->assign(specs.size(), CeilingResult());
  // (learns from the warm-up, page size) -> specs
  std::map<std::pair<bool, uint64_t>, std::vector<size_t>> groups;
  for (size_t i = 0; i < specs.size(); ++i) {
    const bool learns = LearnsFromWarmup(specs[i].kind);
    if (specs[i].kind == CeilingKind::kPastStatic && warmup_reads == 0) {
      *error = "ceiling " + CeilingName(specs[i]) + " needs a warm-up with user reads (--warmup)";
      return false;
    }
    if (specs[i].kind == CeilingKind::kBeladyWarm) continue;  // on bytes, below
    groups[{learns, specs[i].page_size}].push_back(i);
  }
  const std::vector<TraceRecord> measured(trace.begin() + long(measured_from), trace.end());
  for (const auto& [group, which] : groups) {
    const auto [learns, page_size] = group;
    PageTrace pages;
    if (!BuildPageTrace(learns ? trace : measured, page_size, segment_size, &pages, error)) {
      return false;
    }
    for (size_t i : which) {
      CeilingSpec spec = specs[i];
      const std::string name = CeilingName(spec);  // named as asked: "of tier 0" stays implicit
      if (spec.capacity == 0) spec.capacity = tier0_capacity;
      (*results)[i] = ComputeCeiling(pages, spec, learns ? warmup_reads : 0);
      (*results)[i].name = name;
    }
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != CeilingKind::kBeladyWarm) continue;
    CeilingResult& r = (*results)[i];
    const uint64_t capacity = specs[i].capacity != 0 ? specs[i].capacity : tier0_capacity;
    r = BeladyWarm(measured, specs[i].page_size, segment_size, capacity);
    r.name = CeilingName(specs[i]);
    r.spec = specs[i];
    r.spec.capacity = capacity;
    r.pages = capacity / specs[i].page_size;
  }
  return true;
}

}  // namespace sim
}  // namespace tierfs
