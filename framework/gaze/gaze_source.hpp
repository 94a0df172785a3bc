#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/kind_table.hpp"
#include "gaze/gaze_settings.hpp"
#include "perception/perception_settings.hpp"

namespace fovea {

/// Where the viewer looks at one moment (004 section 2.3: the point of gaze fixation).
struct GazeSample {
  double x_px = 0;          ///< from the screen's left edge
  double y_px = 0;          ///< from the screen's top edge, y down
  bool valid = false;       ///< false: the source has no fixation to give now (blink, lost track)
  double time_s = 0;        ///< when the eye was there, on the source's clock (GazeSource::clock)
  double confidence = 1.0;  ///< the source's confidence in [0, 1]; 1 for synthetic sources
  /// The tracker's own time stamp of the sample, seconds on its clock, kept for the record
  /// (gaze.csv's tracker_t_s): Pupil's timestamp, a stream sender's tracker_t; NaN otherwise.
  double tracker_time_s = std::numeric_limits<double>::quiet_NaN();
  /// When fovea received the sample, gaze_wall_clock_s() (s): trackers' inboxes stamp it; NaN
  /// for sources that receive nothing.
  double arrival_s = std::numeric_limits<double>::quiet_NaN();
};

/// A point of the scene the viewer may look at next, as the frame hands it to a source that
/// wants them (GazeSource::wants_scene_targets): plain data, so gaze/ needs nothing of the
/// world to watch it.
struct GazeTarget {
  double x_px = 0;    ///< from the screen's left edge
  double y_px = 0;    ///< from the screen's top edge, y down
  /// Relative chance of being chosen, >= 0: an entity's speed on the screen in pixels per
  /// second, 1 for a collision. Targets of weight 0 are chosen only when all weigh 0.
  double weight = 1;
};

/// Which scene targets a source wants before each sample: the frame computes only those.
enum class SceneTargetKind {
  none,        ///< nothing: the frame spends nothing on targets (every source but a watching viewer)
  entities,    ///< each live entity whose centre is on the screen, weighted by its speed there (px/s)
  collisions,  ///< each of the last step's collisions treated as colliding and on the screen, weight 1
};

/// The clock a source's time stamps are on.
enum class GazeClock {
  run,   ///< the run's clock, the time the frame loop passes in: simulated time in headless runs
  wall,  ///< the process's monotonic clock, gaze_wall_clock_s(): trackers and the mouse
};

/// Seconds on the monotonic clock (std::chrono::steady_clock) that live sources stamp their
/// samples with, so a sample's age is gaze_wall_clock_s() - time_s whatever the tracker's epoch.
double gaze_wall_clock_s();

/// A source of fixation points. The frame loop asks once per frame with the run's clock
/// (simulated time in headless runs, so a run with a synthetic source is reproducible).
/// Live sources ignore it and give their newest sample, stamped on the wall clock.
class GazeSource {
 public:
  virtual ~GazeSource() = default;
  /// The fixation at time `now_s` (run clock), or for live sources the newest sample. Calls
  /// come with non-decreasing times and never block on a device or the network.
  virtual GazeSample sample(double now_s) = 0;
  /// Which clock sample().time_s is on.
  virtual GazeClock clock() const { return GazeClock::run; }
  /// Inputs rejected so far: malformed or invalid messages and lost connections. Synthetic
  /// sources never drop anything.
  virtual std::uint64_t dropped() const { return 0; }
  /// Moves the source's status messages since the last call (could not connect, connected,
  /// lost, ...) to the end of `out`: each state change is said once, for the run to print.
  virtual void take_messages(std::vector<std::string>& out) { (void)out; }
  /// Trackers: moves every sample received since the last call (at most the newest 512),
  /// oldest first, to the end of `out`, for a trial's gaze record. Others give nothing.
  virtual void take_recent(std::vector<GazeSample>& out) { (void)out; }
  /// Which scene targets the frame should hand to set_scene_targets() before each sample().
  virtual SceneTargetKind wants_scene_targets() const { return SceneTargetKind::none; }
  /// The scene as the frame sees it now, replacing what was handed before: the points a
  /// saccade starting at the next samples may go to. The source copies what it keeps.
  /// Sources that want none ignore them.
  virtual void set_scene_targets(std::span<const GazeTarget> targets) { (void)targets; }
};

/// The mouse pointer as the window that owns it sees it. render/ implements this with SDL;
/// tests with a fixed point. Window pixels, top-left origin, y down.
struct PointerState {
  double x_px = 0;              ///< from the window's left edge (render/: the picture's, inside the letterbox)
  double y_px = 0;              ///< from the window's top edge, y down
  double window_width_px = 0;   ///< the window's size, to map window pixels onto the screen's
  double window_height_px = 0;  ///< the window's height, px (with window_width_px, the scale to the screen)
  bool in_window = false;        ///< false: the pointer is outside the window (no sample)
};

/// Where the mouse pointer is, read on demand: render/'s WindowPointer (SDL), or a test's fixed point.
class PointerInput {
 public:
  virtual ~PointerInput() = default;
  /// The pointer now; MouseGaze calls it once per sample, so it must not block.
  virtual PointerState pointer() = 0;
};

/// Makes a tracker's source (pupil, gazepoint). The trackers speak network protocols and
/// live in their own library, fovea_trackers (trackers/trackers.hpp: make_tracker_source), so
/// the core builds and tests without ZeroMQ or sockets; a program that wants them passes
/// this in. A function object, so a session that keeps one tracker connection for all its
/// clips hands each clip's world that one source, borrowed (gaze/borrowed_gaze.hpp).
using TrackerFactory = std::function<std::unique_ptr<GazeSource>(const GazeSettings& settings, const ScreenSettings& screen)>;

/// What the factory may need besides the settings, which only a program can give: the
/// window's pointer for the mouse source (null in headless runs, where asking for the mouse
/// is an error that says so) and the trackers (null where the program has none).
struct GazeEnvironment {
  PointerInput* pointer = nullptr;        ///< the window's pointer; null without a window
  TrackerFactory make_tracker = nullptr;  ///< fovea_trackers' make_tracker_source; empty without trackers
};

/// The source the settings name, for a screen of `screen`'s size; `seed` feeds the scripted
/// source. Throws std::invalid_argument, naming the key, when the settings cannot work: a
/// fixed point off the screen, a replay file that cannot be read, the mouse without a window.
/// A tracker that is not running is not an error: its source starts, falls back and retries.
std::unique_ptr<GazeSource> make_gaze_source(const GazeSettings& settings, const ScreenSettings& screen,
                                             std::uint64_t seed, const GazeEnvironment& environment = {});

/// `settings` with what depends on where a run happens taken out: a live source (the mouse,
/// a tracker) becomes the scripted viewer and a mouse fallback the centre. What `fovea
/// validate` and the tests build, so checking a config never needs a window nor contacts
/// whatever listens on a tracker's port.
inline GazeSettings without_live_input(GazeSettings settings) {
  if (reads_live_input(settings.source)) settings.source = GazeSourceKind::scripted;
  settings.fallback.then = GazeFallbackKind::centre;
  return settings;
}

/// The config name of a source kind ("fixed", "pupil", ...), as frames.csv writes it.
constexpr const char* gaze_source_name(GazeSourceKind kind) { return kind_name(kGazeSources, kind); }

}  // namespace fovea
