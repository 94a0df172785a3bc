#pragma once

#include "core/math.hpp"
#include "perception/perception_settings.hpp"

namespace fovea {

/// A world point as the viewer sees it on the screen.
struct ScreenPoint {
  double x_px = 0;        ///< from the screen's left edge
  double y_px = 0;        ///< from the screen's top edge, y down
  double depth_m = 0;     ///< distance in front of the camera along its viewing axis
  bool in_front = false;  ///< depth_m > View::kNearLimit_m; x_px and y_px are meaningless otherwise
  /// In front and inside [0, width_px] x [0, height_px].
  bool on_screen = false;
};

/// A pinhole camera looking at the world and the physical screen showing its picture
/// (004 section 3.4.2): projects world points to pixels and turns pixel positions into
/// degrees of visual angle at the viewer's eye. Plain data in, plain data out; cheap to copy.
class View {
 public:
  /// Points closer to the camera's image plane than this (1 micrometre) count as not in
  /// front: it only keeps the perspective division finite. Any world point that near the
  /// eye but off the viewing axis lands far outside the screen anyway.
  static constexpr double kNearLimit_m = 1e-6;

  /// `world_box` is what a camera with frame_box set looks at. Throws std::invalid_argument
  /// naming the setting when the camera or screen is degenerate (position == target, up
  /// parallel to the line of sight, a field of view outside [0, 180), non-positive sizes).
  View(const ViewSettings& settings, const Aabb& world_box);

  /// Pixel coordinates (top-left origin, y down) and depth of a world point. No allocation.
  ScreenPoint project(const Vec3& world_m) const;
  /// Screen pixels covered by one metre at `depth_m` in front of the camera, across the
  /// line of sight (the pinhole's focal length in pixels over the depth).
  double pixels_per_metre(double depth_m) const;
  /// The visual angle, in degrees, between two screen points as the eye sees them: the
  /// angle between the rays from the eye (viewing_distance_cm in front of the screen's
  /// centre) to each point. Exact on a flat screen, not the small-angle approximation.
  double visual_angle_deg(double x1_px, double y1_px, double x2_px, double y2_px) const;

  /// The settings as given (with frame_box, camera_position_m() and camera_target_m() hold the camera used).
  const ViewSettings& settings() const { return settings_; }
  /// The camera in use, world m: the settings' position, or the one frame_box worked out.
  Vec3 camera_position_m() const { return position_m_; }
  /// The point looked at, world m: the settings' target, or the world box's centre with frame_box.
  Vec3 camera_target_m() const { return target_m_; }
  /// The vertical field of view in use (the screen's own when the settings say 0).
  double vertical_fov_deg() const { return vertical_fov_deg_; }
  /// The camera's axes in world space, orthonormal: what a renderer builds its view matrix
  /// from, so that the picture and project() are one projection.
  Vec3 camera_right() const { return right_; }
  /// Unit; the settings' up made orthogonal to the line of sight (screen y runs against it).
  Vec3 camera_up() const { return up_; }
  /// Unit, from the camera's position towards its target: depth is measured along it.
  Vec3 camera_forward() const { return forward_; }
  /// The pinhole's focal length in screen pixels (square pixels: both axes).
  double focal_px() const { return focal_px_; }

 private:
  ViewSettings settings_;
  Vec3 position_m_{0.0};
  Vec3 target_m_{0.0};
  Vec3 right_{1.0, 0.0, 0.0};    ///< camera axes in world space, orthonormal
  Vec3 up_{0.0, 1.0, 0.0};
  Vec3 forward_{0.0, 0.0, -1.0};
  double vertical_fov_deg_ = 50.0;
  double focal_px_ = 1.0;        ///< pinhole focal length, pixels
};

/// Throws std::invalid_argument naming the first setting of `screen` out of range
/// ("perception.view.screen.width_cm must be a finite number > 0, not 0"). View and the
/// gaze sources call it; a config has checked the ranges before.
void validate_screen(const ScreenSettings& screen);

/// The visual angle, in degrees, between two points of `screen` (pixels, top-left origin):
/// the angle at the eye, viewing_distance_cm in front of the screen's centre, between the
/// rays to the points' physical positions (cm per pixel from width_cm / width_px and
/// height_cm / height_px, which may differ). View::visual_angle_deg is this; the gaze
/// sources use it directly so that they need no camera. Assumes a valid screen.
double screen_visual_angle_deg(const ScreenSettings& screen, double x1_px, double y1_px, double x2_px,
                               double y2_px);

}  // namespace fovea
