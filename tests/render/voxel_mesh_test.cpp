#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "render/voxel_mesh.hpp"

using namespace fovea;

namespace {

constexpr std::uint32_t opaque_alpha = 0xFF000000u;
constexpr std::uint32_t grey_rgba = 0x80808080u;  // half-transparent grey: the mesh must make it opaque

/// A quad read back from a mesh, in voxel units: normal along `axis` with sign `step`, lying in
/// grid plane `plane`, spanning [lo, hi) along the two other axes (lo[axis] == hi[axis]).
struct GridQuad {
  int axis = 0;
  int step = 0;
  int plane = 0;
  IVec3 lo{0}, hi{0};
  std::uint32_t rgba = 0;
};

/// Failure counts of the brute-force check; every field but covered_faces must be 0.
struct OracleReport {
  std::int64_t covered_faces = 0;    ///< unit faces the quads cover, counting repeats
  std::int64_t malformed_quads = 0;  ///< not a grid rectangle with one normal and colour, or bad triangles
  std::int64_t not_exposed = 0;      ///< (a) covered unit face that is no exposed face, or faces the wrong way
  std::int64_t covered_twice = 0;    ///< (b)
  std::int64_t missed = 0;           ///< (c) exposed face no quad covers
  std::int64_t wrong_colour = 0;     ///< (d)
  std::int64_t wrong_winding = 0;    ///< (e) triangle whose (v1-v0)x(v2-v0) is not along its normal
  std::int64_t mergeable_pairs = 0;  ///< two same-colour quads sharing a whole edge in one plane
};

/// Grid coordinate of a vertex coordinate; clears `on_grid` when it is no multiple of the voxel size.
int to_grid(float position_m, double voxel_size_m, bool& on_grid) {
  const double g = position_m / voxel_size_m;
  const double rounded = std::round(g);
  if (std::abs(g - rounded) > 1e-3) on_grid = false;
  return static_cast<int>(rounded);
}

/// Reads quad q back; false when its vertices or triangles are not a proper quad. Counts wrong
/// windings in `report` (a quad can be well formed and wound the wrong way).
bool read_quad(const VoxelMesh& mesh, std::size_t q, double voxel_size_m, GridQuad& quad, OracleReport& report) {
  const MeshVertex* corner = &mesh.vertices[4 * q];
  const float* n = corner[0].normal;
  int axis = -1;
  for (int i = 0; i < 3; ++i)
    if (std::abs(n[i]) == 1.0f) axis = i;
  if (axis < 0 || n[(axis + 1) % 3] != 0.0f || n[(axis + 2) % 3] != 0.0f) return false;
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  quad.axis = axis;
  quad.step = n[axis] > 0 ? 1 : -1;
  quad.rgba = corner[0].rgba;

  bool on_grid = true;
  IVec3 grid[4];
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 3; ++i) {
      if (corner[k].normal[i] != n[i]) return false;
      grid[k][i] = to_grid(corner[k].position_m[i], voxel_size_m, on_grid);
    }
    if (corner[k].rgba != quad.rgba) return false;
  }
  if (!on_grid) return false;
  quad.lo = glm::min(glm::min(grid[0], grid[1]), glm::min(grid[2], grid[3]));
  quad.hi = glm::max(glm::max(grid[0], grid[1]), glm::max(grid[2], grid[3]));
  quad.plane = quad.lo[axis];
  if (quad.hi[axis] != quad.plane || quad.lo[u] >= quad.hi[u] || quad.lo[v] >= quad.hi[v]) return false;
  // The four vertices are the rectangle's four corners, each once: code bit 0 = at hi along u,
  // bit 1 = at hi along v.
  int code[4];
  int codes_seen = 0;
  for (int k = 0; k < 4; ++k) {
    const bool u_end = grid[k][u] == quad.lo[u] || grid[k][u] == quad.hi[u];
    const bool v_end = grid[k][v] == quad.lo[v] || grid[k][v] == quad.hi[v];
    if (!u_end || !v_end) return false;
    code[k] = (grid[k][u] == quad.hi[u]) + 2 * (grid[k][v] == quad.hi[v]);
    codes_seen |= 1 << code[k];
  }
  if (codes_seen != 0xF) return false;

  // Two triangles of the quad's own vertices, each leaving out one corner; the two left out
  // must be opposite, or the triangles overlap instead of tiling the rectangle.
  int left_out[2];
  for (int t = 0; t < 2; ++t) {
    std::uint32_t local[3];
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t index = mesh.indices[6 * q + 3 * t + k];
      if (index < 4 * q || index >= 4 * q + 4) return false;
      local[k] = index - static_cast<std::uint32_t>(4 * q);
    }
    if (local[0] == local[1] || local[1] == local[2] || local[0] == local[2]) return false;
    left_out[t] = code[6 - (local[0] + local[1] + local[2])];
    const auto at = [&](std::uint32_t k) {
      return Vec3(corner[k].position_m[0], corner[k].position_m[1], corner[k].position_m[2]);
    };
    const Vec3 p0 = at(local[0]);
    const Vec3 winding = glm::cross(at(local[1]) - p0, at(local[2]) - p0);
    if (glm::dot(winding, Vec3(n[0], n[1], n[2])) <= 0) ++report.wrong_winding;
  }
  return (left_out[0] ^ left_out[1]) == 3;
}

