#pragma once

#include <stdexcept>
#include <string>

struct SDL_Window;

namespace fovea {

/// The window, or its stand-in when nobody watches, could not be made: SDL's or OpenGL's
/// reason, and what to try instead.
class RenderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The monitor a window was asked to open on is not one SDL sees: how many it sees, and
/// each one's index, name and place, for the caller to name its own key (display.index).
class NoSuchDisplay : public RenderError {
 public:
  using RenderError::RenderError;
};

/// A monitor as SDL sees it.
struct VideoDisplay {
  int index = 0;   ///< SDL's display index, from 0
  int count = 0;   ///< the monitors SDL sees
  std::string name;  ///< SDL's name of it ("DP-1", "DELL U2415"); "" when SDL gives none
  int x_px = 0, y_px = 0;            ///< its top-left corner on the desktop, desktop pixels
  int width_px = 0, height_px = 0;   ///< its size on the desktop (SDL_GetDisplayBounds), desktop pixels
};

/// "0 \"DP-1\", 1920 x 1080 at (0, 0)": a monitor as session.log and messages name it.
std::string video_display_text(const VideoDisplay& display);

/// Where the picture goes.
enum class DisplayMode {
  window,     ///< a window on the desktop
  offscreen,  ///< SDL's offscreen video driver with Mesa's EGL: no display needed, same pictures
};

/// Whether a desktop is there to open a window on: DISPLAY (X11) or WAYLAND_DISPLAY set.
/// `why` says which, or why not, for the run to print.
bool display_available(std::string& why);

/// How GlWindow opens its window (render.width_px and the like; docs/render.md).
struct GlWindowOptions {
  DisplayMode mode = DisplayMode::window;  ///< a desktop window, or offscreen with no display
  int width_px = 1280;   ///< window size as it opens (the drawable may be larger on high DPI), pixels
  int height_px = 720;   ///< as width_px, pixels
  bool vsync = true;     ///< window mode only; offscreen frames are never held back
  std::string title = "fovea";  ///< the window's title bar
  /// window mode only: full screen at the desktop's resolution, no decorations (a
  /// psychophysics stimulus must fill the screen its geometry was measured on)
  bool fullscreen = false;
  /// SDL's index of the monitor to open on (centred on it; full screen on it with
  /// `fullscreen`); NoSuchDisplay when SDL sees no monitor of that index
  int display_index = 0;
};

/// An SDL2 window with an OpenGL 3.3 core context, functions through libepoxy. One per
/// process (SDL's video subsystem is process-wide); owns SDL's video init and quits it.
class GlWindow {
 public:
  /// Throws RenderError when SDL, the window or the context cannot be made, NoSuchDisplay
  /// when the monitor asked for is not there, or a full-screen window opened on another.
  explicit GlWindow(const GlWindowOptions& options);
  ~GlWindow();
  GlWindow(const GlWindow&) = delete;
  GlWindow& operator=(const GlWindow&) = delete;

  /// The SDL window, for SDL calls (its size and flags, Dear ImGui's backend).
  SDL_Window* sdl_window() const { return window_; }
  /// The OpenGL context (an SDL_GLContext), for Dear ImGui's backend.
  void* gl_context() const { return context_; }
  /// As opened: a desktop window, or SDL's offscreen driver (no display).
  DisplayMode mode() const { return mode_; }
  /// The drawable's size in pixels (larger than the window's on a high-DPI display).
  int width_px() const;
  /// The drawable's height in pixels, as width_px().
  int height_px() const;
  /// Shows the frame drawn (waits for the refresh with vsync).
  void swap();
  /// Whether swap() waits for the display's refresh.
  bool vsync() const { return vsync_; }
  /// The refresh rate of the display the window is on, Hz; 0 when unknown (offscreen, Xvfb).
  int refresh_hz() const;
  /// The monitor the window is on (SDL's offscreen driver has one, "0", 1024 x 768).
  VideoDisplay video_display() const;
  /// "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6, SDL offscreen"
  const std::string& description() const { return description_; }

 private:
  SDL_Window* window_ = nullptr;
  void* context_ = nullptr;
  DisplayMode mode_;
  bool vsync_ = false;
  std::string description_;
};

/// Throws RenderError naming `where` when OpenGL has recorded an error since the last call
/// (clears all of them). Called once per frame: the tests assert no GL error in a run.
void check_gl(const char* where);

}  // namespace fovea
