// The Gaussian process (gp.h).
#include "tools/tune/gp.h"

#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Core>

namespace tierfs {
namespace tune {

struct GaussianProcess::Model {
  Eigen::MatrixXd x;      // points, one a row
  Eigen::LLT<Eigen::MatrixXd> llt;  // of K + noise I
  Eigen::VectorXd alpha;  // (K + noise I)^-1 y, standardized
  double y_mean = 0, y_scale = 1;
};

namespace {

Eigen::MatrixXd Kernel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double length) {
  Eigen::MatrixXd k(a.rows(), b.rows());
  for (long i = 0; i < a.rows(); ++i) {
    for (long j = 0; j < b.rows(); ++j) {
      k(i, j) = std::exp(-(a.row(i) - b.row(j)).squaredNorm() / (2 * length * length));
    }
  }
  return k;
}

}  // namespace

GaussianProcess::GaussianProcess() = default;
GaussianProcess::~GaussianProcess() = default;

bool GaussianProcess::Fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y) {
  if (x.empty() || x.size() != y.size()) return false;
  const long n = long(x.size()), d = long(x[0].size());
  auto m = std::make_unique<Model>();
  m->x.resize(n, d);
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < d; ++j) m->x(i, j) = x[size_t(i)][size_t(j)];
  }
  Eigen::VectorXd v(n);
  for (long i = 0; i < n; ++i) v(i) = y[size_t(i)];
  m->y_mean = v.mean();
  const double var = (v.array() - m->y_mean).square().sum() / double(n);
  m->y_scale = var > 1e-24 ? std::sqrt(var) : 1.0;
  v = (v.array() - m->y_mean) / m->y_scale;

  double best = -std::numeric_limits<double>::infinity();
  for (double length : {0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.5}) {
    const Eigen::MatrixXd k = Kernel(m->x, m->x, length);
    for (double noise : {1e-6, 1e-4, 1e-2, 1e-1}) {
      Eigen::LLT<Eigen::MatrixXd> llt(k + noise * Eigen::MatrixXd::Identity(n, n));
      if (llt.info() != Eigen::Success) continue;
      const Eigen::VectorXd a = llt.solve(v);
      // log p(y | X) = -y'a/2 - sum log L_ii - n/2 log 2 pi
      const Eigen::MatrixXd l = llt.matrixL();
      const double ll = -0.5 * v.dot(a) - l.diagonal().array().log().sum();
      if (ll > best) {
        best = ll;
        length_ = length;
        noise_ = noise;
        m->llt = llt;
        m->alpha = a;
      }
    }
  }
  if (best == -std::numeric_limits<double>::infinity()) return false;
  model_ = std::move(m);
  return true;
}

void GaussianProcess::Predict(const std::vector<double>& x, double* mean, double* sd) const {
  Eigen::MatrixXd p(1, long(x.size()));
  for (size_t j = 0; j < x.size(); ++j) p(0, long(j)) = x[j];
  const Eigen::VectorXd ks = Kernel(model_->x, p, length_).col(0);
  const Eigen::VectorXd w = model_->llt.matrixL().solve(ks);
  const double var = std::max(0.0, 1.0 - w.squaredNorm());
  *mean = model_->y_mean + model_->y_scale * ks.dot(model_->alpha);
  *sd = model_->y_scale * std::sqrt(var);
}

double ExpectedImprovement(double mean, double sd, double best) {
  if (sd <= 0) return std::max(0.0, best - mean);
  const double z = (best - mean) / sd;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  return (best - mean) * cdf + sd * pdf;
}

}  // namespace tune
}  // namespace tierfs
