// k-means++, Lloyd's iterations and the silhouette (kmeans.h).
#include "tools/tune/kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/tune/rng.h"

namespace tierfs {
namespace tune {
namespace {

constexpr int kMaxIterations = 300;

// k-means++ (Arthur and Vassilvitskii): the first seed uniform, each next
// one drawn with probability proportional to its squared distance from the
// nearest seed so far.
std::vector<Vec> SeedPlusPlus(const std::vector<Vec>& points, size_t k, Rng* rng) {
  std::vector<Vec> seeds = {points[rng->Below(points.size())]};
  std::vector<double> d2(points.size(), std::numeric_limits<double>::infinity());
  while (seeds.size() < k) {
    double total = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      d2[i] = std::min(d2[i], SquaredDistance(points[i], seeds.back()));
      total += d2[i];
    }
    if (total <= 0) {  // fewer distinct points than k: repeat one
      seeds.push_back(points[rng->Below(points.size())]);
      continue;
    }
    double u = rng->Uniform() * total;
    size_t pick = points.size() - 1;
    for (size_t i = 0; i < points.size(); ++i) {
      u -= d2[i];
      if (u < 0) {
        pick = i;
        break;
      }
    }
    seeds.push_back(points[pick]);
  }
  return seeds;
}

KMeansResult Lloyd(const std::vector<Vec>& points, std::vector<Vec> centroids) {
  KMeansResult r;
  r.labels.assign(points.size(), 0);
  const size_t k = centroids.size(), dim = points[0].size();
  for (int it = 0; it < kMaxIterations; ++it) {
    bool changed = it == 0;
    for (size_t i = 0; i < points.size(); ++i) {
      const size_t c = Nearest(centroids, points[i]);
      if (c != r.labels[i]) changed = true;
      r.labels[i] = c;
    }
    if (!changed) break;
    std::vector<Vec> sums(k, Vec(dim, 0));
    std::vector<size_t> counts(k, 0);
    for (size_t i = 0; i < points.size(); ++i) {
      for (size_t d = 0; d < dim; ++d) sums[r.labels[i]][d] += points[i][d];
      ++counts[r.labels[i]];
    }
    // An emptied cluster keeps its centroid.
    for (size_t c = 0; c < k; ++c) {
      if (counts[c] == 0) continue;
      for (size_t d = 0; d < dim; ++d) centroids[c][d] = sums[c][d] / double(counts[c]);
    }
  }
  r.centroids = std::move(centroids);
  for (size_t i = 0; i < points.size(); ++i) {
    r.inertia += SquaredDistance(points[i], r.centroids[r.labels[i]]);
  }
  return r;
}

}  // namespace

double SquaredDistance(const Vec& a, const Vec& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

size_t Nearest(const std::vector<Vec>& centroids, const Vec& x) {
  size_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < centroids.size(); ++c) {
    const double d = SquaredDistance(centroids[c], x);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

KMeansResult KMeans(const std::vector<Vec>& points, size_t k, uint64_t seed, size_t restarts) {
  Rng rng(seed);
  KMeansResult best;
  for (size_t run = 0; run < std::max<size_t>(restarts, 1); ++run) {
    KMeansResult r = Lloyd(points, SeedPlusPlus(points, k, &rng));
    if (run == 0 || r.inertia < best.inertia) best = std::move(r);
  }
  return best;
}

double MeanSilhouette(const std::vector<Vec>& points, const std::vector<size_t>& labels,
                      size_t k) {
  if (k < 2 || points.size() < 2) return 0;
  std::vector<size_t> counts(k, 0);
  for (size_t l : labels) ++counts[l];
  double total = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    if (counts[labels[i]] <= 1) continue;  // s(i) = 0
    std::vector<double> sum(k, 0);
    for (size_t j = 0; j < points.size(); ++j) {
      if (j != i) sum[labels[j]] += std::sqrt(SquaredDistance(points[i], points[j]));
    }
    const double a = sum[labels[i]] / double(counts[labels[i]] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < k; ++c) {
      if (c != labels[i] && counts[c] > 0) b = std::min(b, sum[c] / double(counts[c]));
    }
    if (std::isinf(b)) continue;
    const double m = std::max(a, b);
    total += m > 0 ? (b - a) / m : 0;
  }
  return total / double(points.size());
}

KMeansResult ChooseK(const std::vector<Vec>& points, size_t max_k, uint64_t seed,
                     std::vector<double>* silhouettes) {
  if (silhouettes) silhouettes->assign(max_k + 1, 0);
  if (points.empty()) return KMeansResult();
  if (points.size() < 3) return KMeans(points, 1, seed);
  max_k = std::min(max_k, points.size() - 1);
  KMeansResult best;
  double best_s = -2;
  for (size_t k = 2; k <= max_k; ++k) {
    KMeansResult r = KMeans(points, k, seed + k);
    const double s = MeanSilhouette(points, r.labels, k);
    if (silhouettes) (*silhouettes)[k] = s;
    if (s > best_s + 1e-9) {
      best_s = s;
      best = std::move(r);
    }
  }
  return best;
}

}  // namespace tune
}  // namespace tierfs
