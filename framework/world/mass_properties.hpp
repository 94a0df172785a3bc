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
/// m s^2 / 6 on the diagonal, moved to the centre of mass by the parallel-axis theorem.
MassProperties compute_mass_properties(const VoxelModel& model, double density_kgpm3);

}  // namespace fovea
