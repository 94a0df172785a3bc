#pragma once

// The boxes that bound entities in the broad phase (004 section 3.2): a fixed-size cube that
// holds the entity at any orientation, or the tight axis-aligned box at its orientation now.

#include <span>
#include <vector>

#include "core/math.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// `auto` bounds an entity dynamically when its model is at least this elongated.
inline constexpr double kDynamicBoundsElongation = 2.0;

/// How long and thin a model is: the longest side of the box around its occupied voxels over
/// the shortest, along the model's axes. 1 for a cube or a ball; 4 for a 4:1 rod.
double elongation(const VoxelModel& model);

/// `auto` made concrete for one model: dynamic when elongation >= kDynamicBoundsElongation.
/// A fixed cube wastes little on a compact shape; on a rod it can hold dozens of rods
/// lying beside it, each a useless narrow-phase test (004 section 3.2).
BoundsKind resolve_bounds(BoundsKind kind, const VoxelModel& model);

/// The points whose convex hull is the model's: corners of occupied voxels, reduced to the
/// vertices of each z-plane's 2D convex hull, relative to `centre_of_mass_model_m`. The tight
/// box at any orientation is the box of these points rotated, so a dynamic box is exact for
/// the voxels and costs one pass over a few hundred points (docs/broadphase.md gives counts).
std::vector<Vec3> hull_points(const VoxelModel& model, const Vec3& centre_of_mass_model_m);

/// The fixed-size cube: side 2 x `radius_m`, centred on the centre of mass.
inline Aabb fixed_cube(const Vec3& position_m, double radius_m) {
  return {position_m - Vec3(radius_m), position_m + Vec3(radius_m)};
}

/// The tight axis-aligned box of `points` (from hull_points) at `orientation`, the centre of
/// mass at `position_m`.
Aabb tight_box(std::span<const Vec3> points, const Quat& orientation, const Vec3& position_m);

}  // namespace fovea
