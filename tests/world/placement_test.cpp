#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "frame/animation.hpp"
#include "world/placement.hpp"

using namespace fovea;

namespace {

/// Brute-force oracle: no two spheres overlap (touching allowed within 1e-9) and all are in the box.
void require_valid(const std::vector<Vec3>& centres, const std::vector<double>& radii, const Aabb& box) {
  for (std::size_t i = 0; i < centres.size(); ++i) {
    for (int a = 0; a < 3; ++a) {
      REQUIRE(centres[i][a] - radii[i] >= box.min_m[a] - 1e-12);
      REQUIRE(centres[i][a] + radii[i] <= box.max_m[a] + 1e-12);
    }
    for (std::size_t j = 0; j < i; ++j)
      REQUIRE(glm::length(centres[i] - centres[j]) >= (radii[i] + radii[j]) * (1 - 1e-9));
  }
}

}  // namespace

TEST_CASE("SphereOccupancy: agrees with a brute-force overlap test", "[world][placement]") {
  Rng rng(4);
  SphereOccupancy grid(0.6);
  std::vector<std::pair<Vec3, double>> added;
  for (int i = 0; i < 3000; ++i) {
    const Vec3 c(rng.uniform(0, 10), rng.uniform(0, 10), rng.uniform(0, 10));
    const double r = rng.uniform(0.05, 0.3);
    bool brute_free = true;
    for (const auto& [c2, r2] : added) brute_free &= glm::length(c - c2) >= (r + r2) * (1 - 1e-9);
    REQUIRE(grid.is_free(c, r) == brute_free);
    if (brute_free && rng.uniform() < 0.5) {
      grid.add(c, r);
      added.emplace_back(c, r);
    }
  }
  CHECK(added.size() > 100);
}

TEST_CASE("placement random: inside the box, no overlaps, reproducible from the seed", "[world][placement]") {
  const Aabb box{Vec3(0.0), Vec3(8, 5, 6)};
  std::vector<double> radii(500);
  for (std::size_t i = 0; i < radii.size(); ++i) radii[i] = 0.2 + 0.05 * double(i % 3);
  SphereOccupancy occupied(0.6);
  Rng rng(1);
  const auto centres = place_group(box, {0, "g", Placement::random, radii}, occupied, rng);
  REQUIRE(centres.size() == 500);
  require_valid(centres, radii, box);

  SphereOccupancy again(0.6);
  Rng rng_again(1);
  CHECK(place_group(box, {0, "g", Placement::random, radii}, again, rng_again) == centres);
}

TEST_CASE("placement packed: a touching lattice in the min corner", "[world][placement]") {
  const Aabb box{Vec3(0.0), Vec3(10.0)};
  std::vector<double> radii(125, 0.25);
  SphereOccupancy occupied(0.5);
  Rng rng(1);
  const auto centres = place_group(box, {0, "g", Placement::packed, radii}, occupied, rng);
  REQUIRE(centres.size() == 125);
  require_valid(centres, radii, box);
  // Tightly packed: every entity touches a neighbour.
  for (std::size_t i = 0; i < centres.size(); ++i) {
    double nearest = 1e9;
    for (std::size_t j = 0; j < centres.size(); ++j)
      if (j != i) nearest = std::min(nearest, glm::length(centres[i] - centres[j]));
    REQUIRE(nearest == Approx(0.5));
  }
  // In the corner: the chosen cells are the 125 lattice cells nearest the min corner.
  // Oracle: all 20^3 cells of the box sorted by distance.
  std::vector<double> all;
  for (int k = 0; k < 20; ++k)
    for (int j = 0; j < 20; ++j)
      for (int i = 0; i < 20; ++i) all.push_back(glm::length(Vec3(i, j, k) * 0.5));
  std::sort(all.begin(), all.end());
  const double cutoff = all[124];
  const auto strictly_nearer = std::count_if(all.begin(), all.end(), [&](double d) { return d < cutoff - 1e-9; });
  std::size_t chosen_nearer = 0;
  for (const Vec3& c : centres) {
    const double d = glm::length(c - Vec3(0.25));
    REQUIRE(d <= cutoff + 1e-9);
    chosen_nearer += d < cutoff - 1e-9;
  }
  CHECK(chosen_nearer == static_cast<std::size_t>(strictly_nearer));
}

TEST_CASE("placement packed: a second group packs around the first", "[world][placement]") {
  const Aabb box{Vec3(0.0), Vec3(4.0)};
  SphereOccupancy occupied(1.0);
  Rng rng(1);
  std::vector<double> big(20, 0.5), small(100, 0.2);
  auto a = place_group(box, {0, "big", Placement::packed, big}, occupied, rng);
  auto b = place_group(box, {1, "small", Placement::packed, small}, occupied, rng);
  std::vector<Vec3> centres = a;
  centres.insert(centres.end(), b.begin(), b.end());
  std::vector<double> radii = big;
  radii.insert(radii.end(), small.begin(), small.end());
  require_valid(centres, radii, box);
}

