#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/settings.hpp"
#include "render/capture.hpp"
#include "render/frame_pacer.hpp"
#include "render/viewer.hpp"
#include "run/run.hpp"

namespace fovea {

/// What `fovea run` adds around each frame (run/run.hpp, RunHooks): the window, its panel's
/// live changes, reset, pause and screenshots, the --capture pictures, and the pace. A live
/// gaze source (a tracker, the mouse) follows a person in real time, and so does a window
/// someone watches: frame k starts no earlier than k frame periods after the first. A frame
/// that falls behind starts at once; none is skipped. Synthetic sources headless or
/// offscreen run as fast as they can.
///
/// Offscreen with --capture, nobody sees a frame that is not captured, so only the captured
/// frames are drawn (the world still steps every frame): a drawn picture depends only on the
/// world at its frame, unless it shows the panel or the frame-time graph, which show what
/// earlier frames drew (their plots, ImGui's layout), and then every frame is drawn.
class RunWindow : public RunHooks {
 public:
  /// `viewer` null: a headless run, paced only for a live gaze source. `capture_folder`
  /// empty: no --capture.
  RunWindow(Viewer* viewer, const Settings& settings, std::filesystem::path results_folder,
            std::filesystem::path capture_folder, std::int64_t capture_every, bool player_follows_camera);

  /// With vsync a window shows at most one frame per refresh: a display slower than the
  /// pace holds the world below real time. Says so on stderr, with the setting that fixes it.
  void say_if_slower_than_real_time() const;

  Next before_frame(Stepper& stepper, std::int64_t frames_done) override;
  bool player_follows_camera() const override { return player_follows_camera_; }
  void after_step(Stepper& stepper, std::int64_t frame, FrameMeasures& measures) override;
  std::string after_record(std::int64_t frame) override;
  void take_events(std::vector<std::string>& events) override;

  /// Frames drawn so far (each a picture made, shown or not).
  std::int64_t frames_drawn() const { return frames_drawn_; }
  /// --capture pictures written so far.
  std::int64_t pictures_written() const { return pictures_written_; }

 private:
  /// A new world from the same config and seed with the live changes kept; the old world
  /// runs on if it cannot be made.
  void reset(Stepper& stepper);
  std::string status_line(const Stepper& stepper, std::int64_t frames_done, bool paused) const;
  /// Whether the run's frame `frame` is drawn: always in a window and offscreen without
  /// --capture; offscreen with it, only the captured frames unless the picture shows what
  /// earlier frames drew (the panel, the frame-time graph).
  bool draws(std::int64_t frame) const;
  /// Whether --capture takes a picture of the run's frame `frame`.
  bool captures(std::int64_t frame) const { return !capture_folder_.empty() && frame % capture_every_ == 0; }
  void take_screenshot(std::int64_t run_frame);
  /// The pace: render.target_fps, or one frame per time step (real time).
  static double frame_period_s(const Settings& settings);

  Viewer* viewer_;
  const Settings& settings_;
  std::filesystem::path results_folder_;
  std::filesystem::path capture_folder_;
  std::int64_t capture_every_;
  bool player_follows_camera_;
  FramePacer pacer_;
  std::optional<Image> capture_;     ///< read before the frame is shown, written after it is logged
  std::vector<std::string> events_;  ///< this class's own events (reset, screenshots), before the panel's
  std::int64_t frames_drawn_ = 0;
  std::int64_t pictures_written_ = 0;
};

}  // namespace fovea
