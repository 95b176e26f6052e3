#include "util/zipfian.h"

#include <cmath>

namespace tierfs {

Zipfian::Zipfian(int64_t items, double theta) : Zipfian(items, theta, Zeta(0, items, theta, 0)) {}

Zipfian::Zipfian(int64_t items, double theta, double zetan) : Zipfian(items, items, theta, zetan) {}

Zipfian::Zipfian(int64_t eta_items, int64_t items, double theta, double zetan)
    : eta_items_(eta_items),
      items_(items),
      theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2theta_(Zeta(0, 2, theta, 0)),
      zetan_(zetan),
      eta_((1 - std::pow(2.0 / double(eta_items), 1 - theta)) / (1 - zeta2theta_ / zetan)) {}

double Zipfian::Zeta(int64_t start, int64_t n, double theta, double initial_sum) {
  double sum = initial_sum;
  for (int64_t i = start; i < n; ++i) sum += 1 / std::pow(double(i + 1), theta);
  return sum;
}

Zipfian Zipfian::Grown(int64_t items) const {
  return Zipfian(eta_items_, items, theta_, Zeta(items_, items, theta_, zetan_));
}

int64_t Zipfian::Rank(double u, int64_t itemcount) const {
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + std::pow(0.5, theta_)) return 1;
  return int64_t(double(itemcount) * std::pow(eta_ * u - eta_ + 1, alpha_));
}

}  // namespace tierfs
