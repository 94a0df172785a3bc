#include "render/camera.hpp"

#include <algorithm>
#include <cmath>

namespace fovea {

PictureViewport fit_viewport(int drawable_width_px, int drawable_height_px, const ScreenSettings& screen) {
  PictureViewport v;
  const double sx = static_cast<double>(drawable_width_px) / screen.width_px;
  const double sy = static_cast<double>(drawable_height_px) / screen.height_px;
  v.scale = std::min(sx, sy);
  v.width_px = static_cast<int>(std::lround(screen.width_px * v.scale));
  v.height_px = static_cast<int>(std::lround(screen.height_px * v.scale));
  v.x_px = (drawable_width_px - v.width_px) / 2;
  v.y_px = (drawable_height_px - v.height_px) / 2;
  return v;
}

glm::mat4 view_projection(const View& view, double near_m, double far_m) {
  const Vec3 r = view.camera_right(), u = view.camera_up(), f = view.camera_forward();
  const Vec3 eye = view.camera_position_m();
  // Camera space: x right, y up, looking down -z (OpenGL's convention).
  glm::dmat4 camera(1.0);
  camera[0] = glm::dvec4(r.x, u.x, -f.x, 0);
  camera[1] = glm::dvec4(r.y, u.y, -f.y, 0);
  camera[2] = glm::dvec4(r.z, u.z, -f.z, 0);
  camera[3] = glm::dvec4(-glm::dot(r, eye), -glm::dot(u, eye), glm::dot(f, eye), 1);
  // The pinhole of View: x_px = w/2 + focal * x / depth, y likewise; in normalised device
  // coordinates that is x_ndc = (2 focal / w) * x / depth.
  const ScreenSettings& screen = view.settings().screen;
  const double fx = 2 * view.focal_px() / screen.width_px;
  const double fy = 2 * view.focal_px() / screen.height_px;
  glm::dmat4 projection(0.0);
  projection[0][0] = fx;
  projection[1][1] = fy;
  projection[2][2] = -(far_m + near_m) / (far_m - near_m);
  projection[2][3] = -1;
  projection[3][2] = -2 * far_m * near_m / (far_m - near_m);
  return glm::mat4(projection * camera);
}

void depth_range(const View& view, const Aabb& world_box, double& near_m, double& far_m) {
  const Vec3 eye = view.camera_position_m(), f = view.camera_forward();
  double farthest = 0;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 p((corner & 1) ? world_box.max_m.x : world_box.min_m.x, (corner & 2) ? world_box.max_m.y : world_box.min_m.y,
                 (corner & 4) ? world_box.max_m.z : world_box.min_m.z);
    farthest = std::max(farthest, glm::dot(p - eye, f));
  }
  const double extent = glm::length(world_box.size_m());
  far_m = std::max(farthest, 0.0) + 0.1 * extent + 1e-3;
  // 24-bit depth keeps a near-to-far ratio of 1e4 well resolved.
  near_m = std::max(far_m * 1e-4, 1e-4);
}

CameraControl::CameraControl(const View& view, CameraMode mode, double world_extent_m, double fly_speed_mps)
    : mode_(mode), target_m_(view.camera_target_m()), base_(view.settings().camera) {
  const Vec3 offset = view.camera_position_m() - target_m_;
  distance_m_ = glm::length(offset);
  yaw_rad_ = std::atan2(offset.x, offset.z);
  pitch_rad_ = std::asin(std::clamp(offset.y / distance_m_, -1.0, 1.0));
  speed_mps_ = fly_speed_mps > 0 ? fly_speed_mps : std::max(world_extent_m, 1e-3) * 0.5;
  base_.frame_box = false;
  base_.vertical_fov_deg = view.vertical_fov_deg();
}

Vec3 CameraControl::from_target() const {
  return Vec3(std::sin(yaw_rad_) * std::cos(pitch_rad_), std::sin(pitch_rad_), std::cos(yaw_rad_) * std::cos(pitch_rad_));
}

bool CameraControl::apply(const CameraInput& in) {
  constexpr double kRadiansPerPixel = 0.005;
  constexpr double kPitchLimit_rad = 1.55;  // just short of straight up or down, where up is undefined
  const bool turned = in.drag_dx_px != 0 || in.drag_dy_px != 0;
  const bool moved = in.move_right != 0 || in.move_forward != 0 || in.move_up != 0;
  if (!turned && !moved && in.wheel == 0) return false;
  const Vec3 eye = target_m_ + from_target() * distance_m_;
  // A drag turns the line of sight the same way in both modes; orbit keeps the target and
  // moves the eye, fly keeps the eye and swings the target.
  yaw_rad_ -= in.drag_dx_px * kRadiansPerPixel;
  pitch_rad_ = std::clamp(pitch_rad_ + in.drag_dy_px * kRadiansPerPixel, -kPitchLimit_rad, kPitchLimit_rad);
  if (mode_ == CameraMode::orbit) {
    distance_m_ = std::max(distance_m_ * std::pow(0.9, in.wheel), 1e-3);
    return true;
  }
  const Vec3 forward = -from_target();
  const Vec3 right = glm::normalize(glm::cross(forward, Vec3(0, 1, 0)));
  const double step = speed_mps_ * in.dt_s;
  const Vec3 new_eye = eye + step * (in.move_forward * forward + in.move_right * right + in.move_up * Vec3(0, 1, 0)) +
                       in.wheel * 0.1 * distance_m_ * forward;
  target_m_ = new_eye + forward * distance_m_;
  return true;
}

CameraSettings CameraControl::settings() const {
  CameraSettings s = base_;
  s.position_m = target_m_ + from_target() * distance_m_;
  s.target_m = target_m_;
  s.up = Vec3(0, 1, 0);
  return s;
}

}  // namespace fovea
