#pragma once

#include <span>

namespace fovea {

/// The summary of one column of a run's frames.
struct ColumnSummary {
  double mean = 0;
  double median = 0;   ///< middle value; mean of the two middle values for an even count
  double p95 = 0;      ///< 95th percentile, nearest-rank: the ceil(0.95 n)-th smallest value
  double max = 0;
  double min = 0;
};

/// Summary of `values` (all zeros for an empty column). Sorts a copy.
ColumnSummary summarize(std::span<const double> values);

}  // namespace fovea
