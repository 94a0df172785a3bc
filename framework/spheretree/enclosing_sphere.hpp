#pragma once

#include <span>

#include "core/math.hpp"

namespace fovea {

struct Sphere {
  Vec3 centre{0.0};
  double radius = 0;
};

/// The smallest sphere holding every point (Welzl, "Smallest enclosing disks (balls and
/// ellipsoids)", 1991, in the iterative move-to-front form), to rounding. The points are visited
/// in a fixed pseudo-random order, so the answer is deterministic. The returned radius is then
/// raised to the farthest point's distance from the centre, so every point is inside whatever
/// the rounding did: callers rely on containment, not on minimality to the last bit. Expected
/// time linear in the points. An empty span gives radius 0 at the origin.
Sphere minimum_enclosing_sphere(std::span<const Vec3> points);

}  // namespace fovea
