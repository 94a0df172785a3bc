#pragma once

#include <memory>
#include <string>

#include "perception/perception_settings.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "psychophysics/stimulus.hpp"
#include "render/canvas.hpp"
#include "render/capture.hpp"
#include "render/gl_window.hpp"
#include "render/imgui_session.hpp"

namespace fovea {

/// Shows psychophysics stimuli (docs/psychophysics.md): a full-screen window, or an offscreen
/// picture, the size of the experiment's screen in pixels, one screen pixel to one picture pixel, with the
/// trial's discs and the fixation cross drawn in flat colours (sRGB-encoded from the spec's
/// linear colours) on the spec's background. No overlays, no panel: a clean stimulus.
class StimulusDisplay {
 public:
  /// Throws RenderError when the window or context cannot be made.
  StimulusDisplay(const ExperimentSettings& spec, DisplayMode mode);

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
  GlWindow& window() { return window_; }

 private:
  void clear();
  void draw_cross();
  ExperimentSettings spec_;
  GlWindow window_;
  std::unique_ptr<Canvas> canvas_;
  ImGuiSession imgui_;  ///< last: shut down first, while the window lives
};

}  // namespace fovea
