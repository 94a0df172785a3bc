#include "psychophysics/stimulus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.hpp"

namespace fovea {
namespace {

constexpr double kToRad = std::numbers::pi / 180.0;

double px_per_cm(const ScreenSettings& screen) { return screen.width_px / screen.width_cm; }

/// Screen distance from the centre, pixels, of a point `angle_deg` from the line of sight
/// (signed: negative is the other side of fixation).
double radius_px(const ScreenSettings& screen, double angle_deg) {
  return screen.viewing_distance_cm * std::tan(angle_deg * kToRad) * px_per_cm(screen);
}

/// The smallest distance between two entities' centres over the presentation, sampled
/// every 5 ms (runs are straight, so this is exact to a fraction of a pixel at these speeds).
double closest_approach_px(const StimulusPlan& plan, std::size_t a, std::size_t b) {
  double closest = std::numeric_limits<double>::infinity();
  for (double t = 0; t <= plan.duration_s + 1e-12; t += 0.005) {
    double ax = 0, ay = 0, bx = 0, by = 0;
    stimulus_position(plan, a, t, ax, ay);
    stimulus_position(plan, b, t, bx, by);
    closest = std::min(closest, std::hypot(ax - bx, ay - by));
  }
  return closest;
}

}  // namespace

std::vector<CrossSegment> fixation_cross_segments(double centre_x_px, double centre_y_px, double half_px,
                                                  double clear_x_px, double clear_y_px, double clear_radius_px,
                                                  double line_half_width_px) {
  std::vector<CrossSegment> pieces;
  const double r = clear_radius_px > 0 ? clear_radius_px + line_half_width_px : 0;
  // Each arm is a segment along one axis: the disc cuts the interval of that axis where the
  // line through the arm lies inside it.
  for (const bool horizontal : {true, false}) {
    const double along_centre = horizontal ? centre_x_px : centre_y_px;
    const double across_offset = horizontal ? centre_y_px - clear_y_px : centre_x_px - clear_x_px;
    const double along_clear = horizontal ? clear_x_px : clear_y_px;
    const double lo = along_centre - half_px, hi = along_centre + half_px;
    std::vector<std::pair<double, double>> kept;
    if (r > 0 && std::abs(across_offset) < r) {
      const double half_chord = std::sqrt(r * r - across_offset * across_offset);
      const double cut_lo = along_clear - half_chord, cut_hi = along_clear + half_chord;
      if (cut_lo > lo) kept.emplace_back(lo, std::min(cut_lo, hi));
      if (cut_hi < hi) kept.emplace_back(std::max(cut_hi, lo), hi);
    } else {
      kept.emplace_back(lo, hi);
    }
    for (const auto& [a, b] : kept) {
      if (!(b > a)) continue;
      pieces.push_back(horizontal ? CrossSegment{a, centre_y_px, b, centre_y_px} : CrossSegment{centre_x_px, a, centre_x_px, b});
    }
  }
  return pieces;
}

ScreenPlacement place_on_screen(const ScreenSettings& screen, double eccentricity_deg, double gap_deg) {
  // The gap's ends are at e -+ g/2 along the radius (on either side of fixation when g/2 > e),
  // where plan_stimulus puts the target pair's facing edges.
  ScreenPlacement p;
  p.eccentricity_px = radius_px(screen, eccentricity_deg);
  p.gap_px = radius_px(screen, eccentricity_deg + 0.5 * gap_deg) - radius_px(screen, eccentricity_deg - 0.5 * gap_deg);
  return p;
}

double radial_px_per_deg(const ScreenSettings& screen, double eccentricity_deg) {
  const double c = std::cos(eccentricity_deg * kToRad);
  return screen.viewing_distance_cm / (c * c) * kToRad * px_per_cm(screen);
}

void stimulus_position(const StimulusPlan& plan, std::size_t i, double t_s, double& x_px, double& y_px) {
  const StimulusPath& p = plan.paths[i];
  // A bounce sends the entity back the way it came: its position mirrors in time.
  const double t = p.bounce_time_s >= 0 && t_s > p.bounce_time_s ? 2 * p.bounce_time_s - t_s : t_s;
  x_px = p.x0_px + p.vx_pxps * t;
  y_px = p.y0_px + p.vy_pxps * t;
}

double stimulus_direction_deg(StimulusDirections directions, double design_direction_deg) {
  if (directions == StimulusDirections::any) return design_direction_deg;
  const double d = std::fmod(std::fmod(design_direction_deg, 360.0) + 360.0, 360.0);
  return d >= 90 && d < 270 ? 180.0 : 0.0;
}

StimulusPlan plan_stimulus(const ExperimentSettings& spec, const PlannedTrial& trial, std::uint64_t seed) {
  const ScreenSettings& screen = spec.screen;
  const StimulusSettings& s = spec.stimulus;
  StimulusPlan plan;
  plan.kind = s.kind;
  plan.duration_s = s.duration_s;
  plan.collision_time_s = s.collision_time_s;
  plan.fixation_x_px = 0.5 * screen.width_px;
  plan.fixation_y_px = 0.5 * screen.height_px;
  if (s.kind == StimulusKind::scene) {
    plan.scene = plan_scene(spec, trial, seed, scene_rock_models(spec));
    const double r = 0.5 * (plan.scene.inner_edge_px + plan.scene.outer_edge_px);
    plan.target_x_px = plan.fixation_x_px + plan.scene.direction_x * r;
    plan.target_y_px = plan.fixation_y_px + plan.scene.direction_y * r;
    const double rock_px = plan.scene.focal_px * scene_rock_size_m(spec) / scene_depth_m(spec);
    plan.keep_clear_radius_px = 0.5 * std::abs(plan.scene.outer_edge_px - plan.scene.inner_edge_px) + rock_px;
    return plan;
  }

  // The target pair on the radius through the target point, direction counter-clockwise
  // from the right (the screen's y grows downwards).
  const double e = trial.condition.eccentricity_deg;
  const double g = shown_gap_deg(trial.condition);
  const double theta = stimulus_direction_deg(s.directions, trial.direction_deg) * kToRad;
  const double ux = std::cos(theta), uy = -std::sin(theta);
  const double px_per_deg = radial_px_per_deg(screen, e);
  const double diameter_px = s.entity_size_deg * px_per_deg;
  const double speed_pxps = s.speed_degps * px_per_deg;
  // Facing edges at e -+ g/2 along the radius; centres half a diameter beyond them.
  const double inner_edge = radius_px(screen, e - 0.5 * g), outer_edge = radius_px(screen, e + 0.5 * g);
  const double inner_centre = inner_edge - 0.5 * diameter_px, outer_centre = outer_edge + 0.5 * diameter_px;
  const double centre = radius_px(screen, e);
  plan.target_x_px = plan.fixation_x_px + ux * centre;
  plan.target_y_px = plan.fixation_y_px + uy * centre;
  plan.keep_clear_radius_px = 0.5 * (outer_edge - inner_edge) + diameter_px;
  for (const auto& [r_px, sign] : {std::pair{inner_centre, -1.0}, std::pair{outer_centre, 1.0}}) {
    StimulusPath p;
    // At the collision the entity is at r_px; before it, it was farther out along its side.
    const double r0 = r_px + sign * speed_pxps * s.collision_time_s;
    p.x0_px = plan.fixation_x_px + ux * r0;
    p.y0_px = plan.fixation_y_px + uy * r0;
    p.vx_pxps = -sign * ux * speed_pxps;
    p.vy_pxps = -sign * uy * speed_pxps;
    p.bounce_time_s = s.collision_time_s;
    p.diameter_px = diameter_px;
    plan.paths.push_back(p);
  }

  // Distractors: straight runs at the same speed in seeded directions, kept on the screen,
  // off the fixation cross and more than a diameter from every other entity throughout.
  Rng rng(seed, rng_stream(RngStream::trial_direction, (std::uint64_t{1} << 40) | static_cast<std::uint64_t>(trial.trial)));
  const double margin_px = diameter_px;
  const double cross_px = 0.5 * s.fixation_size_deg * radial_px_per_deg(screen, 0) + diameter_px;
  for (int n = 2; n < s.entities; ++n) {
    bool placed = false;
    for (int attempt = 0; attempt < 2000 && !placed; ++attempt) {
      StimulusPath p;
      p.diameter_px = diameter_px;
      p.x0_px = rng.uniform(margin_px, screen.width_px - margin_px);
      p.y0_px = rng.uniform(margin_px, screen.height_px - margin_px);
      const double a = rng.uniform(0.0, 2 * std::numbers::pi);
      p.vx_pxps = std::cos(a) * speed_pxps;
      p.vy_pxps = std::sin(a) * speed_pxps;
      const double x1 = p.x0_px + p.vx_pxps * s.duration_s, y1 = p.y0_px + p.vy_pxps * s.duration_s;
      if (x1 < margin_px || x1 > screen.width_px - margin_px || y1 < margin_px || y1 > screen.height_px - margin_px) continue;
      plan.paths.push_back(p);
      const std::size_t me = plan.paths.size() - 1;
      bool clear = true;
      for (std::size_t other = 0; other < me && clear; ++other)
        clear = closest_approach_px(plan, me, other) > 2 * diameter_px;
      // The cross: the run's closest point to the fixation (straight runs).
      const double fx = plan.fixation_x_px - p.x0_px, fy = plan.fixation_y_px - p.y0_px;
      const double along = std::clamp((fx * p.vx_pxps + fy * p.vy_pxps) / (speed_pxps * speed_pxps + 1e-300), 0.0, s.duration_s);
      clear = clear && std::hypot(p.x0_px + p.vx_pxps * along - plan.fixation_x_px, p.y0_px + p.vy_pxps * along - plan.fixation_y_px) > cross_px;
      if (clear) placed = true;
      else plan.paths.pop_back();
    }
    if (!placed)
      throw std::runtime_error("stimulus: cannot place " + std::to_string(s.entities) + " entities of " +
                               std::to_string(s.entity_size_deg) + " deg apart on this screen for trial " +
                               std::to_string(trial.trial) + "; use fewer stimulus.entities or smaller ones");
  }
  return plan;
}

std::vector<int> presented_intervals(const ExperimentSettings& spec) {
  if (spec.task.kind == TaskKind::two_interval) return {1, 2};
  return {0};
}

StimulusPlan plan_interval(const ExperimentSettings& spec, const PlannedTrial& trial, int interval, std::uint64_t seed) {
  if (interval == 0 && trial.gap_interval == 0) return plan_stimulus(spec, trial, seed);
  if (trial.gap_interval == 0 || (interval != 1 && interval != 2))
    throw std::invalid_argument("plan_interval: trial " + std::to_string(trial.trial) + " has no interval " +
                                std::to_string(interval) + " (gap_interval " + std::to_string(trial.gap_interval) + ")");
  PlannedTrial shown = trial;
  if (interval != trial.gap_interval) {
    shown.condition.catch_trial = true;  // the pair touches: shown_gap_deg is 0
    shown.direction_deg = trial.other_direction_deg;
  }
  // The golden ratio's bits: interval 2's distractors from another stream than interval 1's.
  constexpr std::uint64_t kSecondIntervalSeed = 0x9E3779B97F4A7C15ull;
  return plan_stimulus(spec, shown, interval == 1 ? seed : seed ^ kSecondIntervalSeed);
}

}  // namespace fovea
