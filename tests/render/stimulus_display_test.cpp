// The experiment's stimulus drawn offscreen (render/stimulus_display.hpp): the pixels between
// the target pair at the collision are the trial's gap, on the screen's geometry.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "config/config.hpp"
#include "psychophysics/session.hpp"
#include "render/stimulus_display.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

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
    trial.direction_deg = 0;  // to the right: the pair on the screen's middle row (90 below)
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
  // Upwards (90 degrees, the screen's y down): the pair on the middle column, above the
  // cross, so a flip of the picture or of the directions would show.
  PlannedTrial up;
  up.condition.eccentricity_deg = 5;
  up.condition.gap_deg = 0.4;
  up.direction_deg = 90;
  const StimulusPlan plan = plan_stimulus(spec, up, 3);
  display.draw(plan, plan.collision_time_s);
  const Image image = display.capture();
  double ax = 0, ay = 0, bx = 0, by = 0;
  stimulus_position(plan, 0, plan.collision_time_s, ax, ay);
  stimulus_position(plan, 1, plan.collision_time_s, bx, by);
  CHECK(ay < 270);  // above the centre
  CHECK(by < ay);   // the outer one higher still
  const int column = static_cast<int>(std::lround(ax - 0.5));
  const std::uint8_t* disc = image.at(column, static_cast<int>(ay));
  int gap_pixels = 0;
  for (int y = static_cast<int>(std::ceil(by)); y < static_cast<int>(std::floor(ay)); ++y) {
    const std::uint8_t* p = image.at(column, y);
    gap_pixels += (p[0] == disc[0] && p[1] == disc[1] && p[2] == disc[2]) ? 0 : 1;
  }
  CHECK(std::abs(gap_pixels - place_on_screen(spec.screen, 5, 0.4).gap_px) <= 1.5);
}

TEST_CASE("Stimulus display: a text screen shows its text on the background, without the cross", "[render][stimulus]") {
  ExperimentSettings spec =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml").spec;
  spec.screen.width_px = 960;
  spec.screen.height_px = 540;
  StimulusDisplay display(spec, DisplayMode::offscreen);
  display.draw_message("Break. 104 of about 520 trials done.\n\nPress Space when you are ready to go on.");
  const Image image = display.capture();
  const std::uint8_t* background = image.at(2, 2);
  int text_pixels = 0, outside = 0;
  for (int y = 0; y < image.height_px; ++y)
    for (int x = 0; x < image.width_px; ++x) {
      const std::uint8_t* p = image.at(x, y);
      const bool differs = p[0] != background[0] || p[1] != background[1] || p[2] != background[2];
      const bool in_text_box = x >= image.width_px / 4 && x < 3 * image.width_px / 4 && y >= image.height_px / 4 &&
                               y < 3 * image.height_px / 4;
      (in_text_box ? text_pixels : outside) += differs ? 1 : 0;
    }
  CHECK(text_pixels > 500);  // glyphs
  CHECK(outside == 0);       // nothing else: no cross, no discs
  // The cross alone between trials: at the centre, nothing in the corners.
  display.draw_fixation();
  const Image cross = display.capture();
  const std::uint8_t* c = cross.at(480, 270);
  CHECK((c[0] != background[0] || c[1] != background[1]));
}

// Under the sanitizers this runs with leak detection off, as every offscreen test here
// (tests/CMakeLists.txt: Mesa leaks from an unloaded driver).
TEST_CASE("fovea experiment: --capture draws each trial offscreen at its collision", "[render][stimulus][cli]") {
  test::TempDir dir;
  const auto r = test::run_process({std::string(FOVEA_BINARY), "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml",
                              "--participant", "P02", "--observer",
                              std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml", "--out", "p02",
                              "--capture", "pictures", "--quiet", "--set", "constant_stimuli.repetitions=1", "--set",
                              "constant_stimuli.blocks=1", "--set", "constant_stimuli.catch_trials_per_block=0"},
                             dir.path());
  REQUIRE(r.status == 0);
  // 6 gaps x 4 eccentricities, one picture each, named by the trial.
  CHECK(test::lines_of(test::read_file(dir / "p02" / "trials.csv")).size() == 25);
  for (int t = 0; t < 24; ++t) {
    char name[32];
    std::snprintf(name, sizeof name, "trial_%06d.png", t);
    const std::string png = test::read_file(dir / "pictures" / name);
    INFO(name);
    REQUIRE(png.size() > 100);
    CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "pictures" / "trial_000024.png"));
}
