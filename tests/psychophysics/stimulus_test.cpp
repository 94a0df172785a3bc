// A trial's animation (psychophysics/stimulus.hpp) against the screen's geometry: at the
// collision the target pair's facing edges subtend exactly the trial's gap, at the trial's
// eccentricity and direction; nothing else comes near anything.

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "config/config.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/stimulus.hpp"

using namespace fovea;

namespace {

const std::string kShipped = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml";

/// Visual angle, degrees, of a screen point `r_px` from the centre (signed).
double angle_deg(const ScreenSettings& screen, double r_px) {
  return std::atan(r_px / (screen.width_px / screen.width_cm) / screen.viewing_distance_cm) * 180 / std::numbers::pi;
}

}  // namespace

TEST_CASE("Stimulus: at the collision the target pair's edges subtend the trial's gap at its eccentricity and direction",
          "[psychophysics][stimulus]") {
  const ExperimentSettings spec = config::load_experiment_file(kShipped).spec;
  const std::vector<PlannedTrial> plan = plan_constant_stimuli(spec.constant_stimuli, 1);
  int catch_trials = 0;
  for (std::size_t i = 0; i < plan.size(); i += 3) {
    const PlannedTrial& trial = plan[i];
    const StimulusPlan s = plan_stimulus(spec, trial, 1);
    const double tc = s.collision_time_s;
    double ax = 0, ay = 0, bx = 0, by = 0;
    stimulus_position(s, 0, tc, ax, ay);
    stimulus_position(s, 1, tc, bx, by);
    const double d = s.paths[0].diameter_px;
    const auto radius = [&](double x, double y) {
      // Signed along the trial's direction.
      const double theta = trial.direction_deg * std::numbers::pi / 180;
      return (x - s.fixation_x_px) * std::cos(theta) - (y - s.fixation_y_px) * std::sin(theta);
    };
    const double inner_edge = radius(ax, ay) + 0.5 * d, outer_edge = radius(bx, by) - 0.5 * d;
    const double g = trial.condition.catch_trial ? 0.0 : trial.condition.gap_deg;
    INFO("trial " << trial.trial << ": e " << trial.condition.eccentricity_deg << ", g " << g);
    CHECK(angle_deg(spec.screen, outer_edge) - angle_deg(spec.screen, inner_edge) == Approx(g).margin(1e-9));
    CHECK(outer_edge - inner_edge == Approx(place_on_screen(spec.screen, trial.condition.eccentricity_deg, g).gap_px).margin(1e-9));
    CHECK(std::hypot(s.target_x_px - s.fixation_x_px, s.target_y_px - s.fixation_y_px) ==
          Approx(place_on_screen(spec.screen, trial.condition.eccentricity_deg, g).eccentricity_px).margin(1e-9));
    // Both on the radius through the target, in the trial's direction.
    CHECK(std::abs(std::hypot(ax - s.target_x_px, ay - s.target_y_px) + std::hypot(bx - s.target_x_px, by - s.target_y_px) -
                   std::hypot(ax - bx, ay - by)) < 1e-6);
    // They approach until the collision and part after it: the closest moment is the collision.
    for (const double dt : {-0.2, -0.01, 0.01, 0.2}) {
      double px = 0, py = 0, qx = 0, qy = 0;
      stimulus_position(s, 0, tc + dt, px, py);
      stimulus_position(s, 1, tc + dt, qx, qy);
      CHECK(std::hypot(px - qx, py - qy) > std::hypot(ax - bx, ay - by));
    }
    catch_trials += trial.condition.catch_trial ? 1 : 0;
    // The distractors keep more than a diameter between their edges and everything else,
    // all the time, and stay on the screen.
    REQUIRE(s.paths.size() == static_cast<std::size_t>(spec.stimulus.entities));
    for (std::size_t a = 2; a < s.paths.size(); ++a) {
      for (double t = 0; t <= s.duration_s; t += 0.01) {
        double x = 0, y = 0;
        stimulus_position(s, a, t, x, y);
        CHECK((x > 0 && x < spec.screen.width_px && y > 0 && y < spec.screen.height_px));
        for (std::size_t b = 0; b < s.paths.size(); ++b) {
          if (b == a) continue;
          double ox = 0, oy = 0;
          stimulus_position(s, b, t, ox, oy);
          CHECK(std::hypot(x - ox, y - oy) > 2 * d - 1e-6);
        }
      }
    }
  }
  CHECK(catch_trials > 5);
}

