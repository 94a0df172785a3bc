// Visibility from the eye (metrics/visibility.hpp): hand-made cases, then the fast query
// against its oracle, every leaf sphere of every other live entity tested, over random worlds.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/rng.hpp"
#include "metrics/visibility.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "support/allocation_counter.hpp"
#include "support/bodies.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

/// An id no entity has: nothing skipped.
constexpr EntityId kNoEntity = std::numeric_limits<EntityId>::max();

/// A world as the query reads it.
struct World {
  std::vector<CollisionModel> models;
  std::vector<Entity> entities;
  std::vector<EntityState> states;

  EntityId add(ModelId model, const Vec3& position_m, const Quat& orientation = Quat(1.0, 0.0, 0.0, 0.0)) {
    Entity e;
    e.model = model;
    entities.push_back(e);
    EntityState s;
    s.position_m = position_m;
    s.orientation = orientation;
    states.push_back(s);
    return static_cast<EntityId>(entities.size() - 1);
  }
};

/// The query's answer on `world`, checked against the oracle's.
bool occluded_checked(const World& world, const Vec3& eye_m, const Vec3& point_m, EntityId skip_a = kNoEntity,
                      EntityId skip_b = kNoEntity) {
  OcclusionQuery query;
  query.begin_frame(world.models, world.entities, world.states);
  const bool fast = query.occluded(eye_m, point_m, skip_a, skip_b);
  CHECK(fast == occluded_by_any_leaf(world.models, world.entities, world.states, eye_m, point_m, skip_a, skip_b));
  return fast;
}

/// A model of one sphere about the centre of mass, root and leaf at once.
CollisionModel one_sphere(double radius_m) {
  CollisionModel m;
  m.spheres = {{Vec3(0.0), radius_m}};
  m.first_child = {0};
  m.child_count = {0};
  m.parent = {0};
  m.gap_slack_m = {0.0};
  m.leaf_reach_m = {radius_m};
  m.bounding_radius_m = radius_m;
  return m;
}

/// The leaves below `node` that the query tests: leaves, and nodes whose children are not built.
void end_nodes(const CollisionModel& m, std::uint32_t node, std::vector<std::uint32_t>& out) {
  if (m.child_count[node] == 0 || m.child_count[node] == kChildrenNotBuilt) {
    out.push_back(node);
    return;
  }
  for (std::uint32_t k = 0; k < m.child_count[node]; ++k) end_nodes(m, m.first_child[node] + k, out);
}

/// A unit vector perpendicular to `w`.
Vec3 perpendicular(Rng& rng, const Vec3& w) {
  const Vec3 n = glm::normalize(w);
  for (;;) {
    const Vec3 v = rng.unit_vector();
    const Vec3 p = v - glm::dot(v, n) * n;
    if (glm::length(p) > 0.1) return glm::normalize(p);
  }
}

/// A segment from `eye_m` whose line passes at distance `distance_m` from `centre_m`,
/// ending `beyond_m` past the point of the line nearest the centre (before it when negative).
Vec3 grazing_point(Rng& rng, const Vec3& eye_m, const Vec3& centre_m, double distance_m, double beyond_m) {
  const Vec3 w = centre_m - eye_m;
  const double length_m = glm::length(w);
  const double sin_angle = distance_m / length_m;
  const double cos_angle = std::sqrt(1.0 - sin_angle * sin_angle);
  const Vec3 direction = glm::normalize(w) * cos_angle + perpendicular(rng, w) * sin_angle;
  return eye_m + direction * (length_m * cos_angle + beyond_m);
}

}  // namespace

TEST_CASE("Visibility: a ball between the eye and the point hides it, and aside, skipped, retired or behind the point it does not",
          "[metrics][visibility]") {
  World world;
  world.models = {make_body(Shape::ball, 8, 0, 4, true).collision};  // 0.8 m across
  const EntityId ball = world.add(0, {0, 0, 0});
  const Vec3 eye_m(0, 0, 10), point_m(0, 0, -3);

  CHECK(occluded_checked(world, eye_m, point_m));
  world.states[ball].position_m = {0.3, -0.2, 4};  // still on the line of sight, turned
  world.states[ball].orientation = Quat(glm::dvec3(0.3, 1.1, -0.4));
  CHECK(occluded_checked(world, eye_m, point_m));

  SECTION("moved aside") {
    world.states[ball].position_m = {1.5, 0, 0};
    CHECK_FALSE(occluded_checked(world, eye_m, point_m));
  }
  SECTION("one of the gap's own entities") {
    CHECK_FALSE(occluded_checked(world, eye_m, point_m, ball, kNoEntity));
    CHECK_FALSE(occluded_checked(world, eye_m, point_m, kNoEntity, ball));
    CHECK_FALSE(occluded_checked(world, eye_m, point_m, ball, ball));
  }
  SECTION("retired") {
    world.entities[ball].live = false;
    CHECK_FALSE(occluded_checked(world, eye_m, point_m));
  }
  SECTION("behind the point, on the line of sight") {
    world.states[ball].position_m = {0, 0, -4.5};
    CHECK_FALSE(occluded_checked(world, eye_m, point_m));
    world.states[ball].position_m = {0, 0, -3.2};  // the point inside it
    CHECK(occluded_checked(world, eye_m, point_m));
  }
  SECTION("a second ball still hides the point when the first is skipped") {
    const EntityId other = world.add(0, {0, 0, -1});
    CHECK(occluded_checked(world, eye_m, point_m, ball, kNoEntity));
    CHECK_FALSE(occluded_checked(world, eye_m, point_m, ball, other));
  }
}

