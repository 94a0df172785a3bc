#include "response/contact.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

namespace fovea {

ContactCandidate contact_of(const SpherePairContact& pair) {
  const Vec3 line = pair.centre_b_m - pair.centre_a_m;
  const double distance = glm::length(line);
  const double radii = pair.radius_a_m + pair.radius_b_m;
  ContactCandidate c;
  c.normal = distance > 0 ? line / distance : Vec3(0, 1, 0);
  // 004 figure 4: C divides O_a O_b in proportion to the radii.
  c.point_m = pair.centre_a_m + line * (radii > 0 ? pair.radius_a_m / radii : 0.5);
  c.depth_m = radii - distance;
  c.feature = pair.feature;
  return c;
}

ContactManifold combine_contacts(std::span<const ContactCandidate> candidates, std::uint32_t body_a,
                                 std::uint32_t body_b, std::span<const std::uint64_t> kept_features) {
  assert(!candidates.empty());
  ContactManifold m;
  m.body_a = body_a;
  m.body_b = body_b;
  if (candidates.empty()) return m;

  Vec3 weighted(0.0);
  std::size_t deepest = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    // A candidate that only just touches, or is still apart (repulsion), counts a little,
    // so a manifold of such candidates still has a normal.
    weighted += candidates[i].normal * std::max(candidates[i].depth_m, 1e-12);
    if (candidates[i].depth_m > candidates[deepest].depth_m) deepest = i;
  }
  const double length = glm::length(weighted);
  const double deepest_weight = std::max(candidates[deepest].depth_m, 1e-12);
  m.normal = length > 1e-9 * deepest_weight ? weighted / length : candidates[deepest].normal;

  const auto keep = [&](const ContactCandidate& c) {
    ContactPoint& p = m.points[static_cast<std::size_t>(m.point_count++)];
    p.point_m = c.point_m;
    p.depth_m = c.depth_m;
    p.feature = c.feature;
  };
  // The deepest point, then last frame's points still present, in their order, then
  // farthest-point sampling: each next point the one farthest from the nearest chosen.
  keep(candidates[deepest]);
  for (const std::uint64_t feature : kept_features) {
    if (m.point_count == ContactManifold::kMaxPoints) break;
    if (feature == candidates[deepest].feature) continue;
    for (const ContactCandidate& c : candidates)
      if (c.feature == feature) {
        keep(c);
        break;
      }
  }
  while (m.point_count < ContactManifold::kMaxPoints) {
    double best_distance2 = 0;
    std::size_t best = candidates.size();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      double nearest2 = std::numeric_limits<double>::infinity();
      for (int k = 0; k < m.point_count; ++k) {
        const Vec3 d = candidates[i].point_m - m.points[static_cast<std::size_t>(k)].point_m;
        nearest2 = std::min(nearest2, glm::dot(d, d));
      }
      if (nearest2 > best_distance2) {
        best_distance2 = nearest2;
        best = i;
      }
    }
    if (best == candidates.size()) break;  // every remaining point coincides with a kept one
    keep(candidates[best]);
  }
  return m;
}

}  // namespace fovea
