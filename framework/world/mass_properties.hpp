#pragma once

#include "core/math.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// Rigid-body properties of a voxel model of uniform density, exact for the union of cubes.
struct MassProperties {
  double mass_kg = 0;           ///< density x occupied voxel count x voxel volume
  Vec3 centre_of_mass_m{0.0};   ///< in model space
  Mat3 inertia_kgm2{0.0};       ///< about the centre of mass, model axes
  /// Radius of the smallest sphere centred on the centre of mass that holds every voxel
  /// (its farthest voxel corner): the entity fits in it at any orientation.
  double bounding_radius_m = 0;
};

/// Each voxel is a solid cube of side s and mass m = density s^3: its own inertia is
/// m s^2 / 6 on the diagonal, moved to the centre of mass by the parallel-axis theorem. A
/// tensor isotropic but for the sums' rounding (kIsotropicTolerance) is made exactly so:
/// a ball's, a cube's (is_isotropic).
MassProperties compute_mass_properties(const VoxelModel& model, double density_kgpm3);

/// How far, relative to its mean diagonal, a tensor's entries may stray from that mean times
/// the identity for isotropic_if_nearly (and so compute_mass_properties) to make it
/// isotropic. A voxel ball's three diagonal sums differ only in the order they add their
/// terms: by at most 1.2e-14 relative up to 64 voxels across (tests/world/
/// mass_properties_test.cpp); a rock's and an L's are far from it (the same test).
inline constexpr double kIsotropicTolerance = 1e-10;

/// `tensor_kgm2` as exactly isotropic (the mean of its diagonal times the identity) when no
/// entry strays from that by more than kIsotropicTolerance times the mean; else itself.
Mat3 isotropic_if_nearly(const Mat3& tensor_kgm2);

/// Whether `tensor` is exactly a multiple of the identity: its world form R I R^T is I itself
/// at any orientation, so L = I w keeps w along L (world/motion.cpp and response/response.cpp
/// take that shortcut).
bool is_isotropic(const Mat3& tensor);

/// The inverse of an inertia tensor, exactly isotropic for an isotropic one (glm::inverse's
/// cofactors would round its entries apart).
Mat3 inverse_inertia(const Mat3& inertia_kgm2);

}  // namespace fovea
