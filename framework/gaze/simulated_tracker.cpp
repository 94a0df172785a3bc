#include "gaze/simulated_tracker.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/format.hpp"
#include "core/setting_error.hpp"

namespace fovea {
namespace {

/// Delivered samples kept before the newest delivered one: more than a saccade lasts.
constexpr double kHistory_s = 0.25;
/// Most samples kept at all (2000 Hz over 1 s of latency and the history is 2500).
constexpr std::size_t kMostKept = 4096;

void check_range(const char* key, double value, double most) {
  if (!(std::isfinite(value) && value >= 0 && value <= most))
    throw SettingError(key, "must be a number in [0, " + format_number(most) + "], not " + format_number(value));
}

}  // namespace

SimulatedTracker::SimulatedTracker(const GazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed)
    : seed_(seed), rng_(seed, rng_stream(RngStream::tracker_noise)), ring_(kMostKept) {
  check_range("gaze.latency_ms", settings.latency_ms, 1000);
  check_range("gaze.rate_hz", settings.rate_hz, 2000);
  check_range("gaze.noise_deg", settings.noise_deg, 10);
  active_ = simulates_tracker(settings);
  const char* key = "";
  if (const std::string problem = simulated_tracker_problem(settings, key); !problem.empty()) throw SettingError(key, problem);
  latency_s_ = 1e-3 * settings.latency_ms;
  rate_hz_ = settings.rate_hz;
  // A degree at the screen's centre, in pixels: the screen's distance times tan(1 deg), in cm,
  // over the centimetres a pixel spans.
  const double cm_per_deg = screen.viewing_distance_cm * std::tan(std::numbers::pi / 180.0);
  noise_x_px_ = settings.noise_deg * cm_per_deg * screen.width_px / screen.width_cm;
  noise_y_px_ = settings.noise_deg * cm_per_deg * screen.height_px / screen.height_cm;
}

void SimulatedTracker::restart() {
  head_ = count_ = 0;
  next_index_ = 0;
  rng_ = Rng(seed_, rng_stream(RngStream::tracker_noise));
}

void SimulatedTracker::keep(const GazeSample& s) {
  TrackedSample t{s.time_s, s.x_px, s.y_px, s.valid};
  if (noise_x_px_ > 0 || noise_y_px_ > 0) {
    // Box-Muller: two independent standard normals from two uniforms, drawn for every
    // sample in order, valid or not, so the noise of a sample depends on its index alone.
    const double u1 = 1.0 - rng_.uniform();
    const double u2 = rng_.uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    t.x_px += noise_x_px_ * r * std::cos(2.0 * std::numbers::pi * u2);
    t.y_px += noise_y_px_ * r * std::sin(2.0 * std::numbers::pi * u2);
  }
  if (count_ == ring_.size()) {  // full: the oldest goes
    head_ = (head_ + 1) % ring_.size();
    --count_;
  }
  ring_[(head_ + count_) % ring_.size()] = t;
  ++count_;
}

GazeSample SimulatedTracker::observe(GazeSource& eye, double run_time_s, double now_s) {
  if (run_time_s < last_run_time_s_) restart();
  last_run_time_s_ = run_time_s;
  GazeSample at_now;
  if (active_ && rate_hz_ > 0) {
    // The instants k / rate_hz up to now, skipping those too old ever to be read.
    const double oldest_needed_s = run_time_s - latency_s_ - kHistory_s - 1.0 / rate_hz_;
    if (static_cast<double>(next_index_) / rate_hz_ < oldest_needed_s)
      next_index_ = static_cast<std::int64_t>(std::floor(oldest_needed_s * rate_hz_));
    bool now_taken = false;
    for (;;) {
      const double instant_s = static_cast<double>(next_index_) / rate_hz_;
      if (instant_s > run_time_s) break;
      const GazeSample s = eye.sample(instant_s);
      keep(s);
      ++next_index_;
      if (instant_s == run_time_s) at_now = s, now_taken = true;
    }
    if (!now_taken) at_now = eye.sample(run_time_s);
  } else {
    // Each frame's own sample: the delivered stream is the eye's at the frames' times. A live
    // source's newest sample is kept once (its time stamp says whether it is new).
    at_now = eye.sample(run_time_s);
    if (eye.clock() == GazeClock::run || count_ == 0 || at_now.time_s > kept(count_ - 1).time_s) keep(at_now);
  }
  // Forget what no later delivery or prediction reads: keep one sample older than the window.
  const double oldest_kept_s = now_s - latency_s_ - kHistory_s;
  while (count_ > 1 && kept(1).time_s <= oldest_kept_s) {
    head_ = (head_ + 1) % ring_.size();
    --count_;
  }
  return at_now;
}

const TrackedSample* SimulatedTracker::delivered(double now_s) const {
  // The newest taken by now - latency. A nanosecond's tolerance: a sample taken exactly
  // latency ago is delivered whatever the rounding of the times' difference.
  const double by_s = now_s - latency_s_ + 1e-9;
  for (std::size_t i = count_; i > 0; --i)
    if (kept(i - 1).time_s <= by_s) return &kept(i - 1);
  return nullptr;
}

void SimulatedTracker::delivered_history(double now_s, std::vector<TrackedSample>& out) const {
  out.clear();
  const double by_s = now_s - latency_s_ + 1e-9;
  std::size_t end = count_;
  while (end > 0 && kept(end - 1).time_s > by_s) --end;
  const std::size_t begin = end > 512 ? end - 512 : 0;
  for (std::size_t i = begin; i < end; ++i) out.push_back(kept(i));
}

}  // namespace fovea
