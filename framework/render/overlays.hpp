#pragma once

#include <span>
#include <vector>

#include "gaze/gaze.hpp"
#include "render/canvas.hpp"
#include "render/render_settings.hpp"
#include "render/scene_renderer.hpp"
#include "frame/animation.hpp"

namespace fovea {

// What the overlays draw, from the Animation's last frame (docs/render.md, Overlays). Each
// is a plain function of the world's state into a Canvas or a tint list, so a study can draw
// them on its own pictures too.

/// The tints of the outcome overlay, linear RGB.
struct OutcomeColours {
  EntityTint resolved_colliding{0.90f, 0.15f, 0.12f, 0.75f};      ///< red: a leaf-leaf intersection
  EntityTint resolved_not_colliding{0.20f, 0.75f, 0.25f, 0.6f};   ///< green: refined to no contact
  EntityTint interrupted_accepted{1.00f, 0.75f, 0.05f, 0.85f};    ///< amber: unresolved, treated as colliding
  EntityTint interrupted_dropped{0.35f, 0.45f, 1.00f, 0.85f};     ///< blue: unresolved, let through (interpenetrate)
};

/// One tint per entity from the outcomes of the last frame's collisions: an entity in
/// several takes the most telling (interrupted over resolved colliding over not colliding).
/// Entities in no collision, and static ones (scenery), get weight 0.
void collision_tints(const Animation& world, const OutcomeColours& colours, std::vector<EntityTint>& tints);

/// The distance from a fixation point, along the screen direction `angle_rad` (0: right,
/// pi/2: down), at which a point is `eccentricity_deg` away in visual angle; NaN when no
/// point on that ray is so far (a flat screen's angles are bounded along a ray).
double eccentricity_radius_px(const ScreenSettings& screen, double fixation_x_px, double fixation_y_px,
                              double angle_rad, double eccentricity_deg);

/// A cross at the fixation point and a ring at each eccentricity (true visual angle: the
/// rings are not circles far from the screen's centre).
void draw_fixation(Canvas& canvas, const ScreenSettings& screen, const FrameGaze& gaze, std::span<const double> rings_deg);

/// The world box's twelve edges (the walls the response holds entities in).
void draw_world_box(Canvas& canvas, const View& view, const Aabb& box);

/// A line between the two sphere centres bounding the gap of every collision accepted
/// unresolved (interrupted and treated as colliding), from their deepest spheres now.
void draw_gaps(Canvas& canvas, const Animation& world);

/// The spheres of `entity`'s tree at `level` (the tree's cut there), as screen circles.
void draw_sphere_tree(Canvas& canvas, const Animation& world, EntityId entity, int level);

/// Bars of the frames' times, newest on the right, in the picture's bottom-left corner, with
/// a line at `target_ms` (the time one frame may take).
void draw_frame_graph(Canvas& canvas, const ScreenSettings& screen, std::span<const float> frame_ms, double target_ms);

/// The entity whose screen disc (bounding sphere projected) holds the point and is nearest
/// the camera, or -1.
long pick_entity(const Animation& world, double x_px, double y_px);

}  // namespace fovea
