#pragma once

// Math types for the whole framework: GLM, in double precision for world state so that long
// runs and energy bookkeeping do not drift from float rounding. Angles are radians.

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace fovea {

/// A point or direction in 3D, double precision: metres unless its name says otherwise (_mps, _radps).
using Vec3 = glm::dvec3;
/// A 3x3 matrix, double precision, column-major (GLM): rotations and inertia tensors.
using Mat3 = glm::dmat3;
/// A rotation as a unit quaternion, double precision; constructed (w, x, y, z).
using Quat = glm::dquat;
/// Integer triple: voxel, lattice and grid-cell indices (spheretree/), counts per axis.
using IVec3 = glm::ivec3;

/// An axis-aligned box in world space, metres.
struct Aabb {
  Vec3 min_m{0.0};  ///< lowest corner (smallest x, y, z), metres
  Vec3 max_m{0.0};  ///< highest corner (largest x, y, z), metres
  /// Edge lengths along x, y and z, metres.
  Vec3 size_m() const { return max_m - min_m; }
  /// Midpoint of the box, metres.
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
