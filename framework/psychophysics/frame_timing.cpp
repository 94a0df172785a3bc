#include "psychophysics/frame_timing.hpp"

#include <cmath>
#include <limits>

namespace fovea {

StimulusTiming stimulus_timing(std::span<const double> swap_times_s, double refresh_hz) {
  StimulusTiming timing;
  if (swap_times_s.size() < 2) {
    timing.duration_s = std::numeric_limits<double>::quiet_NaN();
    timing.frames = 0;  // one swap is the frame after a stimulus that showed none
    return timing;
  }
  timing.duration_s = swap_times_s.back() - swap_times_s.front();
  timing.frames = static_cast<int>(swap_times_s.size()) - 1;
  if (!(refresh_hz > 0)) return timing;
  const double period_s = 1.0 / refresh_hz;
  for (std::size_t i = 1; i < swap_times_s.size(); ++i) {
    const double interval_s = swap_times_s[i] - swap_times_s[i - 1];
    // Under 1.5 periods the swap came at the refresh it was meant for (or the next, with
    // jitter in the clock's reading): not a drop.
    if (interval_s > 1.5 * period_s) timing.dropped_frames += static_cast<int>(std::lround(interval_s / period_s)) - 1;
  }
  return timing;
}

}  // namespace fovea
