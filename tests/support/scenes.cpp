#include "support/scenes.hpp"

#include <utility>

namespace fovea::test {

EntityGroupSettings rock_group(const RockGroup& rocks) {
  EntityGroupSettings g;
  g.name = rocks.name;
  g.count = rocks.count;
  g.model.shape = Shape::rock;
  g.model.size_m = rocks.size_m;
  g.model.resolution_voxels = rocks.resolution_voxels;
  g.model.variants = rocks.variants;
  g.placement = rocks.placement;
  if (rocks.at_rest) {
    g.speed_mps = 0;
    g.spin_radps = 0;
  }
  return g;
}

AnimationSettings world_of(const Vec3& box_m, std::vector<EntityGroupSettings> groups) {
  AnimationSettings s;
  s.world.box_size_m = box_m;
  s.world.entities = std::move(groups);
  return s;
}

AnimationSettings rocks_passing_through() {
  AnimationSettings s = world_of(Vec3(5.0), {rock_group({.count = 300, .variants = 4, .resolution_voxels = 12})});
  s.response.entity_contacts = false;
  return s;
}

AnimationSettings starved_packed_rocks() {
  EntityGroupSettings rocks = rock_group({.count = 120, .variants = 4, .resolution_voxels = 12, .size_m = 0.6, .name = "rocks"});
  rocks.sphere_tree.levels = 4;
  AnimationSettings s = world_of(Vec3(4.0), {rocks});
  s.world.time_step_s = 0.01;
  s.budget.mode = BudgetMode::work;
  s.budget.tests = 600;
  s.ground_truth = true;
  s.metrics.visibility = VisibilityKind::occlusion;
  s.perception.view.camera.frame_box = true;
  s.gaze.source = GazeSourceKind::scripted;
  s.response.gravity_mps2 = Vec3(0.0);
  return s;
}

AnimationSettings still_packed_rocks() {
  return world_of(Vec3(4.0), {rock_group({.count = 120, .variants = 3, .at_rest = true})});
}

EntityGroupSettings pile_rocks() {
  EntityGroupSettings g = rock_group({.count = 50,
                                      .variants = 5,
                                      .resolution_voxels = 10,
                                      .size_m = 0.35,
                                      .name = "rocks",
                                      .placement = Placement::random,
                                      .at_rest = true});
  g.material.restitution = 0.3;
  g.material.friction = 0.6;
  return g;
}

std::unique_ptr<Animation> world_after(const AnimationSettings& settings, std::uint64_t seed, int frames) {
  auto world = std::make_unique<Animation>(settings, seed);
  for (int i = 0; i < frames; ++i) world->step();
  return world;
}

}  // namespace fovea::test
