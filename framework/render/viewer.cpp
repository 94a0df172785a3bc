#include "render/viewer.hpp"

#include <SDL2/SDL.h>
#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "render/overlays.hpp"

namespace fovea {

namespace {

bool same_camera(const CameraSettings& a, const CameraSettings& b) {
  return a.frame_box == b.frame_box && a.position_m == b.position_m && a.target_m == b.target_m && a.up == b.up &&
         a.vertical_fov_deg == b.vertical_fov_deg;
}

}  // namespace

PointerState WindowPointer::pointer() {
  PointerState state;
  int x = 0, y = 0;
  SDL_GetMouseState(&x, &y);
  // Window coordinates to drawable pixels (they differ on high-DPI displays), then to the
  // picture's rectangle inside the letterbox.
  int window_w = 0, window_h = 0;
  SDL_GetWindowSize(window_.sdl_window(), &window_w, &window_h);
  const int drawable_w = window_.width_px(), drawable_h = window_.height_px();
  if (window_w <= 0 || window_h <= 0) return state;
  const double px = x * static_cast<double>(drawable_w) / window_w;
  const double py = y * static_cast<double>(drawable_h) / window_h;
  const PictureViewport v = fit_viewport(drawable_w, drawable_h, screen_);
  const double top_px = drawable_h - v.y_px - v.height_px;  // the viewport's top edge, y down
  state.x_px = px - v.x_px;
  state.y_px = py - top_px;
  state.window_width_px = v.width_px;
  state.window_height_px = v.height_px;
  state.in_window = (SDL_GetWindowFlags(window_.sdl_window()) & SDL_WINDOW_MOUSE_FOCUS) != 0 && state.x_px >= 0 &&
                    state.y_px >= 0 && state.x_px < v.width_px && state.y_px < v.height_px;
  return state;
}

Viewer::Viewer(const RenderSettings& settings, DisplayMode mode, const ScreenSettings& screen, const std::string& title)
    : window_(std::make_unique<GlWindow>(
          GlWindowOptions{mode, settings.width_px, settings.height_px, settings.vsync, title})),
      pointer_(*window_, screen),
      screen_(screen),
      mode_(mode) {
  controls_.render = settings;
  controls_.show_panel = settings.panel && !settings.stimulus;
  controls_.show_overlays = !settings.stimulus;
  canvas_ = std::make_unique<Canvas>();
  check_gl("Viewer: start");
  // Dear ImGui last: nothing after it can throw, so the destructor always shuts it down.
  imgui_.emplace(*window_, "the control panel");
}

Viewer::~Viewer() {
  scene_.reset();
  canvas_.reset();
  imgui_.reset();
}

void Viewer::attach(const Animation& world) {
  // The new meshes first: if they cannot be made, the viewer keeps drawing the old world.
  auto scene = std::make_unique<SceneRenderer>(world.models(), world.entities());
  scene_ = std::move(scene);
  follow_camera(world);
}

void Viewer::follow_camera(const Animation& world) {
  const Vec3 size = world.box().size_m();
  camera_.emplace(world.view(), controls_.render.camera_mode, std::max({size.x, size.y, size.z}),
                  controls_.render.fly_speed_mps);
  camera_seen_ = world.settings().perception.view.camera;
}

bool Viewer::poll_events(Animation& world) {
  const double now_s = static_cast<double>(SDL_GetTicks64()) / 1000.0;
  const double dt_s = last_poll_s_ > 0 ? std::min(now_s - last_poll_s_, 0.1) : 0.0;
  last_poll_s_ = now_s;
  // ImGui's wishes count only while the panel is drawn: they are updated when it draws.
  const ImGuiIO& io = ImGui::GetIO();
  const bool panel_shown = controls_.show_panel && !controls_.render.stimulus;
  const bool panel_mouse = panel_shown && io.WantCaptureMouse;
  const bool panel_keys = panel_shown && io.WantCaptureKeyboard;
  bool open = true;
  SDL_Event event;
  while (SDL_PollEvent(&event)) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    switch (event.type) {
      case SDL_QUIT: open = false; break;
      case SDL_WINDOWEVENT:
        if (event.window.event == SDL_WINDOWEVENT_CLOSE) open = false;
        break;
      case SDL_KEYDOWN: {
        if (panel_keys) break;
        switch (event.key.keysym.sym) {
          case SDLK_ESCAPE: open = false; break;
          case SDLK_SPACE: controls_.paused = !controls_.paused; break;
          case SDLK_n: controls_.step_once = true; break;
          case SDLK_r: controls_.reset = true; break;
          case SDLK_F12:
          case SDLK_p: controls_.screenshot = true; break;
          case SDLK_TAB:
            if (!controls_.render.stimulus) controls_.show_panel = !controls_.show_panel;
            break;
          case SDLK_o:
            if (!controls_.render.stimulus) controls_.show_overlays = !controls_.show_overlays;
            break;
          case SDLK_c:
            controls_.render.camera_mode =
                controls_.render.camera_mode == CameraMode::orbit ? CameraMode::fly : CameraMode::orbit;
            break;
          default: break;
        }
        break;
      }
      case SDL_MOUSEBUTTONDOWN:
        if (!panel_mouse && event.button.button == SDL_BUTTON_LEFT) {
          dragging_ = true;
          drag_distance_px_ = 0;
        }
        break;
      case SDL_MOUSEBUTTONUP:
        if (event.button.button == SDL_BUTTON_LEFT && dragging_) {
          dragging_ = false;
          // A click, not a drag: pick the entity under the pointer for the sphere-tree overlay.
          if (drag_distance_px_ < 3) {
            const PointerState p = pointer_.pointer();
            if (p.in_window && p.window_width_px > 0) {
              const double sx = screen_.width_px / p.window_width_px, sy = screen_.height_px / p.window_height_px;
              const long picked = pick_entity(world, p.x_px * sx, p.y_px * sy);
              if (picked >= 0) controls_.render.overlays.sphere_tree_entity = static_cast<int>(picked);
            }
          }
        }
        break;
      case SDL_MOUSEMOTION:
        if (dragging_ && !panel_mouse) {
          pending_dx_px_ += event.motion.xrel;
          pending_dy_px_ += event.motion.yrel;
          drag_distance_px_ += std::abs(event.motion.xrel) + std::abs(event.motion.yrel);
        }
        break;
      case SDL_MOUSEWHEEL:
        if (!panel_mouse) pending_wheel_ += event.wheel.y;
        break;
      default: break;
    }
  }

