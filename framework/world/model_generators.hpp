#pragma once

#include <cstdint>

#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

// Built-in voxel model generators (docs/world.md shows each). Every shape has its own
// proportions (ball, box and rock 1:1:1, L-shape 1:1:0.5, humanoid 0.45:1:0.25, ravine
// 0.5:0.25:1 in x:y:z), multiplied by ModelSettings::aspect; the longest side then gets
// `resolution_voxels` voxels and measures `size_m`. The rock and the ravine use their seed.

/// Grid dimensions of a shape at a resolution, each side at least one voxel.
IVec3 model_dims(Shape shape, int resolution_voxels, const Vec3& aspect);

/// The built-in model a group's settings describe; `seed` picks the rock's or the ravine's
/// irregularity.
/// (Shape::file models are read by the world from their file, not made here.)
VoxelModel make_model(const ModelSettings& settings, std::uint64_t seed);

/// Voxels whose centres lie inside the ellipsoid inscribed in the grid.
VoxelModel make_ball(IVec3 dims, double voxel_size_m);
/// Every voxel of the grid.
VoxelModel make_box(IVec3 dims, double voxel_size_m);
/// A star-shaped blob: the inscribed ellipsoid with a seeded low-frequency radial bumpiness.
VoxelModel make_rock(IVec3 dims, double voxel_size_m, std::uint64_t seed);
/// An L cross-section in x-y (the grid minus its +x +y quadrant), extruded along z.
VoxelModel make_l_shape(IVec3 dims, double voxel_size_m);
/// A standing figure facing +z: legs, torso, arms, neck and head, y up.
VoxelModel make_humanoid(IVec3 dims, double voxel_size_m);
/// The rockfall's ravine (004 section 1: rocks "hit off each other and the edges of a
/// ravine"): a U-shaped trough running along z, y up. A floor slab fills the bottom, on
/// average 0.2 of dims.y thick, and two walls the x sides, each on average 0.2 of dims.x
/// thick, to the full height. The floor's top and the walls' inner faces carry a seeded
/// low-frequency relief (plane waves, as the rock's): 1.5 voxels on the floor, so it stays
/// walkable, 3 on the walls, each at most half the mean thickness. The outer parts are
/// solid, and the bottom layer and outer faces are always full, so it is one 6-connected piece.
VoxelModel make_ravine(IVec3 dims, double voxel_size_m, std::uint64_t seed);

}  // namespace fovea
