#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gaze/gaze_source.hpp"
#include "gaze/simulated_tracker.hpp"

namespace fovea {

/// The fixation one frame is scheduled for, and where it came from: frames.csv's gaze
/// columns (docs/results.md) and gaze.csv's rows.
struct FrameGaze {
  double x_px = 0;            ///< from the screen's left edge
  double y_px = 0;            ///< from the screen's top edge, y down
  /// What gave the point: the configured source's name ("pupil"), or "hold" (its last valid
  /// sample, held), "centre" or "mouse" (the fallback). A string literal.
  const char* source = "";
  bool valid = false;         ///< the configured source gave a valid, current sample this frame
  /// The point's age at the frame: the clock's now minus the sample's time, milliseconds
  /// (gaze-to-frame latency for trackers, 0 for synthetic sources); NaN for the centre.
  double age_ms = 0;
  std::uint64_t dropped = 0;  ///< inputs the source has rejected so far (malformed, lost connections)
  /// The used sample's time on the source's clock (s): the frame's time less age_ms; NaN for
  /// the centre and the mouse fallback.
  double sample_time_s = std::numeric_limits<double>::quiet_NaN();
  /// The used sample's time stamp on the tracker's own clock (s), when the source keeps one
  /// (GazeSample::tracker_time_s); else NaN.
  double tracker_time_s = std::numeric_limits<double>::quiet_NaN();
  /// When fovea received the used sample, on gaze_wall_clock_s() (s); NaN for sources that
  /// receive nothing.
  double arrival_s = std::numeric_limits<double>::quiet_NaN();

  // What the scheduler may read instead (schedule.gaze; gaze/simulated_tracker.hpp). The
  // point above is the eye's: what the meter measures with.
  double tracked_x_px = 0;  ///< the newest point the tracker delivered by the frame, with the same fallback
  double tracked_y_px = 0;  ///< from the screen's top edge, y down
  /// The frame's time minus when the eye was at the tracked point, ms: the tracker's latency
  /// and the wait for its next sample (age_ms without a simulated tracker); NaN for the centre.
  double tracked_age_ms = 0;
  /// The delivered samples show a saccade under way (gaze/saccade_landing.hpp), and landing_*
  /// is where it is predicted to end.
  bool saccade_in_flight = false;
  double landing_x_px = 0;  ///< the predicted landing point in a saccade, else the tracked point
  double landing_y_px = 0;  ///< from the screen's top edge, y down
};

/// The gaze part as the frame loop sees it: the configured source plus the fallback for
/// frames it has no valid, current sample for (issue 6). Each frame:
///  1. the source's sample, if valid and at most max_age_ms old (and not from the future), is used;
///  2. else its last used sample is held while it is at most fallback.hold_ms old;
///  3. else fallback.then gives the point: the screen's centre, or the mouse.
/// Ages are measured on the source's clock: the run's for synthetic and replayed sources,
/// the wall clock for trackers and the mouse. The same three steps give the tracked point
/// from the samples a simulated tracker delivered (gaze.latency_ms, gaze.rate_hz,
/// gaze.noise_deg), and the landing point is predicted from them (gaze/saccade_landing.hpp).
class Gaze {
 public:
  /// Live sources stamp samples on a clock they estimate (Pupil's offset to the wall clock);
  /// a sample up to this far in the future is estimation error, beyond it a clock jump.
  static constexpr double kFutureToleranceMs = 50.0;

  /// Builds the source the settings name (make_gaze_source) and the fallback. Throws
  /// std::invalid_argument naming the key when either cannot work (the mouse without a
  /// window, a replay file that cannot be read).
  Gaze(const GazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed,
       const GazeEnvironment& environment = {});
  /// A given source (tests, a source built elsewhere) named `name` in the records;
  /// `tracker_seed` seeds a simulated tracker's noise.
  Gaze(std::unique_ptr<GazeSource> source, const char* name, const GazeSettings& settings, const ScreenSettings& screen,
       const GazeEnvironment& environment = {}, std::uint64_t tracker_seed = 0);

  /// The fixation for a frame at `run_time_s` on the run's clock.
  FrameGaze at(double run_time_s);

  /// Switches to another source live (the interactive panel): the held sample is forgotten,
  /// the fallback stays. Throws as the constructor does, leaving the current source in place.
  void switch_source(const GazeSettings& settings, std::uint64_t seed);

  /// The source's status messages since the last call ("pupil: connected ..."), each once.
  void take_messages(std::vector<std::string>& out) { source_->take_messages(out); }
  /// The current source (replaced by switch_source: do not keep the reference across one).
  GazeSource& source() { return *source_; }
  /// Which scene targets the source wants before each at() (GazeSource::wants_scene_targets).
  SceneTargetKind wants_scene_targets() const { return source_->wants_scene_targets(); }
  /// Hands the scene targets to the source for the next at() calls (GazeSource::set_scene_targets).
  void set_scene_targets(std::span<const GazeTarget> targets) { source_->set_scene_targets(targets); }
  /// The settings in use: the constructor's, or the last switch_source's.
  const GazeSettings& settings() const { return settings_; }

 private:
  GazeSettings settings_;
  ScreenSettings screen_;
  GazeEnvironment environment_;
  std::unique_ptr<GazeSource> source_;
  const char* source_name_ = "";
  std::unique_ptr<GazeSource> fallback_mouse_;  ///< with fallback.then = mouse
  std::optional<GazeSample> held_;              ///< the last sample used as valid
  SimulatedTracker tracker_;                    ///< the tracker between the eye and the scheduler
  std::optional<GazeSample> tracked_held_;      ///< the last delivered sample used as valid
  std::vector<TrackedSample> history_;          ///< scratch: the delivered samples the prediction reads

  /// A point, where it came from, whether valid and its age, ms; the sample it came from
  /// (null for the fallback proper).
  struct Chosen {
    double x_px, y_px;
    const char* source;
    bool valid;
    double age_ms;
    std::optional<GazeSample> sample;
  };
  /// Steps 1-3 of at() for sample `s` at `now_s`, holding `held`: `delay_s` is taken off the
  /// sample's age for the max_age_ms and hold_ms tests (a simulated tracker's latency is not
  /// staleness), not for the age reported.
  Chosen choose(const GazeSample& s, double now_s, double delay_s, std::optional<GazeSample>& held, double run_time_s);
};

}  // namespace fovea
