#pragma once

#include "world/entity.hpp"
#include "world/voxel_model.hpp"

namespace fovea::test {

/// How deep two posed voxel models are inside each other, the slow obvious way: over every
/// voxel centre of either model that lies in an occupied voxel of the other, the largest
/// distance from that centre to the other's free space (its empty cells and everything
/// outside its grid, as closed cubes). 0 when no voxel centre of either lies inside the
/// other: models that merely touch, or overlap by less than half a voxel, measure 0.
double voxel_penetration_m(const VoxelModel& model_a, const Entity& a, const EntityState& pose_a,
                           const VoxelModel& model_b, const Entity& b, const EntityState& pose_b);

}  // namespace fovea::test
