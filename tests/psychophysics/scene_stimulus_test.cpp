// The scene stimulus's plan (psychophysics/scene_stimulus.hpp): the exact silhouette crossing
// against a ray-cast oracle, the target pair's gap at the collision against the screen's
// geometry, the gap never smaller before or after, distractors apart, and determinism.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "config/config.hpp"
#include "psychophysics/scene_stimulus.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/stimulus.hpp"

using namespace fovea;

namespace {

const std::string kScene = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/scene_gap_eccentricity.yaml";

/// Whether the ray from the eye through screen point (x_px, y_px) hits a voxel of the posed
/// rock: the slab test against every occupied voxel's box, in model space. The slow, obvious
/// way to the silhouette.
bool ray_hits(const ScenePlan& plan, const VoxelModel& model, const Vec3& centre_m, const Quat& orientation, double x_px,
              double y_px) {
  const double depth = 1.0;
  const Vec3 direction_eye((x_px - 0.5 * plan.view.screen.width_px) / plan.focal_px * depth,
                           -(y_px - 0.5 * plan.view.screen.height_px) / plan.focal_px * depth, -depth);
  // To model space: p_model = R^T (p_eye - centre) + model centre.
  const Quat inverse = glm::inverse(orientation);
  const Vec3 origin = inverse * (Vec3(0.0) - centre_m) + scene_model_centre_m(model);
  const Vec3 dir = inverse * direction_eye;
  const double s = model.voxel_size_m();
  bool hit = false;
  model.for_each_occupied([&](int x, int y, int z) {
    if (hit) return;
    double enter = 0, leave = std::numeric_limits<double>::infinity();
    const double lo[3] = {x * s, y * s, z * s};
    for (int k = 0; k < 3; ++k) {
      if (std::abs(dir[k]) < 1e-300) {
        if (origin[k] < lo[k] || origin[k] > lo[k] + s) return;
        continue;
      }
      double a = (lo[k] - origin[k]) / dir[k], b = (lo[k] + s - origin[k]) / dir[k];
      if (a > b) std::swap(a, b);
      enter = std::max(enter, a);
      leave = std::min(leave, b);
    }
    hit = enter <= leave;
  });
  return hit;
}

PlannedTrial trial_at(int index, double e, double g, double direction_deg) {
  PlannedTrial t;
  t.trial = index;
  t.condition.eccentricity_deg = e;
  t.condition.gap_deg = g;
  t.condition.catch_trial = g == 0;
  t.direction_deg = direction_deg;
  return t;
}

}  // namespace

TEST_CASE("Scene stimulus: the exact silhouette crossing agrees with ray casting through every voxel",
          "[psychophysics][stimulus][scene]") {
  ExperimentSettings spec = config::load_experiment_file(kScene).spec;
  spec.stimulus.scene.voxels = 8;  // the oracle visits every voxel per ray
  const std::vector<VoxelModel> models = scene_rock_models(spec);
  int checked = 0;
  for (const auto& [e, direction] : {std::pair{3.0, 0.0}, std::pair{12.0, 180.0}, std::pair{22.0, 0.0}}) {
    const ScenePlan plan = plan_scene(spec, trial_at(checked, e, 0.5, direction), 7, models);
    for (std::size_t i = 0; i < 2; ++i) {
      Vec3 centre;
      Quat q;
      scene_pose(plan, i, 0.6, centre, q);  // before the collision: any pose will do
      const VoxelModel& model = models[static_cast<std::size_t>(plan.paths[i].model)];
      // A line a little off the fixation's row too: the crossing is exact on any line.
      for (const double y_offset : {0.0, 0.37}) {
        const double fx = 0.5 * spec.screen.width_px, fy = 0.5 * spec.screen.height_px + y_offset;
        double lo = 0, hi = 0;
        REQUIRE(silhouette_on_line(plan, model, centre, q, fx, fy, lo, hi));
        // Ray-cast along the line in steps of 1/64 pixel around each end.
        const auto hits = [&](double t) { return ray_hits(plan, model, centre, q, fx + plan.direction_x * t, fy + plan.direction_y * t); };
        const double step = 1.0 / 64;
        CHECK(hits(lo + step));
        CHECK_FALSE(hits(lo - step));
        CHECK(hits(hi - step));
        CHECK_FALSE(hits(hi + step));
        // Nothing of the rock before lo or after hi, in coarser steps out to 10 pixels.
        bool outside = false;
        for (double t = step; t < 10; t += 0.25) outside = outside || hits(lo - t) || hits(hi + t);
        CHECK_FALSE(outside);
        ++checked;
      }
    }
  }
  CHECK(checked == 12);
}

