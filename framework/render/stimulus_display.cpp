#include "render/stimulus_display.hpp"

#include <epoxy/gl.h>

#include <imgui.h>


#include "render/camera.hpp"
#include "render/scene_renderer.hpp"

namespace fovea {
namespace {

Rgba8 rgba_of(const Vec3& linear) {
  const std::uint32_t packed = srgb_rgba(linear);
  return Rgba8{static_cast<std::uint8_t>(packed & 0xff), static_cast<std::uint8_t>((packed >> 8) & 0xff),
               static_cast<std::uint8_t>((packed >> 16) & 0xff), 255};
}

GlWindowOptions window_options(const ExperimentSettings& spec, DisplayMode mode) {
  GlWindowOptions o;
  o.mode = mode;
  o.width_px = spec.screen.width_px;
  o.height_px = spec.screen.height_px;
  o.vsync = true;
  o.fullscreen = mode == DisplayMode::window;
  o.title = "fovea experiment: " + spec.name;
  return o;
}

}  // namespace

StimulusDisplay::StimulusDisplay(const ExperimentSettings& spec, DisplayMode mode)
    : spec_(spec),
      window_(window_options(spec, mode)),
      canvas_(std::make_unique<Canvas>()),
      // Dear ImGui for the text screens only, its glyphs large enough to read from a chin rest.
      imgui_(window_, "the text screens", 2.0f) {}

void StimulusDisplay::draw_message(const std::string& text) {
  clear();
  imgui_.new_frame();
  const ImVec2 size(0.5f * static_cast<float>(window_.width_px()), 0.5f * static_cast<float>(window_.height_px()));
  ImGui::SetNextWindowPos(ImVec2(0.25f * static_cast<float>(window_.width_px()), 0.25f * static_cast<float>(window_.height_px())));
  ImGui::SetNextWindowSize(size);
  ImGui::SetNextWindowBgAlpha(0.0f);
  ImGui::Begin("message", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoSavedSettings);
  ImGui::PushTextWrapPos(size.x);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::End();
  imgui_.render(window_.width_px(), window_.height_px());
}

void StimulusDisplay::clear() {
  // The same sRGB encoding as the discs' (srgb_rgba), so a background and a disc of one
  // linear colour are one byte value.
  const Rgba8 b = rgba_of(spec_.stimulus.background);
  glViewport(0, 0, window_.width_px(), window_.height_px());
  glClearColor(b.r / 255.0f, b.g / 255.0f, b.b / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void StimulusDisplay::draw_cross() {
  if (!spec_.stimulus.fixation_cross) return;
  const double half_px = 0.5 * spec_.stimulus.fixation_size_deg * radial_px_per_deg(spec_.screen, 0);
  const double cx = 0.5 * spec_.screen.width_px, cy = 0.5 * spec_.screen.height_px;
  const Rgba8 white{255, 255, 255, 255};
  canvas_->line(cx - half_px, cy, cx + half_px, cy, 2.0, white);
  canvas_->line(cx, cy - half_px, cx, cy + half_px, 2.0, white);
}

void StimulusDisplay::draw(const StimulusPlan& plan, double t_s) {
  clear();
  // The cross first: the discs pass over it, and at eccentricity 0 it shows through the gap.
  draw_cross();
  if (t_s >= 0 && t_s <= plan.duration_s) {
    const Rgba8 colour = rgba_of(spec_.stimulus.colour);
    for (std::size_t i = 0; i < plan.paths.size(); ++i) {
      double x = 0, y = 0;
      stimulus_position(plan, i, t_s, x, y);
      canvas_->disc(x, y, 0.5 * plan.paths[i].diameter_px, colour);
    }
  }
  canvas_->draw(spec_.screen, fit_viewport(window_.width_px(), window_.height_px(), spec_.screen));
}

void StimulusDisplay::draw_fixation() {
  clear();
  draw_cross();
  canvas_->draw(spec_.screen, fit_viewport(window_.width_px(), window_.height_px(), spec_.screen));
}

void StimulusDisplay::draw_fixation_over() {
  draw_cross();
  canvas_->draw(spec_.screen, fit_viewport(window_.width_px(), window_.height_px(), spec_.screen));
}

Image StimulusDisplay::capture() const { return read_framebuffer(0, 0, window_.width_px(), window_.height_px()); }

}  // namespace fovea
