#pragma once

#include <glm/glm.hpp>

#include "perception/view.hpp"
#include "render/render_settings.hpp"

namespace fovea {

/// The part of the drawable the picture fills, pixels, origin bottom-left (OpenGL's): the
/// largest rectangle of the screen's aspect, centred, so a window of another shape shows the
/// same picture letterboxed and screen pixels map onto it by one scale.
struct PictureViewport {
  int x_px = 0;       ///< left edge, drawable pixels from the drawable's left
  int y_px = 0;       ///< bottom edge, drawable pixels from the drawable's bottom
  int width_px = 0;   ///< drawable pixels
  int height_px = 0;  ///< drawable pixels
  /// Drawable pixels per screen pixel (perception.view.screen).
  double scale = 1;
};
/// The viewport of the screen's aspect centred in a drawable of that size (pixels), letterboxed.
PictureViewport fit_viewport(int drawable_width_px, int drawable_height_px, const ScreenSettings& screen);

/// OpenGL's clip transform for `view`, exactly its pinhole: a world point drawn lands on
/// the pixel View::project gives (scaled by the viewport). Depth from near_m to far_m.
glm::mat4 view_projection(const View& view, double near_m, double far_m);

/// Near and far planes that hold the whole world box (and a margin) in front of the camera.
void depth_range(const View& view, const Aabb& world_box, double& near_m, double& far_m);

/// One frame's camera input from mouse and keys, already in plain numbers.
struct CameraInput {
  double drag_dx_px = 0;  ///< pointer motion with the left button held (not over the panel)
  double drag_dy_px = 0;  ///< the same, down the window (SDL's y grows downwards)
  double wheel = 0;       ///< wheel steps, positive away from the user
  double move_right = 0;  ///< -1 to 1: D minus A
  double move_forward = 0;///< W minus S
  double move_up = 0;     ///< E minus Q
  double dt_s = 0;        ///< wall time since the last frame
};

/// Orbit and fly cameras over one CameraSettings, the one the perception model's View is
/// built from: moving the camera moves both (Animation::set_camera).
class CameraControl {
 public:
  /// Starts from the view in force; `world_extent_m` sets the fly speed (half of it a
  /// second) unless `fly_speed_mps` is above 0.
  CameraControl(const View& view, CameraMode mode, double world_extent_m, double fly_speed_mps = 0);

  /// Applies one frame's input. Returns true when the camera moved.
  bool apply(const CameraInput& input);
  /// Switches orbit or fly; the camera keeps its eye and target.
  void set_mode(CameraMode mode) { mode_ = mode; }
  /// The mode apply() moves the camera by.
  CameraMode mode() const { return mode_; }
  /// The camera as settings: explicit position and target (frame_box off), the field of view
  /// unchanged, the up +y (the yaw and pitch the control moves by are about +y, whatever
  /// perception.view.camera.up held).
  CameraSettings settings() const;

 private:
  /// Unit vector from the target to the eye, from yaw and pitch.
  Vec3 from_target() const;
  CameraMode mode_;
  Vec3 target_m_;
  double distance_m_;
  double yaw_rad_;    ///< about world y, of the direction from the target to the camera
  double pitch_rad_;  ///< above the horizontal, same direction
  double speed_mps_;
  CameraSettings base_;
};

}  // namespace fovea