TEST_CASE("Visibility: touching counts, and a leaf bulging out of its parent's sphere still occludes",
          "[metrics][visibility]") {
  World world;
  world.models = {one_sphere(1.0)};
  world.add(0, {0, 0, 0});
  // The segment's nearest point to the centre is (0, 1, 0), exactly 1 m away: touching.
  CHECK(occluded_checked(world, {-5, 1, 0}, {5, 1, 0}));
  CHECK_FALSE(occluded_checked(world, {-5, 1 + 1e-12, 0}, {5, 1 + 1e-12, 0}));
  // An end of the segment on the sphere.
  CHECK(occluded_checked(world, {0, 5, 0}, {0, 1, 0}));
  CHECK_FALSE(occluded_checked(world, {0, 5, 0}, {0, 1 + 1e-12, 0}));

  // A root of radius 1 m whose one leaf, radius 1 m at x = 0.5, bulges 0.5 m out of it, and
  // a bounding radius that holds the root's sphere only (a voxel-corner bound can be so:
  // leaf spheres bulge past the voxels). A segment at x = 1.45 misses both and crosses the leaf.
  CollisionModel bulge;
  bulge.spheres = {{Vec3(0.0), 1.0}, {Vec3(0.5, 0, 0), 1.0}};
  bulge.first_child = {1, 0};
  bulge.child_count = {1, 0};
  bulge.parent = {0, 0};
  bulge.gap_slack_m = {0.0, 0.0};
  bulge.leaf_reach_m = {0.0, 1.0};
  bulge.leaf_reach_m[0] = leaf_reach_from_children_m(bulge, 0);
  bulge.bounding_radius_m = 1.0;
  REQUIRE(bulge.leaf_reach_m[0] == 1.5);
  world.models = {bulge};
  CHECK(occluded_checked(world, {1.45, -5, 0}, {1.45, 5, 0}));
  CHECK(occluded_checked(world, {1.5, -5, 0}, {1.5, 5, 0}));  // touching the leaf's far side
  CHECK_FALSE(occluded_checked(world, {1.55, -5, 0}, {1.55, 5, 0}));
  CHECK_FALSE(occluded_checked(world, {-1.05, -5, 0}, {-1.05, 5, 0}));  // beside the root, the leaf short of it
}

TEST_CASE("Visibility: empty model slots are skipped, and a node not yet grown stands for its leaves by its leaf reach",
          "[metrics][visibility]") {
  const Body ball = make_body(Shape::ball, 8, 0, 4, true);
  OnDemandTree on_demand = make_on_demand_tree(ball);
  World world;
  world.models = {CollisionModel{}, on_demand.model};
  world.add(0, {0, 0, 0});  // no spheres: never an occluder
  const EntityId grown = world.add(1, {0, 0, 0});
  OcclusionQuery query;
  query.begin_frame(world.models, world.entities, world.states);
  CHECK(query.occluder_count() == 1);

  // The root alone: between its radius and its leaf reach, the segment counts as blocked.
  const CollisionModel& root_only = world.models[1];
  REQUIRE(root_only.child_count[0] == kChildrenNotBuilt);
  const double radius_m = root_only.spheres[0].radius_m, reach_m = root_only.leaf_reach_m[0];
  REQUIRE(reach_m > radius_m);
  const Vec3 c = root_only.spheres[0].centre_m;
  const double between_m = 0.5 * (radius_m + reach_m);
  CHECK(occluded_checked(world, c + Vec3(-5, between_m, 0), c + Vec3(5, between_m, 0)));
  CHECK_FALSE(occluded_checked(world, c + Vec3(-5, reach_m + 0.01, 0), c + Vec3(5, reach_m + 0.01, 0)));

  // Grown in part, turned and moved: the query still gives the oracle's answer, and never
  // says visible where the whole tree says blocked (a node not grown covers its leaves).
  on_demand.grower->grow(on_demand.model, 0);
  on_demand.grower->grow(on_demand.model, on_demand.model.first_child[0]);
  world.models[1] = on_demand.model;
  world.states[grown].position_m = {0.2, -0.1, 0.3};
  world.states[grown].orientation = Quat(glm::dvec3(0.7, -0.2, 1.3));
  World whole = world;
  whole.models[1] = ball.collision;
  Rng rng(11);
  int blocked = 0, visible = 0;
  for (int i = 0; i < 2000; ++i) {
    const Vec3 eye_m = rng.unit_vector() * 3.0;
    const Vec3 point_m = Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    const bool partly_grown = occluded_checked(world, eye_m, point_m);
    const bool whole_tree = occluded_checked(whole, eye_m, point_m);
    if (whole_tree) CHECK(partly_grown);
    ++(partly_grown ? blocked : visible);
  }
  CHECK(blocked > 100);
  CHECK(visible > 100);
}

