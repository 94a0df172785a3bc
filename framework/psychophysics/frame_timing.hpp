#pragma once

// What a stimulus's frames took on the display: how long it was shown and how many of the
// display's refreshes it missed. A person's trial records both (trials.csv's
// stimulus_duration_s, stimulus_frames, dropped_frames; docs/psychophysics.md, "Timing"), so a
// trial whose animation stuttered can be found and left out.

#include <span>

namespace fovea {

/// One stimulus's presentation, from the times its frames' swaps returned.
struct StimulusTiming {
  /// From the first frame's swap to the swap of the first frame after the stimulus (the
  /// stimulus was on the screen between them), seconds; NaN with fewer than two swaps.
  double duration_s = 0;
  int frames = 0;          ///< frames of the stimulus (the swaps less the one after it)
  /// Refreshes missed: each interval between consecutive swaps longer than 1.5 refresh
  /// periods stood for round(interval / period) periods where one was meant, so it missed
  /// that many less one. 0 when the refresh rate is unknown (<= 0).
  int dropped_frames = 0;
};

/// The timing of a stimulus whose frames' swaps returned at `swap_times_s` (seconds on one
/// steady clock, ascending), the last being the first frame after it, on a display
/// refreshing at `refresh_hz`.
StimulusTiming stimulus_timing(std::span<const double> swap_times_s, double refresh_hz);

}  // namespace fovea
