#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "gaze/gaze_source.hpp"
#include "gaze/scripted_gaze.hpp"

using namespace fovea;

namespace {

GazeSettings scripted_settings(double mean_ms = 250.0, double sd_ms = 100.0, double margin = 0.1) {
  GazeSettings g;
  g.source = GazeSourceKind::scripted;
  g.scripted.fixation_mean_ms = mean_ms;
  g.scripted.fixation_sd_ms = sd_ms;
  g.scripted.margin = margin;
  return g;
}

/// The visual angle between two screen points, written independently of the framework: the
/// angle at the eye between the rays to the points' physical positions, from their dot product.
double oracle_angle_deg(const ScreenSettings& s, double x1, double y1, double x2, double y2) {
  const double kx = s.width_cm / s.width_px, ky = s.height_cm / s.height_px, d = s.viewing_distance_cm;
  const double ax = (x1 - s.width_px / 2.0) * kx, ay = (y1 - s.height_px / 2.0) * ky;
  const double bx = (x2 - s.width_px / 2.0) * kx, by = (y2 - s.height_px / 2.0) * ky;
  const double la = std::sqrt(ax * ax + ay * ay + d * d), lb = std::sqrt(bx * bx + by * by + d * d);
  const double cosine = (ax * bx + ay * by + d * d) / (la * lb);
  return std::acos(std::fmin(1.0, cosine)) * 180.0 / 3.14159265358979323846;
}

/// A scan path sampled every `step_s`, cut into fixations (runs of identical samples) and
/// the saccades between them.
struct Fixation {
  double first_s = 0, last_s = 0;  ///< first and last sample of the run
  double x_px = 0, y_px = 0;
};
struct ScanPath {
  /// Complete fixations only: the run still going at the end is left out.
  std::vector<Fixation> fixations;
  /// Per saccade, the one after fixations[i]: the largest distance between successive
  /// samples over the step.
  std::vector<double> peak_speeds_pxps;
};

ScanPath record(GazeSource& source, double step_s, std::int64_t steps) {
  ScanPath path;
  GazeSample previous = source.sample(0.0);
  Fixation current{0.0, 0.0, previous.x_px, previous.y_px};
  bool fixating = true;
  for (std::int64_t i = 1; i < steps; ++i) {
    const double t = static_cast<double>(i) * step_s;
    const GazeSample g = source.sample(t);
    if (g.x_px == previous.x_px && g.y_px == previous.y_px) {
      // A new run began at the previous sample, the first at the new fixation point.
      if (!fixating) current = {t - step_s, t, previous.x_px, previous.y_px};
      current.last_s = t;
      fixating = true;
    } else {
      if (fixating) {
        path.fixations.push_back(current);
        path.peak_speeds_pxps.push_back(0.0);
      }
      fixating = false;
      const double speed = std::hypot(g.x_px - previous.x_px, g.y_px - previous.y_px) / step_s;
      path.peak_speeds_pxps.back() = std::fmax(path.peak_speeds_pxps.back(), speed);
    }
    previous = g;
  }
  return path;
}

std::vector<GazeSample> samples(GazeSource& source, double step_s, int count) {
  std::vector<GazeSample> out;
  for (int i = 0; i < count; ++i) out.push_back(source.sample(i * step_s));
  return out;
}

bool same_path(const std::vector<GazeSample>& a, const std::vector<GazeSample>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].x_px != b[i].x_px || a[i].y_px != b[i].y_px || a[i].valid != b[i].valid) return false;
  return true;
}

}  // namespace

TEST_CASE("the fixed source returns its point, valid, all run long", "[gaze]") {
  GazeSettings g;
  g.source = GazeSourceKind::fixed;
  g.x_px = 300.5;
  g.y_px = 1000.0;
  const auto source = make_gaze_source(g, ScreenSettings{}, 1);
  for (const double t : {0.0, 0.016, 5.0, 3600.0}) {
    const GazeSample s = source->sample(t);
    CHECK(s.x_px == 300.5);
    CHECK(s.y_px == 1000.0);
    CHECK(s.valid);
    CHECK(s.confidence == 1.0);
    CHECK(s.time_s == t);
  }
  g.x_px = 1920;  // the edges are on the screen
  g.y_px = 0;
  CHECK_NOTHROW(make_gaze_source(g, ScreenSettings{}, 1));
}

TEST_CASE("the fixed source refuses a point off the screen", "[gaze]") {
  using Catch::Matchers::Contains;
  GazeSettings g;
  g.source = GazeSourceKind::fixed;
  for (const auto& [x, y] : {std::pair{1920.5, 540.0}, std::pair{-1.0, 540.0}, std::pair{960.0, 1081.0},
                             std::pair{960.0, -0.1}}) {
    g.x_px = x;
    g.y_px = y;
    CHECK_THROWS_AS(make_gaze_source(g, ScreenSettings{}, 1), std::invalid_argument);
    CHECK_THROWS_WITH(make_gaze_source(g, ScreenSettings{}, 1),
                      Contains("gaze.x_px") && Contains("lies outside the 1920 x 1080 screen"));
  }
}