  if (camera_) {
    CameraInput input;
    input.drag_dx_px = pending_dx_px_;
    input.drag_dy_px = pending_dy_px_;
    input.wheel = pending_wheel_;
    input.dt_s = dt_s;
    if (!panel_keys && controls_.render.camera_mode == CameraMode::fly) {
      const Uint8* keys = SDL_GetKeyboardState(nullptr);
      input.move_forward = keys[SDL_SCANCODE_W] - keys[SDL_SCANCODE_S];
      input.move_right = keys[SDL_SCANCODE_D] - keys[SDL_SCANCODE_A];
      input.move_up = keys[SDL_SCANCODE_E] - keys[SDL_SCANCODE_Q];
    }
    // Something else moved the camera since (a demo's player): the controls go on from there.
    if (!same_camera(world.settings().perception.view.camera, camera_seen_)) follow_camera(world);
    camera_->set_mode(controls_.render.camera_mode);
    if (camera_->apply(input)) {
      try {
        world.set_camera(camera_->settings());
        camera_seen_ = world.settings().perception.view.camera;
        // Every frame the camera moved is an event: the View the perception model uses moved
        // with it, and the records must say which View each frame had.
        const CameraSettings c = world.settings().perception.view.camera;
        const auto vec = [](const Vec3& v) {
          return "[" + format_significant(v.x) + ", " + format_significant(v.y) + ", " + format_significant(v.z) + "]";
        };
        events_.push_back("camera position_m=" + vec(c.position_m) + " target_m=" + vec(c.target_m));
      } catch (const std::invalid_argument&) {
        // A degenerate pose (the camera on its target): keep the last good one.
      }
    }
  }
  pending_dx_px_ = pending_dy_px_ = pending_wheel_ = 0;
  return open;
}

double Viewer::draw(Animation& world, std::uint64_t seed, const std::string& status_line) {
  Stopwatch clock;
  const int drawable_w = window_->width_px(), drawable_h = window_->height_px();
  // The letterbox outside the picture: black, as a stimulus display would show it.
  glViewport(0, 0, drawable_w, drawable_h);
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  const PictureViewport viewport = fit_viewport(drawable_w, drawable_h, screen_);
  const RenderSettings& r = controls_.render;
  const bool overlays = controls_.show_overlays && !r.stimulus;

  if (overlays && r.overlays.collisions) collision_tints(world, OutcomeColours{}, tints_);
  else tints_.clear();
  scene_->update_models(world.models(), world.model_library().prototypes(), world.model_library().generations());
  scene_->draw(world.view(), world.box(), viewport, world.entities(), world.states(), tints_,
               SceneStyle{r.background, r.light_direction, r.floor});

  if (overlays) {
    canvas_->set_scale(viewport.scale);
    draw_world_box(*canvas_, world.view(), world.box());
    if (r.overlays.gaps) draw_gaps(*canvas_, world);
    if (r.overlays.sphere_tree)
      draw_sphere_tree(*canvas_, world, static_cast<EntityId>(r.overlays.sphere_tree_entity), r.overlays.sphere_tree_level);
    if (r.overlays.fixation) draw_fixation(*canvas_, screen_, world.last_gaze(), r.overlays.rings_deg);
    if (r.overlays.frame_graph) {
      draw_frame_graph(*canvas_, screen_, history_.frame_ms, target_frame_ms_);
    }
    canvas_->draw(screen_, viewport);
  }

  if (controls_.show_panel && !r.stimulus) {
    imgui_->new_frame();
    draw_panel(world, seed, controls_, history_, status_line, events_);
    imgui_->render(drawable_w, drawable_h);
  }
  check_gl("Viewer::draw");
  return clock.elapsed_ms();
}

double Viewer::present() {
  window_->swap();
  const auto now = std::chrono::steady_clock::now();
  double interval_ms = std::numeric_limits<double>::quiet_NaN();
  if (last_present_) interval_ms = std::chrono::duration<double, std::milli>(now - *last_present_).count();
  last_present_ = now;
  return interval_ms;
}

Image Viewer::capture() const {
  const PictureViewport v = fit_viewport(window_->width_px(), window_->height_px(), screen_);
  return read_framebuffer(v.x_px, v.y_px, v.width_px, v.height_px);
}

void Viewer::take_events(std::vector<std::string>& out) {
  out.insert(out.end(), events_.begin(), events_.end());
  events_.clear();
}

}  // namespace fovea
