#include "gaze/mouse_gaze.hpp"

namespace fovea {

GazeSample MouseGaze::sample(double /*now_s: the mouse is read now, on the wall clock*/) {
  const PointerState p = pointer_.pointer();
  GazeSample s;
  s.time_s = gaze_wall_clock_s();
  if (!p.in_window || !(p.window_width_px > 0) || !(p.window_height_px > 0)) return s;
  // A pointer held by a drag can be reported beyond the window's edges: not on the screen.
  if (!(p.x_px >= 0 && p.x_px <= p.window_width_px && p.y_px >= 0 && p.y_px <= p.window_height_px)) return s;
  s.x_px = p.x_px * screen_.width_px / p.window_width_px;
  s.y_px = p.y_px * screen_.height_px / p.window_height_px;
  s.valid = true;
  return s;
}

}  // namespace fovea
