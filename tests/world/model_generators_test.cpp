#include <catch2/catch.hpp>

#include <algorithm>
#include <queue>

#include "spheretree/octree_builder.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

/// Number of 6-connected components of the occupied voxels (flood fill).
int components(const VoxelModel& m) {
  const IVec3 d = m.dims();
  std::vector<char> seen(static_cast<std::size_t>(d.x * d.y * d.z), 0);
  const auto idx = [&](int x, int y, int z) { return static_cast<std::size_t>(x + d.x * (y + d.y * z)); };
  int count = 0;
  m.for_each_occupied([&](int x, int y, int z) {
    if (seen[idx(x, y, z)]) return;
    ++count;
    std::queue<IVec3> todo;
    todo.push({x, y, z});
    seen[idx(x, y, z)] = 1;
    while (!todo.empty()) {
      const IVec3 c = todo.front();
      todo.pop();
      const IVec3 steps[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
      for (const IVec3& s : steps) {
        const IVec3 n = c + s;
        if (m.occupied(n.x, n.y, n.z) && !seen[idx(n.x, n.y, n.z)]) {
          seen[idx(n.x, n.y, n.z)] = 1;
          todo.push(n);
        }
      }
    }
  });
  return count;
}

/// Height of the floor at column (x, z): the first empty cell from the bottom (dims.y if none).
int floor_top(const VoxelModel& m, int x, int z) {
  int y = 0;
  while (y < m.dims().y && m.occupied(x, y, z)) ++y;
  return y;
}

/// Depth of the wall from the -x face at row (y, z): the first empty cell from x = 0.
int left_wall_depth(const VoxelModel& m, int y, int z) {
  int x = 0;
  while (x < m.dims().x && m.occupied(x, y, z)) ++x;
  return x;
}

}  // namespace

TEST_CASE("model_dims: each shape's proportions times aspect, longest side = resolution", "[world][models]") {
  CHECK(model_dims(Shape::ball, 8, {1, 1, 1}) == IVec3(8, 8, 8));
  CHECK(model_dims(Shape::l_shape, 8, {1, 1, 1}) == IVec3(8, 8, 4));
  CHECK(model_dims(Shape::humanoid, 20, {1, 1, 1}) == IVec3(9, 20, 5));
  CHECK(model_dims(Shape::box, 10, {4, 1, 2}) == IVec3(10, 3, 5));
  CHECK(model_dims(Shape::box, 1, {1, 0.01, 1}) == IVec3(1, 1, 1));  // never a zero side
}

TEST_CASE("generators: every shape is non-empty at every resolution", "[world][models]") {
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid})
    for (int res = 1; res <= 12; ++res) {
      ModelSettings s;
      s.shape = shape;
      s.resolution_voxels = res;
      const VoxelModel m = make_model(s, 17);
      INFO("shape " << static_cast<int>(shape) << " resolution " << res);
      REQUIRE(m.occupied_count() > 0);
      REQUIRE(m.voxel_size_m() == Approx(s.size_m / res));
    }
}

TEST_CASE("generators: ball is the inscribed sphere, box is full, L misses one quadrant", "[world][models]") {
  const VoxelModel box = make_box({3, 4, 5}, 0.1);
  CHECK(box.occupied_count() == 60);

  const VoxelModel ball = make_ball({16, 16, 16}, 0.1);
  // Symmetric under each axis flip, corners empty, centre full.
  ball.for_each_occupied([&](int x, int y, int z) {
    REQUIRE(ball.occupied(15 - x, y, z));
    REQUIRE(ball.occupied(x, 15 - y, z));
    REQUIRE(ball.occupied(x, y, 15 - z));
  });
  CHECK_FALSE(ball.occupied(0, 0, 0));
  CHECK(ball.occupied(8, 8, 8));

  const VoxelModel l = make_l_shape({4, 4, 2}, 1.0);
  CHECK(l.occupied_count() == 24);  // 32 minus the 2 x 2 x 2 quadrant
  CHECK_FALSE(l.occupied(3, 3, 0));
  CHECK(l.occupied(3, 0, 1));
  CHECK(l.occupied(0, 3, 1));
}

TEST_CASE("generators: rocks are seeded, irregular and in one piece", "[world][models]") {
  const VoxelModel a = make_rock({16, 16, 16}, 0.05, 1);
  const VoxelModel a_again = make_rock({16, 16, 16}, 0.05, 1);
  const VoxelModel b = make_rock({16, 16, 16}, 0.05, 2);
  const VoxelModel ball = make_ball({16, 16, 16}, 0.05);
  int differ_seed = 0, differ_ball = 0;
  for (int z = 0; z < 16; ++z)
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x) {
        REQUIRE(a.occupied(x, y, z) == a_again.occupied(x, y, z));
        differ_seed += a.occupied(x, y, z) != b.occupied(x, y, z);
        differ_ball += a.occupied(x, y, z) != ball.occupied(x, y, z);
      }
  CHECK(differ_seed > 50);
  CHECK(differ_ball > 50);
  for (std::uint64_t seed = 0; seed < 20; ++seed) CHECK(components(make_rock({12, 12, 12}, 0.1, seed)) == 1);
}

