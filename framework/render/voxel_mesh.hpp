#pragma once

#include <cstdint>
#include <vector>

#include "world/voxel_model.hpp"

namespace fovea {

/// One vertex of a voxel mesh, as the GPU reads it: 28 bytes, tightly packed.
struct MeshVertex {
  float position_m[3];  ///< model space, metres
  float normal[3];      ///< axis-aligned unit normal, outward
  std::uint32_t rgba;   ///< red in the low byte, as VoxelModel palettes; alpha always 255
};
static_assert(sizeof(MeshVertex) == 28);

/// A voxel model's surface for drawing: indexed triangles, built once per model.
struct VoxelMesh {
  std::vector<MeshVertex> vertices;    ///< 4 per quad, quad q owns vertices [4q, 4q + 4)
  std::vector<std::uint32_t> indices;  ///< 6 per quad, two triangles counter-clockwise seen from outside
  /// Merged rectangles in the mesh (each one or more unit faces of the voxel grid).
  std::int64_t quads() const { return static_cast<std::int64_t>(indices.size() / 6); }
};

/// The exposed faces of `model` (those of an occupied voxel whose neighbour across the face is
/// empty or outside the grid), merged greedily per slice and face direction into maximal
/// rectangles of one colour. A face's colour is its voxel's palette entry, or `default_rgba`
/// for every voxel when the model has no palette; alpha is forced to 255 either way.
/// Throws std::invalid_argument for a palette that is neither empty nor 256 entries.
VoxelMesh mesh_voxel_model(const VoxelModel& model, std::uint32_t default_rgba);

/// Exposed unit faces of the model, unmerged (the oracle's count, and stats).
std::int64_t exposed_face_count(const VoxelModel& model);

}  // namespace fovea