TEST_CASE("Scene stimulus: at the collision the rocks' silhouettes on the radius are the trial's gap apart, never closer",
          "[psychophysics][stimulus][scene]") {
  const ExperimentSettings spec = config::load_experiment_file(kScene).spec;
  const std::vector<VoxelModel> models = scene_rock_models(spec);
  const double fx = 0.5 * spec.screen.width_px, fy = 0.5 * spec.screen.height_px;
  int index = 0;
  for (const double e : {0.0, 5.0, 15.0, 25.0})
    for (const double g : {0.0, 0.05, 0.5, 2.0})
      for (const double direction : {0.0, 180.0}) {
        const PlannedTrial trial = trial_at(index++, e, g, direction);
        const StimulusPlan s = plan_stimulus(spec, trial, 1);
        REQUIRE(s.kind == StimulusKind::scene);
        const ScenePlan& plan = s.scene;
        REQUIRE(plan.paths.size() == static_cast<std::size_t>(spec.stimulus.entities));
        const auto gap_at = [&](double t_s, double& inner, double& outer) {
          double lo = 0, hi = 0;
          Vec3 c;
          Quat q;
          scene_pose(plan, 0, t_s, c, q);
          REQUIRE(silhouette_on_line(plan, models[static_cast<std::size_t>(plan.paths[0].model)], c, q, fx, fy, lo, hi));
          inner = hi;
          scene_pose(plan, 1, t_s, c, q);
          REQUIRE(silhouette_on_line(plan, models[static_cast<std::size_t>(plan.paths[1].model)], c, q, fx, fy, lo, hi));
          outer = lo;
        };
        double inner = 0, outer = 0;
        gap_at(s.collision_time_s, inner, outer);
        // The ends where place_on_screen puts them: e -+ g/2 along the radius, in pixels.
        const ScreenPlacement at = place_on_screen(spec.screen, e, g);
        const double inner_goal = place_on_screen(spec.screen, e - 0.5 * g, 0).eccentricity_px;
        INFO("e " << e << ", g " << g << ", direction " << direction << ": " << inner << " to " << outer << " px, gap "
                  << at.gap_px << " px");
        CHECK(inner == Approx(inner_goal).margin(1e-6));
        CHECK(outer - inner == Approx(at.gap_px).margin(1e-6));
        // The gap in degrees at the eye, from the pixel ends.
        const auto angle = [&](double r_px) {
          return std::atan(r_px / (spec.screen.width_px / spec.screen.width_cm) / spec.screen.viewing_distance_cm) * 180 /
                 3.141592653589793;
        };
        CHECK(angle(outer) - angle(inner) == Approx(g).margin(1e-9));
        CHECK(0.5 * (angle(outer) + angle(inner)) == Approx(e).margin(0.5 * g * g + 1e-9));
        // Before and after, farther apart: the pair translates, so the collision is the closest.
        for (const double dt : {-0.3, -0.05, -0.005, 0.005, 0.05, 0.3}) {
          double i2 = 0, o2 = 0;
          gap_at(s.collision_time_s + dt, i2, o2);
          CHECK(o2 - i2 > outer - inner);
        }
      }
}

