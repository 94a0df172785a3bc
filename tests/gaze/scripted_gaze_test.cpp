#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
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

// The scripted viewer watching the scene (gaze.scripted.targets: entities, collisions): the
// frame hands it targets, it chooses one per saccade when the saccade starts.

namespace {

ScriptedGazeSettings watching(ScriptedTargetKind targets, double mean_ms = 250.0, double sd_ms = 100.0) {
  ScriptedGazeSettings s = scripted_settings(mean_ms, sd_ms).scripted;
  s.targets = targets;
  return s;
}

bool same_point(const GazeSample& a, const GazeSample& b) { return a.x_px == b.x_px && a.y_px == b.y_px; }

/// The index of the target of `targets` at exactly (x_px, y_px), or -1.
int target_at(std::span<const GazeTarget> targets, double x_px, double y_px) {
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i].x_px == x_px && targets[i].y_px == y_px) return static_cast<int>(i);
  return -1;
}

/// How often each of `weights` is chosen over `saccades` saccades. Two copies of the targets,
/// set 0 along y = 400 and set 1 along y = 600 (x = 800, 900, ...), are handed in turn: always
/// the set the eye is not on, so every saccade moves the eye and every choice shows as a new
/// fixation, even a choice of the same index twice running.
std::vector<int> choice_counts(const std::vector<double>& weights, std::uint64_t seed, int saccades) {
  std::vector<GazeTarget> sets[2];
  for (int set = 0; set < 2; ++set)
    for (std::size_t i = 0; i < weights.size(); ++i)
      sets[set].push_back({800.0 + 100.0 * static_cast<double>(i), 400.0 + 200.0 * set, weights[i]});
  ScriptedGaze gaze(watching(ScriptedTargetKind::entities, 20.0, 5.0), ScreenSettings{}, seed);
  std::vector<int> counts(weights.size(), 0);
  int total = 0;
  GazeSample previous = gaze.sample(0.0);  // the centre, on neither set
  bool fixating = true;
  for (std::int64_t i = 1; total < saccades && i < 100'000'000; ++i) {
    // The choice is made at the first sample at or after the saccade's start, when the
    // previous sample is still the fixation point.
    gaze.set_scene_targets(sets[previous.y_px == 400.0 ? 1 : 0]);
    const GazeSample g = gaze.sample(static_cast<double>(i) * 0.001);
    const bool still = same_point(g, previous);
    if (still && !fixating) {
      const int index = target_at(sets[g.y_px == 400.0 ? 0 : 1], g.x_px, g.y_px);
      REQUIRE(index >= 0);
      ++counts[static_cast<std::size_t>(index)];
      ++total;
    }
    fixating = still;
    previous = g;
  }
  REQUIRE(total == saccades);
  return counts;
}

}  // namespace

TEST_CASE("scripted, screen: pinned samples, no scene targets wanted, targets handed in ignored", "[gaze]") {
  // The values the viewer gave before the scene modes existed (commit 7c96ebf): screen's
  // draws and their order are unchanged, so run records stay byte for byte the same.
  struct Pin {
    double t_s, x_px, y_px;
  };
  const Pin pins[] = {{0.2, 951.81752686931475, 562.16339569386901},  // mid-saccade
                      {0.4, 900.3896365670355, 701.46317270087741},
                      {0.45, 900.3896365670355, 701.46317270087741},
                      {1.0, 1343.4897824583854, 702.60026387582946},
                      {2.5, 819.86217531352236, 291.79237607332919},
                      {7.3, 298.2643851325239, 905.65448080810097},
                      {60.0, 1133.5041544678472, 641.70078386543548}};
  ScriptedGaze plain(scripted_settings().scripted, ScreenSettings{}, 42);
  ScriptedGaze handed(scripted_settings().scripted, ScreenSettings{}, 42);
  CHECK(plain.wants_scene_targets() == SceneTargetKind::none);
  const GazeTarget elsewhere[] = {{10.0, 10.0, 5.0}, {1900.0, 1000.0, 1.0}};
  for (const Pin& pin : pins) {
    const GazeSample s = plain.sample(pin.t_s);
    CHECK(s.x_px == pin.x_px);
    CHECK(s.y_px == pin.y_px);
    handed.set_scene_targets(elsewhere);
    CHECK(same_point(handed.sample(pin.t_s), s));
  }
  // The other sources want nothing either: the frame computes no targets for them.
  GazeSettings fixed;
  CHECK(make_gaze_source(fixed, ScreenSettings{}, 1)->wants_scene_targets() == SceneTargetKind::none);
  CHECK(ScriptedGaze(watching(ScriptedTargetKind::entities), ScreenSettings{}, 1).wants_scene_targets() ==
        SceneTargetKind::entities);
  CHECK(ScriptedGaze(watching(ScriptedTargetKind::collisions), ScreenSettings{}, 1).wants_scene_targets() ==
        SceneTargetKind::collisions);
}

