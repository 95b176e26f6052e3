// LearnedSSD's learning-based workload clustering (learnedssd.txt §3.3):
// the windows of every training workload (window_features.h) standardized
// (z-scores over all windows), projected by PCA onto their two principal
// components, and clustered by k-means with k chosen by the silhouette
// (kmeans.h). A new trace is assigned to the cluster that holds the majority
// of its windows: the paper's "the majority of the examined data points fall
// into the existing workload cluster".
//
// The model is a JSON file (tierfs-tune characterize writes it) and has an
// identity: a hash of everything that decides an assignment (the
// standardization, the components, the centroids). ConfDB keys carry it, so
// the clusters of a model built again are never mistaken for the old ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace_format.h"
#include "tools/tune/kmeans.h"

namespace tierfs {
namespace tune {

// A training workload: its name and its windows' feature vectors.
struct WorkloadWindows {
  std::string name;
  std::vector<Vec> windows;
};

// Where a workload's windows fell.
struct Assignment {
  size_t cluster = 0;          // the cluster of most windows (the lowest id of equals)
  std::vector<size_t> votes;   // windows per cluster
  double share = 0;            // votes[cluster] / windows
  double distance = 0;         // mean distance of its windows to that centroid (PCA units)
  Vec center;                  // the mean of its windows' points (where it sits in the plane)
};

struct WorkloadModel {
  std::vector<std::string> features;  // FeatureNames() at build
  Vec mean, sd;                       // per feature; a constant feature has sd 1
  std::vector<Vec> components;        // two unit vectors over the features
  Vec explained;                      // the share of variance each component explains
  std::vector<Vec> centroids;         // in the plane of the components
  std::vector<double> silhouettes;    // the mean silhouette of each k tried (index k)
  // The training workloads and the cluster each was assigned.
  std::vector<std::pair<std::string, Assignment>> workloads;

  size_t clusters() const { return centroids.size(); }
  // 16 hex digits: FNV-1a of the JSON of mean, sd, components and
  // centroids. Two models agree on every assignment if their ids agree.
  std::string Id() const;
  // A window's point in the plane: standardized, then projected.
  Vec Project(const Vec& window) const;
  // The cluster of a workload's windows. REQUIRES: at least one window.
  Assignment Assign(const std::vector<Vec>& windows) const;

  std::string ToJson() const;
  // False and *error on JSON that is not a model, or whose stored id does
  // not match its contents (an edited or damaged file).
  static bool FromJson(const std::string& text, WorkloadModel* model, std::string* error);
  bool Save(const std::string& path, std::string* error) const;
  static bool Load(const std::string& path, WorkloadModel* model, std::string* error);
};

// Builds a model from the training workloads: at least three windows in
// all. k from 2 to max_k by the silhouette; deterministic per seed. False
// and *error otherwise.
bool BuildModel(const std::vector<WorkloadWindows>& workloads, size_t max_k, uint64_t seed,
                WorkloadModel* model, std::string* error);

// The windows of a workload as the simulator loads it (a synthetic suite
// name with `requests` and `seed`, or a trace file: sim::LoadWorkload).
bool LoadWindows(const std::string& workload, uint64_t requests, uint64_t seed,
                 WorkloadWindows* out, std::string* error);

}  // namespace tune
}  // namespace tierfs
