#pragma once

// Definition structs of the renderer (docs/render.md), with the defaults a config falls
// back on. Plain data: config/ fills them without knowing SDL or OpenGL.

#include <array>
#include <vector>

#include "core/kind_table.hpp"
#include "core/math.hpp"

namespace fovea {

/// How mouse and keys move the camera in a window.
enum class CameraMode {
  orbit,  ///< drag turns the eye about the target, the wheel moves in and out
  fly     ///< drag turns the line of sight, W A S D Q E move the eye (RenderSettings::fly_speed_mps)
};

/// The camera modes' names in configs (`render.camera_mode`), the panel's choices, and their help.
inline constexpr auto kCameraModes = kind_table<KindName<CameraMode>>({
    {CameraMode::orbit, "orbit", "drag to turn about the target, wheel to move in and out"},
    {CameraMode::fly, "fly", "drag to look, W A S D to move, Q E down and up"},
});

/// What is drawn over the scene (each switchable in the panel). None is drawn in stimulus mode.
struct OverlaySettings {
  /// The fixation point, and rings at these eccentricities from it, degrees of visual angle.
  bool fixation = true;
  std::vector<double> rings_deg{2.0, 5.0, 10.0};  ///< ring eccentricities, degrees of visual angle; at most 16
  /// Entities of active collisions tinted by outcome: resolved colliding, resolved not
  /// colliding, interrupted and accepted, interrupted and dropped (colours in docs/render.md).
  bool collisions = true;
  /// A line across the gap of every collision accepted unresolved (the bound's sphere centres).
  bool gaps = true;
  /// The sphere tree of one entity at one depth (0: the root), as circles.
  bool sphere_tree = false;
  int sphere_tree_entity = 0;  ///< EntityId of the tree drawn (a click picks one); none if not live
  int sphere_tree_level = 2;   ///< depth drawn, 0 the root; a branch built less deep is drawn where it ends
  /// A graph of the last frames' times in the bottom-left corner.
  bool frame_graph = true;
};

/// The window, its picture and its pace.
struct RenderSettings {
  /// The window (or offscreen picture) size in pixels. The picture keeps the screen's aspect
  /// (perception.view.screen) and is letterboxed when the window's differs.
  int width_px = 1280;
  int height_px = 720;  ///< as width_px, pixels
  /// Wait for the display's refresh before showing each frame (off in offscreen rendering).
  bool vsync = true;
  /// Frames shown per second; 0 for one frame per time step (world.time_step_s), which is
  /// real time. The display's refresh can hold it lower (docs/render.md, Frame pacing).
  double target_fps = 0;
  /// A clean stimulus: no overlays and no panel.
  bool stimulus = false;
  /// The control panel (docs/render.md).
  bool panel = true;
  CameraMode camera_mode = CameraMode::orbit;  ///< the mode a window starts in; key C switches
  /// The fly camera's speed, metres per second; 0 for half the world box's largest side a
  /// second. The rockfall's player walks at it.
  double fly_speed_mps = 0;
  Vec3 background{0.025, 0.028, 0.035};    ///< linear RGB, 0 to 1
  Vec3 light_direction{-0.4, -1.0, -0.6};  ///< the direction the light travels, world axes
  bool floor = false;                      ///< draw the world box's floor as ground (the crowd's plaza)
  OverlaySettings overlays;  ///< how the overlays start; the panel switches each live
};

}  // namespace fovea