/// The colour a face of voxel (x, y, z) must be drawn with.
std::uint32_t expected_rgba(const VoxelModel& model, const IVec3& voxel, std::uint32_t default_rgba) {
  if (model.palette().empty()) return default_rgba | opaque_alpha;
  return model.palette()[model.colour_index(voxel.x, voxel.y, voxel.z)] | opaque_alpha;
}

/// The slow obvious check: rasterise every quad back into unit faces and compare them with the
/// model's exposed faces one by one.
OracleReport check_mesh(const VoxelModel& model, const VoxelMesh& mesh, std::uint32_t default_rgba) {
  OracleReport report;
  const IVec3 dims = model.dims();
  const std::size_t cells = static_cast<std::size_t>(dims.x) * dims.y * dims.z;
  // Per direction (axis * 2 + (step < 0)) and voxel: how many quads cover that voxel's face.
  std::vector<std::uint8_t> covered(6 * cells, 0);
  const auto face_key = [&](int axis, int step, const IVec3& voxel) {
    const std::size_t direction = static_cast<std::size_t>(axis * 2 + (step < 0 ? 1 : 0));
    const std::size_t cell =
        voxel.x + static_cast<std::size_t>(dims.x) * (voxel.y + static_cast<std::size_t>(dims.y) * voxel.z);
    return direction * cells + cell;
  };
  // (axis, step, plane, rgba, lo along the edge's axis, hi along it, lo across it) of every quad,
  // once for edges along v and once for edges along u, to find quads that share a whole edge.
  std::set<std::array<std::int64_t, 7>> by_v_start, by_u_start;
  std::vector<GridQuad> quads;

  for (std::size_t q = 0; q < static_cast<std::size_t>(mesh.quads()); ++q) {
    GridQuad quad;
    if (!read_quad(mesh, q, model.voxel_size_m(), quad, report)) {
      ++report.malformed_quads;
      continue;
    }
    quads.push_back(quad);
    const int d = quad.axis, u = (d + 1) % 3, v = (d + 2) % 3;
    by_v_start.insert({d, quad.step, quad.plane, quad.rgba, quad.lo[u], quad.hi[u], quad.lo[v]});
    by_u_start.insert({d, quad.step, quad.plane, quad.rgba, quad.lo[v], quad.hi[v], quad.lo[u]});
    for (int i = quad.lo[u]; i < quad.hi[u]; ++i)
      for (int j = quad.lo[v]; j < quad.hi[v]; ++j) {
        ++report.covered_faces;
        // A face with outward normal +d at plane p belongs to the voxel below p; with -d, above.
        IVec3 behind(0);
        behind[d] = quad.step > 0 ? quad.plane - 1 : quad.plane;
        behind[u] = i;
        behind[v] = j;
        IVec3 front = behind;
        front[d] += quad.step;
        if (!model.in_grid(behind.x, behind.y, behind.z) || !model.occupied(behind.x, behind.y, behind.z) ||
            model.occupied(front.x, front.y, front.z)) {
          ++report.not_exposed;
          continue;
        }
        if (covered[face_key(d, quad.step, behind)]++ != 0) ++report.covered_twice;
        if (quad.rgba != expected_rgba(model, behind, default_rgba)) ++report.wrong_colour;
      }
  }

  model.for_each_occupied([&](int x, int y, int z) {
    for (int d = 0; d < 3; ++d)
      for (const int step : {1, -1}) {
        IVec3 front(x, y, z);
        front[d] += step;
        if (!model.occupied(front.x, front.y, front.z) && covered[face_key(d, step, IVec3(x, y, z))] == 0)
          ++report.missed;
      }
  });

  for (const GridQuad& quad : quads) {
    const int d = quad.axis, u = (d + 1) % 3, v = (d + 2) % 3;
    report.mergeable_pairs += static_cast<std::int64_t>(
        by_v_start.count({d, quad.step, quad.plane, quad.rgba, quad.lo[u], quad.hi[u], quad.hi[v]}) +
        by_u_start.count({d, quad.step, quad.plane, quad.rgba, quad.lo[v], quad.hi[v], quad.hi[u]}));
  }
  return report;
}

