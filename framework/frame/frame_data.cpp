#include "frame/frame_data.hpp"

#include "world/entity_bounds.hpp"

namespace fovea {

Aabb entity_box(const WorldData& world, const Entity& entity, const EntityState& state) {
  if (entity.bounds == BoundsKind::dynamic)
    return tight_box(world.library.hull_points(entity.model), state.orientation, state.position_m);
  return fixed_cube(state.position_m, entity.bounding_radius_m);
}

FrameParts::FrameParts(const AnimationSettings& settings, const Aabb& box, std::uint64_t seed,
                       const GazeEnvironment& environment)
    : scheduler(make_scheduler(settings.schedule, seed)),
      view(settings.perception.view, box),
      perception_model(settings.perception.model),
      blind_model(perception_model.without_eccentricity()),
      gaze(settings.gaze, settings.perception.view.screen, seed, environment),
      response(settings.response, box, settings.world.time_step_s),
      meter(settings.ground_truth),
      evaluation(settings.evaluate, settings.schedule, seed),
      pool(std::make_unique<ThreadPool>(settings.threads)) {
  narrowphase.set_settings(settings.narrowphase);
  // The screen's centre until the first step asks the gaze.
  last_gaze.x_px = 0.5 * settings.perception.view.screen.width_px;
  last_gaze.y_px = 0.5 * settings.perception.view.screen.height_px;
  last_gaze.source = "centre";
  last_gaze.tracked_x_px = last_gaze.landing_x_px = last_gaze.x_px;
  last_gaze.tracked_y_px = last_gaze.landing_y_px = last_gaze.y_px;
  for (const EvaluatedTreeSettings& trees : settings.evaluate.trees) {
    auto t = std::make_unique<TreeEvaluation>(TreeEvaluation{
        trees, evaluated_tree_name(trees), NarrowPhase{}, CounterfactualEvaluation(settings.evaluate, settings.schedule, seed)});
    t->narrowphase.set_settings(settings.narrowphase);
    tree_evaluations.push_back(std::move(t));
  }
}

}  // namespace fovea
