#pragma once

// Small helpers the benchmarks share for their statistics, tables and CSV files.

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "core/format.hpp"

namespace fovea::bench {

/// The q-quantile of `v`, linear between the two nearest ranks; NaN for no values.
double quantile(std::vector<double> v, double q);

/// `digits` significant digits, or "NA" (as R writes a missing value) for NaN.
inline std::string significant_or_na(double v, int digits = 4) {
  return std::isnan(v) ? std::string("NA") : format_significant(v, digits);
}

/// `path` opened for writing, its folder made first. When it cannot be opened, says
/// "fovea bench <bench>: cannot write <path>" on stderr, and the stream tests false.
std::ofstream open_csv(const std::string& path, const char* bench);

/// One row of a long-form CSV: its keys (part, scene, ...), then the quantity, the value
/// (six significant digits, NA for NaN) and its unit.
void write_long_row(std::ostream& csv, const std::vector<std::string>& keys, const std::string& quantity, double value,
                    const std::string& unit);

}  // namespace fovea::bench
