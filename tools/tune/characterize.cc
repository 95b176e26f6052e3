// Standardization, PCA, k-means and assignment (characterize.h).
#include "tools/tune/characterize.h"

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/json_number.h"
#include "tools/tune/window_features.h"

namespace tierfs {
namespace tune {
namespace {

using nlohmann::json;

json Identity(const WorkloadModel& m) {
  return json{{"mean", m.mean}, {"sd", m.sd}, {"components", m.components},
              {"centroids", m.centroids}};
}

std::string Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)h);
  return buf;
}

}  // namespace

std::string WorkloadModel::Id() const { return Fnv1a(Identity(*this).dump()); }

Vec WorkloadModel::Project(const Vec& window) const {
  Vec out(components.size(), 0);
  for (size_t c = 0; c < components.size(); ++c) {
    for (size_t f = 0; f < window.size() && f < mean.size(); ++f) {
      out[c] += components[c][f] * (window[f] - mean[f]) / sd[f];
    }
  }
  return out;
}

Assignment WorkloadModel::Assign(const std::vector<Vec>& windows) const {
  Assignment a;
  a.votes.assign(clusters(), 0);
  std::vector<Vec> points;
  for (const Vec& w : windows) {
    points.push_back(Project(w));
    ++a.votes[Nearest(centroids, points.back())];
  }
  for (size_t c = 1; c < a.votes.size(); ++c) {
    if (a.votes[c] > a.votes[a.cluster]) a.cluster = c;
  }
  a.share = windows.empty() ? 0 : double(a.votes[a.cluster]) / double(windows.size());
  a.center.assign(2, 0);
  for (const Vec& p : points) {
    a.distance += std::sqrt(SquaredDistance(p, centroids[a.cluster]));
    for (size_t d = 0; d < 2 && d < p.size(); ++d) a.center[d] += p[d];
  }
  if (!points.empty()) {
    a.distance /= double(points.size());
    for (double& c : a.center) c /= double(points.size());
  }
  return a;
}

std::string WorkloadModel::ToJson() const {
  json j = Identity(*this);
  j["format"] = "tierfs-tune workload model 1";
  j["id"] = Id();
  j["features"] = features;
  j["explained"] = explained;
  j["silhouettes"] = silhouettes;
  json w = json::array();
  for (const auto& [name, a] : workloads) {
    w.push_back({{"name", name}, {"cluster", a.cluster}, {"votes", a.votes},
                 {"share", a.share}, {"distance", a.distance},
                 {"center", a.center}});
  }
  j["workloads"] = w;
  return j.dump(1);
}

bool WorkloadModel::FromJson(const std::string& text, WorkloadModel* model, std::string* error) {
  try {
    const json j = json::parse(text);
    if (j.value("format", "") != "tierfs-tune workload model 1") {
      *error = "not a tierfs-tune workload model (no \"format\": \"tierfs-tune workload model 1\")";
      return false;
    }
    WorkloadModel m;
    j.at("features").get_to(m.features);
    j.at("mean").get_to(m.mean);
    j.at("sd").get_to(m.sd);
    j.at("components").get_to(m.components);
    j.at("explained").get_to(m.explained);
    j.at("centroids").get_to(m.centroids);
    j.at("silhouettes").get_to(m.silhouettes);
    for (const json& w : j.at("workloads")) {
      Assignment a;
      // Integers through JsonNumber: nlohmann's get_to casts a float such as
      // 1e300 to size_t, which is undefined behaviour (found by tune_fuzzer).
      a.cluster = JsonNumber<size_t>(w.at("cluster"));
      for (const json& v : w.at("votes")) a.votes.push_back(JsonNumber<size_t>(v));
      w.at("share").get_to(a.share);
      w.at("distance").get_to(a.distance);
      w.at("center").get_to(a.center);
      m.workloads.emplace_back(w.at("name").get<std::string>(), a);
    }
    const size_t f = m.features.size();
    bool shaped = f > 0 && m.mean.size() == f && m.sd.size() == f && m.components.size() == 2 &&
                  !m.centroids.empty();
    for (const Vec& c : m.components) shaped = shaped && c.size() == f;
    for (const Vec& c : m.centroids) shaped = shaped && c.size() == 2;
    for (double s : m.sd) shaped = shaped && s > 0;
    for (const auto& [name, a] : m.workloads) {
      shaped = shaped && a.cluster < m.centroids.size() && a.votes.size() == m.centroids.size();
    }
    if (!shaped) {
      *error = "the model's vectors do not agree in size (or a standard deviation is not "
               "positive, or a workload names a cluster the model lacks)";
      return false;
    }
    const std::string id = j.at("id").get<std::string>();
    if (id != m.Id()) {
      *error = "the model's id " + id + " does not match its contents (" + m.Id() +
               "): edited or damaged";
      return false;
    }
    *model = std::move(m);
    return true;
  } catch (const std::exception& e) {  // nlohmann's errors and JsonNumber's
    *error = std::string("bad model JSON: ") + e.what();
    return false;
  }
}

