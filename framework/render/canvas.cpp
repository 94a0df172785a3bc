#include "render/canvas.hpp"

#include <cmath>
#include <cstddef>
#include <numbers>

#include "render/shader_program.hpp"

namespace fovea {
namespace {

constexpr const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec2 position_px;
layout(location = 1) in vec4 colour_in;
uniform vec2 screen_size_px;
out vec4 colour_out;
void main() {
  // Screen pixels, y down, to normalised device coordinates, y up.
  gl_Position = vec4(2.0 * position_px.x / screen_size_px.x - 1.0, 1.0 - 2.0 * position_px.y / screen_size_px.y, 0.0, 1.0);
  colour_out = colour_in;
}
)";

constexpr const char* kFragmentShader = R"(#version 330 core
in vec4 colour_out;
out vec4 colour;
void main() { colour = colour_out; }
)";

std::uint32_t pack(Rgba8 c) {
  return std::uint32_t{c.r} | (std::uint32_t{c.g} << 8) | (std::uint32_t{c.b} << 16) | (std::uint32_t{c.a} << 24);
}

}  // namespace

Canvas::Canvas() {
  program_ = std::make_unique<ShaderProgram>("canvas", kVertexShader, kFragmentShader);
  screen_size_uniform_ = program_->uniform("screen_size_px");
  glGenVertexArrays(1, &vertex_array_);
  glGenBuffers(1, &vertex_buffer_);
  glBindVertexArray(vertex_array_);
  glBindBuffer(GL_ARRAY_BUFFER, vertex_buffer_);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<void*>(offsetof(Vertex, x_px)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Vertex), reinterpret_cast<void*>(offsetof(Vertex, rgba)));
  glBindVertexArray(0);
}

Canvas::~Canvas() {
  glDeleteVertexArrays(1, &vertex_array_);
  glDeleteBuffers(1, &vertex_buffer_);
}

void Canvas::triangle(float ax, float ay, float bx, float by, float cx, float cy, std::uint32_t rgba) {
  vertices_.push_back({ax, ay, rgba});
  vertices_.push_back({bx, by, rgba});
  vertices_.push_back({cx, cy, rgba});
}

void Canvas::line(double x0_px, double y0_px, double x1_px, double y1_px, double width_px, Rgba8 colour) {
  const double dx = x1_px - x0_px, dy = y1_px - y0_px;
  const double length = std::hypot(dx, dy);
  if (!(length > 0) || !std::isfinite(length)) return;
  width_px *= screen_px_per_drawn_px_;
  // Half the width across the line, and half along it at each end so joints close.
  const double nx = -dy / length * 0.5 * width_px, ny = dx / length * 0.5 * width_px;
  const double ex = dx / length * 0.5 * width_px, ey = dy / length * 0.5 * width_px;
  const auto f = [](double v) { return static_cast<float>(v); };
  const float ax = f(x0_px - ex + nx), ay = f(y0_px - ey + ny), bx = f(x0_px - ex - nx), by = f(y0_px - ey - ny);
  const float cx = f(x1_px + ex - nx), cy = f(y1_px + ey - ny), dx2 = f(x1_px + ex + nx), dy2 = f(y1_px + ey + ny);
  const std::uint32_t rgba = pack(colour);
  triangle(ax, ay, bx, by, cx, cy, rgba);
  triangle(ax, ay, cx, cy, dx2, dy2, rgba);
}

void Canvas::circle(double centre_x_px, double centre_y_px, double radius_px, double width_px, Rgba8 colour,
                    int segments) {
  std::vector<double> xy;
  xy.reserve(static_cast<std::size_t>(2 * segments));
  for (int i = 0; i < segments; ++i) {
    const double angle = 2 * std::numbers::pi * i / segments;
    xy.push_back(centre_x_px + radius_px * std::cos(angle));
    xy.push_back(centre_y_px + radius_px * std::sin(angle));
  }
  polygon(xy, width_px, colour);
}

void Canvas::polygon(const std::vector<double>& xy_px, double width_px, Rgba8 colour) {
  const std::size_t n = xy_px.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i + 1) % n;
    line(xy_px[2 * i], xy_px[2 * i + 1], xy_px[2 * j], xy_px[2 * j + 1], width_px, colour);
  }
}

void Canvas::rectangle(double x0_px, double y0_px, double x1_px, double y1_px, Rgba8 colour) {
  const auto f = [](double v) { return static_cast<float>(v); };
  const std::uint32_t rgba = pack(colour);
  triangle(f(x0_px), f(y0_px), f(x1_px), f(y0_px), f(x1_px), f(y1_px), rgba);
  triangle(f(x0_px), f(y0_px), f(x1_px), f(y1_px), f(x0_px), f(y1_px), rgba);
}

void Canvas::disc(double centre_x_px, double centre_y_px, double radius_px, Rgba8 colour, int segments) {
  const auto f = [](double v) { return static_cast<float>(v); };
  const std::uint32_t rgba = pack(colour);
  for (int i = 0; i < segments; ++i) {
    const double a0 = 2 * std::numbers::pi * i / segments, a1 = 2 * std::numbers::pi * (i + 1) / segments;
    triangle(f(centre_x_px), f(centre_y_px), f(centre_x_px + radius_px * std::cos(a0)), f(centre_y_px + radius_px * std::sin(a0)),
             f(centre_x_px + radius_px * std::cos(a1)), f(centre_y_px + radius_px * std::sin(a1)), rgba);
  }
}

void Canvas::draw(const ScreenSettings& screen, const PictureViewport& viewport) {
  if (vertices_.empty()) return;
  glViewport(viewport.x_px, viewport.y_px, viewport.width_px, viewport.height_px);
  glBindVertexArray(vertex_array_);
  glBindBuffer(GL_ARRAY_BUFFER, vertex_buffer_);
  if (vertices_.size() > capacity_) {
    capacity_ = std::max(vertices_.size(), 2 * capacity_);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_ * sizeof(Vertex)), nullptr, GL_STREAM_DRAW);
  }
  glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(vertices_.size() * sizeof(Vertex)), vertices_.data());
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  program_->use();
  glUniform2f(screen_size_uniform_, static_cast<float>(screen.width_px), static_cast<float>(screen.height_px));
  glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(vertices_.size()));
  glDisable(GL_BLEND);
  glBindVertexArray(0);
  vertices_.clear();
}

}  // namespace fovea
