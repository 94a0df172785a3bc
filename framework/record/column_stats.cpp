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

namespace {

/// The exponent k with the largest finite magnitude of `values` below 2^k (0 for none): each
/// value times 2^-k is below 1 in magnitude, and multiplying by a power of two is exact.
int scale_exponent(std::span<const double> values) {
  double largest = 0;
  for (const double v : values)
    if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
  int exponent = 0;
  (void)std::frexp(largest, &exponent);
  return exponent;
}

/// A mean's value for values that are all finite: within [low, high], which a rounding of the
/// last bit could otherwise leave (past the largest double: infinity).
double within(double mean, double low, double high) { return std::isfinite(mean) ? mean : std::clamp(mean, low, high); }

/// The exponent ColumnAccumulator scales its second sum by: a value of at most 1.8e308 becomes
/// at most 4e127, and 2^63 of them sum to less than 4e146.
constexpr int kScaledSumExponent = 600;

}  // namespace

double mean_of(std::span<const double> values) {
  if (values.empty()) return 0;
  const int k = scale_exponent(values);
  double sum = 0;
  for (const double v : values) sum += std::ldexp(v, -k);
  const double mean = std::ldexp(sum / static_cast<double>(values.size()), k);
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  const bool all_finite = std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  return all_finite ? within(mean, *low, *high) : mean;
}

double sample_sd_of(std::span<const double> values) {
  const std::size_t n = values.size();
  if (n < 2) return std::nan("");
  const int k = scale_exponent(values);
  double sum = 0;
  for (const double v : values) sum += std::ldexp(v, -k);
  const double mean = sum / static_cast<double>(n);  // scaled, below 1 in magnitude
  double squares = 0;
  for (const double v : values) {
    const double deviation = std::ldexp(v, -k) - mean;  // below 2 in magnitude
    squares += deviation * deviation;
  }
  return std::ldexp(std::sqrt(squares / static_cast<double>(n - 1)), k);
}

ColumnSummary summarize(std::span<const double> values) {
  ColumnSummary s;
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.mean = mean_of(sorted);
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
  scaled_sum_ += std::ldexp(value, -kScaledSumExponent);
  all_finite_ = all_finite_ && std::isfinite(value);
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
    const double n = static_cast<double>(count_);
    s.mean = sum_ / n;
    // Finite values near 1.7e308 overflow the plain sum: the scaled one holds them. (Tiny
    // values lose bits in it, but beside a sum past 1.7e308 they are nothing.)
    if (!std::isfinite(s.mean) && all_finite_)
      s.mean = within(std::ldexp(scaled_sum_ / n, kScaledSumExponent), min_, max_);
    s.min = min_;
    s.max = max_;
  }
  return s;
}

}  // namespace fovea