/// Runs the oracle and checks every count (the caller adds INFO on which model this is).
void check_against_oracle(const VoxelModel& model, const VoxelMesh& mesh, std::uint32_t default_rgba) {
  REQUIRE(mesh.vertices.size() == 4 * static_cast<std::size_t>(mesh.quads()));
  REQUIRE(mesh.indices.size() % 6 == 0);
  const OracleReport report = check_mesh(model, mesh, default_rgba);
  CHECK(report.malformed_quads == 0);
  CHECK(report.not_exposed == 0);
  CHECK(report.covered_twice == 0);
  CHECK(report.missed == 0);
  CHECK(report.wrong_colour == 0);
  CHECK(report.wrong_winding == 0);
  CHECK(report.mergeable_pairs == 0);
  CHECK(report.covered_faces == exposed_face_count(model));
}

/// Total area of the mesh's quads, square metres.
double quad_area_m2(const VoxelMesh& mesh) {
  double area_m2 = 0;
  for (std::size_t q = 0; q < static_cast<std::size_t>(mesh.quads()); ++q) {
    const MeshVertex* c = &mesh.vertices[4 * q];
    const Vec3 p0(c[0].position_m[0], c[0].position_m[1], c[0].position_m[2]);
    const Vec3 p1(c[1].position_m[0], c[1].position_m[1], c[1].position_m[2]);
    const Vec3 p3(c[3].position_m[0], c[3].position_m[1], c[3].position_m[2]);
    area_m2 += glm::length(glm::cross(p1 - p0, p3 - p0));
  }
  return area_m2;
}

VoxelModel solid_box(IVec3 dims, double voxel_size_m) {
  VoxelModel model(dims, voxel_size_m);
  for (int z = 0; z < dims.z; ++z)
    for (int y = 0; y < dims.y; ++y)
      for (int x = 0; x < dims.x; ++x) model.set(x, y, z, true);
  return model;
}

/// Uniform integer in [lo, hi], the same on every standard library (unlike uniform_int_distribution).
int uniform(std::mt19937& rng, int lo, int hi) {
  return lo + static_cast<int>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
}

/// A random lump: a union of 1 to 4 balls with 5% of cells flipped, up to 12 cells a side. With
/// a palette, colour indices 1 to `colour_count` come in bands with some noise, so that both
/// merging within a colour and splitting between colours happen; palette entries carry
/// arbitrary alpha, and the last one repeats the first's colour so that different indices of
/// equal colour merge. Without one, indices are random 1 to 255 (they must not matter).
VoxelModel random_blob(std::mt19937& rng, bool with_palette, int colour_count) {
  const IVec3 dims(uniform(rng, 1, 12), uniform(rng, 1, 12), uniform(rng, 1, 12));
  VoxelModel model(dims, 0.05 * uniform(rng, 1, 4));
  struct Ball {
    Vec3 centre;
    double radius;
  };
  std::vector<Ball> balls(static_cast<std::size_t>(uniform(rng, 1, 4)));
  for (Ball& ball : balls) {
    ball.centre = Vec3(uniform(rng, 0, dims.x * 10), uniform(rng, 0, dims.y * 10), uniform(rng, 0, dims.z * 10)) * 0.1;
    ball.radius = 0.1 * uniform(rng, 10, 60);
  }
  const IVec3 band(uniform(rng, 1, 4), uniform(rng, 1, 4), uniform(rng, 1, 4));
  for (int z = 0; z < dims.z; ++z)
    for (int y = 0; y < dims.y; ++y)
      for (int x = 0; x < dims.x; ++x) {
        bool inside = false;
        for (const Ball& ball : balls) inside |= glm::length(Vec3(x, y, z) + 0.5 - ball.centre) <= ball.radius;
        if (uniform(rng, 0, 99) < 5) inside = !inside;
        if (!inside) continue;
        int colour = with_palette ? 1 + (x / band.x + y / band.y + z / band.z) % colour_count : uniform(rng, 1, 255);
        if (with_palette && uniform(rng, 0, 9) == 0) colour = uniform(rng, 1, colour_count);
        model.set_colour_index(x, y, z, static_cast<std::uint8_t>(colour));
      }
  if (with_palette) {
    std::vector<std::uint32_t> palette(256, 0);
    for (int i = 1; i < colour_count; ++i) palette[i] = static_cast<std::uint32_t>(rng());
    palette[colour_count] = (palette[1] & 0x00FFFFFFu) | (static_cast<std::uint32_t>(rng()) & 0xFF000000u);
    model.set_palette(palette);
  }
  return model;
}

}  // namespace