TEST_CASE("generators: the humanoid stands on two feet with its head on top", "[world][models]") {
  const IVec3 d = model_dims(Shape::humanoid, 40, {1, 1, 1});
  const VoxelModel h = make_humanoid(d, 0.045);
  // Feet: the bottom row has two separate runs of voxels along x (the legs).
  int runs = 0;
  bool in_run = false;
  for (int x = 0; x < d.x; ++x) {
    const bool any = h.occupied(x, 0, d.z / 2);
    runs += any && !in_run;
    in_run = any;
  }
  CHECK(runs == 2);
  // Head: the top rows are narrower than the shoulders.
  int head_width = 0, shoulder_width = 0;
  for (int x = 0; x < d.x; ++x) {
    head_width += h.occupied(x, d.y - 3, d.z / 2);
    shoulder_width += h.occupied(x, static_cast<int>(0.7 * d.y), d.z / 2);
  }
  CHECK(head_width > 0);
  CHECK(head_width < shoulder_width);
  CHECK(components(h) == 1);
}

TEST_CASE("generators: the ravine is seeded and in one piece", "[world][models][ravine]") {
  const IVec3 d(32, 24, 64);
  const VoxelModel a = make_ravine(d, 0.25, 1);
  const VoxelModel a_again = make_ravine(d, 0.25, 1);
  const VoxelModel b = make_ravine(d, 0.25, 2);
  int differ_seed = 0;
  for (int z = 0; z < d.z; ++z)
    for (int y = 0; y < d.y; ++y)
      for (int x = 0; x < d.x; ++x) {
        REQUIRE(a.occupied(x, y, z) == a_again.occupied(x, y, z));
        differ_seed += a.occupied(x, y, z) != b.occupied(x, y, z);
      }
  CHECK(differ_seed > 1000);
  for (const IVec3 dims : {IVec3(32, 24, 64), IVec3(16, 12, 40), IVec3(8, 8, 8), IVec3(5, 3, 7), IVec3(1, 1, 1)})
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      INFO("dims " << dims.x << " " << dims.y << " " << dims.z << ", seed " << seed);
      CHECK(components(make_ravine(dims, 0.25, seed)) == 1);
    }
}

TEST_CASE("generators: the ravine is open above a rough, walkable floor between higher, irregular walls",
          "[world][models][ravine]") {
  const IVec3 d(32, 24, 64);
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    INFO("seed " << seed);
    const VoxelModel m = make_ravine(d, 0.25, seed);
    // The middle column: floor at the bottom (0.2 of the height, give or take its relief),
    // open above it to the top.
    int lowest_floor = d.y, highest_floor = 0;
    for (int z = 0; z < d.z; ++z) {
      const int top = floor_top(m, d.x / 2, z);
      lowest_floor = std::min(lowest_floor, top);
      highest_floor = std::max(highest_floor, top);
      for (int y = top; y < d.y; ++y) REQUIRE_FALSE(m.occupied(d.x / 2, y, z));
    }
    CHECK(lowest_floor >= 1);
    CHECK(highest_floor <= 0.2 * d.y + 2);
    // Walls higher than the floor: the outer columns are full to the top.
    for (int z = 0; z < d.z; ++z) {
      CHECK(floor_top(m, 0, z) == d.y);
      CHECK(floor_top(m, d.x - 1, z) == d.y);
    }
    // Rough but walkable: across the open middle, the floor varies, by at most a voxel
    // between neighbouring columns.
    int floor_low = d.y, floor_high = 0, worst_step = 0;
    for (int z = 0; z < d.z; ++z)
      for (int x = d.x / 2 - 4; x <= d.x / 2 + 4; ++x) {
        const int top = floor_top(m, x, z);
        floor_low = std::min(floor_low, top);
        floor_high = std::max(floor_high, top);
        worst_step = std::max(worst_step, std::abs(top - floor_top(m, x + 1, z)));
        if (z + 1 < d.z) worst_step = std::max(worst_step, std::abs(top - floor_top(m, x, z + 1)));
      }
    CHECK(floor_high - floor_low >= 1);
    CHECK(floor_high - floor_low <= 3);
    CHECK(worst_step <= 1);
    // The walls' inner faces are irregular by a few voxels, and never close the trough.
    int wall_thin = d.x, wall_thick = 0;
    for (int z = 0; z < d.z; ++z)
      for (int y = floor_high; y < d.y; ++y) {
        const int depth = left_wall_depth(m, y, z);
        wall_thin = std::min(wall_thin, depth);
        wall_thick = std::max(wall_thick, depth);
      }
    CHECK(wall_thin >= 1);
    CHECK(wall_thick - wall_thin >= 3);
    CHECK(wall_thick < d.x / 2 - 4);
  }
}

TEST_CASE("generators: the ravine's sphere tree is deeper than a rock's", "[world][models][ravine]") {
  const SphereTree ravine = build_octree_sphere_tree(make_ravine({48, 24, 96}, 0.25, 3), {6, true});
  const SphereTree rock = build_octree_sphere_tree(make_rock({16, 16, 16}, 0.05, 3), {4, true});
  CHECK(ravine.check_layout().empty());
  CHECK(ravine.height() > rock.height());
}
