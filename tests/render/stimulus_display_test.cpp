// The experiment's stimulus drawn offscreen (render/stimulus_display.hpp): the pixels between
// the target pair at the collision are the trial's gap, on the screen's geometry.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <algorithm>

#include "config/config.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/scene_stimulus.hpp"
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
TEST_CASE("fovea experiment: --capture draws each trial offscreen at its collision", "[render][stimulus][cli][slow]") {
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

namespace {

/// How much of the row between two rocks is background, in pixels: each pixel counts by how
/// far its value lies from the rock beside it towards the background (the resolve averages
/// the samples' stored values, so an edge pixel's value is linear in its coverage, for an
/// edge pixel shaded as its neighbour). `from_px` and `to_px` are the expected facing edges
/// along +x; each rock's value is read from the first pixel wholly inside it on the row.
double background_pixels(const Image& image, int row, double from_px, double to_px, const std::uint8_t* background) {
  const int first = static_cast<int>(std::floor(std::min(from_px, to_px)));
  const int last = static_cast<int>(std::ceil(std::max(from_px, to_px))) - 1;
  const auto value = [](const std::uint8_t* p) { return double(p[0]) + p[1] + p[2]; };
  const double bg = value(background), inner = value(image.at(first - 1, row)), outer = value(image.at(last + 1, row));
  double gap = 0;
  for (int x = first; x <= last; ++x) {
    const double rock = x - first < last - x ? inner : outer;
    gap += 1 - std::clamp((value(image.at(x, row)) - bg) / (rock - bg), 0.0, 1.0);
  }
  return gap;
}

}  // namespace

TEST_CASE("Stimulus display: a scene's rocks at the collision leave the trial's gap on the radius, in pixels, to 25 degrees",
          "[render][stimulus][scene]") {
  ExperimentSettings spec =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/scene_gap_eccentricity.yaml").spec;
  spec.screen.width_px = 960;  // a smaller picture: quicker on a software renderer, same geometry per degree
  spec.screen.height_px = 540;
  spec.stimulus.fixation_cross = false;  // at eccentricity 0 its arm would lie along the measured row
  spec.stimulus.colour = Vec3(0.8);
  StimulusDisplay display(spec, DisplayMode::offscreen);
  CHECK(display.scene_samples() >= 4);
  const std::vector<VoxelModel> models = scene_rock_models(spec);
  const double fx = 0.5 * spec.screen.width_px, fy = 0.5 * spec.screen.height_px;
  int index = 0;
  double worst_px = 0;
  for (const double e : {0.0, 5.0, 12.0, 25.0})
    for (const double g : {0.0, 0.2, 0.7, 2.0})
      for (const double direction : {0.0, 180.0}) {
        PlannedTrial trial;
        trial.trial = index++;
        trial.condition.eccentricity_deg = e;
        trial.condition.gap_deg = g;
        trial.condition.catch_trial = g == 0;
        trial.direction_deg = direction;
        const StimulusPlan plan = plan_stimulus(spec, trial, 3);
        display.draw(plan, plan.collision_time_s);
        const Image image = display.capture();
        const std::uint8_t* background = image.at(1, 1);
        const ScenePlan& scene = plan.scene;
        // The rows either side of the radius (the line y = 270 is the boundary between rows 269
        // and 270): their mean is the gap on the line for an edge straight across a pixel; each
        // row against the exact crossing on its own centre line.
        double mean_px = 0;
        for (const int row : {static_cast<int>(fy) - 1, static_cast<int>(fy)}) {
          double inner = 0, outer = 0, lo = 0, hi = 0;
          for (std::size_t i = 0; i < 2; ++i) {
            Vec3 c;
            Quat q;
            scene_pose(scene, i, plan.collision_time_s, c, q);
            REQUIRE(silhouette_on_line(scene, models[static_cast<std::size_t>(scene.paths[i].model)], c, q, fx, row + 0.5, lo,
                                       hi));
            (i == 0 ? inner : outer) = i == 0 ? hi : lo;
          }
          // Screen x of the two edges, in increasing x.
          const double a = fx + scene.direction_x * inner, b = fx + scene.direction_x * outer;
          const double measured = background_pixels(image, row, std::min(a, b), std::max(a, b), background);
          INFO("e " << e << ", g " << g << ", direction " << direction << ", row " << row << ": crossing " << outer - inner
                    << " px, drawn " << measured << " px");
          CHECK(std::abs(measured - std::max(outer - inner, 0.0)) <= 0.75);
          mean_px += 0.5 * measured;
        }
        const double specified_px = scene.outer_edge_px - scene.inner_edge_px;
        INFO("e " << e << ", g " << g << ", direction " << direction << ": specified " << specified_px << " px, drawn "
                  << mean_px << " px (mean of the rows either side)");
        CHECK(std::abs(mean_px - specified_px) <= 1.0);
        worst_px = std::max(worst_px, std::abs(mean_px - specified_px));
      }
  WARN("scene stimulus: the largest difference between the drawn and the specified gap: " << worst_px << " px");
  CHECK(index == 32);
}

TEST_CASE("Stimulus display: a scene is lit, anti-aliased, and shows the cross beneath the rocks", "[render][stimulus][scene]") {
  ExperimentSettings spec =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/scene_gap_eccentricity.yaml").spec;
  spec.screen.width_px = 960;
  spec.screen.height_px = 540;
  PlannedTrial trial;
  trial.condition.eccentricity_deg = 10;
  trial.condition.gap_deg = 0.5;
  const StimulusPlan plan = plan_stimulus(spec, trial, 3);
  auto display = std::make_unique<StimulusDisplay>(spec, DisplayMode::offscreen);
  display->draw(plan, plan.collision_time_s);
  const Image image = display->capture();
  // The cross at the centre.
  const std::uint8_t* c = image.at(480, 270);
  CHECK(int(c[0]) + c[1] + c[2] > 600);
  // Within the inner rock's silhouette: more than a few distinct shades (lit faces), and at
  // its edge on the row, values between the background's and the rock's (coverage).
  std::set<int> shades;
  const int left = static_cast<int>(480 + plan.scene.inner_edge_px) - 20;
  for (int y = 250; y < 290; ++y)
    for (int x = left; x < left + 18; ++x) {
      const std::uint8_t* p = image.at(x, y);
      if (p[0] + p[1] + p[2] > 60) shades.insert(p[0] * 65536 + p[1] * 256 + p[2]);
    }
  CHECK(shades.size() >= 3);
  // Anti-aliasing: pixels darker than any lit face but brighter than the background (part
  // covered) are many with 4 samples, and next to none with 1. A face in ambient light alone
  // is 0.35 of its colour (sum of the sRGB bytes about 328 for this rock colour), the
  // background's sum 129: a quarter-covered edge pixel lies at about 180 to 230.
  const std::uint8_t* bg = image.at(1, 1);
  const auto partial_pixels = [&](const Image& picture) {
    int partial = 0;
    const int b = bg[0] + bg[1] + bg[2];
    for (int y = 0; y < 540; ++y)
      for (int x = 0; x < 960; ++x) {
        const std::uint8_t* p = picture.at(x, y);
        const int v = p[0] + p[1] + p[2];
        partial += v > b + 20 && v < 300 ? 1 : 0;
      }
    return partial;
  };
  const int with_msaa = partial_pixels(image);
  // Before the stimulus and after it: the cross alone.
  display->draw(plan, -1);
  const Image before = display->capture();
  int lit = 0;
  for (int y = 0; y < 540; ++y)
    for (int x = 0; x < 960; ++x) lit += before.at(x, y)[1] != bg[1] ? 1 : 0;
  CHECK(lit > 0);
  CHECK(lit < 200);
  const int display_samples = display->scene_samples();
  display.reset();  // one context at a time
  ExperimentSettings aliased = spec;
  aliased.stimulus.scene.msaa_samples = 1;
  int without = 0;
  {
    StimulusDisplay plain(aliased, DisplayMode::offscreen);
    plain.draw(plan, plan.collision_time_s);
    without = partial_pixels(plain.capture());
  }
  WARN("scene stimulus: part-covered pixels: " << with_msaa << " with " << display_samples << " samples, " << without
                                                << " with 1");
  CHECK(with_msaa > 3 * without + 10);
}

TEST_CASE("fovea experiment: --capture draws scene stimuli", "[render][stimulus][scene][cli][slow]") {
  test::TempDir dir;
  const auto r = test::run_process(
      {std::string(FOVEA_BINARY), "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/scene_gap_eccentricity.yaml",
       "--participant", "P03", "--observer", std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml", "--out", "p03",
       "--capture", "pictures", "--quiet", "--set", "staircase.n_trials=2", "--set", "staircase.n_reversals=0", "--set",
       "screen.width_px=960", "--set", "screen.height_px=540"},
      dir.path());
  REQUIRE(r.status == 0);
  // One picture per trial (staircases end after at least 3 reversals, PsychoPy's rule for 3
  // step sizes: more than 12 trials), each a PNG.
  const std::size_t trials = test::lines_of(test::read_file(dir / "p03" / "trials.csv")).size() - 1;
  CHECK(trials >= 12);
  std::size_t pictures = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "pictures")) {
    const std::string png = test::read_file(entry.path());
    CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    ++pictures;
  }
  CHECK(pictures == trials);
}

