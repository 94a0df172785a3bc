#pragma once

#include <cstddef>

#include "core/math.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"

namespace fovea {

/// A gap between two entities as the viewer sees it (004 section 3.4.2).
struct PerceivedGap {
  double centre_x_px = 0;        ///< the centre of collision on screen
  double centre_y_px = 0;
  bool visible = false;          ///< the centre of collision is in front of the camera and on screen
  double eccentricity_px = 0;    ///< screen distance from the fixation point to the centre
  double eccentricity_deg = 0;   ///< the same as a visual angle at the eye
  double gap_px = 0;             ///< on-screen length of the gap
  double gap_deg = 0;            ///< the same as a visual angle, placed at the centre of collision
  double probability = 0;        ///< f(e, g); 0 when not visible: nobody notices what is not shown
};

/// Gaps to place on screen, up to kCapacity at a time, in structure-of-arrays form: the
/// layout GapPerceiver::perceive runs its arithmetic over, two gaps per SSE2 instruction.
/// push() the gaps, perceive, then read the results by the index push() returned. Plain
/// arrays, no allocation: a few kilobytes, meant for the stack.
struct GapBatch {
  static constexpr std::size_t kCapacity = 64;
  std::size_t size = 0;

  // In: perceive_gap's arguments, one element per gap; [0] x, [1] y, [2] z.
  double centre_m[3][kCapacity];
  double end_a_m[3][kCapacity];
  double end_b_m[3][kCapacity];
  double slack_m[kCapacity];

  // Out: PerceivedGap's fields but eccentricity_px (perceive_gap adds it), and whether the
  // centre of collision is in front of the camera (when not, every other output is 0).
  double centre_x_px[kCapacity];
  double centre_y_px[kCapacity];
  double eccentricity_deg[kCapacity];
  double gap_px[kCapacity];
  double gap_deg[kCapacity];
  double probability[kCapacity];
  bool visible[kCapacity];
  bool in_front[kCapacity];

  bool full() const { return size == kCapacity; }
  void clear() { size = 0; }
  /// Adds a gap (perceive_gap's arguments) and returns its index. Not when full().
  std::size_t push(const Vec3& centre, const Vec3& end_a, const Vec3& end_b, double slack) {
    const std::size_t i = size++;
    for (int k = 0; k < 3; ++k) {
      centre_m[k][i] = centre[k];
      end_a_m[k][i] = end_a[k];
      end_b_m[k][i] = end_b[k];
    }
    slack_m[i] = slack;
    return i;
  }
};

/// What placing gaps on screen needs in one frame, with its per-frame terms worked out
/// once: the camera's axes and focal length, the screen's centimetres per pixel and the
/// fixation point's ray from the eye. perceive_gap for one gap; perceive for a batch, the
/// same arithmetic in the same order (bit for bit the same results), laid out so that the
/// compiler vectorises all of it but the libm calls (hypot, atan2, exp). Keeps references
/// to `view` and `model`: they must outlive it.
class GapPerceiver {
 public:
  GapPerceiver(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px);

  /// Places every gap of `batch`, writing its outputs.
  void perceive(GapBatch& batch) const;

  double fixation_x_px() const { return fixation_x_px_; }
  double fixation_y_px() const { return fixation_y_px_; }

 private:
  const PerceptionModel& model_;
  double fixation_x_px_, fixation_y_px_;
  // View::project's terms.
  Vec3 position_m_, forward_, right_, up_;
  double focal_px_, width_px_, height_px_, half_width_px_, half_height_px_;
  // screen_visual_angle_deg's terms: pixels to centimetres on the screen plane, and the
  // fixation point's ray (x, y, -viewing distance), cm.
  double cm_per_px_x_, cm_per_px_y_, minus_distance_cm_;
  double fixation_ray_[3];
};

/// How a gap between two world points looks from the fixation point (fixation_x_px,
/// fixation_y_px). The gap runs from `end_a_m` to `end_b_m` and is longer by `slack_m` (a
/// 3D allowance, drawn on screen at the nearer end's depth): for an estimate, the two
/// sphere centres and their slacks (narrowphase/narrow_phase.hpp GapEstimate); for the truth,
/// the two closest points and 0. `centre_m` is the centre of collision. A batch of one of
/// GapPerceiver::perceive, plus eccentricity_px and gap_px.
PerceivedGap perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px,
                          const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m);

}  // namespace fovea
