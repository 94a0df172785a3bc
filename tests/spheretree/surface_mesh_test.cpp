#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "core/rng.hpp"
#include "spheretree/surface_mesh.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

/// Closed, oriented, 2-manifold, outward, with the right volume: every directed edge once
/// and its reverse once; every vertex's triangles form one fan (a single cycle of edges);
/// each triangle's geometric normal is its tag; the divergence theorem gives the voxel volume.
void require_closed_manifold(const VoxelModel& m, const SurfaceMesh& mesh) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (const auto& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) ++directed[{t[static_cast<std::size_t>(e)], t[static_cast<std::size_t>((e + 1) % 3)]}];
  for (const auto& [edge, count] : directed) {
    REQUIRE(count == 1);
    REQUIRE(directed.count({edge.second, edge.first}) == 1);
  }
  // Vertex manifoldness: around each vertex, "next" maps each outgoing edge's far end to the
  // far end of the following edge of the same triangle; one cycle covers them all.
  std::map<std::uint32_t, std::map<std::uint32_t, std::uint32_t>> link;
  for (const auto& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) {
      const auto a = t[static_cast<std::size_t>(e)], b = t[static_cast<std::size_t>((e + 1) % 3)],
                 c = t[static_cast<std::size_t>((e + 2) % 3)];
      REQUIRE(link[a].emplace(b, c).second);
    }
  for (const auto& [vertex, next] : link) {
    std::uint32_t start = next.begin()->first, at = start;
    std::size_t steps = 0;
    do {
      at = next.at(at);
      ++steps;
    } while (at != start && steps <= next.size());
    REQUIRE(steps == next.size());
  }
  double volume = 0;
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
    const auto& t = mesh.triangles[i];
    const Vec3 a = mesh.vertices_m[t[0]], b = mesh.vertices_m[t[1]], c = mesh.vertices_m[t[2]];
    const Vec3 n = glm::cross(b - a, c - a);
    REQUIRE(glm::length(glm::normalize(n) - axis_normals()[mesh.normal_index[i]]) < 1e-12);
    volume += glm::dot(a, glm::cross(b, c)) / 6.0;
  }
  const double s = m.voxel_size_m();
  CHECK(volume == Approx(static_cast<double>(m.occupied_count()) * s * s * s).epsilon(1e-12));
}

}  // namespace

TEST_CASE("surface mesh: closed, manifold, outward and of the right volume on every shape", "[spheretree][obj]") {
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid}) {
    ModelSettings settings;
    settings.shape = shape;
    settings.resolution_voxels = 12;
    const VoxelModel m = make_model(settings, 2);
    INFO("shape " << static_cast<int>(shape));
    require_closed_manifold(m, voxel_surface_mesh(m));
  }
}

TEST_CASE("surface mesh: voxels touching only along an edge or at a corner stay manifold", "[spheretree][obj]") {
  VoxelModel edge({2, 2, 1}, 1.0);
  edge.set(0, 0, 0, true);
  edge.set(1, 1, 0, true);
  const SurfaceMesh e = voxel_surface_mesh(edge);
  require_closed_manifold(edge, e);
  CHECK(e.triangles.size() == 24);
  CHECK(e.vertices_m.size() == 16);  // two cubes, the shared edge's two corners split

  VoxelModel corner({2, 2, 2}, 1.0);
  corner.set(0, 0, 0, true);
  corner.set(1, 1, 1, true);
  const SurfaceMesh c = voxel_surface_mesh(corner);
  require_closed_manifold(corner, c);
  CHECK(c.vertices_m.size() == 16);

  // Random blobs: every pinch configuration appears many times, and tunnels (two voxels
  // meeting along an edge, joined around both its ends) in most of them.
  Rng rng(31);
  for (int trial = 0; trial < 100; ++trial) {
    VoxelModel blob({6, 5, 7}, 0.1);
    for (int z = 0; z < 7; ++z)
      for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 6; ++x)
          if (rng.uniform() < 0.45) blob.set(x, y, z, true);
    require_closed_manifold(blob, voxel_surface_mesh(blob));
  }
}

TEST_CASE("surface mesh: .obj text with vn lines and f a//n b//n c//n faces", "[spheretree][obj]") {
  VoxelModel one({1, 1, 1}, 0.5);
  one.set(0, 0, 0, true);
  std::ostringstream out;
  write_obj(out, voxel_surface_mesh(one), "test cube");
  const std::string text = out.str();
  std::istringstream lines(text);
  int v = 0, vn = 0, f = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("v ", 0) == 0) ++v;
    if (line.rfind("vn ", 0) == 0) ++vn;
    if (line.rfind("f ", 0) == 0) {
      ++f;
      int a, an, b, bn, c, cn;
      REQUIRE(std::sscanf(line.c_str(), "f %d//%d %d//%d %d//%d", &a, &an, &b, &bn, &c, &cn) == 6);
      REQUIRE((an == bn && bn == cn));
    }
  }
  CHECK(v == 8);
  CHECK(vn == 6);
  CHECK(f == 12);
  CHECK(text.find("v 0.5 0.5 0.5\n") != std::string::npos);
}
