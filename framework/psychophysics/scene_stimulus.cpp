#include "psychophysics/scene_stimulus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/rng.hpp"
#include "psychophysics/stimulus.hpp"
#include "world/model_generators.hpp"

namespace fovea {
namespace {

constexpr double kToRad = std::numbers::pi / 180.0;

/// Streams of trial_direction's purpose above the design's (which use indices below 2^40):
/// the rocks' shapes, and each trial's distractors.
constexpr std::uint64_t kRockShapes = std::uint64_t{2} << 40;
constexpr std::uint64_t kSceneTrial = std::uint64_t{3} << 40;

/// The voxels a silhouette is made of: those with an empty face neighbour.
std::vector<IVec3> surface_voxels(const VoxelModel& model) {
  std::vector<IVec3> out;
  model.for_each_occupied([&](int x, int y, int z) {
    if (!model.occupied(x - 1, y, z) || !model.occupied(x + 1, y, z) || !model.occupied(x, y - 1, z) ||
        !model.occupied(x, y + 1, z) || !model.occupied(x, y, z - 1) || !model.occupied(x, y, z + 1))
      out.push_back(IVec3(x, y, z));
  });
  return out;
}

struct LineFrame {
  double fx, fy;  ///< fixation, pixels
  double ux, uy;  ///< along the line, unit
};

/// The silhouette's crossing of the line, over the given voxels (silhouette_on_line).
bool crossing(const ScenePlan& plan, const VoxelModel& model, const std::vector<IVec3>& voxels, const Vec3& centre_m,
              const Quat& orientation, const LineFrame& line, double& t_min, double& t_max) {
  const Mat3 rotation = glm::mat3_cast(orientation);
  const Vec3 origin = centre_m - rotation * scene_model_centre_m(model);
  const double s = model.voxel_size_m();
  const Vec3 ex = rotation[0] * s, ey = rotation[1] * s, ez = rotation[2] * s;
  t_min = std::numeric_limits<double>::infinity();
  t_max = -std::numeric_limits<double>::infinity();
  double along[8], across[8];
  for (const IVec3& v : voxels) {
    const Vec3 corner0 = origin + ex * double(v.x) + ey * double(v.y) + ez * double(v.z);
    bool in_front = true;
    for (int c = 0; c < 8; ++c) {
      const Vec3 p = corner0 + ((c & 1) ? ex : Vec3(0.0)) + ((c & 2) ? ey : Vec3(0.0)) + ((c & 4) ? ez : Vec3(0.0));
      double x = 0, y = 0;
      in_front = in_front && project_to_screen(plan, p, x, y);
      const double dx = x - line.fx, dy = y - line.fy;
      along[c] = dx * line.ux + dy * line.uy;
      across[c] = line.ux * dy - line.uy * dx;
    }
    if (!in_front) continue;
    for (int i = 0; i < 8; ++i) {
      if (across[i] == 0) {
        t_min = std::min(t_min, along[i]);
        t_max = std::max(t_max, along[i]);
      }
      for (int j = 0; j < 8; ++j)
        if (across[i] < 0 && across[j] > 0) {
          const double t = along[i] + (along[j] - along[i]) * (-across[i] / (across[j] - across[i]));
          t_min = std::min(t_min, t);
          t_max = std::max(t_max, t);
        }
    }
  }
  return t_min <= t_max;
}

/// A uniformly random rotation (K. Shoemake, 1992, "Uniform random rotations", Graphics Gems III).
Quat random_rotation(Rng& rng) {
  const double u1 = rng.uniform(), u2 = rng.uniform(0.0, 2 * std::numbers::pi), u3 = rng.uniform(0.0, 2 * std::numbers::pi);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return glm::normalize(Quat(a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)));
}

/// A rock's screen circle at one time: its centre's projection and a radius that holds the
/// projection of its bounding sphere (the sphere's angular radius, stretched by the flat
/// screen as the disc's sizes are: sec^2 of the centre's angle off the line of sight).
struct Circle {
  double x = 0, y = 0, r = 0;
  bool in_front = false;
};

Circle circle_of(const ScenePlan& plan, const Vec3& centre_m, double radius_m) {
  Circle c;
  const double depth = -centre_m.z;
  c.in_front = depth > radius_m && project_to_screen(plan, centre_m, c.x, c.y);
  if (!c.in_front) return c;
  const double off_axis2 = (centre_m.x * centre_m.x + centre_m.y * centre_m.y) / (depth * depth);
  c.r = plan.focal_px * radius_m / (depth - radius_m) * (1 + off_axis2) * 1.05;
  return c;
}

/// The viewer's eye as the plan's camera: at the origin, looking down -z, a pinhole whose
/// focal length puts each point on the screen pixel on its ray from the eye.
void set_eye_camera(const ScreenSettings& screen, ScenePlan& plan) {
  plan.view.screen = screen;
  plan.focal_px = screen.viewing_distance_cm * screen.width_px / screen.width_cm;
  CameraSettings& camera = plan.view.camera;
  camera.frame_box = false;
  camera.position_m = Vec3(0.0);
  camera.target_m = Vec3(0, 0, -1);
  camera.up = Vec3(0, 1, 0);
  // View's focal length is 0.5 height / tan(fov / 2): this fov makes it focal_px.
  camera.vertical_fov_deg = 2 * std::atan(0.5 * screen.height_px / plan.focal_px) / kToRad;
}

/// Where the target pair meets, eye frame: the target plane is z = -depth_m, the target
/// point on the ray through the screen point at the target's eccentricity, and the pair moves
/// along `radial`, the screen-parallel radial direction in that plane (so each point's image
/// moves along the radius by focal * shift / depth).
struct TargetGeometry {
  double depth_m = 0;
  Vec3 target_m{0.0};
  Vec3 radial{0.0};
  double speed_mps = 0;  ///< the stimulus's angular speed at the target plane's depth
  LineFrame line{};      ///< the screen line from the fixation along the target's direction
};

/// The pair: each rock at its collision pose, shifted along the radial direction (bisection:
/// the crossing moves monotonically with the shift) until its facing edge is where
/// place_on_screen puts the gap's end; then moving towards it until collision_time_s and
/// bouncing back. Appends paths[0] (inner) and paths[1] (outer).
void pose_target_pair(const ExperimentSettings& spec, const std::vector<VoxelModel>& models, const TargetGeometry& at,
                      double gap_deg, double bounding_m, Rng& rng, ScenePlan& plan) {
  const StimulusSettings& s = spec.stimulus;
  const int variants = static_cast<int>(models.size());
  for (int k = 0; k < 2; ++k) {
    ScenePath p;
    p.model = k % variants;
    p.orientation0 = random_rotation(rng);
    const VoxelModel& model = models[static_cast<std::size_t>(p.model)];
    const std::vector<IVec3> voxels = surface_voxels(model);
    const double sign = k == 0 ? -1.0 : 1.0;  // inner rock inwards of the target, outer outwards
    const double goal = k == 0 ? plan.inner_edge_px : plan.outer_edge_px;
    // The facing edge, pixels along the line, with the rock's centre at target + sign * shift * d.
    const auto facing_edge = [&](double shift) {
      double lo = 0, hi = 0;
      crossing(plan, model, voxels, at.target_m + sign * shift * at.radial, p.orientation0, at.line, lo, hi);
      return k == 0 ? hi : lo;
    };
    // At shift 0 the centre (inside the star-shaped rock) is on the target: the facing edge
    // is beyond it, past the goal. Far enough out it is short of the goal.
    double near_shift = 0, far_shift = 2 * bounding_m + std::abs(gap_deg * kToRad) * 2 * at.depth_m;
    while (sign * (facing_edge(far_shift) - goal) < 0 && far_shift < 1e3) far_shift *= 2;
    for (int step = 0; step < 80; ++step) {
      const double mid = 0.5 * (near_shift + far_shift);
      (sign * (facing_edge(mid) - goal) < 0 ? near_shift : far_shift) = mid;
    }
    const Vec3 at_collision = at.target_m + sign * 0.5 * (near_shift + far_shift) * at.radial;
    p.velocity_mps = -sign * at.speed_mps * at.radial;
    p.position0_m = at_collision - p.velocity_mps * s.collision_time_s;
    p.bounce_time_s = s.collision_time_s;
    plan.paths.push_back(p);
  }
}

/// Path `i`'s screen circles, every 5 ms of the stimulus.
std::vector<Circle> circles_of(const ScenePlan& plan, std::size_t i, double duration_s, double bounding_m) {
  const int samples = static_cast<int>(std::floor(duration_s / 0.005)) + 1;
  std::vector<Circle> out(static_cast<std::size_t>(samples));
  for (int n = 0; n < samples; ++n) {
    Vec3 position;
    Quat q;
    scene_pose(plan, i, std::min(n * 0.005, duration_s), position, q);
    out[static_cast<std::size_t>(n)] = circle_of(plan, position, bounding_m);
  }
  return out;
}

/// Distractors: straight runs in the screen-parallel plane of a seeded depth, each turning
/// about a seeded axis, kept apart from everything as the discs' are: on the screen, off the
/// cross, and a rock's size from every other's circle throughout. Appended after the pair.
/// Throws std::runtime_error when one finds no place in 2,000 tries.
void place_distractors(const ExperimentSettings& spec, const PlannedTrial& trial, const TargetGeometry& at,
                       double bounding_m, int variants, Rng& rng, ScenePlan& plan) {
  const ScreenSettings& screen = spec.screen;
  const StimulusSettings& s = spec.stimulus;
  const SceneStimulusSettings& sc = s.scene;
  const double fix_x = at.line.fx, fix_y = at.line.fy;
  std::vector<std::vector<Circle>> circles{circles_of(plan, 0, s.duration_s, bounding_m),
                                           circles_of(plan, 1, s.duration_s, bounding_m)};
  const double rock_px = plan.focal_px * scene_rock_size_m(spec) / at.depth_m;
  const double cross_px = 0.5 * s.fixation_size_deg * radial_px_per_deg(screen, 0) + rock_px;
  for (int n = 2; n < s.entities; ++n) {
    bool placed = false;
    for (int attempt = 0; attempt < 2000 && !placed; ++attempt) {
      ScenePath p;
      p.model = n % variants;
      const double z = at.depth_m * std::exp(rng.uniform(-1.0, 1.0) * std::log(sc.depth_spread));
      const double x0 = rng.uniform(0.0, screen.width_px), y0 = rng.uniform(0.0, screen.height_px);
      p.position0_m = Vec3((x0 - fix_x) / plan.focal_px * z, -(y0 - fix_y) / plan.focal_px * z, -z);
      const double a = rng.uniform(0.0, 2 * std::numbers::pi);
      p.velocity_mps = Vec3(std::cos(a), std::sin(a), 0.0) * (s.speed_degps * kToRad * z);
      p.orientation0 = random_rotation(rng);
      p.angular_velocity_radps = rng.unit_vector() * (sc.tumble_degps * kToRad);
      plan.paths.push_back(p);
      const std::vector<Circle> mine = circles_of(plan, plan.paths.size() - 1, s.duration_s, bounding_m);
      bool clear = true;
      for (std::size_t t = 0; t < mine.size() && clear; ++t) {
        const Circle& c = mine[t];
        clear = c.in_front && c.x - c.r >= 0 && c.x + c.r <= screen.width_px && c.y - c.r >= 0 &&
                c.y + c.r <= screen.height_px && std::hypot(c.x - fix_x, c.y - fix_y) > cross_px + c.r;
        for (std::size_t other = 0; other < circles.size() && clear; ++other) {
          const Circle& o = circles[other][t];
          clear = std::hypot(c.x - o.x, c.y - o.y) > c.r + o.r + rock_px;
        }
      }
      if (clear) {
        circles.push_back(mine);
        placed = true;
      } else {
        plan.paths.pop_back();
      }
    }
    if (!placed)
      throw std::runtime_error("scene stimulus: cannot place " + std::to_string(s.entities) + " rocks of " +
                               std::to_string(s.entity_size_deg) + " deg apart on this screen for trial " +
                               std::to_string(trial.trial) + "; use fewer stimulus.entities or smaller ones");
  }
}

}  // namespace

