#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/stopwatch.hpp"
#include "record/manifest.hpp"
#include "run/run_settings.hpp"
#include "run/stepper.hpp"

namespace fovea {

/// What a run does besides stepping: plain data from the config and the command line.
struct RunPlan {
  std::int64_t frames = 1000;  ///< frames to run
  RecordSettings record;       ///< collisions.csv, gaze.csv
  bool rendered = false;       ///< a drawn run: render_ms and frame_interval_ms in frames.csv, and events.csv
  bool progress = false;       ///< a progress line redrawn on stderr (a terminal, not --quiet)
  /// events.csv without drawing: a program that changes the world live (the Python module).
  bool events = false;
};

/// What an app adds around each frame of a run: `fovea run`'s window (drawing, the panel's
/// live changes, pause, capture) and its pacing to real time. The loop calls them in this
/// order, frame after frame.
class RunHooks {
 public:
  /// What before_frame() asks the loop to do next.
  enum class Next {
    step,  ///< step a frame now
    skip,  ///< step nothing this time round (paused), and ask again
    stop,  ///< end the run here (the window was closed): the results are complete
  };
  virtual ~RunHooks() = default;
  /// Before each frame, `frames_done` frames recorded so far: the window's events, a reset
  /// (Stepper::replace: only here), pause, and the wait for the frame's time when paced.
  virtual Next before_frame(Stepper& stepper, std::int64_t frames_done) = 0;
  /// Whether the rockfall's player follows the camera this frame (Stepper::step).
  virtual bool player_follows_camera() const { return false; }
  /// After the step of the run's frame `frame` (0 for the first, counted over the whole run,
  /// resets included), before it is recorded: draw it, and fill what drawing measures
  /// (FrameMeasures::render_ms, frame_interval_ms).
  virtual void after_step(Stepper& stepper, std::int64_t frame, FrameMeasures& measures) {
    (void)stepper, (void)frame, (void)measures;
  }
  /// After frame `frame` is recorded. Returns "" to go on, or why the run must stop (a
  /// picture that could not be written): the run then ends failed, its frames kept.
  virtual std::string after_record(std::int64_t frame) { (void)frame; return ""; }
  /// Live changes since the last call ("reset", "schedule.kind: round_robin"), for events.csv.
  virtual void take_events(std::vector<std::string>& events) { (void)events; }
};

/// How a run ended.
struct RunOutcome {
  std::int64_t frames_done = 0;  ///< frames stepped and recorded, resets included
  /// Ended before its frames were done: stopped by a signal, the window closed, or failed.
  bool interrupted = false;
  int stop_signal = 0;   ///< the signal that asked the run to stop (SIGINT, SIGTERM), or 0
  bool failed = false;   ///< its results, or a picture asked for, could not be written
  std::vector<std::string> errors;  ///< why it failed, in the order things went wrong
  double wall_s = 0;     ///< wall-clock time of the loop
  bool summarised = false;  ///< summary.json was written
  /// The exit status the run ends the process with (docs/cli.md): 128 + the signal when
  /// stopped by one (130 for SIGINT), else 1 when failed, else 0. A signal outranks a
  /// picture that could not be written, not a record: stop_signal is then 0.
  int exit_status() const { return stop_signal != 0 ? 128 + stop_signal : failed ? 1 : 0; }
};

/// The optional column groups of a run's frames.csv: what its settings, its demo and the
/// plan (drawn or not) add to the fixed columns.
FrameLogColumns frame_log_columns(const RunPlan& plan, const Stepper& stepper);

/// A tracker's state changes (not found, connected, lost) since the last call, each said
/// once on stderr as "fovea: gaze: ...". `scratch` is reused between calls.
void print_gaze_messages(Animation& world, std::vector<std::string>& scratch);

/// The records of a run, written frame by frame as the frames come (docs/results.md):
/// what run_frames writes, for a loop that steps the world itself (the Python module's
/// World, docs/python.md). The caller has made the folder and written config.yaml and the
/// first manifest.json (`manifest`, status "running"); the constructor opens the CSV files
/// and throws when it cannot.
class RunRecorder {
 public:
  /// Opens the run's CSV files in `folder` for what `plan` and the stepper's demo ask; throws when it cannot.
  RunRecorder(const std::filesystem::path& folder, const RunPlan& plan, const Stepper& stepper, RunManifest manifest);
  ~RunRecorder();
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  /// The frame the stepper just made: frames.csv and the other records, flushed; the
  /// tracker's messages to stderr; manifest.json's frames_completed every two seconds.
  /// Throws when a record cannot be written (the frames before it are kept).
  void write_frame(Stepper& stepper);
  /// The hooks' live changes since the last call, into events.csv (a drawn run).
  void write_events(RunHooks& hooks, std::int64_t frames);
  /// One live change ("schedule.kind: round_robin") into events.csv, made after `frames`
  /// frames; nothing when the plan has no events.csv.
  void write_event(std::string_view event, std::int64_t frames);
  /// How many frames the run was asked for, in summary.json and the final manifest.json:
  /// the plan's until changed (a loop that decides its length as it goes).
  void set_frames_requested(std::int64_t frames) { plan_.frames = frames; }
  /// summary.json, after the last frame (throws when it cannot be written).
  void write_summary(Stepper& stepper, const RunOutcome& outcome);
  /// The final manifest.json: status, exit status, end time and frames completed from
  /// `outcome`. Never throws: a manifest that cannot be written marks `outcome` failed.
  void finish(RunOutcome& outcome);

  /// Frames recorded so far by write_frame().
  std::int64_t frames_written() const { return frames_written_; }
  /// Wall-clock seconds since the recorder was made.
  double elapsed_s() const { return wall_.elapsed_ms() / 1000.0; }

 private:
  struct Records;
  std::filesystem::path folder_;
  RunPlan plan_;
  RunManifest manifest_;
  std::unique_ptr<Records> records_;
  Stopwatch wall_;
  std::int64_t frames_written_ = 0;
  double manifest_written_ms_ = 0;
  std::vector<std::string> gaze_messages_;
};

/// Runs `stepper`'s world for `plan.frames` frames, recording each into `folder` as it goes
/// (docs/results.md): frames.csv, collisions.csv and gaze.csv when asked, events.csv for a
/// drawn run, manifest.json's frames_completed every two seconds, then summary.json and the
/// final manifest.json (status, exit status, end time). The caller has made the folder and
/// written config.yaml and the first manifest.json into it (`manifest`, status "running").
///
/// Between frames it asks `stop_signal` (the signal received, or 0) and stops cleanly; the
/// hooks, when given, act around every frame. A tracker's status messages go to stderr as
/// "fovea: gaze: ...". Nothing escapes: a record that cannot be written ends the run failed,
/// with every finished frame kept.
RunOutcome run_frames(Stepper& stepper, const RunPlan& plan, const std::filesystem::path& folder, RunManifest manifest,
                      RunHooks* hooks, const std::function<int()>& stop_signal);

}  // namespace fovea
