#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/rng.hpp"
#include "record/column_stats.hpp"

using namespace fovea;

TEST_CASE("summarize: mean, median, nearest-rank p95, min, max", "[record][stats]") {
  const std::vector<double> odd = {5, 1, 3};
  const ColumnSummary a = summarize(odd);
  CHECK(a.mean == 3);
  CHECK(a.median == 3);
  CHECK(a.min == 1);
  CHECK(a.max == 5);
  CHECK(a.p95 == 5);

  const std::vector<double> even = {4, 1, 3, 2};
  CHECK(summarize(even).median == 2.5);

  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  CHECK(summarize(hundred).p95 == 95);  // ceil(0.95 * 100) = 95th smallest

  CHECK(summarize(std::vector<double>{}).mean == 0);
}

TEST_CASE("summarize: p95 agrees with counting on random data", "[record][stats]") {
  Rng rng(8);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> v(1 + rng.below(500));
    for (double& x : v) x = rng.uniform(-5, 5);
    const double p95 = summarize(v).p95;
    // Nearest rank: at least 95 % of the values are <= p95, and fewer than 95 % are < p95.
    const auto at_most = std::count_if(v.begin(), v.end(), [&](double x) { return x <= p95; });
    const auto below = std::count_if(v.begin(), v.end(), [&](double x) { return x < p95; });
    CHECK(double(at_most) >= 0.95 * double(v.size()));
    CHECK(double(below) < 0.95 * double(v.size()));
  }
}

TEST_CASE("nearest_rank: the rank in whole numbers, never one up from rounding", "[record][stats]") {
  // The oracle in integers: the smallest rank r with 1000 r >= permille n.
  std::vector<double> sorted;
  for (int n = 1; n <= 5000; ++n) {
    sorted.push_back(n);  // the value at rank r is r
    for (const int permille : {1, 50, 250, 500, 667, 750, 950, 990, 999, 1000}) {
      const long long rank = std::max(1LL, (static_cast<long long>(permille) * n + 999) / 1000);
      INFO("n " << n << ", p" << permille / 10.0);
      REQUIRE(nearest_rank(sorted, permille / 10.0) == static_cast<double>(rank));
    }
  }
}

TEST_CASE("ColumnAccumulator: exact while small, a bounded systematic sample beyond", "[record][stats]") {
  Rng rng(12);
  std::vector<double> all;
  ColumnAccumulator small(1000), bounded(64);
  for (int i = 0; i < 1000; ++i) {
    const double v = rng.uniform(0, 10);
    all.push_back(v);
    small.add(v);
    bounded.add(v);
  }
  // Within capacity: identical to the exact summary.
  const ColumnSummary exact = summarize(all), s = small.summary();
  CHECK(small.stride() == 1);
  CHECK(s.median == exact.median);
  CHECK(s.p95 == exact.p95);
  CHECK(s.mean == Approx(exact.mean).epsilon(1e-12));

  // Beyond it: mean, min and max stay exact; the quantiles are those of every
  // stride-th value (the oracle picks them directly).
  const ColumnSummary b = bounded.summary();
  CHECK(bounded.stride() == 16);  // 1000 values into 64 slots: stride 1, 2, 4, 8, 16
  CHECK(b.mean == Approx(exact.mean).epsilon(1e-12));
  CHECK(b.min == exact.min);
  CHECK(b.max == exact.max);
  std::vector<double> every_16th;
  for (std::size_t i = 0; i < all.size(); i += 16) every_16th.push_back(all[i]);
  CHECK(b.median == summarize(every_16th).median);
  CHECK(b.p95 == summarize(every_16th).p95);

  // On a long column the sampled quantiles are close to the truth: 100,000 uniform values
  // into 1024 slots keeps 782 (stride 128); the median's standard error is then about 0.18.
  ColumnAccumulator longer(1024);
  std::vector<double> many;
  for (int i = 0; i < 100000; ++i) {
    many.push_back(rng.uniform(0, 10));
    longer.add(many.back());
  }
  CHECK(longer.stride() == 128);
  CHECK(std::abs(longer.summary().median - summarize(many).median) < 1.0);
  CHECK(std::abs(longer.summary().p95 - summarize(many).p95) < 1.0);
}

TEST_CASE("mean and sd of values near the largest double stay finite (issue 42)", "[record][stats]") {
  // table.csv's collisions_mean of a column of 1.7e308 was infinity: the sum overflowed.
  const double big = 1.7e308;
  const std::vector<double> bigs(5, big);
  CHECK(mean_of(bigs) == big);
  CHECK(summarize(bigs).mean == big);
  CHECK(sample_sd_of(bigs) == 0);
  const std::vector<double> mixed = {big, 1.6e308, big, 1.6e308};
  CHECK(mean_of(mixed) == Approx(1.65e308).epsilon(1e-15));
  // sd of {a, b, a, b} is |a - b| sqrt(1/3): finite, where the squares of the deviations
  // (about 2.5e615) are not.
  CHECK(sample_sd_of(mixed) == Approx(0.1e308 / std::sqrt(3.0)).epsilon(1e-12));
  CHECK(sample_sd_of(std::vector<double>{big, 0.0, big}) == Approx(big / std::sqrt(3.0)).epsilon(1e-12));
  // Only a deviation itself past the largest double is infinite: {a, -a} deviates a sqrt(2).
  CHECK(std::isinf(sample_sd_of(std::vector<double>{big, -big})));
  CHECK(mean_of(std::vector<double>{big, -big, big}) == Approx(big / 3).epsilon(1e-15));
  // The largest double itself, many times: the mean is it, never past it.
  const double largest = std::numeric_limits<double>::max();
  CHECK(mean_of(std::vector<double>(7, largest)) == largest);
  CHECK(mean_of(std::vector<double>(7, -largest)) == -largest);

  ColumnAccumulator accumulator(4);
  for (int i = 0; i < 1000; ++i) accumulator.add(i % 2 == 0 ? big : 1.6e308);
  CHECK(accumulator.summary().mean == Approx(1.65e308).epsilon(1e-12));
  ColumnAccumulator largest_values;
  for (int i = 0; i < 3; ++i) largest_values.add(largest);
  CHECK(largest_values.summary().mean == largest);
}

TEST_CASE("mean and sd of ordinary values are the plain sums', bit for bit", "[record][stats]") {
  // The scaling by a power of two is exact: the numbers every run wrote before stay the same.
  Rng rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v(2 + rng.below(300));
    for (double& x : v) x = rng.uniform(-1e6, 1e6) * std::pow(10.0, rng.uniform(-20, 20));
    double sum = 0;
    for (const double x : v) sum += x;
    const double mean = sum / static_cast<double>(v.size());
    double squares = 0;
    for (const double x : v) squares += (x - mean) * (x - mean);
    REQUIRE(mean_of(v) == mean);
    REQUIRE(sample_sd_of(v) == std::sqrt(squares / static_cast<double>(v.size() - 1)));
  }
  CHECK(std::isnan(sample_sd_of(std::vector<double>{1.0})));
  CHECK(mean_of(std::vector<double>{}) == 0);
  // Values that are not finite give what they give: the mean of an infinity is infinite.
  CHECK(std::isinf(mean_of(std::vector<double>{1.0, std::numeric_limits<double>::infinity()})));
  CHECK(std::isnan(mean_of(std::vector<double>{1.0, std::nan("")})));
}
