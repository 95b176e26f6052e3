// One feature vector per window of a trace (window_features.h).
#include "tools/tune/window_features.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace tierfs {
namespace tune {
namespace {

constexpr uint64_t kBlockBytes = 64 << 10;  // the unit of footprint and reuse

struct FileBlock {
  uint64_t file, block;
  bool operator==(const FileBlock& o) const { return file == o.file && block == o.block; }
};
struct FileBlockHash {
  size_t operator()(const FileBlock& b) const {
    return std::hash<uint64_t>()(b.file * 0x9E3779B97F4A7C15ull ^ b.block);
  }
};

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

double Sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size()));
}

// The features of requests [begin, end) of `ios`.
std::vector<double> Window(const std::vector<const TraceRecord*>& ios, size_t begin, size_t end) {
  std::vector<double> log_sizes, gaps, seeks, reuse_dists;
  size_t reads = 0, sequential = 0, reused = 0;
  std::unordered_map<uint64_t, uint64_t> file_end;  // file -> where its last request ended
  std::unordered_map<FileBlock, size_t, FileBlockHash> last_seen;  // block -> request index
  for (size_t i = begin; i < end; ++i) {
    const TraceRecord& r = *ios[i];
    if (r.type != IoType::kWrite) ++reads;
    log_sizes.push_back(std::log(double(std::max<uint64_t>(r.size, 1))));
    if (i > begin) {
      const uint64_t prev = ios[i - 1]->time_ns;
      gaps.push_back(r.time_ns >= prev ? double(r.time_ns - prev) / 1000.0 : 0.0);
    }
    auto e = file_end.find(r.file_id);
    if (e != file_end.end()) {
      if (e->second == r.offset) ++sequential;
      const uint64_t d = r.offset > e->second ? r.offset - e->second : e->second - r.offset;
      seeks.push_back(std::log1p(double(d) / 1024.0));
    }
    file_end[r.file_id] = r.offset + r.size;
    const FileBlock block{r.file_id, r.offset / kBlockBytes};
    auto seen = last_seen.find(block);
    if (seen != last_seen.end()) {
      ++reused;
      reuse_dists.push_back(std::log1p(double(i - seen->second)));
    }
    // Every block the request touches counts as touched now.
    const uint64_t last_block = (r.offset + std::max<uint64_t>(r.size, 1) - 1) / kBlockBytes;
    for (uint64_t b = block.block; b <= last_block; ++b) last_seen[{r.file_id, b}] = i;
  }
  const double n = double(end - begin);
  const double gap_mean = Mean(gaps);
  return {
      double(reads) / n,
      Mean(log_sizes),
      Sd(log_sizes),
      std::log1p(gap_mean),
      gap_mean > 0 ? Sd(gaps) / gap_mean : 0.0,
      double(sequential) / n,
      Mean(seeks),
      std::log(double(std::max<size_t>(last_seen.size(), 1))),
      double(reused) / n,
      Mean(reuse_dists),
  };
}

}  // namespace

const std::vector<std::string>& FeatureNames() {
  static const std::vector<std::string> names = {
      "read_share", "log_size",    "log_size_sd",   "log_gap",     "gap_cv",
      "sequential", "log_seek",    "log_footprint", "reuse_share", "log_reuse_dist"};
  return names;
}

std::vector<std::vector<double>> WindowFeatures(const std::vector<TraceRecord>& trace,
                                                size_t window) {
  std::vector<const TraceRecord*> ios;
  for (const TraceRecord& r : trace) {
    if (r.is_io()) ios.push_back(&r);
  }
  std::vector<std::vector<double>> out;
  if (ios.empty() || window == 0) return out;
  for (size_t begin = 0; begin < ios.size(); begin += window) {
    const size_t end = std::min(ios.size(), begin + window);
    if (end - begin < window && end - begin < window / 2 && begin > 0) break;
    out.push_back(Window(ios, begin, end));
  }
  return out;
}

}  // namespace tune
}  // namespace tierfs
