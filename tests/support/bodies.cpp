#include "support/bodies.hpp"

#include <utility>

#include "world/mass_properties.hpp"

namespace fovea::test {

Body make_body(Shape shape, int resolution, std::uint64_t seed, int levels, bool remove_hidden) {
  ModelSettings ms;
  ms.shape = shape;
  ms.resolution_voxels = resolution;
  ms.size_m = 0.1 * resolution;  // 0.1 m voxels
  return body_of(make_model(ms, seed), {levels, remove_hidden});
}

Body body_of(VoxelModel model, const OctreeBuildOptions& options) {
  Body b;
  b.model = std::move(model);
  b.options = options;
  b.tree = build_octree_sphere_tree(b.model, options);
  const MassProperties props = compute_mass_properties(b.model, 1000);
  b.centre_of_mass_m = props.centre_of_mass_m;
  b.collision = make_collision_model(b.tree, b.model, props.centre_of_mass_m, props.bounding_radius_m);
  return b;
}

OnDemandTree make_on_demand_tree(const Body& body) {
  OnDemandTree t;
  t.grower = std::make_unique<TreeGrower>(body.model, body.options, body.centre_of_mass_m,
                                          body.collision.bounding_radius_m, t.model);
  return t;
}

std::pair<Body, Body> random_posed_duo(Rng& rng, const std::function<Body(std::uint64_t salt)>& pick) {
  Body a = pick(rng.next_u64());
  Body b = pick(rng.next_u64());
  a.state.orientation = rng.rotation();
  b.state.orientation = rng.rotation();
  a.state.position_m = Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
  const double reach = a.collision.bounding_radius_m + b.collision.bounding_radius_m;
  b.state.position_m = a.state.position_m + rng.unit_vector() * (reach * rng.uniform(0.3, 1.05));
  return {std::move(a), std::move(b)};
}

std::vector<CollisionModel> two_level_and_lone() {
  CollisionModel two_level;
  two_level.spheres = {{Vec3(0.0), 2.0}, {Vec3(-1, 0, 0), 1.0}, {Vec3(1, 0, 0), 1.0}};
  two_level.first_child = {1, 0, 0};
  two_level.child_count = {2, 0, 0};
  two_level.parent = {0, 0, 0};
  two_level.gap_slack_m = {0, 0, 0};
  two_level.leaf_reach_m = {2, 1, 1};
  two_level.bounding_radius_m = 2;
  CollisionModel lone;
  lone.spheres = {{Vec3(0.0), 0.5}};
  lone.first_child = {0};
  lone.child_count = {0};
  lone.parent = {0};
  lone.gap_slack_m = {0};
  lone.leaf_reach_m = {0.5};
  lone.bounding_radius_m = 0.5;
  return {two_level, lone};
}

PairSet one_pair() {
  PairSet pairs;
  pairs.begin_frame(2);
  pairs.record_start({0, 1});
  pairs.finish_frame();
  return pairs;
}

Duo::Duo(const Body& a, const Body& b, std::array<bool, 2> on_demand) {
  for (const ModelId id : {ModelId{0}, ModelId{1}}) {
    const Body& body = id == 0 ? a : b;
    if (!on_demand[id]) {
      narrowphase.set_model(id, body.collision, nullptr);
      continue;
    }
    OnDemandTree t = make_on_demand_tree(body);
    narrowphase.set_model(id, std::move(t.model), std::move(t.grower));
  }
  entities[0].model = 0;
  entities[1].model = 1;
  states = {a.state, b.state};
  pairs = one_pair();
  narrowphase.sync(pairs, entities, 0);
  narrowphase.begin_frame(states);
}

CollisionStatus Duo::run(Budget& budget) {
  while (narrowphase.step(slot(), budget) == CollisionStatus::needs_more_work)
    if (budget.exhausted()) break;
  return collision().status;
}

CollisionStatus Duo::run_to_end() {
  Budget unlimited = Budget::unlimited();
  return run(unlimited);
}

Vec3 Duo::centre(int tree, std::uint32_t node) const {
  const auto i = static_cast<std::size_t>(tree);
  const CollisionModel& m = narrowphase.model(static_cast<ModelId>(tree));
  return states[i].position_m + states[i].orientation * m.spheres[node].centre_m;
}

}  // namespace fovea::test
