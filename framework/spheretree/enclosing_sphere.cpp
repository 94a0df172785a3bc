#include "spheretree/enclosing_sphere.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace fovea {
namespace {

// Voxel corners are highly degenerate (many points on one sphere, four on one circle), so
// "outside" allows a relative slack; the final pass makes containment exact.
constexpr double kSlack = 1e-10;

bool outside(const Sphere& s, const Vec3& p) {
  const Vec3 d = p - s.centre;
  return glm::dot(d, d) > s.radius * s.radius * (1 + kSlack) + 1e-300;
}

Sphere ball_of(const Vec3& a, const Vec3& b) { return {0.5 * (a + b), 0.5 * glm::length(b - a)}; }

/// The smallest sphere through a, b, c (their circumcircle's sphere), or the diametral
/// sphere of the farthest pair when they are (nearly) collinear.
Sphere ball_of(const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a;
  const Vec3 n = glm::cross(ab, ac);
  const double n2 = glm::dot(n, n);
  if (n2 <= 1e-14 * glm::dot(ab, ab) * glm::dot(ac, ac)) {
    Sphere best = ball_of(a, b);
    for (const Sphere& s : {ball_of(a, c), ball_of(b, c)})
      if (s.radius > best.radius) best = s;
    return best;
  }
  const Vec3 offset = (glm::dot(ac, ac) * glm::cross(n, ab) + glm::dot(ab, ab) * glm::cross(ac, n)) / (2 * n2);
  return {a + offset, glm::length(offset)};
}

/// The smallest sphere holding a, b, c, d with all four on its boundary when they are in
/// general position; otherwise (coplanar) the smallest of the spheres through fewer of them
/// that holds all four.
Sphere ball_of(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 u = b - a, v = c - a, w = d - a;
  const double det = glm::dot(u, glm::cross(v, w));
  const double scale = glm::length(u) * glm::length(v) * glm::length(w);
  if (std::abs(det) > 1e-12 * scale) {
    const Vec3 offset = (glm::dot(u, u) * glm::cross(v, w) + glm::dot(v, v) * glm::cross(w, u) + glm::dot(w, w) * glm::cross(u, v)) / (2 * det);
    return {a + offset, glm::length(offset)};
  }
  const Vec3 p[4] = {a, b, c, d};
  Sphere best{Vec3(0.0), HUGE_VAL};
  const auto consider = [&](const Sphere& s) {
    for (const Vec3& q : p)
      if (outside(s, q)) return;
    if (s.radius < best.radius) best = s;
  };
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      consider(ball_of(p[i], p[j]));
      for (int k = j + 1; k < 4; ++k) consider(ball_of(p[i], p[j], p[k]));
    }
  return best;
}

}  // namespace

Sphere minimum_enclosing_sphere(std::span<const Vec3> input) {
  if (input.empty()) return {};
  // A fixed shuffle (xorshift, constant seed) gives Welzl's expected linear time on the
  // sorted orders voxel scans produce, and the same answer every time.
  std::vector<Vec3> p(input.begin(), input.end());
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (std::size_t i = p.size(); i > 1; --i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    std::swap(p[i - 1], p[state % i]);
  }
  Sphere s{p[0], 0};
  for (std::size_t i = 1; i < p.size(); ++i) {
    if (!outside(s, p[i])) continue;
    s = {p[i], 0};
    for (std::size_t j = 0; j < i; ++j) {
      if (!outside(s, p[j])) continue;
      s = ball_of(p[i], p[j]);
      for (std::size_t k = 0; k < j; ++k) {
        if (!outside(s, p[k])) continue;
        s = ball_of(p[i], p[j], p[k]);
        for (std::size_t l = 0; l < k; ++l)
          if (outside(s, p[l])) s = ball_of(p[i], p[j], p[k], p[l]);
      }
    }
  }
  double r2 = 0;
  for (const Vec3& q : p) r2 = std::max(r2, glm::dot(q - s.centre, q - s.centre));
  s.radius = std::sqrt(r2);
  return s;
}

}  // namespace fovea
