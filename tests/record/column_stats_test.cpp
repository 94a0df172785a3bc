#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

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
