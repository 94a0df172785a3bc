#include "gaze/gaze.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/format.hpp"
#include "core/setting_error.hpp"
#include "gaze/mouse_gaze.hpp"
#include "perception/view.hpp"

namespace fovea {
namespace {

void check_fallback(const GazeSettings& settings) {
  if (!(std::isfinite(settings.max_age_ms) && settings.max_age_ms >= 0))
    throw std::invalid_argument("gaze.max_age_ms must be a finite number >= 0, not " + format_number(settings.max_age_ms));
  if (!(std::isfinite(settings.fallback.hold_ms) && settings.fallback.hold_ms >= 0))
    throw std::invalid_argument("gaze.fallback.hold_ms must be a finite number >= 0, not " +
                                format_number(settings.fallback.hold_ms));
}

std::unique_ptr<GazeSource> make_fallback_mouse(const GazeSettings& settings, const ScreenSettings& screen,
                                                const GazeEnvironment& environment) {
  if (settings.fallback.then != GazeFallbackKind::mouse) return nullptr;
  if (environment.pointer == nullptr)
    throw SettingError("gaze.fallback.then",
                       "mouse reads the pointer of fovea's window, and this run has no window (it is headless); "
                       "use then: centre");
  return std::make_unique<MouseGaze>(*environment.pointer, screen);
}

}  // namespace

Gaze::Gaze(const GazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed,
           const GazeEnvironment& environment)
    : Gaze(make_gaze_source(settings, screen, seed, environment), gaze_source_name(settings.source), settings, screen,
           environment) {}

Gaze::Gaze(std::unique_ptr<GazeSource> source, const char* name, const GazeSettings& settings,
           const ScreenSettings& screen, const GazeEnvironment& environment)
    : settings_(settings), screen_(screen), environment_(environment), source_(std::move(source)), source_name_(name) {
  if (!source_) throw std::invalid_argument("Gaze needs a source");
  check_fallback(settings);
  validate_screen(screen);
  fallback_mouse_ = make_fallback_mouse(settings, screen, environment);
}

void Gaze::switch_source(const GazeSettings& settings, std::uint64_t seed) {
  check_fallback(settings);
  std::unique_ptr<GazeSource> source = make_gaze_source(settings, screen_, seed, environment_);
  std::unique_ptr<GazeSource> mouse = make_fallback_mouse(settings, screen_, environment_);
  settings_ = settings;
  source_ = std::move(source);
  source_name_ = gaze_source_name(settings.source);
  fallback_mouse_ = std::move(mouse);
  held_.reset();
}

FrameGaze Gaze::at(double run_time_s) {
  const bool wall = source_->clock() == GazeClock::wall;
  const GazeSample s = source_->sample(run_time_s);
  const double now_s = wall ? gaze_wall_clock_s() : run_time_s;
  const auto age_ms = [&](const GazeSample& g) { return (now_s - g.time_s) * 1000.0; };

  FrameGaze f;
  f.dropped = source_->dropped();
  // 1. A valid, current sample. A live source's newest sample stops being current when the
  // tracker stalls: max_age_ms says when. A sample from the future is not current either:
  // the tracker's clock jumped and its source has not measured the new offset yet.
  if (s.valid && age_ms(s) <= settings_.max_age_ms && age_ms(s) >= -kFutureToleranceMs) {
    held_ = s;
    f.x_px = s.x_px;
    f.y_px = s.y_px;
    f.source = source_name_;
    f.valid = true;
    f.age_ms = age_ms(s);
    return f;
  }
  // 2. The last used sample, held: a blink or a dropped packet does not move the fixation.
  if (held_ && age_ms(*held_) <= settings_.fallback.hold_ms) {
    f.x_px = held_->x_px;
    f.y_px = held_->y_px;
    f.source = "hold";
    f.age_ms = age_ms(*held_);
    return f;
  }
  // 3. The fallback proper.
  if (fallback_mouse_) {
    const GazeSample m = fallback_mouse_->sample(run_time_s);
    if (m.valid) {
      f.x_px = m.x_px;
      f.y_px = m.y_px;
      f.source = "mouse";
      f.age_ms = (gaze_wall_clock_s() - m.time_s) * 1000.0;
      return f;
    }
  }
  f.x_px = 0.5 * screen_.width_px;
  f.y_px = 0.5 * screen_.height_px;
  f.source = "centre";
  f.age_ms = std::numeric_limits<double>::quiet_NaN();
  return f;
}

}  // namespace fovea
