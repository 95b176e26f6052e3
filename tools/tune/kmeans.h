// k-means clustering for the workload characterization (characterize.h):
// Lloyd's iterations from k-means++ seeds, the best of several restarts,
// and k chosen by the mean silhouette.
//
// Written here rather than taken from a package: Debian's libdlib-dev (the
// one well-kept C++ k-means in bookworm) pulls in OpenCV, X11 and pybind11
// headers, and its template headers would add minutes to a 2-core build for
// about a hundred lines. Deterministic per seed (rng.h).
//
// Why the silhouette and not the elbow: the elbow is a bend in the inertia
// curve that someone must judge (inertia always falls as k grows), while the
// mean silhouette s(i) = (b - a) / max(a, b) — a point's mean distance to
// its own cluster against the nearest other one — is a number to maximize,
// penalizes splitting one cloud in two as much as merging two, and costs
// O(n^2) distances, trivial for the hundreds of windows a suite gives. Its
// weakness: it cannot choose k = 1, so a single homogeneous workload is still
// split in two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tierfs {
namespace tune {

using Vec = std::vector<double>;

struct KMeansResult {
  std::vector<Vec> centroids;   // k of them
  std::vector<size_t> labels;   // per point, its centroid's index
  double inertia = 0;           // sum of squared distances to the centroids
};

double SquaredDistance(const Vec& a, const Vec& b);

// The index of the centroid nearest `x` (the first of equals).
size_t Nearest(const std::vector<Vec>& centroids, const Vec& x);

// Clusters `points` (at least k, all of one dimension) into k: `restarts`
// runs of k-means++ seeding then Lloyd's iterations until no label changes
// (at most 300), the run of least inertia kept. Deterministic per seed.
KMeansResult KMeans(const std::vector<Vec>& points, size_t k, uint64_t seed,
                    size_t restarts = 10);

// The mean silhouette of a labelling, in [-1, 1]; 0 with fewer than two
// clusters. A point alone in its cluster counts 0 (Rousseeuw's convention).
double MeanSilhouette(const std::vector<Vec>& points, const std::vector<size_t>& labels,
                      size_t k);

// k from 2 to max_k (at most points - 1) of the largest mean silhouette (the
// smallest k of equal ones, within 1e-9), and its clustering; `silhouettes`,
// if given, gets every k's score (index k). With fewer than 3 points, one
// cluster.
KMeansResult ChooseK(const std::vector<Vec>& points, size_t max_k, uint64_t seed,
                     std::vector<double>* silhouettes = nullptr);

}  // namespace tune
}  // namespace tierfs
