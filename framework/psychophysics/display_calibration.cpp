#include "psychophysics/display_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/file_read.hpp"
#include "core/format.hpp"
#include "record/csv_reader.hpp"

namespace fovea {
namespace {

/// `text` without the spaces and tabs around it (`level, luminance` as people write it).
std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// The header's columns after `level`: {"luminance"} or {"r", "g", "b"}; else a refusal.
bool per_channel_header(const CsvTable& table, const std::string& name) {
  std::vector<std::string> header;
  for (const std::string& cell : table.header) header.emplace_back(trimmed(cell));
  if (header == std::vector<std::string>{"level", "luminance"}) return false;
  if (header == std::vector<std::string>{"level", "r", "g", "b"}) return true;
  std::string found;
  for (const std::string& cell : table.header) found += (found.empty() ? "" : ",") + cell;
  throw std::runtime_error(name + ":" + std::to_string(table.header_line) +
                           ": expected the header level,luminance or level,r,g,b, found \"" + excerpt(found) + "\"");
}

/// Checks a table's rows as they are read: levels from 0 to 1 strictly increasing, each
/// luminance at least 0 and never below the row before it.
class LutRows {
 public:
  LutRows(const std::string& name, bool per_channel) : name_(name), columns_(per_channel ? 3 : 1) {}

  void add(const CsvRow& row) {
    const double level = number(row, 0, "level");
    if (level < 0 || level > 1)
      fail(row, "level " + format_number(level) +
                    " is outside [0, 1]: levels are fractions of the display's range (an 8-bit value k is k / 255)");
    if (lut_.levels.empty() && level != 0)
      fail(row, "the first level is " + format_number(level) + ", not 0: the table starts at black, level 0");
    if (!lut_.levels.empty() && level <= lut_.levels.back())
      fail(row, "level " + format_number(level) + " does not come after the previous row's " +
                    format_number(lut_.levels.back()) + ": levels increase strictly down the table");
    lut_.levels.push_back(level);
    for (std::size_t c = 0; c < columns_; ++c) {
      const char* column = columns_ == 1 ? "luminance" : (c == 0 ? "r" : c == 1 ? "g" : "b");
      const double y = number(row, c + 1, column);
      if (y < 0) fail(row, std::string(column) + " " + format_number(y) + " is negative: luminance is at least 0");
      std::vector<double>& ys = raw_[c];
      if (!ys.empty() && y < ys.back())
        fail(row, std::string(column) + " " + format_number(y) + " is below the previous row's " + format_number(ys.back()) +
                      ": a display's luminance does not fall as its level rises; measure again (or average repeated "
                      "readings)");
      ys.push_back(y);
    }
    last_line_ = row.line;
  }

  /// The table normalised, once every row is in.
  DisplayLut finish(bool per_channel) {
    const std::string at = name_ + ":" + std::to_string(last_line_) + ": ";
    if (lut_.levels.back() != 1)
      throw std::runtime_error(at + "the last level is " + format_number(lut_.levels.back()) +
                               ", not 1: the table ends at the display's white, level 1");
    for (std::size_t c = 0; c < columns_; ++c) {
      const std::vector<double>& ys = raw_[c];
      if (!(ys.back() > ys.front()))
        throw std::runtime_error(at + "the luminance" + (columns_ == 1 ? "" : std::string(" of ") + "rgb"[c]) +
                                 " does not rise from the first row (" + format_number(ys.front()) + ") to the last (" +
                                 format_number(ys.back()) + "): nothing to calibrate");
      std::vector<double> linear(ys.size());
      for (std::size_t i = 0; i < ys.size(); ++i) linear[i] = (ys[i] - ys.front()) / (ys.back() - ys.front());
      linear.back() = 1;  // exactly, whatever the division rounds to
      lut_.linear[c] = std::move(linear);
    }
    if (!per_channel) lut_.linear[1] = lut_.linear[2] = lut_.linear[0];
    lut_.per_channel = per_channel;
    return std::move(lut_);
  }

 private:
  [[noreturn]] void fail(const CsvRow& row, const std::string& what) const {
    throw std::runtime_error(name_ + ":" + std::to_string(row.line) + ": " + what);
  }
  double number(const CsvRow& row, std::size_t cell, const char* column) const {
    const std::string_view text = trimmed(row.cells[cell]);
    const std::optional<double> v = parse_finite_number(text);
    if (!v) fail(row, std::string(column) + ": expected a finite number, found \"" + excerpt(text) + "\"");
    return *v;
  }

