#pragma once

#include <span>

#include "perception/perception_settings.hpp"

// Where a saccade seen in flight will land, from the tracker's samples so far (schedule.gaze:
// landing; docs/gaze.md, "Landing-point prediction"). Saccades follow the main sequence:
// their duration grows with their amplitude, and their profile is fixed; the first samples
// of one pin down how far it goes (Arabadzhiyska et al., "Saccade landing position
// prediction for gaze-contingent rendering", ACM Transactions on Graphics 36(4), 2017, fit a
// ballistic model to the first samples the same way).

namespace fovea {

/// One sample of the gaze as a tracker delivered it.
struct TrackedSample {
  double time_s = 0;  ///< when the eye was there, run clock (the tracker's time stamp)
  double x_px = 0;    ///< from the screen's left edge
  double y_px = 0;    ///< from the screen's top edge, y down
  bool valid = false; ///< false: the tracker lost the eye (a blink)
};

/// What predict_landing found.
struct LandingPrediction {
  bool in_flight = false;  ///< the newest samples are a saccade under way
  double x_px = 0;         ///< the predicted landing point (the newest sample when not in flight)
  double y_px = 0;         ///< from the screen's top edge, y down
  double amplitude_deg = 0;  ///< the fitted amplitude, from the saccade's start point; 0 when not in flight
};

/// The predictor's constants: the main sequence is the scripted viewer's
/// (gaze/scripted_gaze.hpp), so against it the prediction is as good as its samples allow.
struct LandingModel {
  double base_ms = 21.0;        ///< duration = base_ms + slope_ms_per_deg * amplitude (Carpenter 1988)
  double slope_ms_per_deg = 2.2;  ///< ms of saccade per degree of amplitude
  /// A sample-to-sample speed at least this is a saccade (I-VT, Salvucci and Goldberg 2000),
  /// deg/s; raised where the tracker's noise alone would pass it (predict_landing).
  double onset_speed_degps = 30.0;
};

/// The landing point of the saccade the newest of `samples` (oldest first, times increasing)
/// is in, or the newest valid sample when it is in none. A saccade is under way when the
/// speed from the sample before the newest to the newest is at least the onset speed (the
/// larger of model.onset_speed_degps and 5 sigma of the speed `noise_deg` of noise per axis
/// gives); it started at the last sample before which the eye was still (under 0.5 deg/s, or
/// 3 sigma of noise). Its amplitude A and start time t0 are fitted by least
/// squares to the samples in flight (at most 32, evenly spread), projected on the line from
/// the start point to the newest sample: each at A * s((t - t0) / D(A)), s the minimum-jerk
/// profile, D the main sequence. The landing point is A along that line, kept on the screen.
/// With one sample in flight t0 is taken halfway between it and the one before. At most the
/// newest 512 samples are read; an invalid sample ends the search backwards.
LandingPrediction predict_landing(std::span<const TrackedSample> samples, const ScreenSettings& screen,
                                  double noise_deg = 0, const LandingModel& model = {});

}  // namespace fovea
