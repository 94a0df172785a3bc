#pragma once

#include <epoxy/gl.h>

#include <memory>
#include <string>
#include <vector>

#include "perception/perception_settings.hpp"
#include "psychophysics/display_calibration.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "psychophysics/stimulus.hpp"
#include "render/canvas.hpp"
#include "render/capture.hpp"
#include "render/gl_window.hpp"
#include "render/imgui_session.hpp"
#include "render/scene_renderer.hpp"
#include "world/entity.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// Shows psychophysics stimuli (docs/psychophysics.md): a full-screen window, or an offscreen
/// picture, the size of the experiment's screen in pixels, one screen pixel to one picture pixel, on the
/// monitor display.index names, with the trial's discs and the fixation cross drawn in flat
/// colours on the spec's background. The spec's linear colours are sent as the display's
/// calibration says (display.gamma or display.lut_file; psychophysics/display_calibration.hpp),
/// the scene's shading too. No overlays, no panel: a clean stimulus.
/// A scene stimulus (stimulus.kind: scene) is drawn by SceneRenderer from the viewer's eye,
/// lit in linear light, into a multisampled framebuffer (stimulus.scene.msaa_samples)
/// resolved onto the picture, the cross beneath the rocks.
class StimulusDisplay {
 public:
  /// Throws RenderError when the window or context cannot be made (NoSuchDisplay: not on
  /// display.index), std::runtime_error when display.lut_file cannot be read.
  StimulusDisplay(const ExperimentSettings& spec, DisplayMode mode);
  ~StimulusDisplay();
  StimulusDisplay(const StimulusDisplay&) = delete;
  StimulusDisplay& operator=(const StimulusDisplay&) = delete;
  /// Samples per pixel of the scene's framebuffer, as the driver granted them (0 for discs).
  int scene_samples() const { return scene_samples_; }

  /// Draws `plan` at `t_s` from the trial's start (before 0 or after its end: the cross alone).
  void draw(const StimulusPlan& plan, double t_s);
  /// The cross alone (between trials).
  void draw_fixation();
  /// The cross over what is drawn already (a clip comparison's scene, drawn into this window).
  void draw_fixation_over();
  /// A text screen (instructions, a break): the spec's background, the text centred in the
  /// middle half of the screen, no cross.
  void draw_message(const std::string& text);
  /// Shows what was drawn (waits for the display's refresh in a window with vsync).
  void present() { window_.swap(); }
  /// The picture as drawn, before present().
  Image capture() const;
  /// The window it draws in (its size, refresh rate and description for the session log).
  GlWindow& window() { return window_; }
  /// How it sends linear values to the display (a clip comparison's scenes are drawn with it).
  const DisplayCalibration& calibration() const { return calibration_; }

 private:
  void clear();
  /// The fixation cross; with `shown` (the stimulus being presented) cut around its gap.
  void draw_cross(const StimulusPlan* shown = nullptr);
  void draw_scene(const StimulusPlan& plan, double t_s);
  ExperimentSettings spec_;
  DisplayCalibration calibration_;  ///< the spec's display.gamma or display.lut_file, read once
  GlWindow window_;
  std::unique_ptr<Canvas> canvas_;
  // A scene stimulus's rocks, their meshes and the multisampled framebuffer they are drawn in.
  std::vector<VoxelModel> scene_models_;
  std::vector<Entity> scene_entities_;        ///< one per model: its colour and centre
  std::vector<Entity> scene_frame_entities_;  ///< one per rock of the frame drawn (reused)
  std::vector<EntityState> scene_states_;     ///< their poses (reused)
  std::unique_ptr<SceneRenderer> scene_;
  GLuint scene_framebuffer_ = 0, scene_colour_ = 0, scene_depth_ = 0;
  int scene_samples_ = 0;  ///< what the driver granted
  ImGuiSession imgui_;  ///< last: shut down first, while the window lives
};

}  // namespace fovea