TEST_CASE("the scripted viewer starts at the screen centre at t 0", "[gaze]") {
  const auto source = make_gaze_source(scripted_settings(), ScreenSettings{}, 7);
  const GazeSample s = source->sample(0.0);
  CHECK(s.x_px == 960.0);
  CHECK(s.y_px == 540.0);
  CHECK(s.valid);
  CHECK(s.confidence == 1.0);
}

TEST_CASE("the same seed gives the same scan path, another seed another", "[gaze]") {
  const ScreenSettings screen;
  const auto a = make_gaze_source(scripted_settings(), screen, 42);
  const auto b = make_gaze_source(scripted_settings(), screen, 42);
  const auto c = make_gaze_source(scripted_settings(), screen, 43);
  const std::vector<GazeSample> pa = samples(*a, 0.01, 3000), pb = samples(*b, 0.01, 3000), pc = samples(*c, 0.01, 3000);
  CHECK(same_path(pa, pb));
  CHECK_FALSE(same_path(pa, pc));
  // make_gaze_source's scripted source is a ScriptedGaze seeded the same way.
  ScriptedGaze direct(scripted_settings().scripted, screen, 42);
  CHECK(same_path(pa, samples(direct, 0.01, 3000)));
}

TEST_CASE("the scan path depends on the time asked, not on the times asked before", "[gaze]") {
  const ScreenSettings screen;
  ScriptedGaze fine(scripted_settings().scripted, screen, 5);
  ScriptedGaze coarse(scripted_settings().scripted, screen, 5);
  for (int i = 0; i <= 60000; ++i) {
    const double t = i * 0.001;
    const GazeSample f = fine.sample(t);
    if (i % 997 == 0) {
      const GazeSample c = coarse.sample(t);
      CHECK(c.x_px == f.x_px);
      CHECK(c.y_px == f.y_px);
    }
  }
  // Asking for an earlier time (against the contract) replays and gives the same answer.
  const GazeSample early = coarse.sample(0.997 * 3);
  ScriptedGaze fresh(scripted_settings().scripted, screen, 5);
  const GazeSample expected = fresh.sample(0.997 * 3);
  CHECK(early.x_px == expected.x_px);
  CHECK(early.y_px == expected.y_px);
}

TEST_CASE("every sample lies inside the margins, during saccades too", "[gaze]") {
  const ScreenSettings screen;
  for (const double margin : {0.0, 0.1, 0.3}) {
    ScriptedGaze gaze(scripted_settings(250, 100, margin).scripted, screen, 11);
    const double lo_x = margin * 1920, hi_x = (1 - margin) * 1920, lo_y = margin * 1080, hi_y = (1 - margin) * 1080;
    double min_x = 1e9, max_x = -1e9, min_y = 1e9, max_y = -1e9;
    for (int i = 0; i < 600000; ++i) {
      const GazeSample s = gaze.sample(i * 0.001);
      min_x = std::fmin(min_x, s.x_px);
      max_x = std::fmax(max_x, s.x_px);
      min_y = std::fmin(min_y, s.y_px);
      max_y = std::fmax(max_y, s.y_px);
      REQUIRE(s.valid);
    }
    CHECK(min_x >= lo_x);
    CHECK(max_x <= hi_x);
    CHECK(min_y >= lo_y);
    CHECK(max_y <= hi_y);
    // ... and the targets cover the allowed area, not a corner of it.
    CHECK(min_x < lo_x + 0.05 * 1920);
    CHECK(max_x > hi_x - 0.05 * 1920);
    CHECK(min_y < lo_y + 0.05 * 1080);
    CHECK(max_y > hi_y - 0.05 * 1080);
  }
}

