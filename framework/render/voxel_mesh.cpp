#include "render/voxel_mesh.hpp"

#include <array>
#include <limits>
#include <stdexcept>

namespace fovea {
namespace {

constexpr std::uint32_t opaque_alpha = 0xFF000000u;

/// Final colour of each colour index. The greedy mask holds these values, so faces merge
/// exactly when the colours they are drawn with agree (two palette entries with the same
/// colour merge; without a palette every voxel does). Alpha is 255, so no colour is 0 and 0
/// can mark "no exposed face" in the mask.
std::array<std::uint32_t, 256> face_colours(const VoxelModel& model, std::uint32_t default_rgba) {
  const std::vector<std::uint32_t>& palette = model.palette();
  if (!palette.empty() && palette.size() != 256)
    throw std::invalid_argument("a voxel model's palette must be empty or hold 256 colours");
  std::array<std::uint32_t, 256> colours;
  for (std::size_t i = 0; i < colours.size(); ++i)
    colours[i] = (palette.empty() ? default_rgba : palette[i]) | opaque_alpha;
  return colours;
}

}  // namespace

VoxelMesh mesh_voxel_model(const VoxelModel& model, std::uint32_t default_rgba) {
  const std::array<std::uint32_t, 256> colours = face_colours(model, default_rgba);
  const IVec3 dims = model.dims();
  const double voxel_size_m = model.voxel_size_m();
  VoxelMesh mesh;
  // One slice's exposed faces, a colour per (a, b) cell, 0 where there is none: sized once per
  // axis and overwritten slice after slice, the only scratch the mesher allocates.
  std::vector<std::uint32_t> mask;

  // Axis d is the face normal's; u = d + 1 and v = d + 2 (cyclic) span the slice, so
  // e_u x e_v = e_d and corners listed (a, b), (a + w, b), (a + w, b + h), (a, b + h) run
  // counter-clockwise seen from +d.
  for (int d = 0; d < 3; ++d) {
    const int u = (d + 1) % 3, v = (d + 2) % 3;
    const int width = dims[u], height = dims[v];
    mask.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), 0);
    // Mask cell of voxel (x, y, z) in a slice: dot(voxel, mask_stride) = voxel[u] + voxel[v] * width.
    IVec3 mask_stride(0);
    mask_stride[u] = 1;
    mask_stride[v] = width;
    for (const int step : {1, -1}) {
      for (int slice = 0; slice < dims[d]; ++slice) {
        const int across_slice = slice + step;
        const bool across_in_grid = across_slice >= 0 && across_slice < dims[d];
        // Visit the slice in storage order (x fastest) so the model's cells stream through
        // memory; the mask (at most 256 x 256 colours) stays in cache whichever way it is written.
        IVec3 lo(0), hi = dims;
        lo[d] = slice;
        hi[d] = slice + 1;
        IVec3 offset(0);
        offset[d] = step;
        for (int z = lo.z; z < hi.z; ++z)
          for (int y = lo.y; y < hi.y; ++y)
            for (int x = lo.x; x < hi.x; ++x) {
              const std::uint8_t index = model.colour_index(x, y, z);
              const bool exposed =
                  index != 0 && !(across_in_grid && model.colour_index(x + offset.x, y + offset.y, z + offset.z) != 0);
              mask[x * mask_stride.x + y * mask_stride.y + z * mask_stride.z] = exposed ? colours[index] : 0;
            }

        // Greedy merge: the first face left in scan order starts a rectangle, which takes as
        // many faces of its colour along u as follow, then as many whole rows along v as
        // match. Taken faces are cleared, so each mask cell is visited O(1) times.
        const float plane_m = static_cast<float>((step > 0 ? slice + 1 : slice) * voxel_size_m);
        for (int b = 0; b < height; ++b) {
          std::uint32_t* row = mask.data() + static_cast<std::size_t>(b) * width;
          for (int a = 0; a < width;) {
            const std::uint32_t colour = row[a];
            if (colour == 0) {
              ++a;
              continue;
            }
            int w = 1;
            while (a + w < width && row[a + w] == colour) ++w;
            int h = 1;
            for (; b + h < height; ++h) {
              const std::uint32_t* next = row + static_cast<std::size_t>(h) * width;
              int i = 0;
              while (i < w && next[a + i] == colour) ++i;
              if (i < w) break;
            }
            for (int j = 0; j < h; ++j)
              for (int i = 0; i < w; ++i) row[static_cast<std::size_t>(j) * width + a + i] = 0;

            if (mesh.vertices.size() > std::numeric_limits<std::uint32_t>::max() - 4u)
              throw std::length_error("voxel mesh has too many vertices for 32-bit indices");
            const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
            const int corner_u[4] = {a, a + w, a + w, a};
            const int corner_v[4] = {b, b, b + h, b + h};
            for (int k = 0; k < 4; ++k) {
              MeshVertex vertex{};
              vertex.position_m[d] = plane_m;
              vertex.position_m[u] = static_cast<float>(corner_u[k] * voxel_size_m);
              vertex.position_m[v] = static_cast<float>(corner_v[k] * voxel_size_m);
              vertex.normal[d] = static_cast<float>(step);
              vertex.rgba = colour;
              mesh.vertices.push_back(vertex);
            }
            // Seen from -d the corner order is clockwise, so -d faces take it reversed.
            static constexpr std::uint32_t forward[6] = {0, 1, 2, 0, 2, 3};
            static constexpr std::uint32_t reversed[6] = {0, 2, 1, 0, 3, 2};
            for (const std::uint32_t k : step > 0 ? forward : reversed) mesh.indices.push_back(base + k);
            a += w;
          }
        }
      }
    }
  }
  return mesh;
}

std::int64_t exposed_face_count(const VoxelModel& model) {
  std::int64_t faces = 0;
  model.for_each_occupied([&](int x, int y, int z) {
    faces += !model.occupied(x - 1, y, z) + !model.occupied(x + 1, y, z) + !model.occupied(x, y - 1, z) +
             !model.occupied(x, y + 1, z) + !model.occupied(x, y, z - 1) + !model.occupied(x, y, z + 1);
  });
  return faces;
}

}  // namespace fovea
