#include "perception/view.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/format.hpp"

namespace fovea {
namespace {

/// Sines of angles below this count as parallel (about 2e-7 degrees).
constexpr double kParallelSine = 1e-9;

void require_positive(double value, const char* key) {
  if (!(std::isfinite(value) && value > 0))
    throw std::invalid_argument(std::string(key) + " must be a finite number > 0, not " + format_number(value));
}

void require_positive(int value, const char* key) {
  if (value <= 0)
    throw std::invalid_argument(std::string(key) + " must be > 0, not " + std::to_string(value));
}

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

}  // namespace

void validate_screen(const ScreenSettings& screen) {
  require_positive(screen.width_px, "perception.view.screen.width_px");
  require_positive(screen.height_px, "perception.view.screen.height_px");
  require_positive(screen.width_cm, "perception.view.screen.width_cm");
  require_positive(screen.height_cm, "perception.view.screen.height_cm");
  require_positive(screen.viewing_distance_cm, "perception.view.screen.viewing_distance_cm");
}

double screen_visual_angle_deg(const ScreenSettings& screen, double x1_px, double y1_px, double x2_px,
                               double y2_px) {
  // Physical positions on the screen plane, cm from its centre, eye at (0, 0, d) looking
  // at the centre: the rays to the two points are (x, y, -d).
  const double cm_per_px_x = screen.width_cm / screen.width_px;
  const double cm_per_px_y = screen.height_cm / screen.height_px;
  const double half_w_px = 0.5 * screen.width_px, half_h_px = 0.5 * screen.height_px;
  const Vec3 a((x1_px - half_w_px) * cm_per_px_x, (y1_px - half_h_px) * cm_per_px_y, -screen.viewing_distance_cm);
  const Vec3 b((x2_px - half_w_px) * cm_per_px_x, (y2_px - half_h_px) * cm_per_px_y, -screen.viewing_distance_cm);
  // atan2(|a x b|, a . b) stays accurate for tiny angles, where acos of the normalised dot
  // product loses half its digits.
  return glm::degrees(std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b)));
}

View::View(const ViewSettings& settings, const Aabb& world_box) : settings_(settings) {
  const ScreenSettings& screen = settings.screen;
  const CameraSettings& camera = settings.camera;
  validate_screen(screen);

  if (!(std::isfinite(camera.vertical_fov_deg) && camera.vertical_fov_deg >= 0 && camera.vertical_fov_deg < 180))
    throw std::invalid_argument("perception.view.camera.vertical_fov_deg must be in [0, 180) (0: the screen's own), not " +
                                format_number(camera.vertical_fov_deg));
  vertical_fov_deg_ = camera.vertical_fov_deg > 0
                          ? camera.vertical_fov_deg
                          : glm::degrees(2 * std::atan(0.5 * screen.height_cm / screen.viewing_distance_cm));

  if (camera.frame_box) {
    // The formula of the placeholder camera the Animation used before this part, kept
    // so that pictures and recorded runs do not change: the box centre seen from its +z
    // side, raised a quarter of the box, far enough back for the whole box to fit the
    // vertical field of view.
    const Vec3 centre = 0.5 * (world_box.min_m + world_box.max_m);
    const Vec3 size = world_box.size_m();
    const double extent = std::max({size.x, size.y, size.z});
    if (!(std::isfinite(extent) && extent > 0 && finite(centre)))
      throw std::invalid_argument(
          "perception.view.camera.frame_box needs a world box of finite, positive size; the box given has extent " +
          format_number(extent) + " m");
    target_m_ = centre;
    position_m_ = centre + Vec3(0.0, 0.25 * extent, 1.0 / std::tan(glm::radians(vertical_fov_deg_) / 2) * extent);
  } else {
    if (!finite(camera.position_m))
      throw std::invalid_argument("perception.view.camera.position_m must be finite");
    if (!finite(camera.target_m)) throw std::invalid_argument("perception.view.camera.target_m must be finite");
    position_m_ = camera.position_m;
    target_m_ = camera.target_m;
  }

  const Vec3 line_of_sight = target_m_ - position_m_;
  const double distance_m = glm::length(line_of_sight);
  if (!(distance_m > 0))
    throw std::invalid_argument("perception.view.camera.position_m equals perception.view.camera.target_m: no line of sight");
  forward_ = line_of_sight / distance_m;

  const double up_length = glm::length(camera.up);
  if (!(std::isfinite(up_length) && up_length > 0))
    throw std::invalid_argument("perception.view.camera.up must be a finite, non-zero vector");
  const Vec3 side = glm::cross(forward_, camera.up / up_length);
  const double side_length = glm::length(side);
  if (!(side_length > kParallelSine))
    throw std::invalid_argument("perception.view.camera.up is parallel to the line of sight");
  right_ = side / side_length;
  up_ = glm::cross(right_, forward_);

  // Square pixels: one focal length serves both axes; the horizontal field of view follows
  // from the aspect width_px / height_px.
  focal_px_ = 0.5 * screen.height_px / std::tan(glm::radians(vertical_fov_deg_) / 2);
}

ScreenPoint View::project(const Vec3& world_m) const {
  const Vec3 d = world_m - position_m_;
  ScreenPoint p;
  p.depth_m = glm::dot(d, forward_);
  p.in_front = p.depth_m > kNearLimit_m;
  if (!p.in_front) return p;
  const double scale = focal_px_ / p.depth_m;
  const double w = settings_.screen.width_px, h = settings_.screen.height_px;
  p.x_px = 0.5 * w + scale * glm::dot(d, right_);
  p.y_px = 0.5 * h - scale * glm::dot(d, up_);  // screen y grows downwards, camera up upwards
  p.on_screen = p.x_px >= 0 && p.x_px <= w && p.y_px >= 0 && p.y_px <= h;
  return p;
}

double View::pixels_per_metre(double depth_m) const { return focal_px_ / depth_m; }

double View::visual_angle_deg(double x1_px, double y1_px, double x2_px, double y2_px) const {
  return screen_visual_angle_deg(settings_.screen, x1_px, y1_px, x2_px, y2_px);
}

}  // namespace fovea
