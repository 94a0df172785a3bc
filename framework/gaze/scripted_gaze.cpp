#include "gaze/scripted_gaze.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/format.hpp"
#include "perception/view.hpp"

namespace fovea {

ScriptedGaze::ScriptedGaze(const ScriptedGazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed)
    : settings_(settings), screen_(screen), seed_(seed), rng_(seed, rng_stream(RngStream::gaze)) {
  if (!(std::isfinite(settings.fixation_mean_ms) && settings.fixation_mean_ms > 0))
    throw std::invalid_argument("gaze.scripted.fixation_mean_ms must be a finite number > 0, not " +
                                format_number(settings.fixation_mean_ms));
  if (!(std::isfinite(settings.fixation_sd_ms) && settings.fixation_sd_ms >= 0))
    throw std::invalid_argument("gaze.scripted.fixation_sd_ms must be a finite number >= 0, not " +
                                format_number(settings.fixation_sd_ms));
  if (!(settings.margin >= 0 && settings.margin < 0.5))
    throw std::invalid_argument("gaze.scripted.margin must be in [0, 0.5), not " + format_number(settings.margin));
  validate_screen(screen);

  // The log-normal whose mean and standard deviation are the settings': with
  // sigma^2 = ln(1 + sd^2 / mean^2) and mu = ln(mean) - sigma^2 / 2, exp(mu + sigma z) has
  // mean `mean` and variance mean^2 (exp(sigma^2) - 1) = sd^2.
  const double cv = settings.fixation_sd_ms / settings.fixation_mean_ms;
  const double log_var = std::log1p(cv * cv);
  log_sd_ = std::sqrt(log_var);
  log_mean_ = std::log(settings.fixation_mean_ms) - 0.5 * log_var;
  restart();
}

void ScriptedGaze::restart() {
  rng_ = Rng(seed_, rng_stream(RngStream::gaze));
  begin_fixation(0.0, 0.5 * screen_.width_px, 0.5 * screen_.height_px);
}

double ScriptedGaze::draw_fixation_s() {
  // Box-Muller: 1 - uniform() lies in (0, 1], so the log is finite. std::log, std::sqrt and
  // std::cos are correctly rounded or nearly so in glibc; rng.hpp explains the libm caveat.
  const double u1 = 1.0 - rng_.uniform();
  const double u2 = rng_.uniform();
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  return 1e-3 * std::exp(log_mean_ + log_sd_ * z);
}

void ScriptedGaze::begin_fixation(double start_s, double x_px, double y_px) {
  // Draws in a fixed order (duration, then for `screen` target x and target y), so a seed
  // names one scan path. Watching the scene, the target waits for the saccade's start.
  from_x_px_ = x_px;
  from_y_px_ = y_px;
  fixation_start_s_ = start_s;
  saccade_start_s_ = start_s + draw_fixation_s();
  saccade_planned_ = false;
  if (settings_.targets == ScriptedTargetKind::screen) {
    draw_screen_target();
    plan_saccade();
  }
}

void ScriptedGaze::draw_screen_target() {
  const double w = screen_.width_px, h = screen_.height_px, m = settings_.margin;
  to_x_px_ = rng_.uniform(m * w, (1 - m) * w);
  to_y_px_ = rng_.uniform(m * h, (1 - m) * h);
}

void ScriptedGaze::choose_scene_target() {
  if (scene_targets_.empty()) {
    draw_screen_target();
  } else {
    double total_weight = 0;
    for (const GazeTarget& t : scene_targets_) total_weight += t.weight;
    std::size_t chosen = 0;
    if (total_weight > 0) {
      // One uniform draw picks the first target whose running sum of weights passes it.
      // The running sum adds the positive weights in the order the total did, so it ends at
      // the total exactly; should rounding still leave u there, the last positive one wins.
      const double u = rng_.uniform() * total_weight;
      double running_weight = 0;
      for (std::size_t i = 0; i < scene_targets_.size(); ++i) {
        if (scene_targets_[i].weight <= 0) continue;
        chosen = i;
        running_weight += scene_targets_[i].weight;
        if (u < running_weight) break;
      }
    } else {
      chosen = static_cast<std::size_t>(rng_.below(scene_targets_.size()));  // all at rest: any of them
    }
    to_x_px_ = scene_targets_[chosen].x_px;
    to_y_px_ = scene_targets_[chosen].y_px;
  }
  plan_saccade();
}

void ScriptedGaze::plan_saccade() {
  const double amplitude_deg = screen_visual_angle_deg(screen_, from_x_px_, from_y_px_, to_x_px_, to_y_px_);
  saccade_end_s_ = saccade_start_s_ + 1e-3 * (kSaccadeBase_ms + kSaccadeSlope_ms_per_deg * amplitude_deg);
  saccade_planned_ = true;
}

SceneTargetKind ScriptedGaze::wants_scene_targets() const {
  switch (settings_.targets) {
    case ScriptedTargetKind::screen: return SceneTargetKind::none;
    case ScriptedTargetKind::entities: return SceneTargetKind::entities;
    case ScriptedTargetKind::collisions: return SceneTargetKind::collisions;
  }
  return SceneTargetKind::none;
}

void ScriptedGaze::set_scene_targets(std::span<const GazeTarget> targets) {
  // Reuses the vector's storage: no allocation per frame once it has held the largest scene.
  scene_targets_.clear();
  for (GazeTarget t : targets) {
    if (!(std::isfinite(t.x_px) && std::isfinite(t.y_px))) continue;
    if (!(std::isfinite(t.weight) && t.weight > 0)) t.weight = 0;
    scene_targets_.push_back(t);
  }
}

GazeSample ScriptedGaze::sample(double now_s) {
  GazeSample g;
  g.time_s = now_s;
  if (!std::isfinite(now_s)) return g;  // invalid: no time, no fixation
  if (now_s < fixation_start_s_) restart();
  for (;;) {
    if (!saccade_planned_ && now_s >= saccade_start_s_) choose_scene_target();
    if (!saccade_planned_ || now_s < saccade_end_s_) break;
    begin_fixation(saccade_end_s_, to_x_px_, to_y_px_);
  }

  g.valid = true;
  g.confidence = 1.0;
  if (now_s < saccade_start_s_) {
    g.x_px = from_x_px_;
    g.y_px = from_y_px_;
  } else {
    // Minimum-jerk profile along the straight line (Flash and Hogan 1985): zero velocity and
    // acceleration at both ends. Every point lies between the two fixation points, so inside
    // the margins whenever they are.
    const double s = (now_s - saccade_start_s_) / (saccade_end_s_ - saccade_start_s_);
    const double progress = s * s * s * (10.0 + s * (-15.0 + 6.0 * s));
    g.x_px = from_x_px_ + (to_x_px_ - from_x_px_) * progress;
    g.y_px = from_y_px_ + (to_y_px_ - from_y_px_) * progress;
  }
  return g;
}

}  // namespace fovea
