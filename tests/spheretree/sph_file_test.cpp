#include <catch2/catch.hpp>

#include <sstream>

#include "core/format.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/sph_file.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    read_sph(in, Vec3(0.0));
  } catch (const SphFormatError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE(".sph: fovea's trees survive a round trip exactly", "[spheretree][sph]") {
  for (Shape shape : {Shape::ball, Shape::rock, Shape::l_shape, Shape::humanoid}) {
    ModelSettings settings;
    settings.shape = shape;
    settings.resolution_voxels = 16;
    const VoxelModel m = make_model(settings, 5);
    const SphereTree tree = build_octree_sphere_tree(m);
    const Vec3 origin = model_bounds_centre_m(m);
    std::stringstream text;
    write_sph(text, tree, origin);
    const SphereTree back = read_sph(text, origin);
    INFO("shape " << static_cast<int>(shape));
    REQUIRE(back.check_layout() == "");
    CHECK(back.size() == tree.size());
    CHECK(back.level_begin == tree.level_begin);
    CHECK(back.child_count == tree.child_count);
    CHECK(back.first_child == tree.first_child);
    CHECK(back.radius_m == tree.radius_m);
    for (std::size_t n = 0; n < tree.size(); ++n) REQUIRE(glm::length(back.centre_m[n] - tree.centre_m[n]) < 1e-12);
  }
}

TEST_CASE(".sph: a file as the Toolkit writes it, with unused slots, extras and a trailer", "[spheretree][sph]") {
  // 3 levels, branching 2: 1 + 2 + 4 slots. Slot 2 is unused, so its children (slots 5 and 6)
  // are dropped even though slot 6 has a radius. Lines may carry the occupancy and the
  // auxiliary sphere; blank lines are skipped; what follows the last slot is ignored.
  const std::string text =
      "3 2\n"
      "0.000000 0.000000 0.000000 2.000000 1.000000\n"
      "\n"
      "-1.000000 0.000000 0.000000 1.000000 1.000000 -1.0 0.0 0.0 1.1 0.5\n"
      "0.000000 0.000000 0.000000 -1.000000 1.000000\n"
      "-1.500000 0.000000 0.000000 0.500000\n"
      "-0.500000 0.000000 0.000000 0.500000\n"
      "0 0 0 -1\n"
      "9 9 9 9\n"
      "Options:\n  algorithm medial\nEvaluation: 0.12\n";
  std::istringstream in(text);
  const SphereTree tree = read_sph(in, Vec3(10, 0, 0));
  REQUIRE(tree.check_layout() == "");
  CHECK(tree.size() == 4);
  CHECK(tree.level_begin == std::vector<std::uint32_t>{0, 1, 2, 4});
  CHECK(tree.centre_m[0] == Vec3(10, 0, 0));
  CHECK(tree.centre_m[1] == Vec3(9, 0, 0));
  CHECK(tree.radius_m[3] == 0.5);
  CHECK(tree.cell_min.empty());
}

TEST_CASE(".sph: malformed files name the line and the problem", "[spheretree][sph]") {
  CHECK(error_of("") == "line 1: empty file: expected `levels branch`");
  CHECK(error_of("three 8\n") == "line 1: expected `levels branch` (levels 1 to 64, branch 1 to 255), found \"three 8\"");
  CHECK(error_of("2 0\n") == "line 1: expected `levels branch` (levels 1 to 64, branch 1 to 255), found \"2 0\"");
  CHECK(error_of("12 8\n") == "line 1: 12 levels of branching 8 make more than 10000000 slots");
  CHECK(error_of("2 2\n0 0 0 1\n0 0 0 1\n") == "line 4: the file ends after 2 of 3 spheres");
  CHECK(error_of("2 2\n0 0 0 1\n0 0 x 1\n0 0 0 1\n") == "line 3: expected `x y z r`, found \"0 0 x 1\"");
  // A long line is quoted as an excerpt (core/format.hpp), cut with its length.
  const std::string long_line = "x" + std::string(200, ' ') + "y";
  CHECK(error_of("2 2\n0 0 0 1\n" + long_line + "\n0 0 0 1\n") ==
        "line 3: expected `x y z r`, found \"" + excerpt(long_line) + "\"");
  CHECK(excerpt(long_line).find("(202 bytes)") != std::string::npos);
  CHECK(error_of("1 8\n0 0 0 -1\n") == "line 2: the root sphere is unused (radius <= 0)");
  CHECK(error_of("1 8\n0 0 0 inf\n") == "line 2: a number is not finite");
}

TEST_CASE(".sph: a used sphere reaching past kSphMaxReach_m is refused at its line", "[spheretree][sph]") {
  // Issue 42: radii of 1e308 were read, and the run failed at frame 2 in the broad phase
  // ("box from nan to nan").
  const std::string limit = " m from the model's centre (|centre| + radius; the largest world), found ";
  CHECK(error_of("1 8\n0 0 0 1e308\n") == "line 2: a sphere may reach at most 1000000000" + limit + "\"0 0 0 1e308\"");
  CHECK(error_of("2 2\n0 0 0 1\n1e308 1e308 0 1\n0 0 0 1\n") ==
        "line 3: a sphere may reach at most 1000000000" + limit + "\"1e308 1e308 0 1\"");
  // At the edge and one past it: the radius alone, and centre and radius together.
  CHECK(error_of("1 8\n0 0 0 1e9\n").empty());
  CHECK(error_of("1 8\n0 0 0 1000000001\n") == "line 2: a sphere may reach at most 1000000000" + limit + "\"0 0 0 1000000001\"");
  CHECK(error_of("1 8\n0 -6e8 7e8 3e8\n").find("line 2: a sphere may reach") == 0);  // |c| = 9.2e8, + 3e8
  CHECK(error_of("1 8\n0 -6e8 8e8 1\n") == "line 2: a sphere may reach at most 1000000000" + limit + "\"0 -6e8 8e8 1\"");
  CHECK(error_of("1 8\n0 -6e8 8e8 0\n") == "line 2: the root sphere is unused (radius <= 0)");
  CHECK(error_of("1 8\n0 -3e8 4e8 5e8\n").empty());  // |c| + r = 1e9 exactly
  // An unused slot (radius <= 0) is dropped whatever its numbers, as the Toolkit writes them.
  CHECK(error_of("2 2\n0 0 0 1\n1e300 0 0 -1\n0 0 0 -1e300\n").empty());
}