TEST_CASE("A solid box is six quads whose area is the box surface", "[render][mesh]") {
  const VoxelModel box = solid_box({3, 4, 5}, 0.1);
  const VoxelMesh mesh = mesh_voxel_model(box, grey_rgba);
  CHECK(mesh.quads() == 6);
  CHECK(mesh.vertices.size() == 24);
  CHECK(exposed_face_count(box) == 2 * (3 * 4 + 4 * 5 + 3 * 5));
  CHECK(quad_area_m2(mesh) == Approx(2 * (0.3 * 0.4 + 0.4 * 0.5 + 0.3 * 0.5)).epsilon(1e-6));
  for (const MeshVertex& vertex : mesh.vertices) CHECK(vertex.rgba == (grey_rgba | opaque_alpha));
  check_against_oracle(box, mesh, grey_rgba);
}

TEST_CASE("L shapes merge into the hand-counted number of quads", "[render][mesh]") {
  SECTION("a 2x1x1 bar with one voxel stacked on its x = 0 end") {
    // Voxels (0,0,0), (1,0,0), (0,1,0): 3 * 6 - 2 * 2 = 14 exposed unit faces. Per direction:
    //   -z and +z: the L of three faces needs two rectangles each     -> 4
    //   -x: the column x = 0, y = 0..1 is one rectangle               -> 1
    //   +x: faces at x = 2 (y = 0) and x = 1 (y = 1), two planes      -> 2
    //   -y: the bottom y = 0, x = 0..1 is one rectangle               -> 1
    //   +y: tops at y = 1 (x = 1) and y = 2 (x = 0), two planes       -> 2
    // 10 quads in all.
    VoxelModel l_shape({2, 2, 1}, 0.1);
    l_shape.set(0, 0, 0, true);
    l_shape.set(1, 0, 0, true);
    l_shape.set(0, 1, 0, true);
    const VoxelMesh mesh = mesh_voxel_model(l_shape, grey_rgba);
    CHECK(exposed_face_count(l_shape) == 14);
    CHECK(mesh.quads() == 10);
    check_against_oracle(l_shape, mesh, grey_rgba);
  }
  SECTION("a 4x2 bar and a 2x4 column in xy, extruded 3 deep in z") {
    // Occupied: (x < 4 and y < 2) or (x < 2 and y < 4), z < 3. Per direction:
    //   -z and +z: the L needs two rectangles each (4x2 and 2x2)      -> 4
    //   -x: the whole side x = 0, y = 0..3                            -> 1
    //   +x: the bar's end at x = 4 and the column's side at x = 2     -> 2
    //   -y: the bar's underside y = 0, x = 0..3                       -> 1
    //   +y: the bar's top at y = 2 (x = 2..3), the column's at y = 4  -> 2
    // 10 quads, the same count as the small L: extrusion only stretches them.
    VoxelModel l_shape({4, 4, 3}, 0.05);
    for (int z = 0; z < 3; ++z)
      for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) l_shape.set(x, y, z, y < 2 || x < 2);
    const VoxelMesh mesh = mesh_voxel_model(l_shape, grey_rgba);
    CHECK(mesh.quads() == 10);
    check_against_oracle(l_shape, mesh, grey_rgba);
  }
}

TEST_CASE("A hollow cube has six quads outside and six facing into the cavity", "[render][mesh]") {
  VoxelModel hollow = solid_box({5, 5, 5}, 0.1);
  for (int z = 1; z < 4; ++z)
    for (int y = 1; y < 4; ++y)
      for (int x = 1; x < 4; ++x) hollow.set(x, y, z, false);
  const VoxelMesh mesh = mesh_voxel_model(hollow, grey_rgba);
  CHECK(exposed_face_count(hollow) == 6 * 25 + 6 * 9);
  REQUIRE(mesh.quads() == 12);
  check_against_oracle(hollow, mesh, grey_rgba);

  const double cavity_centre_m = 2.5 * 0.1;
  int inner_quads = 0;
  for (std::size_t q = 0; q < 12; ++q) {
    const MeshVertex& v0 = mesh.vertices[4 * q];
    int axis = 0;
    while (v0.normal[axis] == 0.0f) ++axis;
    const double plane_m = v0.position_m[axis];
    const bool inner = plane_m > 0.05 && plane_m < 0.45;
    if (!inner) continue;
    ++inner_quads;
    INFO("inner quad on axis " << axis << " at " << plane_m << " m");
    // Into the cavity: the normal points from the wall's plane towards the cavity's centre.
    CHECK((cavity_centre_m - plane_m) * v0.normal[axis] > 0);
  }
  CHECK(inner_quads == 6);
  CHECK(quad_area_m2(mesh) == Approx(6 * 0.25 + 6 * 0.09).epsilon(1e-6));
}

