#pragma once

#include <cstddef>
#include <cstdint>

#include "core/math.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"

namespace fovea {

/// A gap between two entities as the viewer sees it (004 section 3.4.2).
struct PerceivedGap {
  double centre_x_px = 0;        ///< the centre of collision on screen
  double centre_y_px = 0;        ///< from the screen's top edge, y down
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
/// arrays, no allocation: about 10 kB, meant to live as long as the caller's loop.
struct GapBatch {
  static constexpr std::size_t kCapacity = 64;  ///< most gaps a batch holds (packed_index is 8 bits)
  std::size_t size = 0;                          ///< gaps pushed since the last clear()

  // In: perceive_gap's arguments, one element per gap; [0] x, [1] y, [2] z.
  double centre_m[3][kCapacity];  ///< the centre of collision, world m
  double end_a_m[3][kCapacity];   ///< the gap's first end, world m
  double end_b_m[3][kCapacity];   ///< the gap's other end, world m
  double slack_m[kCapacity];      ///< added to the ends' distance, m (a sphere estimate's slack; 0 for the truth)

  // Out: PerceivedGap's fields but eccentricity_px (perceive_gap adds it), and whether the
  // centre of collision is in front of the camera (when not, every other output is 0).
  double centre_x_px[kCapacity];       ///< the centre of collision, px from the screen's left edge
  double centre_y_px[kCapacity];       ///< px from the screen's top edge, y down
  double eccentricity_deg[kCapacity];  ///< visual angle from the fixation point to the centre, deg
  double gap_px[kCapacity];            ///< on-screen length of the gap, px
  double gap_deg[kCapacity];           ///< the gap as a visual angle at the centre of collision, deg
  double probability[kCapacity];       ///< f(e, g), probability 0-1; 0 when not visible
  bool visible[kCapacity];             ///< the centre is in front of the camera and on the screen
  bool in_front[kCapacity];            ///< the centre's depth is beyond View::kNearLimit_m

  // Scratch of perceive: the visible gaps' e, g and f, packed for the model.
  double packed_e[kCapacity];            ///< eccentricity of the k-th visible gap, deg
  double packed_g[kCapacity];            ///< its gap, deg
  double packed_f[kCapacity];            ///< its f(e, g), as PerceptionModel::probabilities returns it
  std::uint8_t packed_index[kCapacity];  ///< its index in the batch

  /// Whether another push() would overflow the arrays.
  bool full() const { return size == kCapacity; }
  /// Empties the batch for the next gaps; the arrays keep their old values.
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
/// fixation point's ray from the eye. perceive() places a batch, laid out so that the
/// compiler vectorises all of it but the libm calls (hypot, atan2, exp); perceive_one() one
/// gap, without the batch's overhead. Both are perceive_gap's arithmetic in the same order:
/// bit for bit the same results. Keeps a reference to `model`: it must outlive this.
class GapPerceiver {
 public:
  /// Works out the terms for `view` with the viewer fixating (fixation_x_px, fixation_y_px), screen px.
  GapPerceiver(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px);

  /// Places every gap of `batch`, writing its outputs.
  void perceive(GapBatch& batch) const;
  /// Places one gap: perceive_gap, whose eccentricity_px (a hypot no Collision keeps) is
  /// left 0 unless asked for.
  PerceivedGap perceive_one(const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m,
                            bool with_eccentricity_px = false) const;

  /// The per-frame terms (perceived_gap.cpp).
  struct Terms {
    double px, py, pz;  ///< camera position, m
    double fx, fy, fz;  ///< the camera's forward axis, unit (View::camera_forward)
    double rx, ry, rz;  ///< the camera's right axis, unit (View::camera_right)
    double ux, uy, uz;  ///< the camera's up axis, unit (View::camera_up)
    double focal_px, width_px, height_px, half_width_px, half_height_px;  ///< View::focal_px; the screen's size, px
    double cm_per_px_x, cm_per_px_y, minus_distance_cm;  ///< pixels to cm on the screen plane; -viewing distance
    double ray_x, ray_y, ray_z;  ///< the fixation point's ray from the eye, cm
  };

 private:
  const PerceptionModel& model_;
  double fixation_x_px_, fixation_y_px_;
  Terms terms_;
};

/// How a gap between two world points looks from the fixation point (fixation_x_px,
/// fixation_y_px). The gap runs from `end_a_m` to `end_b_m` and is longer by `slack_m` (a
/// 3D allowance, drawn on screen at the nearer end's depth): for an estimate, the two
/// sphere centres and their slacks (narrowphase/narrow_phase.hpp GapEstimate); for the truth,
/// the two closest points and 0. `centre_m` is the centre of collision. Places many gaps
/// of one frame faster: GapPerceiver.
PerceivedGap perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px,
                          const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m);

}  // namespace fovea
