// Fuzz target: a display's lookup table (psychophysics/display_calibration.hpp), the CSV
// display.lut_file names: level,luminance or level,r,g,b. Refusal is std::runtime_error
// naming the file and the line. Beyond "no crash", every table parse_display_lut accepts has
// 2 to 4096 rows, levels from exactly 0 to exactly 1 increasing strictly, and per channel
// linear values from exactly 0 to exactly 1 that never fall; the calibration it makes sends
// values in [0, 1] that never fall as the linear value rises, gives each 8-bit level as the
// count of level thresholds below the value (the scene shader's rule) to within one level at
// a threshold, and inverts its own model (linear_of(value_for(x)) is x to 1e-9) where the
// table's levels lie at least 1e-6 apart (closer, a segment is below what a double's
// interpolation across it resolves; no output has steps so fine).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "psychophysics/display_calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fovea::DisplayLut lut;
  try {
    lut = fovea::parse_display_lut(text, "lut.csv");
  } catch (const std::runtime_error&) {
    return 0;  // refused, naming the line: what the reader is for
  }
  using fovea::fuzz::check;
  const std::size_t rows = lut.levels.size();
  check(rows >= 2 && rows <= fovea::kMaxDisplayLutRows, "a table of " + std::to_string(rows) + " rows accepted");
  check(lut.levels.front() == 0 && lut.levels.back() == 1, "levels not from 0 to 1");
  for (std::size_t i = 1; i < rows; ++i) check(lut.levels[i] > lut.levels[i - 1], "levels not increasing strictly");
  for (int c = 0; c < 3; ++c) {
    const auto& ys = lut.linear[static_cast<std::size_t>(c)];
    check(ys.size() == rows, "a channel's column is not as long as the levels");
    check(ys.front() == 0 && ys.back() == 1, "a channel's linear values not from 0 to 1");
    for (std::size_t i = 1; i < rows; ++i) check(ys[i] >= ys[i - 1] && std::isfinite(ys[i]), "linear values fall");
  }

  double closest = 1;
  for (std::size_t i = 1; i < rows; ++i) closest = std::min(closest, lut.levels[i] - lut.levels[i - 1]);
  const fovea::DisplayCalibration calibration = fovea::DisplayCalibration::measured(lut);
  for (int c = 0; c < 3; ++c) {
    double previous = 0;
    for (int i = 0; i <= 64; ++i) {
      const double linear = i / 64.0;
      const double value = calibration.value_for(linear, c);
      check(value >= 0 && value <= 1, "a value sent outside [0, 1]");
      check(value >= previous, "the value sent falls as the linear value rises");
      previous = value;
      if (closest >= 1e-6)
        check(std::abs(calibration.linear_of(value, c) - linear) <= 1e-9, "linear_of does not invert value_for");
      int below = 0;
      for (int level = 1; level < fovea::kDisplayLevels; ++level)
        below += calibration.level_threshold(level, c) < linear ? 1 : 0;
      const int level = calibration.level_for(linear, c);
      // Exactly at a threshold the two rules may round apart by one; nowhere by more.
      check(std::abs(below - level) <= 1, "level_for is not the count of thresholds below the value");
    }
  }
  return 0;
}
