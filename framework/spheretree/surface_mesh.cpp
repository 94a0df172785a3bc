#include "spheretree/surface_mesh.hpp"

#include <algorithm>
#include <unordered_map>

#include "core/format.hpp"

namespace fovea {
namespace {

// Around one lattice corner sit the 2 x 2 x 2 cells (bx, by, bz) in {0, 1}^3, cell
// b = bx + 2 by + 4 bz, the cell of voxel corner - 1 + b. Between cells that differ along
// one axis lies one of 12 face slots through the corner; a slot carries an exposed face when
// exactly one of its two cells is occupied. The faces at a corner split into sheets: around
// each edge leaving the corner, the four cells form a cycle, and each run of occupied cells
// in that cycle joins the two faces at its ends. SheetTable gives, for each occupancy of the
// eight cells, the sheet of each slot.

/// Slot of the face between cell b and cell b + axis step (b's bit `axis` is 0).
int slot_of(int axis, int b) {
  // The four cells with bit `axis` clear, numbered by their other two bits.
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  return axis * 4 + ((b >> u) & 1) + 2 * ((b >> v) & 1);
}

struct SheetTable {
  std::array<std::array<std::uint8_t, 12>, 256> sheet{};

  SheetTable() {
    for (int config = 0; config < 256; ++config) {
      std::array<int, 12> parent;
      for (int i = 0; i < 12; ++i) parent[i] = i;
      const auto find = [&](int i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
      };
      const auto occupied = [&](int b) { return (config >> b) & 1; };
      // Each of the six edges: along axis a, on side s (cells with bit a == s).
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) {
          const int u = (a + 1) % 3, v = (a + 2) % 3;
          // The four cells around the edge in cyclic order over (bit u, bit v).
          const int ring_uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
          int ring[4];
          for (int i = 0; i < 4; ++i) ring[i] = (side << a) | (ring_uv[i][0] << u) | (ring_uv[i][1] << v);
          // Slot between ring[i] and ring[i + 1]: they differ along u or v.
          const auto between = [&](int i) {
            const int p = ring[i], q = ring[(i + 1) % 4];
            const int axis = (p ^ q) == (1 << u) ? u : v;
            return slot_of(axis, std::min(p, q));
          };
          int occupied_count = 0;
          for (int i = 0; i < 4; ++i) occupied_count += occupied(ring[i]);
          if (occupied_count == 0 || occupied_count == 4) continue;
          for (int i = 0; i < 4; ++i) {
            if (!occupied(ring[i]) || occupied(ring[(i + 3) % 4])) continue;  // not the start of a run
            int j = i;
            while (occupied(ring[(j + 1) % 4])) j = (j + 1) % 4;
            parent[find(between((i + 3) % 4))] = find(between(j));
          }
        }
      for (int i = 0; i < 12; ++i) sheet[config][i] = static_cast<std::uint8_t>(find(i));
    }
  }
};

const SheetTable& sheet_table() {
  static const SheetTable table;
  return table;
}

/// Where two voxels meet only along an edge but are joined around both of its ends (a thin
/// tunnel of empty space passes the edge), each end is rightly one vertex, and the edge would
/// carry four triangles. The faces of one of the two voxels then take a vertex of their own
/// at the edge's midpoint, splitting each of their two triangles on the edge in two: every
/// edge is left with exactly two triangles, and the mesh stays simplicial.
void split_tunnel_edges(SurfaceMesh& mesh, const std::vector<std::int64_t>& triangle_voxel) {
  const auto key = [](std::uint32_t a, std::uint32_t b) {
    return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
  };
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> triangles_of_edge;
  for (std::uint32_t t = 0; t < mesh.triangles.size(); ++t)
    for (int e = 0; e < 3; ++e)
      triangles_of_edge[key(mesh.triangles[t][static_cast<std::size_t>(e)], mesh.triangles[t][static_cast<std::size_t>((e + 1) % 3)])]
          .push_back(t);
  // Deterministic order: edges sorted by key, so the output does not depend on hashing.
  std::vector<std::uint64_t> crowded;
  for (const auto& [edge, triangles] : triangles_of_edge)
    if (triangles.size() > 2) crowded.push_back(edge);
  std::sort(crowded.begin(), crowded.end());
  for (const std::uint64_t edge : crowded) {
    const auto a = static_cast<std::uint32_t>(edge >> 32), b = static_cast<std::uint32_t>(edge & 0xffffffffu);
    std::vector<std::uint32_t> triangles = triangles_of_edge[edge];
    // The two triangles of the voxel with the smaller index move to the midpoint.
    std::int64_t first_voxel = triangle_voxel[triangles[0]];
    for (const std::uint32_t t : triangles) first_voxel = std::min(first_voxel, triangle_voxel[t]);
    const auto mid = static_cast<std::uint32_t>(mesh.vertices_m.size());
    mesh.vertices_m.push_back(0.5 * (mesh.vertices_m[a] + mesh.vertices_m[b]));
    for (const std::uint32_t t : triangles) {
      if (triangle_voxel[t] != first_voxel) continue;
      // Rotate so the edge is the triangle's first side (p -> q), then split it at `mid`.
      auto tri = mesh.triangles[t];
      while (!((tri[0] == a && tri[1] == b) || (tri[0] == b && tri[1] == a))) tri = {tri[1], tri[2], tri[0]};
      mesh.triangles[t] = {tri[0], mid, tri[2]};
      mesh.triangles.push_back({mid, tri[1], tri[2]});
      mesh.normal_index.push_back(mesh.normal_index[t]);
    }
  }
}

}  // namespace

