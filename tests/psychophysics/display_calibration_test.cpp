// The display's calibration (psychophysics/display_calibration.hpp) against obvious oracles:
// a gamma's value raised to the gamma is the linear value asked for; a table measured on a
// display of known gamma gives the gamma's values to within its rows' spacing; the 8-bit level
// is the count of level thresholds below the value, as the scene's shader counts them; and
// every malformed table is refused with its file, line and what is wrong.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/format.hpp"
#include "core/rng.hpp"
#include "psychophysics/display_calibration.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

/// A table of `rows` levels measured on a display of `gamma` with a black of 0.4 cd/m^2 and a
/// white of 120.4: Y = 0.4 + 120 level^gamma, each in format_number's exact text.
std::string measured_text(int rows, double gamma) {
  std::string text = "level,luminance\n";
  for (int i = 0; i < rows; ++i) {
    const double level = static_cast<double>(i) / (rows - 1);
    text += format_number(level) + "," + format_number(0.4 + 120 * std::pow(level, gamma)) + "\n";
  }
  return text;
}

/// The 8-bit level the scene's shader finds: the count of level thresholds below `linear`.
int level_by_thresholds(const DisplayCalibration& c, double linear, int channel) {
  int below = 0;
  for (int level = 1; level < kDisplayLevels; ++level) below += c.level_threshold(level, channel) < linear ? 1 : 0;
  return below;
}

