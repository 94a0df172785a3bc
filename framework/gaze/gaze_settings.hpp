#pragma once

#include <array>
#include <string>

#include "core/kind_table.hpp"

// Definition structs of the gaze part: where the viewer looks (004 section 2.3: "an
// eye-tracker to locate the user's point of gaze fixation"). docs/gaze.md walks through
// every source and key.

namespace fovea {

/// Where the fixation point comes from (config `gaze.source`; gaze/gaze_source.hpp makes them).
enum class GazeSourceKind {
  fixed,      ///< one point, gaze.x_px and gaze.y_px, the whole run
  mouse,      ///< the pointer in fovea's window (gaze/mouse_gaze.hpp); wall clock
  scripted,   ///< the seeded synthetic viewer (gaze/scripted_gaze.hpp); run clock
  replay,     ///< a gaze CSV played back on the run's clock (gaze/replay_gaze.hpp)
  pupil,      ///< Pupil Labs Core over Pupil Remote (trackers/pupil_gaze.hpp); wall clock
  gazepoint,  ///< Gazepoint over the Open Gaze API (trackers/gazepoint_gaze.hpp); wall clock
  stream,     ///< any tracker through fovea's gaze stream, a sender program (trackers/stream_gaze.hpp); wall clock
  external    ///< samples a program pushes through the Python module (gaze/external_gaze.hpp)
};

/// What a gaze source reads besides its settings.
enum class GazeInput {
  settings,  ///< nothing else: it runs anywhere, headless too
  window,    ///< the pointer of fovea's window
  tracker,   ///< an eye tracker's server on the network (trackers/)
  file,      ///< a gaze CSV recorded earlier
  program,   ///< samples a program pushes (fovea's Python module)
};

/// A gaze source kind and what it reads.
struct GazeSourceInfo {
  GazeSourceKind kind;  ///< the source this row describes
  const char* name;     ///< in configs and frames.csv's `gaze_source`
  const char* help;     ///< one line, for the config's choices of `gaze.source` and the panel
  GazeInput input;      ///< what it reads: reads_live_input() decides on it
};

/// Every gaze source, a row each: config name, help and input (core/kind_table.hpp).
inline constexpr auto kGazeSources = kind_table<GazeSourceInfo>({
    {GazeSourceKind::fixed, "fixed", "one point on the screen, all run long", GazeInput::settings},
    {GazeSourceKind::mouse, "mouse", "the mouse pointer in the window", GazeInput::window},
    {GazeSourceKind::scripted, "scripted", "seeded fixations and saccades over the screen (gaze/scripted_gaze.hpp)",
     GazeInput::settings},
    {GazeSourceKind::replay, "replay",
     "a gaze CSV recorded earlier, interpolated at frame times (gaze/replay_gaze.hpp)", GazeInput::file},
    {GazeSourceKind::pupil, "pupil", "Pupil Labs Core through the Pupil Remote network API (trackers/pupil_gaze.hpp)",
     GazeInput::tracker},
    {GazeSourceKind::gazepoint, "gazepoint",
     "Gazepoint through the Open Gaze API over TCP (trackers/gazepoint_gaze.hpp)",
     GazeInput::tracker},
    // Any tracker whose samples a program sends: the bridges in experiments/python/ (EyeLink,
    // Tobii, Lab Streaming Layer) or a lab's own (docs/gaze.md, "Your eye tracker").
    {GazeSourceKind::stream, "stream",
     "any eye tracker through fovea's gaze stream: a sender program (EyeLink, Tobii, LSL bridges) pushes "
     "samples on fovea's clock (trackers/stream_gaze.hpp)",
     GazeInput::tracker},
    // Any tracker's SDK through fovea's Python module, World.set_gaze (gaze/external_gaze.hpp).
    {GazeSourceKind::external, "external",
     "samples a program pushes, on the run's clock; `fovea run` has no one to push them", GazeInput::program},
});

/// Whether the source reads a live input, which only a run with a window or a tracker has.
constexpr bool reads_live_input(GazeSourceKind kind) {
  const GazeSourceInfo* row = find_kind(kGazeSources, kind);
  return row != nullptr && (row->input == GazeInput::window || row->input == GazeInput::tracker);
}

/// Whether the source is an eye tracker on the network (pupil, gazepoint, stream): what a
/// session watches the fixation with, and what GazeEnvironment::make_tracker makes.
constexpr bool is_eye_tracker(GazeSourceKind kind) {
  const GazeSourceInfo* row = find_kind(kGazeSources, kind);
  return row != nullptr && row->input == GazeInput::tracker;
}

/// Whether the source is a synthetic eye that answers for any time on the run's clock (its
/// input is its settings or a file: fixed, scripted, replay), which a simulated tracker can
/// sample (gaze/simulated_tracker.hpp); live inputs answer for now only.
constexpr bool answers_for_any_time(GazeSourceKind kind) {
  const GazeSourceInfo* row = find_kind(kGazeSources, kind);
  return row != nullptr && (row->input == GazeInput::settings || row->input == GazeInput::file);
}

/// Where the scripted viewer's saccades go (docs/gaze.md, "scripted").
enum class ScriptedTargetKind {
  screen,      ///< uniform over the screen inside the margins; no scene targets asked for
  entities,    ///< on-screen entity centres, weighted by speed on the screen (px/s)
  collisions   ///< on-screen centres of the last step's collisions treated as colliding, weight 1
};

/// Names and help of `gaze.scripted.targets` (core/kind_table.hpp).
inline constexpr auto kScriptedTargets = kind_table<KindName<ScriptedTargetKind>>({
    {ScriptedTargetKind::screen, "screen",
     "uniform over the screen inside the margins, drawn as the fixation before starts"},
    {ScriptedTargetKind::entities, "entities",
     "an entity's centre on the screen, chosen in proportion to its speed there"},
    {ScriptedTargetKind::collisions, "collisions",
     "the centre on the screen of one of the last step's collisions treated as colliding"},
});

/// The scripted viewer's eye movements (docs/gaze.md says where the numbers come from).
struct ScriptedGazeSettings {
  double fixation_mean_ms = 250.0;  ///< mean fixation duration
  double fixation_sd_ms = 100.0;    ///< standard deviation of fixation durations (log-normal)
  /// Fraction of the screen's width and height kept clear at each edge: fixation targets
  /// drawn over the screen are uniform over the rest.
  double margin = 0.1;
  /// entities and collisions choose each target when the saccade starts, from the scene
  /// targets the frame hands in (GazeSource::set_scene_targets); with none, a screen draw.
  ScriptedTargetKind targets = ScriptedTargetKind::screen;
};

/// Which Pupil Capture topic carries the fixation.
enum class PupilTopic {
  surface,  ///< `surfaces.<surface>`: gaze mapped onto the screen's surface (the usual set-up)
  gaze      ///< `gaze.`: gaze in the world camera's image, which is taken as the screen
};

/// Names and help of `gaze.topic` (core/kind_table.hpp).
inline constexpr auto kPupilTopics = kind_table<KindName<PupilTopic>>({
    {PupilTopic::surface, "surface", "surfaces.<surface>: gaze mapped onto the screen surface (the usual set-up)"},
    {PupilTopic::gaze, "gaze",
     "gaze.: gaze in the world camera's image, taken as the screen (screen-as-world set-ups)"},
});

/// What a frame uses when the source has no valid, current sample.
enum class GazeFallbackKind {
  centre,  ///< the screen's centre, reported with source "centre" and age_ms NaN
  mouse    ///< the window's pointer (needs a window; without_live_input() makes it centre)
};

/// Names and help of `gaze.fallback.then` (core/kind_table.hpp).
inline constexpr auto kGazeFallbacks = kind_table<KindName<GazeFallbackKind>>({
    {GazeFallbackKind::centre, "centre", "the screen's centre"},
    {GazeFallbackKind::mouse, "mouse", "the mouse pointer (needs a window)"},
});

/// `gaze.fallback`: what Gaze::at does when the source has no valid, current sample (issue 6).
struct GazeFallbackSettings {
  /// The last valid point is held this long after its time stamp before `then` takes over:
  /// a blink or a dropped sample should not move the scheduler's fixation.
  double hold_ms = 200.0;
  GazeFallbackKind then = GazeFallbackKind::centre;  ///< the point used once the hold has run out
};

/// The config's `gaze` map (docs/config.md, "gaze"): the source and what each kind reads.
struct GazeSettings {
  GazeSourceKind source = GazeSourceKind::fixed;  ///< `gaze.source`: where fixations come from
  double x_px = 960.0;  ///< fixed fixation point, pixels from the screen's left edge
  double y_px = 540.0;  ///< fixed fixation point, pixels from the screen's top edge (y down)
  ScriptedGazeSettings scripted;  ///< scripted: the synthetic viewer's eye movements

