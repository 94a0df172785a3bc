#pragma once

// The display's calibration (docs/psychophysics.md, "The display"): how a stimulus's linear
// value, the fraction of the way from the display's black to its white luminance that the
// spec asks for, becomes the value sent to the framebuffer. A power law (display.gamma) or a
// measured lookup table (display.lut_file) inverted by interpolation. Plain functions: the
// renderer applies them (render/stimulus_display, render/scene_renderer), the spec's check
// reads the table when the spec is loaded (config/).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "psychophysics/experiment_settings.hpp"

namespace fovea {

/// The most rows a lookup table may have: every level of a 12-bit output, far more than a
/// photometer session measures (17 to 256 levels).
inline constexpr std::size_t kMaxDisplayLutRows = 4096;
/// The largest lookup table file, bytes: 4096 rows of four long numbers are about 300 kB.
inline constexpr std::uint64_t kMaxDisplayLutBytes = std::uint64_t{1} << 20;
/// The levels of the framebuffer a stimulus is drawn into: 8 bits a channel.
inline constexpr int kDisplayLevels = 256;

/// A measured lookup table as its file gives it (docs/psychophysics.md, "The display"): the
/// values sent, as fractions of the output's range, and the luminance each gave, normalised
/// per channel so that the first row's is 0 and the last row's 1.
struct DisplayLut {
  std::vector<double> levels;  ///< the values sent, 0 first and 1 last, strictly increasing
  /// Red, green, blue: (Y - Y first) / (Y last - Y first), non-decreasing, 0 first and 1 last;
  /// the three the same when the file has one luminance column.
  std::array<std::vector<double>, 3> linear;
  bool per_channel = false;  ///< the file's columns: r, g and b (true) or one luminance column (false)
  std::string path;          ///< the file as read
  std::uint64_t bytes = 0;   ///< its size
  /// The file's bytes as read (at most kMaxDisplayLutBytes): a session copies them into its
  /// folder, so its records hold the very table it used (docs/psychophysics.md, "The display").
  std::string text;
};

/// Reads a lookup table: a CSV file with the header `level,luminance` or `level,r,g,b`, then
/// 2 to kMaxDisplayLutRows rows of numbers. Levels are fractions of the output's range (an
/// 8-bit value k is k / 255), from 0 to 1, strictly increasing; luminances are what a
/// photometer read at each (any one unit: cd/m^2), at least 0, never falling down the table,
/// and higher in the last row than in the first. Throws std::runtime_error naming the file
/// and, for a row, its line: "lut.csv:5: luminance 3.1 is below the previous row's 3.4: ...".
DisplayLut read_display_lut(const std::string& path);
/// The same from text in memory; `name` stands for the path in messages.
DisplayLut parse_display_lut(std::string_view text, const std::string& name);

/// How a display's calibration turns linear values into values sent: a power law, or a
/// measured table inverted by linear interpolation between its rows.
class DisplayCalibration {
 public:
  /// None measured: kNominalDisplayGamma assumed.
  DisplayCalibration() = default;
  /// A measured gamma (display.gamma), > 0.
  static DisplayCalibration power_law(double gamma);
  /// A measured table (display.lut_file).
  static DisplayCalibration measured(DisplayLut table);

  /// The value to send, 0 to 1, for `linear` (clamped to [0, 1]; NaN as 0) on `channel` (0
  /// red, 1 green, 2 blue): linear^(1 / gamma), or the table's level whose luminance is
  /// `linear`, interpolated between rows (the lowest such level where the table is flat).
  double value_for(double linear, int channel) const;
  /// The display's model, the inverse of value_for: the linear value `value` (clamped to [0,
  /// 1]) shows as, value^gamma or the table interpolated between rows.
  double linear_of(double value, int channel) const;
  /// The 8-bit level sent for `linear`: value_for rounded to the nearest of 0 to 255.
  std::uint8_t level_for(double linear, int channel) const;
  /// The linear value at which the 8-bit level `level` (1 to 255) begins on `channel`:
  /// linear_of((level - 0.5) / 255). Below it the level sent is lower: level_for is the count
  /// of thresholds below `linear`, which is how a shader finds it (render/scene_renderer).
  double level_threshold(int level, int channel) const;

  /// A table is in force (else a power law).
  bool has_table() const { return table_.has_value(); }
  /// The power law's exponent (kNominalDisplayGamma when none was measured; unused with a table).
  double gamma() const { return gamma_; }
  /// The table in force, with its file's path, size and bytes.
  const std::optional<DisplayLut>& table() const { return table_; }
  /// For session.log: "gamma 2.4 (display.gamma)", "lookup table PATH (display.lut_file): 17
  /// rows, one luminance column, 412 bytes", or the nominal gamma assumed.
  std::string description() const;

 private:
  double gamma_ = kNominalDisplayGamma;
  bool measured_gamma_ = false;  ///< the gamma is display.gamma's, not assumed
  std::optional<DisplayLut> table_;
};

/// The calibration a spec's display keys give: display.lut_file's table (read now: throws
/// std::runtime_error naming the file and the line), display.gamma, or none measured.
DisplayCalibration display_calibration(const DisplaySettings& display);

}  // namespace fovea
