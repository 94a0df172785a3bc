#include "record/column_stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fovea {

ColumnSummary summarize(std::span<const double> values) {
  ColumnSummary s;
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  double sum = 0;
  for (const double v : sorted) sum += v;
  s.mean = sum / static_cast<double>(n);
  s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  const auto rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
  s.p95 = sorted[std::max<std::size_t>(rank, 1) - 1];
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

}  // namespace fovea