TEST_CASE("Scene stimulus: distractors stay on the screen, off the cross and apart, the same for one seed",
          "[psychophysics][stimulus][scene]") {
  const ExperimentSettings spec = config::load_experiment_file(kScene).spec;
  const std::vector<VoxelModel> models = scene_rock_models(spec);
  const double fx = 0.5 * spec.screen.width_px, fy = 0.5 * spec.screen.height_px;
  for (int index = 0; index < 6; ++index) {
    const PlannedTrial trial = trial_at(index, 5.0 * index, 0.4, index % 2 == 0 ? 0.0 : 180.0);
    const ScenePlan plan = plan_scene(spec, trial, 11, models);
    // Deterministic: the same trial and seed give the same poses, to the bit.
    const ScenePlan again = plan_scene(spec, trial, 11, models);
    REQUIRE(again.paths.size() == plan.paths.size());
    for (std::size_t i = 0; i < plan.paths.size(); ++i) {
      CHECK(again.paths[i].position0_m == plan.paths[i].position0_m);
      CHECK(again.paths[i].orientation0 == plan.paths[i].orientation0);
      CHECK(again.paths[i].angular_velocity_radps == plan.paths[i].angular_velocity_radps);
    }
    // Every voxel corner of every distractor, sampled every 10 ms: on the screen, and no
    // distractor's projected corners come within a rock's size of another rock's centre.
    for (double t = 0; t <= spec.stimulus.duration_s; t += 0.01) {
      std::vector<std::pair<double, double>> centres;
      for (std::size_t i = 0; i < plan.paths.size(); ++i) {
        Vec3 c;
        Quat q;
        scene_pose(plan, i, t, c, q);
        double x = 0, y = 0;
        REQUIRE(project_to_screen(plan, c, x, y));
        centres.emplace_back(x, y);
      }
      for (std::size_t i = 2; i < plan.paths.size(); ++i) {
        Vec3 c;
        Quat q;
        scene_pose(plan, i, t, c, q);
        const VoxelModel& model = models[static_cast<std::size_t>(plan.paths[i].model)];
        const Mat3 r = glm::mat3_cast(q);
        double nearest_other = std::numeric_limits<double>::infinity(), nearest_cross = nearest_other;
        bool on_screen = true;
        model.for_each_occupied([&](int x, int y, int z) {
          const Vec3 p = c + r * (model.voxel_centre_m(x, y, z) - scene_model_centre_m(model));
          double px = 0, py = 0;
          project_to_screen(plan, p, px, py);
          on_screen = on_screen && px >= 0 && px <= spec.screen.width_px && py >= 0 && py <= spec.screen.height_px;
          nearest_cross = std::min(nearest_cross, std::hypot(px - fx, py - fy));
          for (std::size_t j = 0; j < centres.size(); ++j)
            if (j != i) nearest_other = std::min(nearest_other, std::hypot(px - centres[j].first, py - centres[j].second));
        });
        INFO("trial " << index << ", rock " << i << ", t " << t);
        CHECK(on_screen);
        CHECK(nearest_cross > 0.5 * spec.stimulus.fixation_size_deg * radial_px_per_deg(spec.screen, 0));
        CHECK(nearest_other > plan.focal_px * scene_rock_size_m(spec) / scene_depth_m(spec));
      }
    }
  }
}

TEST_CASE("Scene stimulus: horizontal directions send each trial left or right, in the records and the picture",
          "[psychophysics][stimulus][scene]") {
  const ExperimentSettings spec = config::load_experiment_file(kScene).spec;
  REQUIRE(spec.stimulus.directions == StimulusDirections::horizontal);
  CHECK(stimulus_direction_deg(StimulusDirections::horizontal, 89.9) == 0);
  CHECK(stimulus_direction_deg(StimulusDirections::horizontal, 90) == 180);
  CHECK(stimulus_direction_deg(StimulusDirections::horizontal, 269.9) == 180);
  CHECK(stimulus_direction_deg(StimulusDirections::horizontal, 270) == 0);
  CHECK(stimulus_direction_deg(StimulusDirections::any, 123.5) == 123.5);
  TrialSequence sequence(spec, {});
  int left = 0, right = 0;
  for (int n = 0; n < 200; ++n) {
    const std::optional<PlannedTrial> t = sequence.next();
    REQUIRE(t);
    REQUIRE((t->direction_deg == 0 || t->direction_deg == 180));
    (t->direction_deg == 0 ? right : left) += 1;
    sequence.record(TrialResponse::yes);
  }
  CHECK(left > 70);
  CHECK(right > 70);
}
