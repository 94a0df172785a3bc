#pragma once

// Small helpers the benchmarks share for their tables and CSV files.

#include <cmath>
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

}  // namespace fovea::bench
