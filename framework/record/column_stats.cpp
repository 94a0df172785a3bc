#include "record/column_stats.hpp"

#include <algorithm>
#include <cmath>

namespace fovea {

double nearest_rank(std::span<const double> sorted, double percent) {
  const double n = static_cast<double>(sorted.size());
  // The rank is ceil(percent n / 100); shrinking the product by a part in 10^12 keeps
  // rounding (99.9 / 100 x 1000 is 999.0000000000001) from moving it one rank up.
  const auto rank = static_cast<std::size_t>(std::ceil(percent / 100 * n * (1 - 1e-12)));
  return sorted[std::min(std::max<std::size_t>(rank, 1), sorted.size()) - 1];
}

double median_of_sorted(std::span<const double> sorted) {
  const std::size_t n = sorted.size();
  // Halves first: the sum of two values near the largest double would overflow to infinity
  // (found by fuzz/targets/frames_csv.cpp). Halving is exact above the subnormals, so this
  // rounds once, to what 0.5 * (a + b) gives whenever that is finite.
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * sorted[n / 2 - 1] + 0.5 * sorted[n / 2];
}

ColumnSummary summarize(std::span<const double> values) {
  ColumnSummary s;
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  double sum = 0;
  for (const double v : sorted) sum += v;
  s.mean = sum / static_cast<double>(n);
  s.median = median_of_sorted(sorted);
  s.p95 = nearest_rank(sorted, 95);
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

ColumnAccumulator::ColumnAccumulator(std::size_t sample_capacity) : capacity_(std::max<std::size_t>(sample_capacity, 2)) {
  sample_.reserve(capacity_);
}

void ColumnAccumulator::add(double value) {
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  sum_ += value;
  if (count_ % stride_ == 0) {
    if (sample_.size() == capacity_) {
      // Keep values 0, 2, 4, ... of the sample: it becomes every (2 stride)-th row.
      for (std::size_t i = 0; 2 * i < sample_.size(); ++i) sample_[i] = sample_[2 * i];
      sample_.resize((sample_.size() + 1) / 2);
      stride_ *= 2;
    }
    if (count_ % stride_ == 0) sample_.push_back(value);
  }
  ++count_;
}

ColumnSummary ColumnAccumulator::summary() const {
  ColumnSummary s = summarize(sample_);
  if (count_ > 0) {
    s.mean = sum_ / static_cast<double>(count_);
    s.min = min_;
    s.max = max_;
  }
  return s;
}

}  // namespace fovea
