#pragma once

#include "render/gl_window.hpp"

namespace fovea {

/// Dear ImGui on a GlWindow: the context and its SDL2 and OpenGL 3 backends, made together
/// and shut down together. The control panel (Viewer) and the experiment's text screens
/// (StimulusDisplay) each hold one; one at a time per process, as the window.
class ImGuiSession {
 public:
  /// `what` names the user of the text in the error ("the control panel"). `font_scale`
  /// enlarges every glyph (text read from a chin rest). Throws RenderError, having undone
  /// what it started.
  ImGuiSession(GlWindow& window, const char* what, float font_scale = 1.0f);
  ~ImGuiSession();
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;

  /// Starts a frame of widgets (ImGui::NewFrame and the backends').
  void new_frame();
  /// Draws the frame's widgets over what is drawn, on the whole window.
  void render(int drawable_width_px, int drawable_height_px);
};

}  // namespace fovea
