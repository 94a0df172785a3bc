#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "metrics/episodes.hpp"
#include "metrics/exact_voxel_contact.hpp"
#include "prioritise/perceived_collision.hpp"
#include "metrics/visibility.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "world/entity.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

class ThreadPool;

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

  // What a viewer can see (docs/metrics.md, "What a viewer can see").
  double p_est_supra = 0;      ///< p_est over the collisions whose estimated f >= min_f
  double p_true_supra = 0;     ///< p_true over those whose true f >= min_f (NaN without ground truth)
  /// p_est and p_true over the gaps the eye sees past the other entities (visibility:
  /// occlusion); NaN without the visibility test (and p_true_visible without ground truth).
  double p_est_visible = 0;
  double p_true_visible = 0;  ///< p_true over the visible gaps (NaN without the test or without ground truth)
  std::int64_t episodes_ended = 0;  ///< unresolved episodes that ended this frame (metrics/episodes.hpp)
  double p_episodes_est = 0;   ///< sum over them of 1 - prod(1 - f_est)
  double p_episodes_true = 0;  ///< the same with the true f (NaN without ground truth)
  /// The fixation's distance to the nearest collision on screen, degrees of visual angle:
  /// each collision's centre as the frame placed it last (docs/metrics.md); NaN with none on screen.
  double gaze_collision_deg = 0;
};

/// What measuring needs besides the collisions and the viewer.
struct MeasureOptions {
  double min_f = 0.05;                      ///< the suprathreshold columns' floor
  const OcclusionQuery* occlusion = nullptr;  ///< the frame's occluders; null: no visibility test
  Vec3 eye_m{0.0};                          ///< where segments to the gaps start
  /// Ground truth's exact tests on its threads (each collision's on its own; the sums stay
  /// in collision order, so the metrics are the same to the bit); null: on the caller's.
  ThreadPool* pool = nullptr;
};

/// The exact test's verdict on one collision in the last frame (ground truth only).
struct CollisionTruth {
  bool checked = false;     ///< false when ground truth is off
  bool touching = false;    ///< the exact test found a voxel of each model intersecting (closed cubes)
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
  /// With `ground_truth`, exact voxel tests give the true columns; without, those are NaN.
  explicit InaccuracyMeter(bool ground_truth) : ground_truth_(ground_truth) {}

  /// Model `id` is now `model` (its entities' positions at `centre_of_mass_model_m`): its
  /// exact shape is built, with ground truth on.
  void set_model(ModelId id, const VoxelModel& model, const Vec3& centre_of_mass_model_m);
  /// Model `id` was released: its exact shape goes.
  void clear_model(ModelId id);

  /// Starts a frame: the exact test's results of the last frame are forgotten. measure()
  /// may then be called several times on the same poses (the counterfactual evaluation's
  /// schedulers, then the driver), each collision's exact contact computed once.
  void begin_frame() { ++frame_stamp_; }

  /// Counts the outcomes of the frame's collisions and sums nabla and P over those accepted
  /// unresolved, as placed at the end of the frame (perceive_at_frame_end), with the ground
  /// truth beside; their episodes go to `episodes`. `entity_count` sizes the side tables
  /// ahead of the collisions that many entities make.
  /// With `record_truth`, each collision's verdict is kept for truth() and the collisions
  /// not accepted are tested for touching (missed_collisions); without (a scheduler
  /// evaluated on the side), missed_collisions is left at 0 and truth() unchanged.
  FrameMetrics measure(const NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                       const MeasureOptions& options, EpisodeMeter& episodes, std::size_t entity_count,
                       bool record_truth);

  /// Sets every collision's `true_priority`, the oracle scheduler's key, from the exact voxel
  /// test at this frame's poses (computed once a frame per collision and shared with
  /// measure()). Ground truth only.
  void set_true_priorities(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                           ThreadPool* pool = nullptr);

  /// The driver's episodes: what measure() feeds for the run's own schedule.
  EpisodeMeter& episodes() { return episodes_; }
  /// The driver's episodes, to read (EpisodeMeter::running).
  const EpisodeMeter& episodes() const { return episodes_; }

  /// The exact test's verdict on the collision in `slot` in the last measure().
  const CollisionTruth& truth(std::uint32_t slot) const { return truth_[slot]; }

 private:
  /// A collision's exact contact at this frame's poses, and how its true gap looks.
  struct ExactAtFrame {
    std::int64_t stamp = -1;          ///< frame_stamp_ when computed
    EntityId a = 0, b = 0;            ///< the pair it was computed for
    ExactContact contact;
    double gap_deg = 0;
    double probability = 0;
    std::int8_t visible = -1;         ///< -1: not asked yet this frame
    /// The f and fixation gap_deg and probability were placed with: the oracle's arms place
    /// the same contact from their schedulers' fixations, the meter from the eye's.
    const PerceptionModel* placed_model = nullptr;
    double placed_x_px = 0, placed_y_px = 0;  ///< that fixation, px
  };
  const ExactAtFrame& exact_at_frame(const Collision& c, std::uint32_t slot, std::span<const EntityState> states,
                                     const Viewing& viewing);
  /// The truth of a collision not treated as colliding: whether its voxels touch.
  CollisionTruth touching_truth(const Collision& c, std::span<const EntityState> states) const;
  /// The exact tests measure() will ask for, on `pool`'s threads, ahead of its loop: the
  /// contact of every collision treated as colliding (exact_), and with `record_truth`
  /// whether the others touch (truth_). Each writes its own slot.
  void run_exact_tests(const NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                       bool record_truth, ThreadPool& pool);

  bool ground_truth_;
  std::vector<std::optional<ExactVoxelShape>> exact_shapes_;  // by ModelId; ground truth only
  std::vector<CollisionTruth> truth_;                         // by collision slot
  std::vector<ExactAtFrame> exact_;                           // by collision slot; ground truth only
  /// Whether an estimated gap is seen, per collision slot, for the sphere pairs asked this
  /// frame: the rows of the counterfactual evaluation often place a collision from the same
  /// pair (its roots, or the same frontier), and the occlusion test dominates their cost.
  struct EstimateSeen {
    std::int64_t stamp = -1;
    EntityId a = 0, b = 0;
    SpherePair pair;  ///< kNoPair's nodes: placed from the entities' centres
    bool seen = false;
  };
  static constexpr std::size_t kSeenWays = 4;
  std::vector<EstimateSeen> estimate_seen_;  // kSeenWays by collision slot, replaced round robin
  bool estimate_seen(const NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                     const MeasureOptions& options);
  std::int64_t frame_stamp_ = 0;
  EpisodeMeter episodes_;
  std::vector<EpisodeInput> episode_inputs_;  // scratch
};

}  // namespace fovea
