#pragma once

#include <epoxy/gl.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "render/camera.hpp"

namespace fovea {

class ShaderProgram;

/// An 8-bit sRGB colour with alpha, red in the low byte.
struct Rgba8 {
  /// Channels 0 to 255, sRGB-encoded; a is opacity (255 opaque). Opaque white by default.
  std::uint8_t r = 255, g = 255, b = 255, a = 255;
};

/// Flat 2D shapes over the picture, in the screen's pixels (perception.view.screen: top-left
/// origin, y down, the coordinates View::project and the gaze use), gathered over a frame and
/// drawn in one call, alpha-blended. Line widths are in the drawable's pixels, so lines stay
/// visible however the screen is scaled into the window. Lines are quads, so their width holds
/// on OpenGL core profiles, where wide lines are not available.
class Canvas {
 public:
  /// Compiles its shader and makes its vertex buffer: needs a current OpenGL context.
  Canvas();
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;

  /// Drawable pixels per screen pixel for the shapes to come (PictureViewport::scale).
  void set_scale(double drawable_px_per_screen_px) { screen_px_per_drawn_px_ = 1.0 / drawable_px_per_screen_px; }

  /// A segment from (x0, y0) to (x1, y1), screen pixels, `width_px` drawable pixels wide.
  void line(double x0_px, double y0_px, double x1_px, double y1_px, double width_px, Rgba8 colour);
  /// A ring of `segments` straight pieces.
  void circle(double centre_x_px, double centre_y_px, double radius_px, double width_px, Rgba8 colour, int segments = 48);
  /// A closed polygon through the points (x0, y0, x1, y1, ...).
  void polygon(const std::vector<double>& xy_px, double width_px, Rgba8 colour);
  /// A filled axis-aligned rectangle between corners (x0, y0) and (x1, y1), screen pixels.
  void rectangle(double x0_px, double y0_px, double x1_px, double y1_px, Rgba8 colour);
  /// A filled disc: a fan of `segments` triangles, its rim on the circle (a stimulus's
  /// entities: the chord's sag is under 0.005 of the radius at 128 segments).
  void disc(double centre_x_px, double centre_y_px, double radius_px, Rgba8 colour, int segments = 128);

  /// Draws everything gathered into `viewport`, screen pixels scaled onto it, and clears.
  void draw(const ScreenSettings& screen, const PictureViewport& viewport);

 private:
  struct Vertex {
    float x_px, y_px;
    std::uint32_t rgba;
  };
  void triangle(float ax, float ay, float bx, float by, float cx, float cy, std::uint32_t rgba);
  std::vector<Vertex> vertices_;
  std::unique_ptr<ShaderProgram> program_;
  GLint screen_size_uniform_ = -1;
  GLuint vertex_array_ = 0;
  GLuint vertex_buffer_ = 0;
  std::size_t capacity_ = 0;
  double screen_px_per_drawn_px_ = 1.0;
};

}  // namespace fovea
