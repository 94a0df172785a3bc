// The display a lab calibrates, drawn: a stimulus's linear colours reach the framebuffer as
// display.gamma or display.lut_file says (render/stimulus_display, the scene's shader in
// render/scene_renderer), checked against DisplayCalibration's own levels offscreen; and a
// person's session of the fovea binary names its monitor (display.index) and the calibration
// in force in session.log, and refuses a monitor SDL does not see before writing anything.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "config/config.hpp"
#include "core/format.hpp"
#include "psychophysics/display_calibration.hpp"
#include "psychophysics/session.hpp"
#include "render/stimulus_display.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using test::read_file;
using test::TempDir;

namespace {

const std::string kFovea = FOVEA_BINARY;

/// A table measured at `rows` levels on a display of `gamma` (black 0.5, white 100.5 cd/m^2).
std::string measured_text(int rows, double gamma) {
  std::string text = "level,luminance\n";
  for (int i = 0; i < rows; ++i) {
    const double level = static_cast<double>(i) / (rows - 1);
    text += format_number(level) + "," + format_number(0.5 + 100 * std::pow(level, gamma)) + "\n";
  }
  return text;
}

/// The shipped spec of `file` on a smaller picture of the same screen (quicker offscreen),
/// with the display keys `display` (YAML flow map text).
ExperimentSettings small_spec(const std::string& file, const std::string& display) {
  ExperimentSettings spec =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/" + file,
                                   {config::set_override("display=" + display)})
          .spec;
  spec.screen.width_px = 480;
  spec.screen.height_px = 270;
  return spec;
}

/// The trial drawn at its collision, as captured.
Image draw_trial(const ExperimentSettings& spec) {
  PlannedTrial trial;
  trial.condition.eccentricity_deg = 5;
  trial.condition.gap_deg = 0.5;
  const StimulusPlan plan = plan_stimulus(spec, trial, 3);
  StimulusDisplay display(spec, DisplayMode::offscreen);
  display.draw(plan, plan.collision_time_s);
  return display.capture();
}

/// The largest difference of two pictures' channels, and how many channels differ at all.
struct Difference {
  int largest = 0;
  int channels = 0;
};
Difference compare(const Image& a, const Image& b) {
  Difference d;
  for (int y = 0; y < 270; ++y)
    for (int x = 0; x < 480; ++x)
      for (int c = 0; c < 3; ++c) {
        const int v = std::abs(int(a.at(x, y)[c]) - int(b.at(x, y)[c]));
        d.largest = std::max(d.largest, v);
        d.channels += v > 0 ? 1 : 0;
      }
  return d;
}

std::string session_spec(const std::string& display) {
  return "name: calibrated\n"
         "seed: 3\n"
         "screen: {width_px: 480, height_px: 270, width_cm: 53.1, height_cm: 29.9, viewing_distance_cm: 57}\n"
         "stimulus: {entities: 4, duration_s: 0.3, collision_time_s: 0.15}\n"
         "method: constant_stimuli\n"
         "constant_stimuli: {gaps_deg: [0.4], eccentricities_deg: [5], repetitions: 1, blocks: 1}\n"
         "task: {inter_trial_interval_s: 0.1}\n"
         "display: " + display + "\n";
}

test::ProcessResult run_session(const TempDir& dir) {
  return test::run_process({kFovea, "experiment", (dir / "spec.yaml").string(), "--participant", "P1", "--out",
                            (dir / "P1").string(), "--quiet", "--synthetic-keys", "instructions:Space,answer:y"},
                           dir.path());
}

}  // namespace