TEST_CASE("Visibility: the query gives the oracle's answer over random worlds of rocks, grazing segments included",
          "[metrics][visibility]") {
  std::int64_t blocked = 0, visible = 0, grazing_blocked = 0, grazing_visible = 0;
  for (const std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    Rng rng(seed);
    World world;
    // Four rock variants of 6 to 12 voxels of 0.1 m, trees of 2 to 4 levels, and an empty slot.
    for (int v = 0; v < 4; ++v) {
      const int resolution = 6 + static_cast<int>(rng.below(7));
      const int levels = 2 + static_cast<int>(rng.below(3));
      world.models.push_back(make_body(Shape::rock, resolution, rng.next_u64(), levels, true).collision);
    }
    world.models.emplace_back();
    const double half_box_m = 2.5;
    const int count = 50 + static_cast<int>(rng.below(151));
    for (int i = 0; i < count; ++i) {
      const Vec3 position_m(rng.uniform(-half_box_m, half_box_m), rng.uniform(-half_box_m, half_box_m),
                            rng.uniform(-half_box_m, half_box_m));
      const EntityId id = world.add(static_cast<ModelId>(rng.below(5)), position_m, rng.rotation());
      world.entities[id].live = rng.below(10) != 0;
    }
    OcclusionQuery query;
    query.begin_frame(world.models, world.entities, world.states);

    const auto random_id = [&] { return rng.below(3) == 0 ? kNoEntity : static_cast<EntityId>(rng.below(count)); };
    for (int q = 0; q < 400; ++q) {
      const Vec3 eye_m = rng.unit_vector() * rng.uniform(8, 12);  // outside the box
      Vec3 point_m(rng.uniform(-half_box_m, half_box_m), rng.uniform(-half_box_m, half_box_m),
                   rng.uniform(-half_box_m, half_box_m));
      EntityId skip_a = random_id(), skip_b = random_id();
      // Half the segments graze a leaf sphere of some entity: their nearest distance to its
      // centre within 1e-12 of its radius, either side, or ending near the sphere. Exact
      // agreement there shows that pruning never cuts a leaf the leaf test would count.
      const bool grazing = q % 2 == 1;
      if (grazing) {
        const auto target = static_cast<EntityId>(rng.below(count));
        const CollisionModel& m = world.models[world.entities[target].model];
        if (m.spheres.empty()) continue;
        std::vector<std::uint32_t> leaves;
        end_nodes(m, 0, leaves);
        const std::uint32_t leaf = leaves[rng.below(leaves.size())];
        const EntityState& s = world.states[target];
        const Vec3 centre_m = s.position_m + s.orientation * m.spheres[leaf].centre_m;
        const double radius_m = m.spheres[leaf].radius_m;
        const double distance_m = radius_m * (1 + rng.uniform(-1e-12, 1e-12));
        point_m = grazing_point(rng, eye_m, centre_m, distance_m, rng.uniform(-radius_m, 2.0));
        if (rng.below(4) == 0) skip_a = target;
      }
      const bool fast = query.occluded(eye_m, point_m, skip_a, skip_b);
      const bool oracle =
          occluded_by_any_leaf(world.models, world.entities, world.states, eye_m, point_m, skip_a, skip_b);
      INFO("seed " << seed << ", segment " << q << ", skipping " << skip_a << " and " << skip_b);
      REQUIRE(fast == oracle);
      ++(fast ? blocked : visible);
      if (grazing) ++(fast ? grazing_blocked : grazing_visible);
    }
  }
  INFO(blocked << " blocked, " << visible << " visible; grazing " << grazing_blocked << " and " << grazing_visible);
  CHECK(blocked > 200);
  CHECK(visible > 200);
  CHECK(grazing_blocked > 50);
  CHECK(grazing_visible > 50);
}

TEST_CASE("Visibility: a frame's occluders and queries allocate nothing once the storage has grown",
          "[metrics][visibility]") {
  World world;
  world.models = {make_body(Shape::rock, 10, 3, 4, true).collision};
  Rng rng(5);
  for (int i = 0; i < 300; ++i)
    world.add(0, {rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(-3, 3)}, rng.rotation());
  OcclusionQuery query;
  query.begin_frame(world.models, world.entities, world.states);
  const long before = test::allocations();
  int blocked = 0;
  for (int frame = 0; frame < 3; ++frame) {
    query.begin_frame(world.models, world.entities, world.states);
    for (int q = 0; q < 100; ++q) blocked += query.occluded({10, 0, 0}, {0, 0, 0.02 * q}, 0, 1);
  }
  const long allocations = test::allocations() - before;  // read before CHECK allocates
  CHECK(allocations == 0);
  CHECK(blocked > 0);
}