TEST_CASE("Stimulus: the same trial and seed give the same animation, another seed another", "[psychophysics][stimulus]") {
  const ExperimentSettings spec = config::load_experiment_file(kShipped).spec;
  const PlannedTrial trial = plan_constant_stimuli(spec.constant_stimuli, 1)[7];
  const StimulusPlan a = plan_stimulus(spec, trial, 1), b = plan_stimulus(spec, trial, 1), c = plan_stimulus(spec, trial, 2);
  CHECK(a.paths[5].x0_px == b.paths[5].x0_px);
  CHECK(a.paths[5].vy_pxps == b.paths[5].vy_pxps);
  CHECK(a.paths[5].x0_px != c.paths[5].x0_px);
  // Too many entities for the screen is an error, not a hang.
  ExperimentSettings crowded = spec;
  crowded.stimulus.entities = 400;
  crowded.stimulus.entity_size_deg = 3;
  CHECK_THROWS_WITH(plan_stimulus(crowded, trial, 1), Catch::Contains("use fewer stimulus.entities"));
}

// Issue 45: the cross is cut where the gap is judged. Oracle: points every 0.01 px along each
// arm, each kept exactly when it lies outside the widened disc; the pieces must cover the kept
// points and no other.
TEST_CASE("Stimulus: the fixation cross's pieces are the arms less the disc kept clear, against a point-by-point oracle",
          "[psychophysics][stimulus]") {
  struct Case {
    double clear_x, clear_y, radius;
  };
  const double cx = 960, cy = 540, half = 15, line_half = 2;
  int cases = 0;
  for (const Case& c : {Case{960, 540, 30}, Case{960, 540, 5}, Case{970, 541, 6}, Case{960, 560, 10}, Case{1200, 540, 40},
                        Case{948, 532, 9}, Case{960, 540, 0}, Case{975, 540, 0.5}}) {
    const std::vector<CrossSegment> pieces = fixation_cross_segments(cx, cy, half, c.clear_x, c.clear_y, c.radius, line_half);
    const double r = c.radius > 0 ? c.radius + line_half : 0;
    for (const bool horizontal : {true, false}) {
      for (double a = -half; a <= half; a += 0.01) {
        const double x = horizontal ? cx + a : cx, y = horizontal ? cy : cy + a;
        const bool outside = !(std::hypot(x - c.clear_x, y - c.clear_y) < r);
        bool covered = false;
        for (const CrossSegment& p : pieces) {
          const bool same_axis = horizontal ? p.y0_px == cy && p.y1_px == cy && p.x0_px != p.x1_px
                                            : p.x0_px == cx && p.x1_px == cx && p.y0_px != p.y1_px;
          const double lo = horizontal ? std::min(p.x0_px, p.x1_px) : std::min(p.y0_px, p.y1_px);
          const double hi = horizontal ? std::max(p.x0_px, p.x1_px) : std::max(p.y0_px, p.y1_px);
          const double at = horizontal ? x : y;
          covered = covered || (same_axis && at >= lo - 1e-9 && at <= hi + 1e-9);
        }
        // Points within 1e-6 of the disc's edge may go either way.
        if (std::abs(std::hypot(x - c.clear_x, y - c.clear_y) - r) < 1e-6) continue;
        INFO("clear (" << c.clear_x << ", " << c.clear_y << ") r " << c.radius << ", " << (horizontal ? "x " : "y ")
                       << (horizontal ? x : y));
        REQUIRE(covered == outside);
      }
    }
    ++cases;
  }
  CHECK(cases == 8);
  // A disc over the whole cross leaves nothing: the presentation at eccentricity 0.
  CHECK(fixation_cross_segments(cx, cy, half, cx, cy, half, line_half).empty());
}
