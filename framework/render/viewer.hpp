#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gaze/gaze_source.hpp"
#include "render/camera.hpp"
#include "render/canvas.hpp"
#include "render/capture.hpp"
#include "render/gl_window.hpp"
#include "render/imgui_session.hpp"
#include "render/panel.hpp"
#include "render/render_settings.hpp"
#include "render/scene_renderer.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// The window's mouse pointer for the mouse gaze source: the pointer's position in the
/// picture, which the source scales onto the screen's pixels.
class WindowPointer final : public PointerInput {
 public:
  /// Reads the pointer over `window`, whose picture keeps `screen`'s aspect; must not outlive the window.
  explicit WindowPointer(const GlWindow& window, const ScreenSettings& screen) : window_(window), screen_(screen) {}
  /// Drawable pixels from the picture's top-left (letterbox off), y down; in_window: over it with focus.
  PointerState pointer() override;

 private:
  const GlWindow& window_;
  ScreenSettings screen_;
};

/// Draws an Animation into a window or offscreen, with the overlays and the control panel,
/// and turns the window's events into camera moves and ViewerControls (docs/render.md).
/// The run loop owns the world and the records; the viewer only looks and asks.
class Viewer {
 public:
  /// Opens the window (RenderError when it cannot). `screen` is the viewer's screen
  /// (perception.view.screen), whose aspect the picture keeps.
  Viewer(const RenderSettings& settings, DisplayMode mode, const ScreenSettings& screen, const std::string& title);
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  /// The pointer for the mouse gaze source; lives as long as the viewer.
  PointerInput& pointer() { return pointer_; }
  /// Meshes `world`'s models and takes its camera; again after a reset.
  void attach(const Animation& world);

  /// Handles the window's events since the last call: camera moves (applied to `world` at
  /// once), keys, clicks. Returns false when the window was closed or Escape pressed.
  bool poll_events(Animation& world);

  /// Draws the last frame of `world`: scene, overlays and panel (not in stimulus mode).
  /// `status_line` heads the panel. Returns the wall time it took, ms.
  double draw(Animation& world, std::uint64_t seed, const std::string& status_line);
  /// Shows the frame drawn; returns the time since the last frame was shown, ms (NaN for the first).
  double present();
  /// Adds a shown frame's values to the panel's plots and the frame-time graph.
  void record(double frame_interval_ms, double nabla_est_m, double p_est) { history_.add(frame_interval_ms, nabla_est_m, p_est); }

  /// The picture drawn last: the screen's picture without the letterbox around it, panel
  /// and overlays included when drawn (call before present()).
  Image capture() const;

  /// Pause, step, reset and screenshot requests and the live render settings, for the run loop.
  ViewerControls& controls() { return controls_; }
  /// Live changes made in the panel since the last call, described for events.csv.
  void take_events(std::vector<std::string>& out);
  /// The window it draws in.
  const GlWindow& window() const { return *window_; }
  /// The scene's meshes (counts and meshing time); null before attach().
  const SceneRenderer* scene() const { return scene_.get(); }
  /// The target frame period the frame-time graph marks, ms.
  void set_target_frame_ms(double ms) { target_frame_ms_ = ms; }

 private:
  std::unique_ptr<GlWindow> window_;
  WindowPointer pointer_;
  ScreenSettings screen_;
  DisplayMode mode_;
  std::unique_ptr<SceneRenderer> scene_;
  std::unique_ptr<Canvas> canvas_;
  std::optional<CameraControl> camera_;
  CameraSettings camera_seen_;  ///< the world's camera as the controls last left or found it
  /// Starts the camera controls from the world's camera.
  void follow_camera(const Animation& world);
  ViewerControls controls_;
  PlotHistory history_;
  std::vector<EntityTint> tints_;
  std::vector<std::string> events_;
  std::optional<ImGuiSession> imgui_;  ///< made last in the constructor, reset first in the destructor
  bool dragging_ = false;
  double drag_distance_px_ = 0;
  double pending_dx_px_ = 0, pending_dy_px_ = 0, pending_wheel_ = 0;
  std::optional<std::chrono::steady_clock::time_point> last_present_;
  double last_poll_s_ = 0;
  double target_frame_ms_ = 10;
};

}  // namespace fovea
