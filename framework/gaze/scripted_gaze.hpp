#pragma once

#include <cstdint>

#include "core/rng.hpp"
#include "gaze/gaze_source.hpp"

namespace fovea {

/// A seeded synthetic viewer: fixations of log-normal duration, each followed by a saccade
/// to a target uniform over the screen inside the margins. The first fixation starts at
/// t = 0 at the screen's centre. Saccades last 21 ms + 2.2 ms per degree of amplitude (the
/// main sequence, Carpenter 1988, "Movements of the Eyes") and follow the straight line
/// with a minimum-jerk profile; every sample is valid with confidence 1.
///
/// The gaze at time t depends only on (seed, settings, screen, t): events are generated
/// lazily from t = 0 as time advances, holding only the current fixation and saccade, so a
/// call costs O(1) amortised over the events it passes. Times before the current fixation
/// (against GazeSource's contract) replay from t = 0, which is slow but gives the same answer.
class ScriptedGaze final : public GazeSource {
 public:
  /// Main sequence: saccade duration = kSaccadeBase_ms + kSaccadeSlope_ms_per_deg * amplitude.
  static constexpr double kSaccadeBase_ms = 21.0;
  static constexpr double kSaccadeSlope_ms_per_deg = 2.2;

  /// Throws std::invalid_argument naming the setting when fixation_mean_ms is not > 0,
  /// fixation_sd_ms not >= 0, margin not in [0, 0.5), or the screen is degenerate.
  ScriptedGaze(const ScriptedGazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed);

  GazeSample sample(double now_s) override;

 private:
  /// Back to the first fixation, with the generator freshly seeded.
  void restart();
  /// The saccade that ends the current fixation has ended: fixate its target and draw the
  /// next fixation's duration and the next saccade.
  void begin_fixation(double start_s, double x_px, double y_px);
  /// A log-normal fixation duration, seconds (Box-Muller from two uniforms).
  double draw_fixation_s();

  ScriptedGazeSettings settings_;
  ScreenSettings screen_;
  std::uint64_t seed_;
  Rng rng_;
  double log_mean_ = 0;   ///< mu of ln(duration in ms)
  double log_sd_ = 0;     ///< sigma of ln(duration in ms)

  double from_x_px_ = 0;  ///< the current fixation point, where the next saccade starts
  double from_y_px_ = 0;
  double to_x_px_ = 0;    ///< the next saccade's target
  double to_y_px_ = 0;
  double fixation_start_s_ = 0;
  double saccade_start_s_ = 0;  ///< the current fixation's end
  double saccade_end_s_ = 0;
};

}  // namespace fovea
