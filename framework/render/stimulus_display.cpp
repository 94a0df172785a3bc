#include "render/stimulus_display.hpp"

#include <epoxy/gl.h>

#include <imgui.h>

#include <algorithm>
#include <string>

#include "render/camera.hpp"
#include "render/scene_renderer.hpp"

namespace fovea {
namespace {

/// A linear colour as the display's calibration sends it.
Rgba8 rgba_of(const Vec3& linear, const DisplayCalibration& calibration) {
  return Rgba8{calibration.level_for(linear.x, 0), calibration.level_for(linear.y, 1), calibration.level_for(linear.z, 2),
               255};
}

GlWindowOptions window_options(const ExperimentSettings& spec, DisplayMode mode) {
  GlWindowOptions o;
  o.mode = mode;
  o.width_px = spec.screen.width_px;
  o.height_px = spec.screen.height_px;
  o.vsync = true;
  o.fullscreen = mode == DisplayMode::window;
  o.title = "fovea experiment: " + spec.name;
  o.display_index = spec.display.index;
  return o;
}

}  // namespace

StimulusDisplay::StimulusDisplay(const ExperimentSettings& spec, DisplayMode mode)
    : spec_(spec),
      // The table read before the window opens: a file that went bad since the spec was
      // checked opens nothing.
      calibration_(display_calibration(spec.display)),
      window_(window_options(spec, mode)),
      canvas_(std::make_unique<Canvas>()),
      // Dear ImGui for the text screens only, its glyphs large enough to read from a chin rest.
      imgui_(window_, "the text screens", 2.0f) {
  if (spec.stimulus.kind != StimulusKind::scene) return;
  scene_models_ = scene_rock_models(spec);
  for (std::size_t m = 0; m < scene_models_.size(); ++m) {
    Entity e;
    e.model = static_cast<ModelId>(m);
    e.material.colour = spec.stimulus.colour;
    e.centre_of_mass_model_m = scene_model_centre_m(scene_models_[m]);
    scene_entities_.push_back(e);
  }
  scene_ = std::make_unique<SceneRenderer>(scene_models_, scene_entities_);
  scene_->set_calibration(calibration_);
  // The multisampled framebuffer: as many samples as asked, or as the driver allows.
  GLint most = 1;
  glGetIntegerv(GL_MAX_SAMPLES, &most);
  scene_samples_ = std::clamp(spec.stimulus.scene.msaa_samples, 1, std::max(1, static_cast<int>(most)));
  const int w = window_.width_px(), h = window_.height_px();
  glGenFramebuffers(1, &scene_framebuffer_);
  glGenRenderbuffers(1, &scene_colour_);
  glGenRenderbuffers(1, &scene_depth_);
  // 1 sample is a plain renderbuffer: asked for one sample, Mesa's llvmpipe gives four.
  const GLsizei samples = scene_samples_ > 1 ? scene_samples_ : 0;
  glBindRenderbuffer(GL_RENDERBUFFER, scene_colour_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, w, h);
  GLint granted = 0;
  glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_SAMPLES, &granted);
  scene_samples_ = std::max(1, static_cast<int>(granted));
  glBindRenderbuffer(GL_RENDERBUFFER, scene_depth_);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, scene_framebuffer_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, scene_colour_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, scene_depth_);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw RenderError("the scene stimulus's framebuffer (" + std::to_string(scene_samples_) + " samples) is incomplete");
  check_gl("StimulusDisplay: the scene's framebuffer");
}

StimulusDisplay::~StimulusDisplay() {
  if (scene_framebuffer_ == 0) return;
  glDeleteFramebuffers(1, &scene_framebuffer_);
  glDeleteRenderbuffers(1, &scene_colour_);
  glDeleteRenderbuffers(1, &scene_depth_);
}

