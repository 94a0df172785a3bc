#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/math.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// The exposed voxel faces of a model as a triangle mesh: closed, 2-manifold and oriented
/// outward, in model space (metres), each triangle tagged with its axis-aligned normal.
struct SurfaceMesh {
  std::vector<Vec3> vertices_m;  ///< model space, metres; split vertices repeat a position
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< counter-clockwise seen from outside
  std::vector<std::uint8_t> normal_index;               ///< per triangle: 0..5 = +x, -x, +y, -y, +z, -z
};

/// Two triangles per exposed face (a face of an occupied voxel on an empty cell or the grid's
/// edge). Where voxels touch only along an edge or at a corner, the surface would pinch into
/// a non-manifold edge or vertex; there the mesh gets one vertex per sheet of surface (found
/// by walking the faces around each corner), so every edge has exactly two triangles and
/// every vertex one fan. Positions of split vertices coincide.
SurfaceMesh voxel_surface_mesh(const VoxelModel& model);

/// The six axis-aligned normals, in SurfaceMesh::normal_index order.
const std::array<Vec3, 6>& axis_normals();

/// Wavefront .obj: `v` lines, the six `vn` lines, and faces as `f a//n b//n c//n` (vertex and
/// normal indices, 1-based), the form the Sphere-Tree Construction Toolkit's loader reads.
void write_obj(std::ostream& out, const SurfaceMesh& mesh, const std::string& comment);

}  // namespace fovea
