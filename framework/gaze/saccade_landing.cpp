#include "gaze/saccade_landing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "perception/view.hpp"

namespace fovea {
namespace {

/// Samples read at most, the newest: more than the longest saccade lasts at 2000 Hz.
constexpr std::size_t kMostSamples = 512;
/// Samples in flight the fit reads at most, spread evenly, the newest always among them.
constexpr std::size_t kMostFitted = 32;
/// Start times tried, from a few intervals before the start point to the first sample in
/// flight, then as many again around the best of them.
constexpr int kStartSteps = 17;
/// Intervals before the start point the saccade may have begun: the eye leaves slowly.
constexpr double kEarlierIntervals = 3.0;
/// Amplitude steps of the fit, px (a degree is about 36 px on fovea's default screen): a
/// coarse pass, then a fine one around its best.
constexpr double kCoarseStepPx = 8.0;
constexpr double kFineStepPx = 0.25;
/// Amplitudes one scan tries at most. A saccade on a screen spans at most its diagonal, a
/// few hundred coarse steps; a sample far off the screen (a pushed or recorded 1e16 px)
/// makes the range as long as it is far, and past 2^51 px a step of 0.25 px no longer moves
/// the amplitude at all: the scan then widens its step to stay within this many, and ends.
constexpr int kMostScanSteps = 4096;

/// The minimum-jerk profile's progress at the share `tau` of the movement (0 before, 1 after).
double minimum_jerk(double tau) {
  if (tau <= 0) return 0;
  if (tau >= 1) return 1;
  return tau * tau * tau * (10.0 + tau * (-15.0 + 6.0 * tau));
}

struct InFlight {
  double time_s;
  double along_px;  ///< how far from the start point along the saccade's line
};

/// The samples in flight, newest last: no allocation per frame.
struct Flight {
  std::array<InFlight, kMostFitted> samples;
  std::size_t size = 0;
};

/// Sum of squared misses, px^2, of a saccade of `a_px` (`a_deg` of visual angle) started at `t0`.
/// The profile is the same in pixels as in degrees along a straight line: the scripted
/// viewer's progress is a share of the line.
double misfit(const Flight& flight, double a_px, double a_deg, double t0, const LandingModel& model) {
  const double duration_s = 1e-3 * (model.base_ms + model.slope_ms_per_deg * a_deg);
  double sum = 0;
  for (std::size_t i = 0; i < flight.size; ++i) {
    const InFlight& f = flight.samples[i];
    const double miss = a_px * minimum_jerk((f.time_s - t0) / duration_s) - f.along_px;
    sum += miss * miss;
  }
  return sum;
}

/// How far, in pixels, the line from (x, y) along (ux, uy) runs before it leaves the screen.
double room_to_edge_px(const ScreenSettings& screen, double x, double y, double ux, double uy) {
  double t = std::numeric_limits<double>::infinity();
  if (ux > 0) t = std::min(t, (screen.width_px - x) / ux);
  if (ux < 0) t = std::min(t, -x / ux);
  if (uy > 0) t = std::min(t, (screen.height_px - y) / uy);
  if (uy < 0) t = std::min(t, -y / uy);
  return t > 0 && std::isfinite(t) ? t : 0.0;
}

}  // namespace

LandingPrediction predict_landing(std::span<const TrackedSample> samples, const ScreenSettings& screen,
                                  double noise_deg, const LandingModel& model) {
  LandingPrediction p;
  if (samples.empty()) return p;
  const std::size_t n = samples.size();
  const std::size_t first = n > kMostSamples ? n - kMostSamples : 0;
  const TrackedSample& last = samples[n - 1];
  p.x_px = last.x_px;
  p.y_px = last.y_px;
  if (!last.valid || n - first < 2 || !samples[n - 2].valid) return p;

  // The speed from sample i - 1 to sample i, deg/s.
  const auto speed = [&](std::size_t i) {
    const TrackedSample &a = samples[i - 1], &b = samples[i];
    const double dt = b.time_s - a.time_s;
    return dt > 0 ? screen_visual_angle_deg(screen, a.x_px, a.y_px, b.x_px, b.y_px) / dt : 0.0;
  };
  // Noise alone moves a sample by noise_deg per axis: the difference of two has sigma
  // sqrt(2) noise_deg per axis. Five of those over one interval is no saccade; under three
  // the eye is still (or the speed is noise), which is where a saccade starts.
  const double interval_s = last.time_s - samples[n - 2].time_s;
  const double noise_speed = interval_s > 0 ? std::sqrt(2.0) * noise_deg / interval_s : 0.0;
  const double onset = std::max(model.onset_speed_degps, 5.0 * noise_speed);
  const double still = std::max(0.5, 3.0 * noise_speed);
  if (!(speed(n - 1) >= onset)) return p;
  // Back to where the eye was still: samples[i0] is the first in flight, samples[i0 - 1] the
  // saccade's start point.
  std::size_t i0 = n - 1;
  while (i0 >= first + 2 && samples[i0 - 1].valid && samples[i0 - 2].valid && speed(i0 - 1) >= still) --i0;
  const TrackedSample& start = samples[i0 - 1];

  const double dx = last.x_px - start.x_px, dy = last.y_px - start.y_px;
  const double length_px = std::hypot(dx, dy);
  if (!(length_px > 0)) return p;
  const double ux = dx / length_px, uy = dy / length_px;

  // At most kMostFitted samples in flight, evenly spread, the newest last.
  Flight flight;
  double farthest_px = 0;
  const std::size_t in_flight = n - i0;
  const std::size_t fitted = std::min(in_flight, kMostFitted);
  for (std::size_t k = 0; k < fitted; ++k) {
    const std::size_t i = n - 1 - (in_flight - 1) * (fitted - 1 - k) / std::max<std::size_t>(fitted - 1, 1);
    const double along = (samples[i].x_px - start.x_px) * ux + (samples[i].y_px - start.y_px) * uy;
    flight.samples[flight.size++] = {samples[i].time_s, along};
    farthest_px = std::max(farthest_px, along);
  }
  // The eye has gone farthest_px at least; it cannot go past the screen's edge.
  const double most_px = std::max(farthest_px, room_to_edge_px(screen, start.x_px, start.y_px, ux, uy));
  // The visual angle of an amplitude along the line (the main sequence is in degrees).
  const auto degrees_of = [&](double a_px) {
    return screen_visual_angle_deg(screen, start.x_px, start.y_px, start.x_px + ux * a_px, start.y_px + uy * a_px);
  };

  // Least squares over (A, t0): t0 from a few intervals before the start point (the eye
  // moves too slowly at first for the speeds to say when it left, more so under noise) to
  // the first sample in flight (one sample in flight leaves t0 free: halfway), A from
  // farthest_px to most_px.
  const double t_hi = samples[i0].time_s, t_lo = start.time_s - kEarlierIntervals * (t_hi - start.time_s);
  const int steps = flight.size >= 2 ? kStartSteps : 1;
  double best_a = farthest_px, best_misfit = std::numeric_limits<double>::infinity();
  const auto scan = [&](double t0, double lo, double hi, double step) {
    double found = lo, found_misfit = std::numeric_limits<double>::infinity();
    step = std::max(step, (hi - lo) / kMostScanSteps);
    int tried = 0;
    for (double a = lo; a <= hi + 1e-9 && tried <= kMostScanSteps; a += step, ++tried) {
      const double m = misfit(flight, a, degrees_of(a), t0, model);
      if (m < found_misfit) found_misfit = m, found = a;
    }
    if (found_misfit < best_misfit) best_misfit = found_misfit, best_a = found;
    return found;
  };
  double best_t0 = 0.5 * (t_lo + t_hi);
  const auto try_start = [&](double t0, double lo, double hi) {
    const double before = best_misfit;
    const double coarse = scan(t0, lo, hi, kCoarseStepPx);
    scan(t0, std::max(farthest_px, coarse - kCoarseStepPx), std::min(most_px, coarse + kCoarseStepPx), kFineStepPx);
    if (best_misfit < before) best_t0 = t0;
  };
  const double t_step = steps == 1 ? 0.0 : (t_hi - t_lo) / (steps - 1);
  for (int k = 0; k < steps; ++k) try_start(steps == 1 ? best_t0 : t_lo + t_step * k, farthest_px, most_px);
  // Finer start times around the best, amplitudes around its.
  const double around_t0 = best_t0, around_a = best_a;
  for (int k = -4; k <= 4 && steps > 1; ++k)
    if (k != 0)
      try_start(around_t0 + t_step * k / 4.0, std::max(farthest_px, around_a - 4 * kCoarseStepPx),
                std::min(most_px, around_a + 4 * kCoarseStepPx));

  p.in_flight = true;
  p.amplitude_deg = degrees_of(best_a);
  p.x_px = std::clamp(start.x_px + ux * best_a, 0.0, static_cast<double>(screen.width_px));
  p.y_px = std::clamp(start.y_px + uy * best_a, 0.0, static_cast<double>(screen.height_px));
  return p;
}

}  // namespace fovea