  /// replay: the CSV to read (t_s, x_px, y_px[, valid]; a gaze.csv of an earlier run).
  std::string file;

  /// pupil and gazepoint: where the tracker's server listens. Port 0 means the tracker's
  /// default (Pupil Remote 50020, Gazepoint 4242). Only this host and port are contacted
  /// (Pupil's SUB port too, on this host). stream: the address fovea listens on for samples
  /// (default 50070), its clock on the next port; 127.0.0.1 takes senders on this machine only.
  std::string host = "127.0.0.1";
  int port = 0;  ///< TCP port; 0 for the tracker's default
  /// pupil: the surface defined in Pupil Capture's Surface Tracker for the screen.
  std::string surface = "screen";
  PupilTopic topic = PupilTopic::surface;  ///< pupil: which topic carries the fixation
  /// pupil, stream: samples below this confidence are not used (Pupil's own advice is 0.6).
  double min_confidence = 0.6;

  /// A tracker's newest sample older than this is not a current fixation (the tracker
  /// stalled or stopped); the frame treats it as invalid and falls back.
  double max_age_ms = 100.0;
  GazeFallbackSettings fallback;  ///< `gaze.fallback`: hold, then centre or mouse

  // A simulated eye tracker between the viewer's eye (the source) and the scheduler
  // (gaze/simulated_tracker.hpp; docs/gaze.md, "A tracker's latency"). The meter measures
  // with the eye; the scheduler sees what the tracker delivers. All 0: the eye itself.
  double latency_ms = 0;  ///< a sample reaches the scheduler this long after the eye was there, ms
  double rate_hz = 0;     ///< the tracker samples the eye this often; 0: once a frame, at the frame's time
  double noise_deg = 0;   ///< Gaussian noise added to each sample, standard deviation per axis, degrees
};

}  // namespace fovea
