#pragma once

#include <span>

#include "core/math.hpp"

namespace fovea {

/// A sphere in whatever unit its points were given (voxels where octree_builder.cpp fits one).
struct Sphere {
  Vec3 centre{0.0};   ///< in the points' unit
  double radius = 0;  ///< in the points' unit
};

/// The smallest sphere holding every point (Welzl, "Smallest enclosing disks (balls and
/// ellipsoids)", 1991, in the iterative move-to-front form), to rounding. The points are visited
/// in a fixed pseudo-random order, so the answer is deterministic. The returned radius is then
/// the largest distance from the centre to a point, as computed (a square root that may round
/// down by an ulp): callers who need every point inside to the last bit raise it a little, as
/// octree_builder.cpp does. Expected
/// time linear in the points. An empty span gives radius 0 at the origin.
Sphere minimum_enclosing_sphere(std::span<const Vec3> points);

}  // namespace fovea
