// A Gaussian process regressor for the model-based optimizers (bayes,
// descent): zero-mean prior on standardized targets, a squared-exponential
// (RBF) kernel over the encoded space (Space::Encode) plus a white-noise
// term, both hyperparameters chosen from a grid by the log marginal
// likelihood (Rasmussen and Williams, Gaussian Processes for Machine
// Learning, Algorithm 2.1). Linear algebra by Eigen.
#pragma once

#include <memory>
#include <vector>

namespace tierfs {
namespace tune {

class GaussianProcess {
 public:
  GaussianProcess();
  ~GaussianProcess();

  // Fits to points `x` (equal-length rows) and values `y`. False if there
  // is no point or the kernel matrix cannot be factored at any grid setting.
  bool Fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y);
  // The posterior mean and standard deviation at `x`, in the units of y.
  // REQUIRES: a successful Fit.
  void Predict(const std::vector<double>& x, double* mean, double* sd) const;
  double length_scale() const { return length_; }
  double noise() const { return noise_; }

 private:
  struct Model;
  std::unique_ptr<Model> model_;
  double length_ = 0, noise_ = 0;
};

// Expected improvement below `best` (minimization) of a normal prediction:
// (best - mean) Phi(z) + sd phi(z), z = (best - mean) / sd; 0 if sd is 0 and
// mean >= best.
double ExpectedImprovement(double mean, double sd, double best);

}  // namespace tune
}  // namespace tierfs
