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
  // Draws in a fixed order (duration, target x, target y), so a seed names one scan path.
  from_x_px_ = x_px;
  from_y_px_ = y_px;
  fixation_start_s_ = start_s;
  saccade_start_s_ = start_s + draw_fixation_s();
  const double w = screen_.width_px, h = screen_.height_px, m = settings_.margin;
  to_x_px_ = rng_.uniform(m * w, (1 - m) * w);
  to_y_px_ = rng_.uniform(m * h, (1 - m) * h);
  const double amplitude_deg = screen_visual_angle_deg(screen_, from_x_px_, from_y_px_, to_x_px_, to_y_px_);
  saccade_end_s_ = saccade_start_s_ + 1e-3 * (kSaccadeBase_ms + kSaccadeSlope_ms_per_deg * amplitude_deg);
}

GazeSample ScriptedGaze::sample(double now_s) {
  GazeSample g;
  g.time_s = now_s;
  if (!std::isfinite(now_s)) return g;  // invalid: no time, no fixation
  if (now_s < fixation_start_s_) restart();
  while (now_s >= saccade_end_s_) begin_fixation(saccade_end_s_, to_x_px_, to_y_px_);

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
