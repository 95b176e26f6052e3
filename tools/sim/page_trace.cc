#include "tools/sim/page_trace.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "agents/policy.h"

namespace tierfs {
namespace sim {

namespace {

// Pages of an incarnation below this page number are found in a table, the
// rest in a hash map: dense ids without a hash lookup per part, and no huge
// table for a sparse volume.
constexpr uint64_t kTablePages = 1 << 22;
constexpr uint32_t kNoPage = UINT32_MAX;

class Builder {
 public:
  explicit Builder(PageTrace* out) : out_(out) {}

  // The live incarnation of a file, made on its first record: a file's first
  // incarnation existed from the start, one after a delete from then.
  uint32_t File(uint64_t file_id) {
    auto [it, added] = incarnation_.emplace(file_id, uint32_t(died_.size()));
    if (added) {
      start_.push_back(deleted_files_.count(file_id) ? clock() : 0);
      died_.push_back(UINT64_MAX);
      table_.emplace_back();
    }
    return it->second;
  }

  // The dense id of page `page` of incarnation `file`, made on its first
  // touch; false if there are 2^32 - 1 pages already.
  bool Page(uint32_t file, uint64_t page, bool write, uint32_t* id) {
    uint32_t* slot;
    if (page < kTablePages) {
      std::vector<uint32_t>& table = table_[file];
      if (page >= table.size()) {
        table.resize(std::min(kTablePages, std::max<uint64_t>(page + 1, 2 * table.size())), kNoPage);
      }
      slot = &table[page];
    } else {
      slot = &ids_.emplace(SegmentRef{file, page}, kNoPage).first->second;
    }
    if (*slot == kNoPage) {
      if (out_->born.size() == kNoPage) return false;
      *slot = uint32_t(out_->born.size());
      out_->born.push_back(write ? clock() : start_[file]);
      out_->file.push_back(file);
      out_->number.push_back(page);
    }
    *id = *slot;
    return true;
  }

  void Delete(uint64_t file_id) {
    auto it = incarnation_.find(file_id);
    if (it == incarnation_.end()) return;
    died_[it->second] = clock();
    table_[it->second] = std::vector<uint32_t>();  // never touched again
    incarnation_.erase(it);
    deleted_files_.insert(file_id);
  }

  void Finish() {
    out_->died.resize(out_->born.size());
    for (size_t p = 0; p < out_->file.size(); ++p) out_->died[p] = died_[out_->file[p]];
    out_->read_start.push_back(out_->piece_start.size());
    out_->piece_start.push_back(out_->parts());
  }

  uint64_t clock() const { return out_->parts(); }

 private:
  PageTrace* const out_;
  std::unordered_map<uint64_t, uint32_t> incarnation_;  // file id -> its live incarnation
  std::unordered_set<uint64_t> deleted_files_;          // file ids deleted at least once
  std::vector<uint64_t> start_, died_;                   // per incarnation
  std::vector<std::vector<uint32_t>> table_;             // per incarnation: page -> id
  std::unordered_map<SegmentRef, uint32_t, SegmentRefHash> ids_;  // (incarnation, page) -> id
};

}  // namespace

bool BuildPageTrace(const std::vector<TraceRecord>& trace, uint64_t page_size,
                    uint64_t segment_size, PageTrace* out, std::string* error) {
  if (page_size == 0 || page_size % 4096 != 0 || page_size > (1ull << 30) ||
      segment_size == 0 || segment_size % 4096 != 0) {
    *error = "ceilings need a page size that is a positive multiple of 4096 up to 1G (got " +
             std::to_string(page_size) + ") and such a segment size (got " +
             std::to_string(segment_size) + ")";
    return false;
  }
  *out = PageTrace();
  out->page_size = page_size;
  out->segment_size = segment_size;
  // Sized first: a trace of large reads has tens of millions of parts.
  size_t reads = 0, pieces = 0, parts = 0;
  for (const TraceRecord& r : trace) {
    if (!r.is_io() || r.type != IoType::kUserRead) continue;
    const uint64_t last = r.offset + std::max<uint64_t>(r.size, 1) - 1;
    reads++;
    pieces += last / segment_size - r.offset / segment_size + 1;
    parts += last / page_size - r.offset / page_size + 1;
  }
  out->read_start.reserve(reads + 1);
  out->piece_start.reserve(pieces + 1);
  out->part_page.reserve(parts + pieces);  // a piece boundary inside a page cuts it in two
  out->part_bytes.reserve(parts + pieces);
  Builder b(out);
  auto too_many = [&] {
    *error = "the trace touches more than 2^32 - 1 pages of " + std::to_string(page_size) +
             " bytes: use larger pages";
    return false;
  };
  for (const TraceRecord& r : trace) {
    if (r.event == TraceEvent::kDelete) {
      b.Delete(r.file_id);
      continue;
    }
    if (!r.is_io() || r.type == IoType::kBackgroundRead) continue;
    const uint64_t end = r.offset + std::max<uint64_t>(r.size, 1);
    const uint32_t file = b.File(r.file_id);
    if (r.is_write()) {
      for (uint64_t page = r.offset / page_size; page * page_size < end; ++page) {
        uint32_t id;
        if (!b.Page(file, page, true, &id)) return too_many();
        out->writes.push_back(PageTrace::Write{b.clock(), id});
      }
      continue;
    }
    out->read_start.push_back(out->piece_start.size());
    for (uint64_t off = r.offset; off < end;) {
      // A piece ends where its segment or the read does; a part where its
      // page or its piece does.
      const uint64_t piece_end = std::min(end, (off / segment_size + 1) * segment_size);
      out->piece_start.push_back(out->parts());
      for (; off < piece_end;) {
        const uint64_t part_end = std::min(piece_end, (off / page_size + 1) * page_size);
        uint32_t id;
        if (!b.Page(file, off / page_size, false, &id)) return too_many();
        out->part_page.push_back(id);
        out->part_bytes.push_back(uint32_t(part_end - off));
        off = part_end;
      }
    }
  }
  b.Finish();
  return true;
}

}  // namespace sim
}  // namespace tierfs
