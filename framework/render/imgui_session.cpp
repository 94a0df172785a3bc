#include "render/imgui_session.hpp"

#include <epoxy/gl.h>

#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <string>

namespace fovea {

ImGuiSession::ImGuiSession(GlWindow& window, const char* what, float font_scale) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini beside the user's files
  ImGui::GetIO().FontGlobalScale = font_scale;
  ImGui::StyleColorsDark();
  if (!ImGui_ImplSDL2_InitForOpenGL(window.sdl_window(), window.gl_context())) {
    ImGui::DestroyContext();
    throw RenderError(std::string("cannot start ") + what + " (Dear ImGui's SDL2 backend)");
  }
  if (!ImGui_ImplOpenGL3_Init("#version 330")) {
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    throw RenderError(std::string("cannot start ") + what + " (Dear ImGui's OpenGL 3 backend)");
  }
}

ImGuiSession::~ImGuiSession() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiSession::new_frame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
}

void ImGuiSession::render(int drawable_width_px, int drawable_height_px) {
  ImGui::Render();
  glViewport(0, 0, drawable_width_px, drawable_height_px);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace fovea