TEST_CASE("scripted, watching: every fixation lands on a target handed in when its saccade started", "[gaze]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Lists handed in turn, a new one every 0.3 s: points anywhere on the screen (margins do
  // not apply to them), weights of 0 (never chosen while another weighs more), a target
  // with no position (left out) and an empty list (a draw over the screen).
  const std::vector<std::vector<GazeTarget>> lists = {
      {{100.0, 100.0, 1.0}, {1800.0, 950.0, 2.0}, {960.0, 540.0, 0.0}},
      {{5.0, 1075.0, 3.0}, {nan, 300.0, 100.0}, {1500.5, 20.25, 1.0}},
      {},
      {{700.0, 700.0, 0.0}, {710.0, 300.0, 0.0}},  // all at rest: either
      {{1234.5, 678.25, 1e-3}}};
  for (const ScriptedTargetKind kind : {ScriptedTargetKind::entities, ScriptedTargetKind::collisions}) {
    ScriptedGaze gaze(watching(kind), ScreenSettings{}, 17);
    const double step_s = 0.001;
    const auto list_at = [&](std::int64_t i) -> const std::vector<GazeTarget>& {
      return lists[static_cast<std::size_t>(i / 300) % lists.size()];
    };
    gaze.set_scene_targets(list_at(0));
    GazeSample previous = gaze.sample(0.0);
    bool fixating = true;
    std::int64_t saccade_start = -1;  // the sample the current saccade's target was chosen at
    int on_lists = 0, drawn = 0;
    for (std::int64_t i = 1; i < 120'000; ++i) {
      gaze.set_scene_targets(list_at(i));
      const GazeSample g = gaze.sample(static_cast<double>(i) * step_s);
      REQUIRE(g.valid);
      const bool still = same_point(g, previous);
      if (!still && fixating) saccade_start = i;
      if (still && !fixating) {
        const std::vector<GazeTarget>& handed = list_at(saccade_start);
        const int index = target_at(handed, g.x_px, g.y_px);
        if (handed.empty()) {
          // A draw over the screen, inside the margins.
          CHECK(g.x_px >= 0.1 * 1920);
          CHECK(g.x_px <= 0.9 * 1920);
          CHECK(g.y_px >= 0.1 * 1080);
          CHECK(g.y_px <= 0.9 * 1080);
          ++drawn;
        } else {
          INFO("fixation at (" << g.x_px << ", " << g.y_px << "), saccade from sample " << saccade_start);
          REQUIRE(index >= 0);
          double heaviest = 0;
          for (const GazeTarget& t : handed) heaviest = std::fmax(heaviest, std::isfinite(t.x_px) ? t.weight : 0);
          if (heaviest > 0) CHECK(handed[static_cast<std::size_t>(index)].weight > 0);
          ++on_lists;
        }
      }
      fixating = still;
      previous = g;
    }
    CHECK(on_lists > 200);
    CHECK(drawn > 30);
  }
}

TEST_CASE("scripted, watching: targets are chosen in proportion to their weights", "[gaze]") {
  // Binomial bounds at a fixed seed: over n = 4000 choices a share p scatters by
  // sqrt(p (1 - p) / n), 0.0047 at p = 0.9, 0.0068 at 0.75, 0.0075 at 1/3; each tolerance
  // is over 4 of those.
  const int n = 4000;
  const std::vector<int> one_nine = choice_counts({1.0, 9.0}, 2024, n);
  CHECK(one_nine[1] / double(n) == Approx(0.9).margin(0.02).epsilon(0));

  const std::vector<int> some_zero = choice_counts({0.0, 1.0, 3.0}, 7, n);
  CHECK(some_zero[0] == 0);  // weight 0 while others weigh more: never
  CHECK(some_zero[2] / double(n) == Approx(0.75).margin(0.03).epsilon(0));

  const std::vector<int> at_rest = choice_counts({0.0, 0.0, 0.0}, 99, n);  // all 0: uniformly
  for (const int count : at_rest) CHECK(count / double(n) == Approx(1.0 / 3).margin(0.035).epsilon(0));
}

TEST_CASE("scripted, watching: with no targets the viewer stays inside the margins", "[gaze]") {
  for (const ScriptedTargetKind kind : {ScriptedTargetKind::entities, ScriptedTargetKind::collisions}) {
    ScriptedGaze gaze(watching(kind), ScreenSettings{}, 11);
    double min_x = 1e9, max_x = -1e9, min_y = 1e9, max_y = -1e9;
    for (int i = 0; i < 300000; ++i) {
      if (i % 2000 == 0) gaze.set_scene_targets({});  // handed, but empty
      const GazeSample s = gaze.sample(i * 0.001);
      REQUIRE(s.valid);
      min_x = std::fmin(min_x, s.x_px);
      max_x = std::fmax(max_x, s.x_px);
      min_y = std::fmin(min_y, s.y_px);
      max_y = std::fmax(max_y, s.y_px);
    }
    CHECK(min_x >= 0.1 * 1920);
    CHECK(max_x <= 0.9 * 1920);
    CHECK(min_y >= 0.1 * 1080);
    CHECK(max_y <= 0.9 * 1080);
    // ... and it does move over the allowed area.
    CHECK(max_x - min_x > 0.6 * 1920);
    CHECK(max_y - min_y > 0.6 * 1080);
  }
}

TEST_CASE("scripted, watching: the same seed and targets give the same samples, another seed others", "[gaze]") {
  // Targets that move every sample, as entities do.
  const auto targets_at = [](int i) {
    const double t = i * 0.004;
    return std::vector<GazeTarget>{{960.0 + 500.0 * std::sin(t), 540.0 + 300.0 * std::cos(1.3 * t), 1.0 + i % 7},
                                   {300.0 + 0.1 * i, 800.0, 2.0},
                                   {1700.0, 200.0 + 0.05 * i, i % 3 == 0 ? 0.0 : 4.0}};
  };
  const auto path = [&](std::uint64_t seed) {
    ScriptedGaze gaze(watching(ScriptedTargetKind::entities), ScreenSettings{}, seed);
    std::vector<GazeSample> out;
    for (int i = 0; i < 15000; ++i) {
      if (i % 500 != 250) gaze.set_scene_targets(targets_at(i));  // sometimes no new list: the last holds
      out.push_back(gaze.sample(i * 0.004));
    }
    return out;
  };
  const std::vector<GazeSample> a = path(5), b = path(5), c = path(6);
  CHECK(same_path(a, b));
  CHECK_FALSE(same_path(a, c));
}