TEST_CASE("placement: a world too small is an error naming the group, never a hang", "[world][placement]") {
  const Aabb box{Vec3(0.0), Vec3(2.0)};
  std::vector<double> radii(500, 0.3);
  SECTION("random") {
    SphereOccupancy occupied(0.6);
    Rng rng(1);
    try {
      place_group(box, {3, "balls", Placement::random, radii}, occupied, rng);
      FAIL("expected a PlacementError");
    } catch (const PlacementError& e) {
      CHECK(e.group_index() == 3);
      CHECK_THAT(e.what(), Catch::StartsWith("world too small for its entities: placed "));
      CHECK_THAT(e.what(), Catch::EndsWith(" of 500 'balls' (bounding radius 0.3 m) in a 2 x 2 x 2 m box; placement: packed fits more"));
    }
  }
  SECTION("packed") {
    SphereOccupancy occupied(0.6);
    Rng rng(1);
    // 3 cells of 0.6 m per axis fit in 2 m: 27 entities.
    CHECK_THROWS_WITH(place_group(box, {0, "balls", Placement::packed, radii}, occupied, rng),
                      "world too small for its entities: placed 27 of 500 'balls' (bounding radius 0.3 m) in a 2 x 2 "
                      "x 2 m box");
  }
  SECTION("an entity larger than the box") {
    SphereOccupancy occupied(4);
    Rng rng(1);
    std::vector<double> huge(1, 1.5);
    CHECK_THROWS_WITH(place_group(box, {0, "boulder", Placement::random, huge}, occupied, rng),
                      "world too small for its entities: an entity of 'boulder' (bounding radius 1.5 m) does not "
                      "fit in a 2 x 2 x 2 m box");
  }
}

TEST_CASE("placement packed: a long thin box of 50,000 cells along one axis", "[world][placement]") {
  // Squared cell distances beyond 46341 cells overflow 32 bits; the lattice must still be the
  // n cells nearest the corner, so the farthest centre sits at x = n - r.
  const Aabb box{Vec3(0.0), Vec3(60000, 1, 1)};
  std::vector<double> radii(50000, 0.5);
  SphereOccupancy occupied(1.0);
  Rng rng(1);
  const auto centres = place_group(box, {0, "g", Placement::packed, radii}, occupied, rng);
  double farthest = 0;
  for (const Vec3& c : centres) farthest = std::max(farthest, c.x);
  CHECK(farthest == 49999.5);
}

TEST_CASE("SphereOccupancy: cells beyond the key's range clamp and stay exact", "[world][placement]") {
  // A world 10^13 cells across: positions far apart share clamped edge cells, and the
  // overlap test must still be right.
  SphereOccupancy grid(1e-6);
  grid.add(Vec3(10.0, 0, 0), 2e-7);
  CHECK_FALSE(grid.is_free(Vec3(10.0 + 3e-7, 0, 0), 2e-7));
  CHECK(grid.is_free(Vec3(10.0 + 5e-7, 0, 0), 2e-7));
  CHECK(grid.is_free(Vec3(-10.0, 0, 0), 2e-7));
}

TEST_CASE("placement floor: one entity, its grid centred on the box's floor, kept out of the occupancy",
          "[world][placement]") {
  const Aabb box{Vec3(0.0), Vec3(40, 20, 30)};
  GroupToPlace ravine{2, "ravine", Placement::floor, {25.0}};  // a bounding sphere larger than the box
  ravine.grid_extent_m = Vec3(30, 8, 12);
  ravine.centre_of_mass_model_m = Vec3(15, 2.5, 6);
  SphereOccupancy occupied(1.0);
  Rng rng(1);
  const std::vector<Vec3> centres = place_group(box, ravine, occupied, rng);
  REQUIRE(centres.size() == 1);
  // The grid's min corner at (20 - 15, 0, 15 - 6): centred in x and z, on the floor in y.
  CHECK(centres[0] == Vec3(5 + 15, 0 + 2.5, 9 + 6));
  CHECK(occupied.is_free(centres[0], 1.0));  // other groups are not kept off the scenery
  SECTION("more than one entity") {
    ravine.radii_m = {25.0, 25.0};
    CHECK_THROWS_WITH(place_group(box, ravine, occupied, rng),
                      "entity group 'ravine': placement floor places one entity, not 2");
  }
  SECTION("a grid larger than the box") {
    ravine.grid_extent_m = Vec3(30, 8, 31);
    try {
      place_group(box, ravine, occupied, rng);
      FAIL("expected a PlacementError");
    } catch (const PlacementError& e) {
      CHECK(e.group_index() == 2);
      CHECK(std::string(e.what()) == "entity group 'ravine': its model (30 x 8 x 31 m) does not fit in the world box");
    }
  }
}

TEST_CASE("placement demo: one lattice cell each through the whole box, until the demo places them",
          "[world][placement]") {
  const Aabb box{Vec3(0.0), Vec3(40, 2, 40)};
  const std::vector<double> radii(2000, 0.3);
  SphereOccupancy occupied(1.0);
  Rng rng(1);
  const std::vector<Vec3> centres = place_group(box, {0, "walkers", Placement::demo, radii}, occupied, rng);
  REQUIRE(centres.size() == radii.size());
  // Every centre inside the box and no two on the same spot: the broad phase's first sort
  // does not see them all in one place.
  std::vector<Vec3> sorted = centres;
  for (const Vec3& c : centres)
    for (int a = 0; a < 3; ++a) CHECK((c[a] > box.min_m[a] && c[a] < box.max_m[a]));
  std::sort(sorted.begin(), sorted.end(), [](const Vec3& p, const Vec3& q) {
    return std::tie(p.x, p.y, p.z) < std::tie(q.x, q.y, q.z);
  });
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  CHECK(occupied.is_free(centres[0], 0.3));  // the demo, not the occupancy, keeps them apart later
}