const std::array<Vec3, 6>& axis_normals() {
  static const std::array<Vec3, 6> normals = {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0),
                                              Vec3(0, -1, 0), Vec3(0, 0, 1), Vec3(0, 0, -1)};
  return normals;
}

SurfaceMesh voxel_surface_mesh(const VoxelModel& model) {
  const SheetTable& table = sheet_table();
  const double s = model.voxel_size_m();
  const IVec3 d = model.dims();
  SurfaceMesh mesh;
  std::vector<std::int64_t> triangle_voxel;  // the voxel each triangle's face belongs to
  // Vertex key: the corner's lattice index times 12, plus its sheet's slot.
  std::unordered_map<std::int64_t, std::uint32_t> vertex_of;
  const auto corner_config = [&](const IVec3& c) {
    int config = 0;
    for (int b = 0; b < 8; ++b)
      if (model.occupied(c.x - 1 + (b & 1), c.y - 1 + ((b >> 1) & 1), c.z - 1 + ((b >> 2) & 1))) config |= 1 << b;
    return config;
  };
  for (int z = 0; z < d.z; ++z)
    for (int y = 0; y < d.y; ++y)
      for (int x = 0; x < d.x; ++x) {
        if (!model.occupied(x, y, z)) continue;
        const IVec3 v(x, y, z);
        for (int axis = 0; axis < 3; ++axis)
          for (int sign = 0; sign < 2; ++sign) {  // 0: +axis, 1: -axis
            IVec3 step(0);
            step[axis] = sign == 0 ? 1 : -1;
            const IVec3 n = v + step;
            if (model.occupied(n.x, n.y, n.z)) continue;
            // The face's plane is at v[axis] + 1 (for +) or v[axis] (for -). The two cells the
            // face separates are v and n; in a corner's block the lower of the two has bit
            // `axis` clear.
            const IVec3 lower = sign == 0 ? v : n;
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            const int plane = v[axis] + (sign == 0 ? 1 : 0);
            // Corners counter-clockwise seen from outside: (u, w) offsets (0,0), (1,0), (1,1),
            // (0,1) for +axis (e_u x e_w = e_axis), reversed for -axis.
            const int order_plus[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
            std::uint32_t ids[4];
            for (int k = 0; k < 4; ++k) {
              const int* o = order_plus[sign == 0 ? k : 3 - k];
              IVec3 corner;
              corner[axis] = plane;
              corner[u] = v[u] + o[0];
              corner[w] = v[w] + o[1];
              // Cell of `lower` in the corner's block: lower - (corner - 1).
              const IVec3 b = lower - (corner - 1);
              const int cell = b.x + 2 * b.y + 4 * b.z;
              const int sheet = table.sheet[static_cast<std::size_t>(corner_config(corner))][static_cast<std::size_t>(slot_of(axis, cell))];
              const std::int64_t key =
                  ((static_cast<std::int64_t>(corner.z) * (d.y + 1) + corner.y) * (d.x + 1) + corner.x) * 12 + sheet;
              const auto [it, inserted] = vertex_of.try_emplace(key, static_cast<std::uint32_t>(mesh.vertices_m.size()));
              if (inserted) mesh.vertices_m.push_back(Vec3(corner) * s);
              ids[k] = it->second;
            }
            const auto normal = static_cast<std::uint8_t>(2 * axis + sign);
            const std::int64_t voxel = (static_cast<std::int64_t>(z) * d.y + y) * d.x + x;
            mesh.triangles.push_back({ids[0], ids[1], ids[2]});
            mesh.triangles.push_back({ids[0], ids[2], ids[3]});
            mesh.normal_index.push_back(normal);
            mesh.normal_index.push_back(normal);
            triangle_voxel.push_back(voxel);
            triangle_voxel.push_back(voxel);
          }
      }
  split_tunnel_edges(mesh, triangle_voxel);
  return mesh;
}

void write_obj(std::ostream& out, const SurfaceMesh& mesh, const std::string& comment) {
  out << "# " << comment << "\n";
  out << "# " << mesh.vertices_m.size() << " vertices, " << mesh.triangles.size() << " triangles, metres\n";
  for (const Vec3& p : mesh.vertices_m)
    out << "v " << format_number(p.x) << ' ' << format_number(p.y) << ' ' << format_number(p.z) << '\n';
  for (const Vec3& n : axis_normals())
    out << "vn " << format_number(n.x) << ' ' << format_number(n.y) << ' ' << format_number(n.z) << '\n';
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const unsigned normal = mesh.normal_index[t] + 1u;
    out << 'f';
    for (const std::uint32_t v : mesh.triangles[t]) out << ' ' << v + 1 << "//" << normal;
    out << '\n';
  }
}

}  // namespace fovea