namespace {

/// The trials of `spec`'s design at eccentricity 0, as a session runs them with a simulated
/// observer of the default model answering (the adaptive designs' gaps depend on the answers).
std::vector<PlannedTrial> trials_at_fixation(const ExperimentSettings& spec) {
  TrialSequence sequence(spec, {});
  const SimulatedObserver observer(PerceptionModelSettings{}, 11, "P01");
  std::vector<PlannedTrial> at_fixation;
  while (const std::optional<PlannedTrial> trial = sequence.next()) {
    if (trial->condition.eccentricity_deg == 0) at_fixation.push_back(*trial);
    sequence.record(observer.answer(*trial, 0));
  }
  return at_fixation;
}

/// The pixels within `radius_px` of (`x_px`, `y_px`), row by row, RGB.
std::vector<std::uint8_t> pixels_within(const Image& image, double x_px, double y_px, double radius_px) {
  std::vector<std::uint8_t> out;
  for (int y = static_cast<int>(std::floor(y_px - radius_px)); y <= static_cast<int>(std::ceil(y_px + radius_px)); ++y)
    for (int x = static_cast<int>(std::floor(x_px - radius_px)); x <= static_cast<int>(std::ceil(x_px + radius_px)); ++x) {
      if (x < 0 || y < 0 || x >= image.width_px || y >= image.height_px) continue;
      if (std::hypot(x + 0.5 - x_px, y + 0.5 - y_px) > radius_px) continue;
      const std::uint8_t* p = image.at(x, y);
      out.insert(out.end(), p, p + 3);
    }
  return out;
}

}  // namespace