TEST_CASE("Display calibration drawn: discs, the cross and the background are sent at the calibration's levels",
          "[render][display]") {
  TempDir dir;
  test::write_file(dir / "rgb.csv", "level,r,g,b\n0,0,0,0\n0.5,10,20,30\n1,100,80,60\n");
  const std::string rgb = (dir / "rgb.csv").string();
  for (const std::string& display : {std::string("{}"), std::string("{gamma: 1}"), std::string("{gamma: 2.6}"),
                                    "{lut_file: " + rgb + "}"}) {
    INFO("display: " << display);
    const ExperimentSettings spec = small_spec("gap_eccentricity.yaml", display);
    const DisplayCalibration calibration = display_calibration(spec.display);
    PlannedTrial trial;
    trial.condition.eccentricity_deg = 5;
    trial.condition.gap_deg = 0.5;
    const StimulusPlan plan = plan_stimulus(spec, trial, 3);
    StimulusDisplay shown(spec, DisplayMode::offscreen);
    shown.draw(plan, plan.collision_time_s);
    const Image image = shown.capture();
    double x = 0, y = 0;
    stimulus_position(plan, 0, plan.collision_time_s, x, y);
    const std::uint8_t* disc = image.at(static_cast<int>(x), static_cast<int>(y));
    const std::uint8_t* background = image.at(2, 2);
    const std::uint8_t* cross = image.at(240, 135);
    for (int c = 0; c < 3; ++c) {
      CHECK(int(disc[c]) == calibration.level_for(spec.stimulus.colour[c], c));
      CHECK(int(background[c]) == calibration.level_for(spec.stimulus.background[c], c));
      CHECK(int(cross[c]) == 255);  // white is the display's white, whatever its calibration
    }
  }
  // The values: gamma 1 sends the spec's linear 0.8 and 0.02 as they are.
  const Image linear = draw_trial(small_spec("gap_eccentricity.yaml", "{gamma: 1}"));
  CHECK(int(linear.at(2, 2)[0]) == 5);
}

TEST_CASE("Display calibration drawn: a scene's shading is sent through the table as through the gamma it measures",
          "[render][display][scene]") {
  TempDir dir;
  // Every 8-bit level measured on a display of the nominal 2.2, and a linear display's two rows.
  test::write_file(dir / "nominal.csv", measured_text(256, kNominalDisplayGamma));
  test::write_file(dir / "linear.csv", "level,luminance\n0,0\n1,1\n");
  const Image nominal = draw_trial(small_spec("scene_gap_eccentricity.yaml", "{}"));
  const Image nominal_table =
      draw_trial(small_spec("scene_gap_eccentricity.yaml", "{lut_file: " + (dir / "nominal.csv").string() + "}"));
  const Image gamma_1 = draw_trial(small_spec("scene_gap_eccentricity.yaml", "{gamma: 1}"));
  const Image linear_table =
      draw_trial(small_spec("scene_gap_eccentricity.yaml", "{lut_file: " + (dir / "linear.csv").string() + "}"));
  const Difference same_2_2 = compare(nominal, nominal_table);
  const Difference same_1 = compare(gamma_1, linear_table);
  const Difference calibrated = compare(nominal, gamma_1);
  WARN("scene, channels that differ: nominal against its table " << same_2_2.channels << " (at most " << same_2_2.largest
                                                                  << "), gamma 1 against its table " << same_1.channels
                                                                  << " (at most " << same_1.largest << "), 2.2 against 1 "
                                                                  << calibrated.channels);
  // The shader's level thresholds give the gamma's own levels to one level (float32, and the
  // table's interpolation between levels).
  CHECK(same_2_2.largest <= 1);
  CHECK(same_1.largest <= 1);
  // Each gun its own column: red measured linear, green at 2.2, blue linear again.
  std::string rgb = "level,r,g,b\n";
  for (int i = 0; i < 256; ++i) {
    const double level = i / 255.0;
    rgb += format_number(level) + "," + format_number(level) + "," + format_number(std::pow(level, 2.2)) + "," +
           format_number(level) + "\n";
  }
  test::write_file(dir / "rgb.csv", rgb);
  const Image per_gun = draw_trial(small_spec("scene_gap_eccentricity.yaml", "{lut_file: " + (dir / "rgb.csv").string() + "}"));
  int largest = 0;
  for (int y = 0; y < 270; ++y)
    for (int x = 0; x < 480; ++x) {
      largest = std::max(largest, std::abs(int(per_gun.at(x, y)[0]) - int(gamma_1.at(x, y)[0])));
      largest = std::max(largest, std::abs(int(per_gun.at(x, y)[1]) - int(nominal.at(x, y)[1])));
      largest = std::max(largest, std::abs(int(per_gun.at(x, y)[2]) - int(gamma_1.at(x, y)[2])));
    }
  CHECK(largest <= 1);
  // The calibration reaches the rocks' shading, not only the background: gamma 1 sends every
  // lit pixel darker than 2.2 does.
  CHECK(calibrated.channels > 3 * 480 * 270 / 2);
  int darker = 0, rock = 0;
  for (int y = 0; y < 270; ++y)
    for (int x = 0; x < 480; ++x) {
      const std::uint8_t* a = nominal.at(x, y);
      if (a[0] + a[1] + a[2] < 3 * 60) continue;  // background or cross's surround
      if (a[0] == 255 && a[1] == 255 && a[2] == 255) continue;  // the cross
      ++rock;
      darker += gamma_1.at(x, y)[1] < a[1] ? 1 : 0;
    }
  CHECK(rock > 50);
  CHECK(darker == rock);
}

