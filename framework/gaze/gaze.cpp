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
           environment, seed) {}

Gaze::Gaze(std::unique_ptr<GazeSource> source, const char* name, const GazeSettings& settings,
           const ScreenSettings& screen, const GazeEnvironment& environment, std::uint64_t tracker_seed)
    : settings_(settings),
      screen_(screen),
      environment_(environment),
      source_(std::move(source)),
      source_name_(name),
      tracker_(settings, screen, tracker_seed) {
  if (!source_) throw std::invalid_argument("Gaze needs a source");
  history_.reserve(512);  // the most delivered_history gives: no allocation in a frame
  check_fallback(settings);
  validate_screen(screen);
  fallback_mouse_ = make_fallback_mouse(settings, screen, environment);
}

void Gaze::switch_source(const GazeSettings& settings, std::uint64_t seed) {
  check_fallback(settings);
  std::unique_ptr<GazeSource> source = make_gaze_source(settings, screen_, seed, environment_);
  std::unique_ptr<GazeSource> mouse = make_fallback_mouse(settings, screen_, environment_);
  SimulatedTracker tracker(settings, screen_, seed);
  settings_ = settings;
  tracker_ = std::move(tracker);
  tracked_held_.reset();
  source_ = std::move(source);
  source_name_ = gaze_source_name(settings.source);
  fallback_mouse_ = std::move(mouse);
  held_.reset();
}

Gaze::Chosen Gaze::choose(const GazeSample& s, double now_s, double delay_s, std::optional<GazeSample>& held,
                          double run_time_s) {
  const auto age_ms = [&](const GazeSample& g) { return (now_s - g.time_s) * 1000.0; };
  const double delay_ms = delay_s * 1000.0;
  // 1. A valid, current sample. A live source's newest sample stops being current when the
  // tracker stalls: max_age_ms says when. A sample from the future is not current either:
  // the tracker's clock jumped and its source has not measured the new offset yet.
  if (s.valid && age_ms(s) - delay_ms <= settings_.max_age_ms && age_ms(s) >= -kFutureToleranceMs) {
    held = s;
    return {s.x_px, s.y_px, source_name_, true, age_ms(s), s};
  }
  // 2. The last used sample, held: a blink or a dropped packet does not move the fixation.
  if (held && age_ms(*held) - delay_ms <= settings_.fallback.hold_ms) return {held->x_px, held->y_px, "hold", false, age_ms(*held), *held};
  // 3. The fallback proper.
  if (fallback_mouse_) {
    const GazeSample m = fallback_mouse_->sample(run_time_s);
    if (m.valid) return {m.x_px, m.y_px, "mouse", false, (gaze_wall_clock_s() - m.time_s) * 1000.0, std::nullopt};
  }
  return {0.5 * screen_.width_px, 0.5 * screen_.height_px, "centre", false, std::numeric_limits<double>::quiet_NaN(),
          std::nullopt};
}

FrameGaze Gaze::at(double run_time_s) {
  const bool wall = source_->clock() == GazeClock::wall;
  const double now_s = wall ? gaze_wall_clock_s() : run_time_s;
  const GazeSample s = tracker_.observe(*source_, run_time_s, now_s);

  FrameGaze f;
  f.dropped = source_->dropped();
  const Chosen eye = choose(s, now_s, 0.0, held_, run_time_s);
  f.x_px = eye.x_px;
  f.y_px = eye.y_px;
  f.source = eye.source;
  f.valid = eye.valid;
  f.age_ms = eye.age_ms;
  if (eye.sample) {
    f.sample_time_s = eye.sample->time_s;
    f.tracker_time_s = eye.sample->tracker_time_s;
    f.arrival_s = eye.sample->arrival_s;
  }

  // What the scheduler may read: without a simulated tracker, the eye's point; with one, the
  // newest delivered sample through the same steps. The landing point from either's history.
  Chosen tracked = eye;
  if (tracker_.active()) {
    const TrackedSample* d = tracker_.delivered(now_s);
    GazeSample delivered;  // invalid until the first sample arrives
    if (d != nullptr) delivered = GazeSample{d->x_px, d->y_px, d->valid, d->time_s, 1.0};
    tracked = choose(delivered, now_s, tracker_.latency_s(), tracked_held_, run_time_s);
  }
  f.tracked_x_px = tracked.x_px;
  f.tracked_y_px = tracked.y_px;
  f.tracked_age_ms = tracked.age_ms;
  f.landing_x_px = tracked.x_px;
  f.landing_y_px = tracked.y_px;
  if (tracked.valid) {
    tracker_.delivered_history(now_s, history_);
    const LandingPrediction landing = predict_landing(history_, screen_, settings_.noise_deg);
    if (landing.in_flight) {
      f.saccade_in_flight = true;
      f.landing_x_px = landing.x_px;
      f.landing_y_px = landing.y_px;
    }
  }
  return f;
}

}  // namespace fovea