void StimulusDisplay::draw_scene(const StimulusPlan& plan, double t_s) {
  const int w = window_.width_px(), h = window_.height_px();
  glBindFramebuffer(GL_FRAMEBUFFER, scene_framebuffer_);
  const Rgba8 b = rgba_of(spec_.stimulus.background, calibration_);
  glViewport(0, 0, w, h);
  glClearColor(b.r / 255.0f, b.g / 255.0f, b.b / 255.0f, 1.0f);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  const PictureViewport viewport = fit_viewport(w, h, spec_.screen);
  // The cross first, the rocks over it, cut where the gap is judged while they are shown.
  const bool shown = t_s >= 0 && t_s <= plan.duration_s;
  draw_cross(shown ? &plan : nullptr);
  canvas_->draw(spec_.screen, viewport);
  if (shown) {
    const ScenePlan& scene = plan.scene;
    scene_states_.assign(scene.paths.size(), EntityState{});
    scene_frame_entities_.resize(scene.paths.size());
    for (std::size_t i = 0; i < scene.paths.size(); ++i) {
      scene_frame_entities_[i] = scene_entities_[static_cast<std::size_t>(scene.paths[i].model)];
      scene_pose(scene, i, t_s, scene_states_[i].position_m, scene_states_[i].orientation);
    }
    // The box only sets the depth range: everything between the eye and well past the
    // farthest rock.
    double farthest_m = 0;
    for (const EntityState& s : scene_states_) farthest_m = std::max(farthest_m, glm::length(s.position_m));
    const double reach = 2 * farthest_m + 1;
    Aabb box;
    box.min_m = Vec3(-reach, -reach, -reach);
    box.max_m = Vec3(reach, reach, 0.0);
    SceneStyle style;
    style.background = spec_.stimulus.background;
    style.light_direction = spec_.stimulus.scene.light_direction;
    style.clear = false;
    scene_->draw(View(scene.view, box), box, viewport, scene_frame_entities_, scene_states_, {}, style);
  }
  // Resolve the samples onto the picture.
  glBindFramebuffer(GL_READ_FRAMEBUFFER, scene_framebuffer_);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  check_gl("StimulusDisplay: drawing the scene");
}

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
  // The same calibration as the discs', so a background and a disc of one linear colour are
  // one byte value.
  const Rgba8 b = rgba_of(spec_.stimulus.background, calibration_);
  glViewport(0, 0, window_.width_px(), window_.height_px());
  glClearColor(b.r / 255.0f, b.g / 255.0f, b.b / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void StimulusDisplay::draw_cross(const StimulusPlan* shown) {
  if (!spec_.stimulus.fixation_cross) return;
  const double half_px = 0.5 * spec_.stimulus.fixation_size_deg * radial_px_per_deg(spec_.screen, 0);
  const double cx = 0.5 * spec_.screen.width_px, cy = 0.5 * spec_.screen.height_px;
  const Rgba8 white{255, 255, 255, 255};
  constexpr double kLineWidthPx = 2.0;
  // The line's half width and a pixel of its anti-aliased edge kept out of the gap too.
  const double line_half_width_px = 0.5 * kLineWidthPx + 1.0;
  const std::vector<CrossSegment> pieces =
      shown != nullptr ? fixation_cross_segments(cx, cy, half_px, shown->target_x_px, shown->target_y_px,
                                                 shown->keep_clear_radius_px, line_half_width_px)
                       : fixation_cross_segments(cx, cy, half_px, 0, 0, 0, 0);
  for (const CrossSegment& piece : pieces)
    canvas_->line(piece.x0_px, piece.y0_px, piece.x1_px, piece.y1_px, kLineWidthPx, white);
}

void StimulusDisplay::draw(const StimulusPlan& plan, double t_s) {
  if (plan.kind == StimulusKind::scene) {
    draw_scene(plan, t_s);
    return;
  }
  clear();
  // The cross first: the discs pass over it; while they are shown it is cut where the gap is
  // judged (plan.keep_clear_radius_px).
  const bool shown = t_s >= 0 && t_s <= plan.duration_s;
  draw_cross(shown ? &plan : nullptr);
  if (shown) {
    const Rgba8 colour = rgba_of(spec_.stimulus.colour, calibration_);
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