TEST_CASE("fixation durations have the configured mean and standard deviation", "[gaze]") {
  const ScreenSettings screen;
  struct Case {
    double mean_ms, sd_ms, mean_tolerance, sd_tolerance;
  };
  // Over 20000 log-normal draws the sample mean scatters by sd / 141 (0.3% of the mean at
  // sd = 0.4 mean, 0.7% at sd = mean) and the sample standard deviation by about 0.8% at
  // sd = 0.4 mean, 2% at sd = mean (a heavier tail): the tolerances are 3 to 5 of those.
  for (const Case c : {Case{250.0, 100.0, 0.02, 0.04}, Case{180.0, 30.0, 0.02, 0.04}, Case{300.0, 300.0, 0.03, 0.08}}) {
    ScriptedGaze gaze(scripted_settings(c.mean_ms, c.sd_ms).scripted, screen, 2024);
    const double step_s = 0.0005;
    // Enough time for about 20000 fixations with their saccades.
    const auto steps = static_cast<std::int64_t>(20000 * (c.mean_ms + 60.0) * 1e-3 / step_s);
    const ScanPath path = record(gaze, step_s, steps);
    REQUIRE(path.fixations.size() > 18000);
    std::vector<double> durations_ms;
    double sum = 0, sum2 = 0;
    for (const Fixation& f : path.fixations) {
      // Each sample stands for one step: a run of n samples measures n steps, within a step.
      const double ms = (f.last_s - f.first_s + step_s) * 1e3;
      durations_ms.push_back(ms);
      sum += ms;
      sum2 += ms * ms;
    }
    const double n = static_cast<double>(path.fixations.size());
    const double mean = sum / n, sd = std::sqrt((sum2 - n * mean * mean) / (n - 1));
    CHECK(mean == Approx(c.mean_ms).epsilon(c.mean_tolerance));
    CHECK(sd == Approx(c.sd_ms).epsilon(c.sd_tolerance));
    // Log-normal: the median is exp(mu) = mean / sqrt(1 + (sd / mean)^2), below the mean.
    std::nth_element(durations_ms.begin(), durations_ms.begin() + durations_ms.size() / 2, durations_ms.end());
    const double median = durations_ms[durations_ms.size() / 2];
    CHECK(median == Approx(c.mean_ms / std::sqrt(1 + (c.sd_ms / c.mean_ms) * (c.sd_ms / c.mean_ms))).epsilon(0.02));
  }
  // No spread: every fixation lasts the mean, to the sampling step.
  ScriptedGaze steady(scripted_settings(200.0, 0.0).scripted, screen, 3);
  const ScanPath path = record(steady, 0.0005, 200000);
  REQUIRE(path.fixations.size() > 100);
  for (const Fixation& f : path.fixations)
    CHECK((f.last_s - f.first_s + 0.0005) * 1e3 == Approx(200.0).margin(0.51).epsilon(0));
}

TEST_CASE("saccade durations follow the main sequence with a minimum-jerk profile", "[gaze]") {
  ScreenSettings screen;
  screen.width_cm = 60.0;  // pixels taller than wide, so both scales matter
  const double step_s = 0.00002;
  ScriptedGaze gaze(scripted_settings(150, 50, 0.05).scripted, screen, 99);
  const ScanPath path = record(gaze, step_s, static_cast<std::int64_t>(40.0 / step_s));
  REQUIRE(path.fixations.size() > 100);
  double smallest_deg = 1e9, largest_deg = 0;
  for (std::size_t i = 0; i + 1 < path.fixations.size(); ++i) {
    const Fixation& a = path.fixations[i];
    const Fixation& b = path.fixations[i + 1];
    const double amplitude_deg = oracle_angle_deg(screen, a.x_px, a.y_px, b.x_px, b.y_px);
    smallest_deg = std::fmin(smallest_deg, amplitude_deg);
    largest_deg = std::fmax(largest_deg, amplitude_deg);
    // The saccade began after a's last sample and ended by b's first: the measured gap is the
    // duration plus between 0 and 2 steps.
    const double measured_ms = (b.first_s - a.last_s) * 1e3;
    const double expected_ms = 21.0 + 2.2 * amplitude_deg;
    CHECK(measured_ms == Approx(expected_ms + step_s * 1e3).margin(step_s * 1e3 + 1e-9).epsilon(0));
    // Minimum jerk peaks at 15/8 of the mean speed (a constant speed would give 1).
    const double distance_px = std::hypot(b.x_px - a.x_px, b.y_px - a.y_px);
    CHECK(path.peak_speeds_pxps[i] == Approx(1.875 * distance_px / (expected_ms * 1e-3)).epsilon(0.005));
  }
  // The sample covered short and long saccades.
  CHECK(smallest_deg < 10);
  CHECK(largest_deg > 30);
}

TEST_CASE("scripted settings out of range are refused by name", "[gaze]") {
  using Catch::Matchers::Contains;
  const ScreenSettings screen;
  CHECK_THROWS_WITH(make_gaze_source(scripted_settings(0.0), screen, 1), Contains("gaze.scripted.fixation_mean_ms"));
  CHECK_THROWS_WITH(make_gaze_source(scripted_settings(250, -1), screen, 1), Contains("gaze.scripted.fixation_sd_ms"));
  CHECK_THROWS_WITH(make_gaze_source(scripted_settings(250, 100, 0.5), screen, 1), Contains("gaze.scripted.margin"));
  CHECK_THROWS_WITH(make_gaze_source(scripted_settings(250, 100, -0.1), screen, 1), Contains("gaze.scripted.margin"));
  ScreenSettings no_screen;
  no_screen.height_px = 0;
  CHECK_THROWS_WITH(make_gaze_source(scripted_settings(), no_screen, 1), Contains("perception.view.screen.height_px"));
  CHECK_THROWS_AS(make_gaze_source(scripted_settings(0.0), screen, 1), std::invalid_argument);
  CHECK_NOTHROW(make_gaze_source(scripted_settings(250, 0, 0.0), screen, 1));
}
