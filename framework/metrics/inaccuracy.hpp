#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "metrics/exact_voxel_contact.hpp"
#include "metrics/perceived_collision.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "world/entity.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// What the narrow phase left in one frame, and how wrong it is (004 section 3.4.2;
/// docs/metrics.md defines each).
struct FrameMetrics {
  std::int64_t resolved_colliding = 0;      ///< outcome 1: leaf-leaf intersection
  std::int64_t resolved_not_colliding = 0;  ///< outcome 2: no intersection left
  std::int64_t interrupted = 0;   ///< outcome 4: unresolved when the budget ran out
  double nabla_est_m = 0;         ///< sum of 3D gap bounds over collisions accepted unresolved
  double p_est = 0;               ///< sum of f(e, g) over the same
  // Ground truth, from the exact voxel test; NaN (and the counts 0) when it is off.
  double nabla_true_m = 0;        ///< sum of true 3D gaps over collisions accepted unresolved
  double p_true = 0;              ///< sum of f at the true gaps over the same
  std::int64_t false_collisions = 0;   ///< treated as colliding, voxels apart (repulsions)
  std::int64_t missed_collisions = 0;  ///< treated as not colliding, voxels touching (interpenetrations)
};

/// The exact test's verdict on one collision in the last frame (ground truth only).
struct CollisionTruth {
  bool checked = false;     ///< false when ground truth is off
  bool touching = false;
  double separation_m = 0;  ///< 0 when touching; NaN for collisions not treated as colliding (not computed)
  double gap_deg = 0;       ///< the true gap on screen, for collisions accepted unresolved
  double probability = 0;   ///< f at the true gap, for the same
};

/// Measures the inaccuracy a frame's collisions are left with (004 section 3.4.2): nabla and
/// P as 004 estimates them, from the sphere trees, and, with ground truth on, their true
/// values from the exact voxel test (metrics/exact_voxel_contact.hpp) beside them.
///
/// Keeps the exact shape of every model (ground truth only: about 45 bytes per occupied
/// voxel) and the last frame's verdict per collision slot. A side table by slot grows with
/// the slots, geometrically, then never again.
class InaccuracyMeter {
 public:
  explicit InaccuracyMeter(bool ground_truth) : ground_truth_(ground_truth) {}

  /// Model `id` is now `model` (its entities' positions at `centre_of_mass_model_m`): its
  /// exact shape is built, with ground truth on.
  void set_model(ModelId id, const VoxelModel& model, const Vec3& centre_of_mass_model_m);
  /// Model `id` was released: its exact shape goes.
  void clear_model(ModelId id);

  /// Counts the outcomes of the frame's collisions and sums nabla and P over those accepted
  /// unresolved, as placed at the end of the frame (perceive_at_frame_end), with the ground
  /// truth beside. `entity_count` sizes the side table ahead of the collisions that many
  /// entities make.
  FrameMetrics measure(const NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                       std::size_t entity_count);

  /// The exact test's verdict on the collision in `slot` in the last measure().
  const CollisionTruth& truth(std::uint32_t slot) const { return truth_[slot]; }

 private:
  bool ground_truth_;
  std::vector<std::optional<ExactVoxelShape>> exact_shapes_;  // by ModelId; ground truth only
  std::vector<CollisionTruth> truth_;                         // by collision slot
};

}  // namespace fovea