/// The message parse_display_lut gives `text`, or "" when it reads it.
std::string refusal(const std::string& text) {
  try {
    (void)parse_display_lut(text, "lut.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Display calibration: a gamma's value raised to the gamma is the linear value asked for",
          "[psychophysics][display]") {
  for (const double gamma : {1.0, 1.8, 2.2, 2.6, 4.0}) {
    const DisplayCalibration c = DisplayCalibration::power_law(gamma);
    for (int i = 0; i <= 1000; ++i) {
      const double linear = i / 1000.0;
      for (int channel = 0; channel < 3; ++channel) {
        const double v = c.value_for(linear, channel);
        INFO("gamma " << gamma << ", linear " << linear);
        CHECK(std::abs(std::pow(v, gamma) - linear) < 1e-12);
        CHECK(std::abs(c.linear_of(v, channel) - linear) < 1e-12);
        CHECK(c.level_for(linear, channel) == std::lround(255 * v));
      }
    }
    // Out of range clamps; NaN is black.
    CHECK(c.value_for(-0.5, 0) == 0);
    CHECK(c.value_for(1.5, 1) == 1);
    CHECK(c.value_for(std::nan(""), 2) == 0);
    CHECK(c.level_for(1, 0) == 255);
    CHECK(c.level_for(0, 0) == 0);
  }
  CHECK_THROWS_AS(DisplayCalibration::power_law(0), std::invalid_argument);
  CHECK_THROWS_AS(DisplayCalibration::power_law(std::nan("")), std::invalid_argument);
  // gamma 1: the linear values are sent as they are.
  CHECK(DisplayCalibration::power_law(1).level_for(0.8, 0) == 204);
}

TEST_CASE("Display calibration: none given is the nominal 2.2 fovea always sent, byte for byte", "[psychophysics][display]") {
  const DisplayCalibration none;
  CHECK_FALSE(none.has_table());
  CHECK(none.gamma() == kNominalDisplayGamma);
  for (int i = 0; i <= 4096; ++i) {
    const double linear = i / 4096.0;
    // The encoding stimuli had before calibrations (render/scene_renderer.cpp's srgb_encode).
    const long before = std::lround(std::pow(std::clamp(linear, 0.0, 1.0), 1.0 / 2.2) * 255);
    REQUIRE(none.level_for(linear, 0) == before);
  }
  // The spec's defaults: the discs at 0.8 and the background at 0.02.
  CHECK(int(none.level_for(0.8, 0)) == 230);
  CHECK(int(none.level_for(0.02, 0)) == 43);
  CHECK(none.description() == "none given (display.gamma, display.lut_file): gamma 2.2 assumed");
  CHECK(DisplayCalibration::power_law(2.35).description() == "gamma 2.35 (display.gamma)");
}

TEST_CASE("Display calibration: a table measured on a display of known gamma gives the gamma's values within its rows' spacing",
          "[psychophysics][display]") {
  for (const int rows : {2, 17, 256, 4096}) {
    const double gamma = rows == 2 ? 1.0 : 2.4;  // two rows measure a linear display
    const DisplayCalibration table = DisplayCalibration::measured(parse_display_lut(measured_text(rows, gamma), "lut.csv"));
    const DisplayCalibration law = DisplayCalibration::power_law(gamma);
    REQUIRE(table.has_table());
    REQUIRE(table.table()->levels.size() == static_cast<std::size_t>(rows));
    const double spacing = 1.0 / (rows - 1);
    // At the rows the table is the measurement, normalised: level^gamma.
    for (int i = 0; i < rows; ++i) {
      const double level = static_cast<double>(i) / (rows - 1);
      CHECK(std::abs(table.linear_of(level, 0) - std::pow(level, gamma)) < 1e-12);
    }
    Rng rng(static_cast<std::uint64_t>(rows));
    int same_level = 0;
    for (int i = 0; i < 20000; ++i) {
      const double linear = rng.uniform(0, 1);
      const int channel = static_cast<int>(rng.below(3));
      const double v = table.value_for(linear, channel);
      INFO(rows << " rows, linear " << linear);
      // Both values lie between the same two rows' levels.
      REQUIRE(std::abs(v - law.value_for(linear, channel)) <= spacing + 1e-12);
      // The table inverts its own model exactly.
      REQUIRE(std::abs(table.linear_of(v, channel) - linear) < 1e-12);
      const int difference = table.level_for(linear, channel) - law.level_for(linear, channel);
      REQUIRE(std::abs(difference) <= (rows >= 256 ? 1 : 255));
      same_level += difference == 0 ? 1 : 0;
    }
    // Every 8-bit level measured, or more: nearly always the gamma's own level.
    if (rows >= 256) CHECK(same_level > 19000);
    if (rows == 2) CHECK(same_level == 20000);
  }
}

TEST_CASE("Display calibration: r, g and b columns each follow their own gun, and a flat start sends black as level 0",
          "[psychophysics][display]") {
  std::string text = "level, r, g, b\n";  // spaces after the commas, as people write them
  for (int i = 0; i <= 64; ++i) {
    const double level = i / 64.0;
    text += format_number(level) + "," + format_number(30 * std::pow(level, 2.0)) + "," +
            format_number(80 * std::pow(level, 2.2)) + "," + format_number(10 * std::pow(level, 2.6)) + "\n";
  }
  const DisplayCalibration c = DisplayCalibration::measured(parse_display_lut(text, "rgb.csv"));
  REQUIRE(c.table()->per_channel);
  for (const double linear : {0.05, 0.2, 0.5, 0.9}) {
    CHECK(std::abs(c.value_for(linear, 0) - std::pow(linear, 1 / 2.0)) < 1.0 / 64);
    CHECK(std::abs(c.value_for(linear, 1) - std::pow(linear, 1 / 2.2)) < 1.0 / 64);
    CHECK(std::abs(c.value_for(linear, 2) - std::pow(linear, 1 / 2.6)) < 1.0 / 64);
  }
  CHECK(c.value_for(0.5, 0) < c.value_for(0.5, 1));
  CHECK(c.value_for(0.5, 1) < c.value_for(0.5, 2));

  // A photometer that reads 0 for the lowest levels: black is the lowest level that shows it,
  // and anything brighter lies past the flat part.
  const DisplayCalibration flat =
      DisplayCalibration::measured(parse_display_lut("level,luminance\n0,0\n0.1,0\n0.2,1\n1,10\n", "flat.csv"));
  CHECK(flat.value_for(0, 0) == 0);
  CHECK(flat.level_for(0, 1) == 0);
  CHECK(flat.value_for(1e-9, 0) > 0.1);
  CHECK(flat.value_for(0.1, 0) == Approx(0.2));
  CHECK(flat.value_for(0.55, 0) == Approx(0.6));
}

TEST_CASE("Display calibration: the 8-bit level is the count of level thresholds below the value, as the shader counts",
          "[psychophysics][display]") {
  const DisplayCalibration flat =
      DisplayCalibration::measured(parse_display_lut("level,luminance\n0,0\n0.1,0\n0.2,1\n0.5,1\n1,10\n", "flat.csv"));
  for (const DisplayCalibration& c : {DisplayCalibration(), DisplayCalibration::power_law(1.9),
                                      DisplayCalibration::measured(parse_display_lut(measured_text(17, 2.3), "lut.csv")),
                                      flat}) {
    for (int level = 2; level < kDisplayLevels; ++level)
      CHECK(c.level_threshold(level, 0) >= c.level_threshold(level - 1, 0));
    Rng rng(5);
    for (int i = 0; i < 5000; ++i) {
      const double linear = i < 3 ? i * 0.5 : rng.uniform(0, 1);  // 0, 0.5 and 1 exactly, then any
      const int channel = static_cast<int>(rng.below(3));
      INFO("linear " << linear);
      REQUIRE(level_by_thresholds(c, linear, channel) == c.level_for(linear, channel));
    }
  }
}

TEST_CASE("Display calibration: malformed tables are refused with the file, the line and what is wrong",
          "[psychophysics][display]") {
  const std::string header = "level,luminance\n";
  CHECK(refusal(header + "0,1\n1,100\n").empty());
  CHECK(refusal("") == "lut.csv: empty file: no header row");
  CHECK(refusal("level,lum\n0,1\n1,2\n") == "lut.csv:1: expected the header level,luminance or level,r,g,b, found \"level,lum\"");
  CHECK(refusal("level,r,g\n0,1,1\n1,2,2\n") ==
        "lut.csv:1: expected the header level,luminance or level,r,g,b, found \"level,r,g\"");
  CHECK(refusal(header + "0,1\n") == "lut.csv: 1 rows; a table needs at least two, level 0 (black) and level 1 (white)");
  CHECK(refusal(header + "0,1\n0.5,x\n1,3\n") == "lut.csv:3: luminance: expected a finite number, found \"x\"");
  CHECK(refusal(header + "0,1\nnan,2\n1,3\n") == "lut.csv:3: level: expected a finite number, found \"nan\"");
  CHECK(refusal(header + "0,1\n0.5,inf\n1,3\n") == "lut.csv:3: luminance: expected a finite number, found \"inf\"");
  CHECK(refusal(header + "0,1\n0.5,\n1,3\n") == "lut.csv:3: luminance: expected a finite number, found \"\"");
  CHECK(refusal(header + "0.1,1\n1,3\n") == "lut.csv:2: the first level is 0.1, not 0: the table starts at black, level 0");
  CHECK(refusal(header + "0,1\n0.5,2\n0.9,3\n") == "lut.csv:4: the last level is 0.9, not 1: the table ends at the display's white, level 1");
  CHECK(refusal(header + "0,1\n255,3\n") ==
        "lut.csv:3: level 255 is outside [0, 1]: levels are fractions of the display's range (an 8-bit value k is k / 255)");
  CHECK(refusal(header + "0,1\n0.5,2\n0.5,3\n1,4\n") ==
        "lut.csv:4: level 0.5 does not come after the previous row's 0.5: levels increase strictly down the table");
  CHECK(refusal(header + "0,1\n0.6,2\n0.5,3\n1,4\n") ==
        "lut.csv:4: level 0.5 does not come after the previous row's 0.6: levels increase strictly down the table");
  CHECK(refusal(header + "0,-1\n1,3\n") == "lut.csv:2: luminance -1 is negative: luminance is at least 0");
  CHECK(refusal(header + "0,1\n0.5,3.4\n0.75,3.1\n1,9\n") ==
        "lut.csv:4: luminance 3.1 is below the previous row's 3.4: a display's luminance does not fall as its level "
        "rises; measure again (or average repeated readings)");
  CHECK(refusal(header + "0,5\n1,5\n") ==
        "lut.csv:3: the luminance does not rise from the first row (5) to the last (5): nothing to calibrate");
  CHECK(refusal("level,r,g,b\n0,1,1,1\n1,2,1,2\n") ==
        "lut.csv:3: the luminance of g does not rise from the first row (1) to the last (1): nothing to calibrate");
  CHECK(refusal(header + "0,1,7\n1,2\n") == "lut.csv:2: this row has 3 cells, the header 2");
  // A last row without its line end may be a number cut short: refused, not read.
  CHECK(refusal(header + "0,1\n1,10") == "lut.csv:3: its last row has no line end; it was never finished");
  // More rows than a table may have.
  std::string many = header;
  for (std::size_t i = 0; i <= kMaxDisplayLutRows; ++i) many += format_number(static_cast<double>(i) / kMaxDisplayLutRows) + ",1\n";
  CHECK(refusal(many) == "lut.csv: 4097 rows, more than the 4096 a lookup table may have");
  // An excerpt of a long cell, not the cell.
  CHECK(refusal(header + "0,1\n0.5," + std::string(1000, '9') + "x\n1,3\n").find("(1001 bytes)") != std::string::npos);
}

TEST_CASE("Display calibration: a table file is read once, bounded, and named by its path and size, its bytes kept",
          "[psychophysics][display]") {
  test::TempDir dir;
  const std::string text = "level,luminance\r\n0,0.31\r\n0.5,22.5\r\n1,98.7\r\n";  // as a spreadsheet saves it
  test::write_file(dir / "lut.csv", text);
  const std::string path = (dir / "lut.csv").string();
  const DisplayLut lut = read_display_lut(path);
  CHECK(lut.path == path);
  CHECK(lut.bytes == text.size());
  CHECK(lut.text == text);
  CHECK_FALSE(lut.per_channel);
  CHECK(lut.linear[0][1] == Approx((22.5 - 0.31) / (98.7 - 0.31)));

  DisplaySettings display;
  display.lut_file = path;
  const DisplayCalibration c = display_calibration(display);
  CHECK(c.description() == "lookup table " + path + " (display.lut_file): 3 rows, one luminance column, " +
                               std::to_string(text.size()) + " bytes");
  display.lut_file.clear();
  display.gamma = 2.35;
  CHECK(display_calibration(display).gamma() == 2.35);
  display.gamma.reset();
  CHECK(display_calibration(display).description().find("gamma 2.2 assumed") != std::string::npos);

  // Missing, a folder, larger than a table may be.
  CHECK_THROWS_WITH(read_display_lut((dir / "none.csv").string()),
                    (dir / "none.csv").string() + ": cannot read the display lookup table: no such file");
  CHECK_THROWS_WITH(read_display_lut(dir.path().string()),
                    dir.path().string() + ": cannot read the display lookup table: it is a folder, not a file");
  test::write_file(dir / "big.csv", std::string(kMaxDisplayLutBytes + 1, '0'));
  CHECK_THROWS_WITH(read_display_lut((dir / "big.csv").string()), Catch::Contains("more than the 1 MiB"));
}
