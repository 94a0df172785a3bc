#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/math.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

// Rock fracture (004 section 1: rocks "either bouncing or breaking into smaller rocks"), as
// pure functions: the caller decides that an impact breaks a rock, picks the cutting plane,
// and makes entities from what these return. fracture_voxels splits the voxels,
// fracture_motion shares out the parent's momentum.

/// One piece big enough to become an entity: the voxels of one 6-connected component of one
/// side of the cut, in a grid of their own.
struct Fragment {
  VoxelModel model;               ///< cropped to the component's bounding box; voxel size, colour indices and palette of the parent
  IVec3 offset_voxels{0};         ///< where model's min corner sits in the parent's grid
  int side = 0;                   ///< 0: voxel centres on the negative side of the plane, 1: the rest
  std::int64_t voxel_count = 0;   ///< occupied voxels of model
};

/// A component smaller than the caller's minimum: removed from the world, but it carries
/// momentum away, so the caller still needs its mass and where it was.
struct DebrisPiece {
  std::int64_t voxel_count = 0;   ///< occupied voxels of the component (its mass is this x voxel mass)
  Vec3 centre_model_m{0.0};       ///< mean of its voxel centres, parent's model space
  int side = 0;                   ///< as Fragment::side, for fracture_motion
};

/// What one cut makes of a model. Every occupied voxel of the parent lies in exactly one
/// fragment or one debris piece.
struct FractureResult {
  std::vector<Fragment> fragments;    ///< ordered by their lowest voxel index in the parent's storage order
  std::vector<DebrisPiece> debris;    ///< in the same order
  std::int64_t debris_voxels = 0;     ///< sum of debris[i].voxel_count
};

/// Cuts `parent` by the plane through `plane_point_model_m` with normal `plane_normal_model`
/// (parent's model space; the normal need not be unit) and splits each side into its
/// 6-connected components. A voxel is on side 0 when dot(centre - point, normal) < 0, else
/// side 1, so a voxel whose centre lies on the plane goes to side 1; no component spans both
/// sides. Components of at least `min_fragment_voxels` voxels become fragments, smaller ones
/// debris. The fill is iterative (no recursion: grids up to 256^3) and takes one byte of
/// scratch per grid cell plus eight bytes per voxel of the largest component.
/// Throws std::invalid_argument for a zero or non-finite normal, a non-finite point or
/// min_fragment_voxels < 1.
FractureResult fracture_voxels(const VoxelModel& parent, const Vec3& plane_point_model_m,
                               const Vec3& plane_normal_model, std::int64_t min_fragment_voxels);

/// Where a fragment's model-space origin lies in the parent's model space: a point p of the
/// fragment is p + fragment_origin_in_parent_m(f) in the parent.
inline Vec3 fragment_origin_in_parent_m(const Fragment& fragment) {
  return Vec3(fragment.offset_voxels) * fragment.model.voxel_size_m();
}

/// The parent's motion at the moment it breaks, world frame.
struct ParentMotion {
  Vec3 centre_of_mass_m{0.0};         ///< world position of the parent's centre of mass
  Vec3 linear_velocity_mps{0.0};      ///< of the centre of mass
  Vec3 angular_velocity_radps{0.0};   ///< rad/s, world axes
};

/// One piece (fragment or debris) as fracture_motion needs it.
struct PieceMass {
  double mass_kg = 0;                 ///< positive and finite (fracture_motion throws otherwise)
  Vec3 centre_of_mass_m{0.0};         ///< world frame
  int side = 0;                       ///< Fragment::side or DebrisPiece::side
};

/// A piece's velocities just after the break, world frame.
struct PieceMotion {
  Vec3 linear_velocity_mps{0.0};      ///< of the piece's centre of mass
  Vec3 angular_velocity_radps{0.0};   ///< rad/s, world axes: the parent's, unchanged
};

/// Velocities of the pieces of a broken parent, one per entry of `pieces`, in order.
///
/// Piece i keeps the parent's rigid motion, v + w x (c_i - c), and its angular velocity w,
/// plus a separation velocity u_i = s (sign_i - mean) n: n the unit `plane_normal_world`,
/// s `separation_speed_mps`, sign_i -1 on side 0 and +1 on side 1, and mean the
/// mass-weighted mean of sign_i over `pieces`, so sum m_i u_i = 0 and any two pieces on
/// opposite sides move apart along n at 2 s.
///
/// Conservation, when `pieces` are all the pieces of the parent (fragments and debris), with
/// masses and centres from compute_mass_properties (sum m_i = M, sum m_i c_i = M c):
/// - linear momentum: sum m_i v_i = M v exactly (to rounding), for any s;
/// - angular momentum about any point o, for s = 0: sum I_i w + m_i (c_i - o) x v_i equals
///   the parent's I w + M (c - o) x v (parallel-axis theorem: the voxels move as before).
///   For s > 0 the separation adds sum m_i (c_i - c) x u_i, which does not vanish in general.
/// The caller drops the debris' motions: debris leaves the world and takes its share away.
/// Throws std::invalid_argument for a zero or non-finite normal, a negative or non-finite
/// separation speed, a mass that is not positive and finite, or a side other than 0 or 1.
std::vector<PieceMotion> fracture_motion(const ParentMotion& parent, std::span<const PieceMass> pieces,
                                         const Vec3& plane_normal_world, double separation_speed_mps);

}  // namespace fovea
