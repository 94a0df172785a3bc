#include "render/gl_window.hpp"

#include <SDL2/SDL.h>
#include <epoxy/gl.h>

#include <cstdlib>

namespace fovea {

namespace {

/// Monitor `index` of the `count` SDL sees.
VideoDisplay display_at(int index, int count) {
  VideoDisplay d;
  d.index = index;
  d.count = count;
  if (const char* name = SDL_GetDisplayName(index)) d.name = name;
  SDL_Rect bounds{};
  if (SDL_GetDisplayBounds(index, &bounds) == 0) {
    d.x_px = bounds.x;
    d.y_px = bounds.y;
    d.width_px = bounds.w;
    d.height_px = bounds.h;
  }
  return d;
}

/// Refuses a monitor index SDL does not see, naming those it does (SDL's video started).
void check_display_index(int index) {
  const int count = SDL_GetNumVideoDisplays();
  if (index >= 0 && index < count) return;
  std::string seen;
  for (int i = 0; i < count; ++i) seen += (seen.empty() ? "" : "; ") + video_display_text(display_at(i, count));
  const std::string reason = count < 0 ? std::string(SDL_GetError()) : "";
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
  if (count < 1) throw NoSuchDisplay("there is no display " + std::to_string(index) + ": SDL sees none (" + reason + ")");
  throw NoSuchDisplay("there is no display " + std::to_string(index) + ": SDL sees " +
                      (count == 1 ? std::string("1 display: ")
                                  : std::to_string(count) + " displays, 0 to " + std::to_string(count - 1) + ": ") +
                      seen);
}

}  // namespace

std::string video_display_text(const VideoDisplay& display) {
  return std::to_string(display.index) + " \"" + display.name + "\", " + std::to_string(display.width_px) + " x " +
         std::to_string(display.height_px) + " at (" + std::to_string(display.x_px) + ", " + std::to_string(display.y_px) +
         ")";
}

bool display_available(std::string& why) {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if (wayland && *wayland) {
    why = "WAYLAND_DISPLAY=" + std::string(wayland);
    return true;
  }
  if (x11 && *x11) {
    why = "DISPLAY=" + std::string(x11);
    return true;
  }
  why = "DISPLAY and WAYLAND_DISPLAY are not set";
  return false;
}

GlWindow::GlWindow(const GlWindowOptions& options) : mode_(options.mode) {
  // The offscreen driver renders through EGL into a buffer of the window's size: Mesa's
  // software renderer on a machine with no display and no GPU.
  // Over SDL_VIDEODRIVER too: --offscreen means offscreen.
  if (options.mode == DisplayMode::offscreen) SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, "offscreen", SDL_HINT_OVERRIDE);
  if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
    throw RenderError(std::string("cannot start SDL's video: ") + SDL_GetError());

  // A window needs a display SDL can reach. With DISPLAY naming no server SDL falls back to
  // its offscreen or dummy driver: say so rather than pace a window nobody can see.
  const std::string driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
  if (options.mode == DisplayMode::window && (driver == "offscreen" || driver == "dummy" || driver == "evdev")) {
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    throw RenderError("cannot reach the display (SDL could only start its " + driver + " video driver)");
  }

  // The monitor asked for, before any window opens (offscreen there is one, index 0).
  check_display_index(options.display_index);

  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
  SDL_GL_SetAttribute(SDL_GL_RED_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_GREEN_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_BLUE_SIZE, 8);

  Uint32 flags = SDL_WINDOW_OPENGL;
  if (options.mode == DisplayMode::window)
    flags |= options.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : (SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  // Centred on the monitor asked for: a full-screen window takes the monitor its position is on.
  const int position = static_cast<int>(SDL_WINDOWPOS_CENTERED_DISPLAY(options.display_index));
  window_ = SDL_CreateWindow(options.title.c_str(), position, position, options.width_px, options.height_px, flags);
  if (!window_) {
    const std::string reason = SDL_GetError();
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    throw RenderError("cannot open a " + std::to_string(options.width_px) + "x" + std::to_string(options.height_px) +
                      " window: " + reason);
  }
  // A stimulus on another monitor than the one measured would be shown at its geometry and
  // luminance, and the records would not say. (A desktop window may be placed where the
  // window manager likes.)
  const int on = SDL_GetWindowDisplayIndex(window_);
  if (options.mode == DisplayMode::window && options.fullscreen && on != options.display_index) {
    const std::string where = on >= 0 ? video_display_text(display_at(on, SDL_GetNumVideoDisplays())) : SDL_GetError();
    SDL_DestroyWindow(window_);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    throw NoSuchDisplay("the window opened on display " + where + ", not on display " +
                        std::to_string(options.display_index) + " as asked");
  }
  context_ = SDL_GL_CreateContext(window_);
  if (!context_) {
    const std::string reason = SDL_GetError();
    SDL_DestroyWindow(window_);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    throw RenderError("cannot make an OpenGL 3.3 core context: " + reason);
  }
  SDL_GL_MakeCurrent(window_, context_);
  // Offscreen there is no display to wait for; a window waits when asked, and says when the
  // driver refuses (the frame-time record shows it anyway).
  vsync_ = options.mode == DisplayMode::window && options.vsync && SDL_GL_SetSwapInterval(1) == 0;
  if (!vsync_) SDL_GL_SetSwapInterval(0);

  const auto text = [](GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return std::string(s ? s : "?");
  };
  description_ = text(GL_RENDERER) + ", OpenGL " + text(GL_VERSION) + ", SDL " + SDL_GetCurrentVideoDriver();
}

GlWindow::~GlWindow() {
  SDL_GL_DeleteContext(context_);
  SDL_DestroyWindow(window_);
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

int GlWindow::width_px() const {
  int w = 0, h = 0;
  SDL_GL_GetDrawableSize(window_, &w, &h);
  return w;
}

int GlWindow::height_px() const {
  int w = 0, h = 0;
  SDL_GL_GetDrawableSize(window_, &w, &h);
  return h;
}

void GlWindow::swap() { SDL_GL_SwapWindow(window_); }

VideoDisplay GlWindow::video_display() const {
  const int index = SDL_GetWindowDisplayIndex(window_);
  return display_at(index < 0 ? 0 : index, SDL_GetNumVideoDisplays());
}

int GlWindow::refresh_hz() const {
  if (mode_ != DisplayMode::window) return 0;
  SDL_DisplayMode display_mode;
  const int display = SDL_GetWindowDisplayIndex(window_);
  if (display < 0 || SDL_GetCurrentDisplayMode(display, &display_mode) != 0) return 0;
  return display_mode.refresh_rate;
}

void check_gl(const char* where) {
  std::string errors;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError()) {
    if (!errors.empty()) errors += ", ";
    errors += "0x" + [&] {
      char buffer[16];
      std::snprintf(buffer, sizeof buffer, "%04x", e);
      return std::string(buffer);
    }();
  }
  if (!errors.empty()) throw RenderError(std::string("OpenGL error ") + errors + " in " + where);
}

}  // namespace fovea