double scene_depth_m(const ExperimentSettings& spec) {
  const double cm = spec.stimulus.scene.depth_cm > 0 ? spec.stimulus.scene.depth_cm : spec.screen.viewing_distance_cm;
  return cm / 100.0;
}

double scene_rock_size_m(const ExperimentSettings& spec) {
  return 2 * scene_depth_m(spec) * std::tan(0.5 * spec.stimulus.entity_size_deg * kToRad);
}

std::vector<VoxelModel> scene_rock_models(const ExperimentSettings& spec) {
  const SceneStimulusSettings& s = spec.stimulus.scene;
  const double voxel_m = scene_rock_size_m(spec) / s.voxels;
  std::vector<VoxelModel> models;
  for (int v = 0; v < s.rock_variants; ++v) {
    Rng rng(static_cast<std::uint64_t>(spec.seed), rng_stream(RngStream::trial_direction, kRockShapes | static_cast<std::uint64_t>(v)));
    models.push_back(make_rock(IVec3(s.voxels), voxel_m, rng.next_u64()));
  }
  return models;
}

bool project_to_screen(const ScenePlan& plan, const Vec3& eye_m, double& x_px, double& y_px) {
  const double depth = -eye_m.z;
  if (!(depth > 1e-9)) return false;
  x_px = 0.5 * plan.view.screen.width_px + plan.focal_px * eye_m.x / depth;
  y_px = 0.5 * plan.view.screen.height_px - plan.focal_px * eye_m.y / depth;
  return true;
}

