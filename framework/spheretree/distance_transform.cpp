#include "spheretree/distance_transform.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace fovea {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// One 1D pass: d[i] = min_j (f[j] + (i - j)^2), by the lower envelope of parabolas.
/// `f` and `d` are strided views of length n; v, z are scratch of size n and n + 1.
void transform_1d(const double* f, double* d, std::size_t n, std::ptrdiff_t stride, std::vector<std::int64_t>& v,
                  std::vector<double>& z, std::vector<double>& line) {
  for (std::size_t i = 0; i < n; ++i) line[i] = f[static_cast<std::ptrdiff_t>(i) * stride];
  // Parabolas rooted at points with infinite f never enter the envelope. v holds the roots
  // of the envelope's parabolas, z the boundaries between them (z[0] = -inf stops the
  // backtracking at the first).
  std::size_t k = 0;
  bool any = false;
  for (std::size_t q = 0; q < n; ++q) {
    if (line[q] == kInfinity) continue;
    const auto qd = static_cast<double>(q);
    if (!any) {
      any = true;
      v[0] = static_cast<std::int64_t>(q);
      z[0] = -kInfinity;
      z[1] = kInfinity;
      continue;
    }
    double s;
    for (;;) {
      const auto vk = static_cast<double>(v[k]);
      s = ((line[q] + qd * qd) - (line[static_cast<std::size_t>(v[k])] + vk * vk)) / (2 * qd - 2 * vk);
      if (s > z[k]) break;
      --k;
    }
    ++k;
    v[k] = static_cast<std::int64_t>(q);
    z[k] = s;
    z[k + 1] = kInfinity;
  }
  if (!any) {
    for (std::size_t i = 0; i < n; ++i) d[static_cast<std::ptrdiff_t>(i) * stride] = kInfinity;
    return;
  }
  k = 0;
  for (std::size_t q = 0; q < n; ++q) {
    const auto qd = static_cast<double>(q);
    while (z[k + 1] < qd) ++k;
    const double dq = qd - static_cast<double>(v[k]);
    d[static_cast<std::ptrdiff_t>(q) * stride] = dq * dq + line[static_cast<std::size_t>(v[k])];
  }
}

}  // namespace

std::vector<double> squared_distance_transform(const std::vector<std::uint8_t>& is_feature, IVec3 dims) {
  const auto nx = static_cast<std::size_t>(dims.x), ny = static_cast<std::size_t>(dims.y),
             nz = static_cast<std::size_t>(dims.z);
  if (is_feature.size() != nx * ny * nz) throw std::invalid_argument("distance transform: lattice size mismatch");
  std::vector<double> d(is_feature.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = is_feature[i] ? 0.0 : kInfinity;
  const std::size_t longest = std::max({nx, ny, nz});
  std::vector<std::int64_t> v(longest);
  std::vector<double> z(longest + 1), line(longest);
  // Along x, then y, then z, each pass in place (transform_1d copies its input line first).
  for (std::size_t k = 0; k < nz; ++k)
    for (std::size_t j = 0; j < ny; ++j) {
      double* row = d.data() + nx * (j + ny * k);
      transform_1d(row, row, nx, 1, v, z, line);
    }
  for (std::size_t k = 0; k < nz; ++k)
    for (std::size_t i = 0; i < nx; ++i) {
      double* column = d.data() + i + nx * ny * k;
      transform_1d(column, column, ny, static_cast<std::ptrdiff_t>(nx), v, z, line);
    }
  for (std::size_t j = 0; j < ny; ++j)
    for (std::size_t i = 0; i < nx; ++i) {
      double* pillar = d.data() + i + nx * j;
      transform_1d(pillar, pillar, nz, static_cast<std::ptrdiff_t>(nx * ny), v, z, line);
    }
  return d;
}

}  // namespace fovea
