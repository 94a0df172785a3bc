#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fovea {

/// The summary of one column of a run's frames.
struct ColumnSummary {
  double mean = 0;     ///< arithmetic mean, in the column's unit
  double median = 0;   ///< middle value; mean of the two middle values for an even count
  double p95 = 0;      ///< 95th percentile, nearest-rank: the ceil(0.95 n)-th smallest value
  double max = 0;      ///< largest value
  double min = 0;      ///< smallest value
};

/// The nearest-rank percentile of sorted values: the ceil(percent / 100 n)-th smallest (the
/// smallest for percent 0). `sorted` must not be empty.
double nearest_rank(std::span<const double> sorted, double percent);

/// The median of sorted values: the middle one, or the mean of the two middle ones for an
/// even count. `sorted` must not be empty.
double median_of_sorted(std::span<const double> sorted);

/// The arithmetic mean of `values` (0 for none), finite whenever they all are: summed scaled
/// by the power of two that brings the largest magnitude below 1, so values near the largest
/// double (1.7e308) do not overflow the sum to infinity. The scaling is exact: for values
/// whose plain sum stays finite the mean is the plain sum over n, bit for bit.
double mean_of(std::span<const double> values);

/// The sample standard deviation of `values` (n - 1 in the denominator; NaN for fewer than
/// two), scaled as mean_of is, so no deviation or square overflows on the way. Infinite only
/// when the deviation itself is past the largest double (1.7e308 and -1.7e308: 2.4e308).
double sample_sd_of(std::span<const double> values);

/// Summary of `values` (all zeros for an empty column). Sorts a copy.
ColumnSummary summarize(std::span<const double> values);

/// A column's summary built row by row in bounded memory, whatever the run's length.
///
/// Count, mean, min and max are exact. The median and p95 are exact while the column has
/// at most `sample_capacity` values; beyond that they come from a systematic sample: every
/// `stride()`-th value, the stride doubling (and every other kept value dropped) each time
/// the sample fills. Deterministic, so a run's summary.json is reproducible, and at the
/// default capacity (2^20) a billion-frame run keeps 8 MB per column.
class ColumnAccumulator {
 public:
  /// Keeps at most `sample_capacity` values for the quantiles (2 at least), 8 bytes each.
  explicit ColumnAccumulator(std::size_t sample_capacity = std::size_t{1} << 20);
  /// One more row's value. O(1) amortised; a full sample is halved in place.
  void add(double value);
  /// Mean, min and max of every value added; median and p95 of the sample. All 0 before any
  /// add(). The mean of finite values is finite (their plain sum may not be: see mean_of).
  ColumnSummary summary() const;
  /// Number of values added so far, sampled or not.
  std::int64_t count() const { return count_; }
  /// 1 while the quantiles are exact.
  std::int64_t stride() const { return stride_; }

 private:
  std::size_t capacity_;
  std::int64_t count_ = 0;
  std::int64_t stride_ = 1;
  double sum_ = 0;
  /// The sum of every value times 2^-kScaledSumExponent: finite for any count of finite
  /// values, the mean's when sum_ overflows (values near 1.7e308).
  double scaled_sum_ = 0;
  bool all_finite_ = true;
  double min_ = 0;
  double max_ = 0;
  std::vector<double> sample_;
};

}  // namespace fovea
