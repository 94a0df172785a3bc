#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "psychophysics/frame_timing.hpp"

using namespace fovea;

TEST_CASE("Stimulus timing: duration and frames from the swaps, no drops at the refresh", "[experiment][timing]") {
  std::vector<double> swaps;
  for (int i = 0; i <= 90; ++i) swaps.push_back(0.004 + i / 60.0);  // 90 frames at 60 Hz, then the first after
  const StimulusTiming t = stimulus_timing(swaps, 60);
  CHECK(t.frames == 90);
  CHECK(t.duration_s == Approx(1.5).margin(1e-12));
  CHECK(t.dropped_frames == 0);
}

TEST_CASE("Stimulus timing: each long interval counts the refreshes it missed", "[experiment][timing]") {
  const double p = 1.0 / 60;
  // Intervals of 1, 1.4 (jitter, not a drop), 2 (one missed), 3.1 (two missed), 1.6 (one:
  // rounds to 2 periods) periods.
  const std::vector<double> swaps{0, p, 2.4 * p, 4.4 * p, 7.5 * p, 9.1 * p};
  const StimulusTiming t = stimulus_timing(swaps, 60);
  CHECK(t.frames == 5);
  CHECK(t.dropped_frames == 4);
  CHECK(t.duration_s == Approx(9.1 * p));
  // The same swaps by a slow obvious count: refresh slots covered less the frames shown.
  int missed = 0;
  for (std::size_t i = 1; i < swaps.size(); ++i) {
    const double periods = (swaps[i] - swaps[i - 1]) / p;
    if (periods > 1.5) missed += static_cast<int>(std::floor(periods + 0.5)) - 1;
  }
  CHECK(t.dropped_frames == missed);
  // At 30 Hz only the 3.1-period interval (1.55 of these periods) is longer than one and a
  // half: one missed.
  CHECK(stimulus_timing(swaps, 30).dropped_frames == 1);
  // Unknown refresh: not counted.
  CHECK(stimulus_timing(swaps, 0).dropped_frames == 0);
}

TEST_CASE("Stimulus timing: under two swaps there is no duration", "[experiment][timing]") {
  CHECK(std::isnan(stimulus_timing(std::vector<double>{0.5}, 60).duration_s));
  CHECK(stimulus_timing(std::vector<double>{}, 60).frames == 0);
}
