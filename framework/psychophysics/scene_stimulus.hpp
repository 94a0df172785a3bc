#pragma once

#include <cstdint>
#include <vector>

#include "core/math.hpp"
#include "perception/perception_settings.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "psychophysics/trial_design.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// One voxel rock's motion in a scene stimulus, in the viewer's eye frame: the eye at the
/// origin looking down -z, y up, metres (the screen's plane at z = -viewing distance).
struct ScenePath {
  int model = 0;                          ///< index into scene_rock_models(spec)
  Vec3 position0_m{0.0};                  ///< the model's grid centre at t = 0
  Vec3 velocity_mps{0.0};                 ///< eye axes, until bounce_time_s; reversed after it
  Quat orientation0{1.0, 0.0, 0.0, 0.0};  ///< model axes to eye axes at t = 0
  Vec3 angular_velocity_radps{0.0};       ///< tumbling, eye axes; 0 for the target pair
  double bounce_time_s = -1;              ///< from then on it moves back along its path; < 0: never
};

/// A scene stimulus (docs/psychophysics.md, "The stimulus"): voxel rocks in depth, seen in
/// perspective from the viewer's eye, drawn by render/'s SceneRenderer. paths[0] (inner) and
/// paths[1] (outer) are the target pair: they translate without turning along the screen's
/// radius through the target and bounce apart at collision_time_s, when their silhouettes'
/// facing edges on that radius are exactly at eccentricities e - g/2 and e + g/2 (the ends
/// place_on_screen gives, as the discs'). The others tumble on straight runs. Plain data.
struct ScenePlan {
  std::vector<ScenePath> paths;  ///< the target pair (inner, outer), then the distractors
  /// The viewer's eye as a camera: at the origin, looking down -z; a pinhole whose focal
  /// length is the screen's pixels per centimetre across times the viewing distance, so a
  /// point lands on the screen pixel on its ray from the eye (square pixels assumed).
  ViewSettings view;
  double focal_px = 0;  ///< the pinhole's focal length, px: viewing_distance_cm * width_px / width_cm
  /// The facing silhouette edges at the collision, signed pixels from fixation along the
  /// target's direction: what the pair's poses were solved for.
  double inner_edge_px = 0, outer_edge_px = 0;
  double direction_x = 1, direction_y = 0;  ///< the target's direction on screen, unit, y down
};

/// The rocks' common scale: the longest side of every model, metres (stimulus.entity_size_deg
/// at the target plane's depth on the line of sight).
double scene_rock_size_m(const ExperimentSettings& spec);
/// The depth of the target pair's plane, metres from the eye (stimulus.scene.depth_cm, or
/// the viewing distance when that is 0).
double scene_depth_m(const ExperimentSettings& spec);

/// The spec's rock models: stimulus.scene.rock_variants seeded rocks (world/model_generators'
/// make_rock, as the rockfall's), stimulus.scene.voxels voxels a side, scene_rock_size_m
/// across. Deterministic from the spec's seed.
std::vector<VoxelModel> scene_rock_models(const ExperimentSettings& spec);

/// The model-space point a path's position is: the grid's centre.
inline Vec3 scene_model_centre_m(const VoxelModel& model) { return 0.5 * model.extent_m(); }

/// The scene of `trial`, given `models` = scene_rock_models(spec): the target pair posed so
/// that the gap along the radius is the trial's (bisection on exact silhouettes), the
/// distractors placed as the discs' are: on the screen, off the cross, and the circles their
/// bounding spheres project to kept a rock's size apart from every other's throughout.
/// Throws std::runtime_error when the distractors do not fit.
ScenePlan plan_scene(const ExperimentSettings& spec, const PlannedTrial& trial, std::uint64_t seed,
                     const std::vector<VoxelModel>& models);

/// Where path `i` is at `t_s`: its grid centre and orientation, eye axes.
void scene_pose(const ScenePlan& plan, std::size_t i, double t_s, Vec3& position_m, Quat& orientation);

/// Projects an eye-frame point to screen pixels (top-left origin, y down) through the
/// plan's pinhole; false when not in front of the eye.
bool project_to_screen(const ScenePlan& plan, const Vec3& eye_m, double& x_px, double& y_px);

/// Where a posed rock's silhouette crosses the line from (fixation_x_px, fixation_y_px)
/// along the plan's target direction: [t_min, t_max], pixels along it, exactly. The
/// silhouette is the union of the projected voxel cubes, each a convex polygon (the hull of
/// its 8 projected corners), whose crossing runs between crossings of corner pairs on
/// opposite sides of the line. Only voxels with an empty face neighbour are visited (a ray
/// through an interior voxel leaves through one of them). False when it misses the line.
bool silhouette_on_line(const ScenePlan& plan, const VoxelModel& model, const Vec3& centre_m, const Quat& orientation,
                        double fixation_x_px, double fixation_y_px, double& t_min, double& t_max);

}  // namespace fovea