void scene_pose(const ScenePlan& plan, std::size_t i, double t_s, Vec3& position_m, Quat& orientation) {
  const ScenePath& p = plan.paths[i];
  const double t = p.bounce_time_s >= 0 && t_s > p.bounce_time_s ? 2 * p.bounce_time_s - t_s : t_s;
  position_m = p.position0_m + p.velocity_mps * t;
  const double spin = glm::length(p.angular_velocity_radps);
  orientation = spin > 0 ? glm::normalize(glm::angleAxis(spin * t_s, p.angular_velocity_radps / spin) * p.orientation0)
                         : p.orientation0;
}

bool silhouette_on_line(const ScenePlan& plan, const VoxelModel& model, const Vec3& centre_m, const Quat& orientation,
                        double fixation_x_px, double fixation_y_px, double& t_min, double& t_max) {
  return crossing(plan, model, surface_voxels(model), centre_m, orientation,
                  {fixation_x_px, fixation_y_px, plan.direction_x, plan.direction_y}, t_min, t_max);
}

ScenePlan plan_scene(const ExperimentSettings& spec, const PlannedTrial& trial, std::uint64_t seed,
                     const std::vector<VoxelModel>& models) {
  const ScreenSettings& screen = spec.screen;
  const StimulusSettings& s = spec.stimulus;
  ScenePlan plan;
  set_eye_camera(screen, plan);

  const double fix_x = 0.5 * screen.width_px, fix_y = 0.5 * screen.height_px;
  const double e = trial.condition.eccentricity_deg, g = shown_gap_deg(trial.condition);
  const double theta = stimulus_direction_deg(s.directions, trial.direction_deg) * kToRad;
  plan.direction_x = std::cos(theta);
  plan.direction_y = -std::sin(theta);
  const ScreenPlacement placed = place_on_screen(screen, e, g);
  const double inner_edge = place_on_screen(screen, e - 0.5 * g, 0).eccentricity_px;
  plan.inner_edge_px = inner_edge;
  plan.outer_edge_px = inner_edge + placed.gap_px;

  TargetGeometry at;
  at.depth_m = scene_depth_m(spec);
  const double depth = at.depth_m;
  const double ecc_px = placed.eccentricity_px;
  at.target_m = Vec3(ecc_px * plan.direction_x / plan.focal_px * depth, -ecc_px * plan.direction_y / plan.focal_px * depth,
                     -depth);
  at.radial = Vec3(plan.direction_x, -plan.direction_y, 0.0);
  at.speed_mps = s.speed_degps * kToRad * depth;
  at.line = LineFrame{fix_x, fix_y, plan.direction_x, plan.direction_y};

  Rng rng(seed, rng_stream(RngStream::trial_direction, kSceneTrial | static_cast<std::uint64_t>(trial.trial)));
  if (models.empty()) throw std::invalid_argument("plan_scene: no rock models to pose");
  const double bounding_m = 0.5 * std::sqrt(3.0) * scene_rock_size_m(spec);
  pose_target_pair(spec, models, at, g, bounding_m, rng, plan);
  place_distractors(spec, trial, at, bounding_m, static_cast<int>(models.size()), rng, plan);
  return plan;
}

}  // namespace fovea