bool WorkloadModel::Save(const std::string& path, std::string* error) const {
  std::ofstream out(path);
  out << ToJson() << "\n";
  out.close();
  if (!out) {
    *error = "cannot write the model to " + path;
    return false;
  }
  return true;
}

bool WorkloadModel::Load(const std::string& path, WorkloadModel* model, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read the model " + path;
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  if (!FromJson(text.str(), model, error)) {
    *error = "model " + path + ": " + *error;
    return false;
  }
  return true;
}

bool BuildModel(const std::vector<WorkloadWindows>& workloads, size_t max_k, uint64_t seed,
                WorkloadModel* model, std::string* error) {
  std::vector<Vec> windows;
  for (const WorkloadWindows& w : workloads) {
    windows.insert(windows.end(), w.windows.begin(), w.windows.end());
  }
  if (windows.size() < 3) {
    *error = "characterization needs at least 3 windows of " + std::to_string(kWindowRequests) +
             " requests in all, has " + std::to_string(windows.size());
    return false;
  }
  if (max_k < 2) {
    *error = "the largest k must be at least 2";
    return false;
  }
  WorkloadModel m;
  m.features = FeatureNames();
  const size_t n = windows.size(), f = m.features.size();
  Eigen::MatrixXd x(n, f);
  for (size_t i = 0; i < n; ++i) {
    if (windows[i].size() != f) {
      *error = "a window has " + std::to_string(windows[i].size()) + " features, not " +
               std::to_string(f);
      return false;
    }
    for (size_t j = 0; j < f; ++j) x(i, j) = windows[i][j];
  }
  m.mean.resize(f);
  m.sd.resize(f);
  for (size_t j = 0; j < f; ++j) {
    m.mean[j] = x.col(j).mean();
    const double var = (x.col(j).array() - m.mean[j]).square().mean();
    // A feature constant over the training windows carries no information:
    // it standardizes to 0 with an sd of 1.
    m.sd[j] = var > 1e-18 ? std::sqrt(var) : 1.0;
    x.col(j) = (x.col(j).array() - m.mean[j]) / m.sd[j];
  }
  // PCA: the eigenvectors of the standardized covariance of the two largest
  // eigenvalues (Eigen orders them ascending). Each is given the sign that
  // makes its largest entry positive, so a build is reproducible.
  const Eigen::MatrixXd cov = (x.transpose() * x) / double(n);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(cov);
  if (eigen.info() != Eigen::Success) {
    *error = "PCA: the eigen-decomposition of the feature covariance failed";
    return false;
  }
  const double total = std::max(eigen.eigenvalues().sum(), 1e-300);
  for (int c = 0; c < 2; ++c) {
    const Eigen::Index col = Eigen::Index(f) - 1 - c;
    Eigen::VectorXd v = eigen.eigenvectors().col(col);
    Eigen::Index top = 0;
    v.cwiseAbs().maxCoeff(&top);
    if (v(top) < 0) v = -v;
    m.components.emplace_back(v.data(), v.data() + f);
    m.explained.push_back(std::max(0.0, eigen.eigenvalues()(col)) / total);
  }
  std::vector<Vec> points;
  for (const Vec& w : windows) points.push_back(m.Project(w));
  KMeansResult clusters = ChooseK(points, max_k, seed, &m.silhouettes);
  m.centroids = std::move(clusters.centroids);
  for (const WorkloadWindows& w : workloads) {
    if (!w.windows.empty()) m.workloads.emplace_back(w.name, m.Assign(w.windows));
  }
  *model = std::move(m);
  return true;
}

}  // namespace tune
}  // namespace tierfs