  const std::string& name_;
  std::size_t columns_;
  std::array<std::vector<double>, 3> raw_;
  DisplayLut lut_;
  std::size_t last_line_ = 0;
};

/// The first index of `ys` (non-decreasing) whose value is at least `y`, from 1 (ys[0] is the
/// smallest), or ys.size() when none is.
std::size_t first_at_least(const std::vector<double>& ys, double y) {
  return static_cast<std::size_t>(std::lower_bound(ys.begin() + 1, ys.end(), y) - ys.begin());
}

/// [0, 1], NaN as 0.
double unit(double x) { return x > 0 ? std::min(x, 1.0) : 0.0; }

}  // namespace

DisplayLut parse_display_lut(std::string_view text, const std::string& name) {
  const CsvTable table = parse_csv(text, name);
  // A row without its line end may be a number cut short (0.25 read as 0.2): refused, as a
  // gaze recording's is.
  if (table.unfinished_line != 0) throw std::runtime_error(table.unfinished_note(name));
  const bool per_channel = per_channel_header(table, name);
  if (table.rows.size() < 2)
    throw std::runtime_error(name + ": " + std::to_string(table.rows.size()) +
                             " rows; a table needs at least two, level 0 (black) and level 1 (white)");
  if (table.rows.size() > kMaxDisplayLutRows)
    throw std::runtime_error(name + ": " + std::to_string(table.rows.size()) + " rows, more than the " +
                             std::to_string(kMaxDisplayLutRows) + " a lookup table may have");
  LutRows rows(name, per_channel);
  for (const CsvRow& row : table.rows) rows.add(row);
  DisplayLut lut = rows.finish(per_channel);
  lut.path = name;
  lut.bytes = text.size();
  lut.text = text;
  return lut;
}

DisplayLut read_display_lut(const std::string& path) {
  return parse_display_lut(read_regular_file(path, kMaxDisplayLutBytes, "display lookup table"), path);
}

DisplayCalibration DisplayCalibration::power_law(double gamma) {
  if (!(gamma > 0) || !std::isfinite(gamma))
    throw std::invalid_argument("a display's gamma is a positive number, not " + format_number(gamma));
  DisplayCalibration c;
  c.gamma_ = gamma;
  c.measured_gamma_ = true;
  return c;
}

DisplayCalibration DisplayCalibration::measured(DisplayLut table) {
  DisplayCalibration c;
  c.table_ = std::move(table);
  return c;
}

double DisplayCalibration::value_for(double linear, int channel) const {
  linear = unit(linear);
  if (!table_) return std::pow(linear, 1.0 / gamma_);
  const std::vector<double>& levels = table_->levels;
  const std::vector<double>& ys = table_->linear[static_cast<std::size_t>(channel)];
  if (linear <= 0) return 0;  // the first row's luminance is 0: level 0, the lowest that shows it
  // ys[i - 1] < linear <= ys[i]: a segment that rises, so the division is by more than 0.
  const std::size_t i = std::min(first_at_least(ys, linear), ys.size() - 1);
  const double t = (linear - ys[i - 1]) / (ys[i] - ys[i - 1]);
  // Within the segment's levels whatever the rounding, so linear_of finds the same segment.
  return std::clamp(levels[i - 1] + t * (levels[i] - levels[i - 1]), levels[i - 1], levels[i]);
}

double DisplayCalibration::linear_of(double value, int channel) const {
  value = unit(value);
  if (!table_) return std::pow(value, gamma_);
  const std::vector<double>& levels = table_->levels;
  const std::vector<double>& ys = table_->linear[static_cast<std::size_t>(channel)];
  // levels[i - 1] < value <= levels[i] (levels rise strictly, from 0).
  if (value <= 0) return 0;
  const std::size_t i = std::min(first_at_least(levels, value), levels.size() - 1);
  const double t = (value - levels[i - 1]) / (levels[i] - levels[i - 1]);
  return ys[i - 1] + t * (ys[i] - ys[i - 1]);
}

std::uint8_t DisplayCalibration::level_for(double linear, int channel) const {
  return static_cast<std::uint8_t>(std::lround(value_for(linear, channel) * (kDisplayLevels - 1)));
}

double DisplayCalibration::level_threshold(int level, int channel) const {
  return linear_of((level - 0.5) / (kDisplayLevels - 1), channel);
}

std::string DisplayCalibration::description() const {
  if (table_)
    return "lookup table " + table_->path + " (display.lut_file): " + std::to_string(table_->levels.size()) + " rows, " +
           (table_->per_channel ? "columns r, g and b" : "one luminance column") + ", " +
           std::to_string(table_->bytes) + " bytes";
  if (measured_gamma_) return "gamma " + format_number(gamma_) + " (display.gamma)";
  return "none given (display.gamma, display.lut_file): gamma " + format_number(gamma_) + " assumed";
}

DisplayCalibration display_calibration(const DisplaySettings& display) {
  if (!display.lut_file.empty()) return DisplayCalibration::measured(read_display_lut(display.lut_file));
  if (display.gamma) return DisplayCalibration::power_law(*display.gamma);
  return DisplayCalibration();
}

}  // namespace fovea
