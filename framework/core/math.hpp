#pragma once

// Math types for the whole framework: GLM, in double precision for world state so that long
// runs and energy bookkeeping do not drift from float rounding. Angles are radians.

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace fovea {

using Vec3 = glm::dvec3;
using Mat3 = glm::dmat3;
using Quat = glm::dquat;
using IVec3 = glm::ivec3;

/// An axis-aligned box in world space, metres.
struct Aabb {
  Vec3 min_m{0.0};
  Vec3 max_m{0.0};
  Vec3 size_m() const { return max_m - min_m; }
  Vec3 centre_m() const { return 0.5 * (min_m + max_m); }
};

/// Closed boxes overlap: touching at a face, edge or corner counts.
inline bool overlaps(const Aabb& a, const Aabb& b) {
  return glm::all(glm::lessThanEqual(a.min_m, b.max_m)) && glm::all(glm::lessThanEqual(b.min_m, a.max_m));
}

/// Outer product a b^T (GLM's column-major convention handled here once).
inline Mat3 outer(const Vec3& a, const Vec3& b) {
  return Mat3(a * b.x, a * b.y, a * b.z);
}

}  // namespace fovea