TEST_CASE("Display calibration in a session: session.log names the monitor and the calibration in force, "
          "experiment.yaml the keys",
          "[render][display][experiment][person]") {
  {
    TempDir dir;
    test::write_file(dir / "spec.yaml", session_spec("{development_run: true, gamma: 2.4}"));
    const test::ProcessResult run = run_session(dir);
    INFO(run.err);
    REQUIRE(run.status == 0);
    const std::string log = read_file(dir / "P1" / "session.log");
    INFO(log);
    // SDL's offscreen driver has one monitor, 1024 x 768, which it names "0".
    CHECK(log.find("; monitor 0 \"0\", 1024 x 768 at (0, 0), of 1 (display.index); calibration: gamma 2.4 (display.gamma)\n") !=
          std::string::npos);
    const std::string spec = read_file(dir / "P1" / "experiment.yaml");
    CHECK(spec.find("  index: 0\n  gamma: 2.4\n  lut_file: \"\"\n") != std::string::npos);
  }
  {
    TempDir dir;
    const std::string table = "level,luminance\n0,0.4\n0.5,21.8\n1,97.2\n";
    test::write_file(dir / "monitor.csv", table);
    // The table's path is relative to the spec, and recorded absolute.
    test::write_file(dir / "spec.yaml", session_spec("{development_run: true, lut_file: monitor.csv}"));
    const test::ProcessResult run = run_session(dir);
    INFO(run.err);
    REQUIRE(run.status == 0);
    const std::string path = std::filesystem::absolute(dir / "monitor.csv").lexically_normal().string();
    const std::string log = read_file(dir / "P1" / "session.log");
    INFO(log);
    CHECK(log.find("calibration: lookup table " + path + " (display.lut_file): 3 rows, one luminance column, " +
                   std::to_string(table.size()) + " bytes\n") != std::string::npos);
    // The session keeps the very table it used.
    CHECK(log.find("the lookup table in force is copied to display_lut_session1.csv") != std::string::npos);
    CHECK(read_file(dir / "P1" / "display_lut_session1.csv") == table);
    const std::string spec = read_file(dir / "P1" / "experiment.yaml");
    CHECK(spec.find("  gamma: ~\n  lut_file: \"" + path + "\"\n") != std::string::npos);
    // The resolved spec loads back to itself.
    CHECK(config::resolved_experiment_yaml(config::load_experiment_text(spec, "experiment.yaml").spec) == spec);
  }
}

TEST_CASE("Display calibration in a session: a monitor SDL does not see is refused at display.index, nothing written",
          "[render][display][experiment][person]") {
  TempDir dir;
  test::write_file(dir / "spec.yaml", session_spec("{development_run: true, index: 1}"));
  const test::ProcessResult run = run_session(dir);
  INFO(run.err);
  CHECK(run.status == 2);
  CHECK(run.err.find("spec.yaml:8:") != std::string::npos);
  CHECK(run.err.find("display.index: there is no display 1: SDL sees 1 display: 0 \"0\", 1024 x 768 at (0, 0)\n") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "P1"));
}
