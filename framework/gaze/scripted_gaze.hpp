#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/rng.hpp"
#include "gaze/gaze_source.hpp"

namespace fovea {

/// A seeded synthetic viewer: fixations of log-normal duration, each followed by a saccade
/// to a target. The first fixation starts at t = 0 at the screen's centre. Saccades last
/// 21 ms + 2.2 ms per degree of amplitude (the main sequence, Carpenter 1988, "Movements of
/// the Eyes") and follow the straight line with a minimum-jerk profile; every sample is
/// valid with confidence 1.
///
/// Targets (settings.targets): `screen` draws each uniformly over the screen inside the
/// margins as the fixation before it starts. `entities` and `collisions` watch the scene:
/// each is chosen when its saccade starts, at random in proportion to the weights among the
/// scene targets handed in last (set_scene_targets), or drawn as `screen` draws when there
/// are none. The eye then stays there: no smooth pursuit of a moving target.
///
/// The gaze at time t depends only on (seed, settings, screen, t) and, when watching the
/// scene, on the targets handed in before each sample: events are generated lazily from
/// t = 0 as time advances, holding only the current fixation and saccade, so a call costs
/// O(1) amortised over the events it passes. Times before the current fixation (against
/// GazeSource's contract) replay from t = 0, which is slow but gives the same answer for
/// `screen`; watching the scene, the replayed saccades can only see the targets held now.
class ScriptedGaze final : public GazeSource {
 public:
  /// Main sequence: saccade duration = kSaccadeBase_ms + kSaccadeSlope_ms_per_deg * amplitude.
  static constexpr double kSaccadeBase_ms = 21.0;
  static constexpr double kSaccadeSlope_ms_per_deg = 2.2;  ///< ms of saccade per degree of amplitude

  /// Throws std::invalid_argument naming the setting when fixation_mean_ms is not > 0,
  /// fixation_sd_ms not >= 0, margin not in [0, 0.5), or the screen is degenerate.
  ScriptedGaze(const ScriptedGazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed);

  /// The synthetic eye at `now_s` (run clock, s): fixating, or on a saccade; always valid.
  GazeSample sample(double now_s) override;
  /// none for `screen`; entities or collisions when the settings watch them.
  SceneTargetKind wants_scene_targets() const override;
  /// Keeps a copy of `targets` for the saccades that start from the next sample on. A target
  /// with a coordinate that is not finite is left out; a weight that is not a finite number
  /// > 0 counts as 0.
  void set_scene_targets(std::span<const GazeTarget> targets) override;

 private:
  /// Back to the first fixation, with the generator freshly seeded.
  void restart();
  /// The saccade that ends the current fixation has ended: fixate its target and draw the
  /// next fixation's duration and, for `screen`, the next saccade.
  void begin_fixation(double start_s, double x_px, double y_px);
  /// Watching the scene, the saccade starts now: chooses its target among the scene targets
  /// (or draws one over the screen when there are none) and plans it.
  void choose_scene_target();
  /// The next saccade's target uniform over the screen inside the margins: x, then y.
  void draw_screen_target();
  /// The next saccade goes to (to_x_px_, to_y_px_): its end from the main sequence.
  void plan_saccade();
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
  /// Whether to_x_px_, to_y_px_ and saccade_end_s_ hold the next saccade: from the fixation's
  /// start for `screen`, from the saccade's start when watching the scene.
  bool saccade_planned_ = false;
  std::vector<GazeTarget> scene_targets_;  ///< the last ones handed in, weights made >= 0
};

}  // namespace fovea
