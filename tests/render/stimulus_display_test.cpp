// The experiment's stimulus drawn offscreen (render/stimulus_display.hpp): the pixels between
// the target pair at the collision are the trial's gap, on the screen's geometry.

#include <catch2/catch.hpp>

#include <cmath>

#include "config/config.hpp"
#include "psychophysics/session.hpp"
#include "render/stimulus_display.hpp"

using namespace fovea;

TEST_CASE("Stimulus display: offscreen, the background between the target pair at the collision is the gap, in pixels",
          "[render][stimulus]") {
  ExperimentSettings spec =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml").spec;
  spec.screen.width_px = 960;  // a smaller picture: quicker on a software renderer, same geometry per degree
  spec.screen.height_px = 540;
  StimulusDisplay display(spec, DisplayMode::offscreen);
  int checked = 0;
  for (const auto& [e, g] : {std::pair{5.0, 0.4}, std::pair{2.0, 0.8}, std::pair{0.0, 0.2}, std::pair{8.0, 0.0}}) {
    PlannedTrial trial;
    trial.trial = checked;
    trial.condition.eccentricity_deg = e;
    trial.condition.gap_deg = g;
    trial.condition.catch_trial = g == 0;
    trial.direction_deg = 0;  // to the right: the pair on the screen's middle row
    const StimulusPlan plan = plan_stimulus(spec, trial, 3);
    display.draw(plan, plan.collision_time_s);
    const Image image = display.capture();
    const ScreenPlacement at = place_on_screen(spec.screen, e, g);
    // Along the middle row from the inner disc's centre to the outer's: the pixels that are
    // not the discs' (background, or the cross showing through a gap at fixation).
    double ax = 0, ay = 0, bx = 0, by = 0;
    stimulus_position(plan, 0, plan.collision_time_s, ax, ay);
    stimulus_position(plan, 1, plan.collision_time_s, bx, by);
    const int row = static_cast<int>(std::lround(ay - 0.5));
    const std::uint8_t* background = image.at(2, 2);  // a corner: no disc there on this plan
    const std::uint8_t* disc = image.at(static_cast<int>(ax), row);
    int gap_pixels = 0;
    for (int x = static_cast<int>(std::ceil(ax)); x < static_cast<int>(std::floor(bx)); ++x) {
      const std::uint8_t* p = image.at(x, row);
      gap_pixels += (p[0] == disc[0] && p[1] == disc[1] && p[2] == disc[2]) ? 0 : 1;
    }
    INFO("e " << e << ", g " << g << ": gap " << at.gap_px << " px, background pixels " << gap_pixels);
    CHECK(std::abs(gap_pixels - at.gap_px) <= 1.5);
    // The discs' centres are the discs' colour, not the background's.
    CHECK(disc[0] != background[0]);
    ++checked;
  }
  CHECK(checked == 4);
}