TEST_CASE("Faces merge by final colour and are drawn opaque", "[render][mesh]") {
  // A 2x1x1 bar, its voxels coloured 1 and 2.
  VoxelModel bar({2, 1, 1}, 0.1);
  bar.set_colour_index(0, 0, 0, 1);
  bar.set_colour_index(1, 0, 0, 2);

  SECTION("without a palette every voxel takes the default colour, so the bar is one box") {
    const VoxelMesh mesh = mesh_voxel_model(bar, grey_rgba);
    CHECK(mesh.quads() == 6);
    for (const MeshVertex& vertex : mesh.vertices) CHECK(vertex.rgba == (grey_rgba | opaque_alpha));
  }
  SECTION("two different palette colours split the four long sides") {
    std::vector<std::uint32_t> palette(256, 0);
    palette[1] = 0x000000FFu;  // red, alpha 0
    palette[2] = 0x7F00FF00u;  // green, alpha 127
    bar.set_palette(palette);
    const VoxelMesh mesh = mesh_voxel_model(bar, grey_rgba);
    // Ends: 2 quads; the +-y and +-z sides: 2 colours each -> 8.
    CHECK(mesh.quads() == 10);
    for (const MeshVertex& vertex : mesh.vertices)
      CHECK((vertex.rgba == 0xFF0000FFu || vertex.rgba == 0xFF00FF00u));
    check_against_oracle(bar, mesh, grey_rgba);
  }
  SECTION("two palette entries that differ only in alpha are one colour once opaque") {
    std::vector<std::uint32_t> palette(256, 0);
    palette[1] = 0x10203040u;
    palette[2] = 0xA0203040u;
    bar.set_palette(palette);
    const VoxelMesh mesh = mesh_voxel_model(bar, grey_rgba);
    CHECK(mesh.quads() == 6);
    for (const MeshVertex& vertex : mesh.vertices) CHECK(vertex.rgba == 0xFF203040u);
  }
  SECTION("a palette that is neither empty nor 256 colours is rejected") {
    bar.set_palette(std::vector<std::uint32_t>(16, 0xFFFFFFFFu));
    CHECK_THROWS_AS(mesh_voxel_model(bar, grey_rgba), std::invalid_argument);
  }
}

TEST_CASE("Greedy meshes of random blobs cover each exposed face exactly once", "[render][mesh]") {
  std::mt19937 rng(20240611u);
  for (int trial = 0; trial < 300; ++trial) {
    const bool with_palette = trial % 2 == 0;
    const int colour_count = 3 + (trial / 2) % 2;  // 3 or 4, each with and without a palette
    const VoxelModel blob = random_blob(rng, with_palette, colour_count);
    INFO("trial " << trial << ", dims " << blob.dims().x << "x" << blob.dims().y << "x" << blob.dims().z
                  << (with_palette ? ", palette" : ", no palette"));
    const VoxelMesh mesh = mesh_voxel_model(blob, grey_rgba);
    check_against_oracle(blob, mesh, grey_rgba);
    CHECK(mesh.quads() <= exposed_face_count(blob));
    if (!with_palette) {
      // Without a palette the colour indices must not matter: the same shape with one index
      // everywhere gives the same quads.
      VoxelModel one_index(blob.dims(), blob.voxel_size_m());
      blob.for_each_occupied([&](int x, int y, int z) { one_index.set(x, y, z, true); });
      const VoxelMesh reference = mesh_voxel_model(one_index, grey_rgba);
      CHECK(mesh.quads() == reference.quads());
    }
  }
}

TEST_CASE("An empty model gives an empty mesh", "[render][mesh]") {
  SECTION("a grid with no occupied cell") {
    const VoxelModel empty({7, 3, 5}, 0.1);
    const VoxelMesh mesh = mesh_voxel_model(empty, grey_rgba);
    CHECK(mesh.vertices.empty());
    CHECK(mesh.indices.empty());
    CHECK(mesh.quads() == 0);
    CHECK(exposed_face_count(empty) == 0);
  }
  SECTION("a default-constructed model with no grid") {
    const VoxelMesh mesh = mesh_voxel_model(VoxelModel(), grey_rgba);
    CHECK(mesh.vertices.empty());
    CHECK(mesh.indices.empty());
  }
}
