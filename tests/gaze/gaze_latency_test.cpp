// GazeLatency (gaze/gaze_latency.hpp) against the obvious: every age kept and sorted.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gaze/gaze_latency.hpp"

using namespace fovea;

namespace {

FrameGaze current(double age_ms, double transit_ms) {
  FrameGaze g;
  g.valid = true;
  g.source = "stream";
  g.age_ms = age_ms;
  g.sample_time_s = 100.0;
  g.arrival_s = 100.0 + transit_ms / 1000.0;
  return g;
}

/// The k-th smallest, k = ceil(p n): the quantile GazeLatency approximates to a bin.
double sorted_quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(p * static_cast<double>(v.size()))));
  return v[k - 1];
}

}  // namespace

TEST_CASE("GazeLatency's quantiles are the sorted ages' to a bin, its max exact, its frames counted by source",
          "[gaze][latency]") {
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> ages(2.0, 0.6);  // about 7 ms, a long right tail
  std::vector<double> kept, transits;
  GazeLatency latency;
  for (int i = 0; i < 5000; ++i) {
    const double age = ages(random);
    const double transit = 0.1 * age;
    kept.push_back(age);
    transits.push_back(transit);
    latency.add(current(age, transit));
  }
  FrameGaze held;
  held.source = "hold";
  held.age_ms = 150;
  FrameGaze centre;
  centre.source = "centre";
  centre.age_ms = NAN;
  for (int i = 0; i < 7; ++i) latency.add(held);
  for (int i = 0; i < 3; ++i) latency.add(centre);

  CHECK(latency.frames() == 5010);
  CHECK(latency.current_frames() == 5000);
  CHECK(latency.held_frames() == 7);
  CHECK(latency.fallback_frames() == 3);
  const LatencyQuantiles a = latency.age();
  CHECK(a.count == 5000);
  CHECK(a.median_ms == Approx(sorted_quantile(kept, 0.5)).margin(GazeLatency::kBinMs));
  CHECK(a.p95_ms == Approx(sorted_quantile(kept, 0.95)).margin(GazeLatency::kBinMs));
  CHECK(a.max_ms == *std::max_element(kept.begin(), kept.end()));
  const LatencyQuantiles t = latency.transit();
  CHECK(t.median_ms == Approx(sorted_quantile(transits, 0.5)).margin(GazeLatency::kBinMs));
  CHECK(latency.text().find("5010 frames: 5000 on a current sample (its age at the frame: median ") == 0);
  CHECK(latency.text().find(", 7 held, 3 on the fallback") != std::string::npos);
}

TEST_CASE("GazeLatency keeps ages past its range in its last bin, the max exact, and none gives NaN", "[gaze][latency]") {
  GazeLatency latency;
  CHECK(std::isnan(latency.age().median_ms));
  CHECK(latency.text() == "0 frames: 0 on a current sample, 0 held, 0 on the fallback");
  latency.add(current(5000, NAN));
  latency.add(current(-3, NAN));  // a sample slightly from the future counts as 0, and as ahead
  latency.add(current(1e300, NAN));
  const LatencyQuantiles a = latency.age();
  CHECK(a.count == 3);
  CHECK(a.max_ms == 1e300);
  CHECK(a.median_ms == a.max_ms);  // 5000 lies in the last bin: given as the max, an upper bound
  CHECK(latency.ahead_frames() == 1);
  CHECK(latency.text().find("1 of them stamped ahead of the frame") != std::string::npos);
  CHECK(latency.transit().count == 0);
  GazeLatency two;
  two.add(current(-3, NAN));
  two.add(current(5000, NAN));
  CHECK(two.age().median_ms == Approx(0.05));  // k = 1: the first bin's centre
  CHECK(two.age().p95_ms == 5000);             // in the last bin: the max
}