// Issue 45: the cross's arm filled a 0.135-degree gap at fixation, and on a catch trial showed
// between the touching rocks. Every 0-degree trial of every shipped gap spec, drawn at its
// collision with the cross and without it: the gap's surroundings (plan.keep_clear_radius_px)
// are the same pixels, so nothing of the cross is where the gap is judged.
TEST_CASE("Stimulus display: the fixation cross draws nothing where the gap is judged on any 0-degree trial of the shipped specs",
          "[render][stimulus][scene][slow]") {
  int checked_trials = 0;
  for (const char* name : {"gap_eccentricity.yaml", "scene_gap_eccentricity.yaml", "gap_2ifc.yaml"}) {
    const ExperimentSettings spec =
        config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/" + name).spec;
    REQUIRE(spec.stimulus.fixation_cross);
    const std::vector<PlannedTrial> trials = trials_at_fixation(spec);
    REQUIRE(trials.size() >= 20);
    std::vector<std::vector<std::uint8_t>> with_cross;
    std::vector<StimulusPlan> plans;
    {
      StimulusDisplay display(spec, DisplayMode::offscreen);
      for (const PlannedTrial& trial : trials) {
        for (const int interval : presented_intervals(spec)) {
          plans.push_back(plan_interval(spec, trial, interval, static_cast<std::uint64_t>(spec.seed)));
          display.draw(plans.back(), plans.back().collision_time_s);
          const Image image = display.capture();
          with_cross.push_back(pixels_within(image, plans.back().target_x_px, plans.back().target_y_px,
                                             plans.back().keep_clear_radius_px));
          // The cross is there before the stimulus: the test would pass on a missing cross otherwise.
          display.draw(plans.back(), -1);
          const Image before = display.capture();
          const std::uint8_t* centre = before.at(spec.screen.width_px / 2, spec.screen.height_px / 2);
          REQUIRE(int(centre[0]) + centre[1] + centre[2] > 600);
        }
      }
    }
    ExperimentSettings no_cross = spec;
    no_cross.stimulus.fixation_cross = false;
    StimulusDisplay display(no_cross, DisplayMode::offscreen);
    int differing = 0;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      display.draw(plans[i], plans[i].collision_time_s);
      const std::vector<std::uint8_t> without =
          pixels_within(display.capture(), plans[i].target_x_px, plans[i].target_y_px, plans[i].keep_clear_radius_px);
      REQUIRE(without.size() == with_cross[i].size());
      REQUIRE(!without.empty());
      differing += without == with_cross[i] ? 0 : 1;
    }
    INFO(name << ": " << plans.size() << " pictures at fixation");
    CHECK(differing == 0);
    checked_trials += static_cast<int>(trials.size());
  }
  WARN("0-degree trials checked in the shipped specs: " << checked_trials);
}
