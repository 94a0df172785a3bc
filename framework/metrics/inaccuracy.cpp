#include "metrics/inaccuracy.hpp"

#include <algorithm>
#include <limits>

#include "core/containers.hpp"
#include "perception/perceived_gap.hpp"

namespace fovea {

void InaccuracyMeter::set_model(ModelId id, const VoxelModel& model, const Vec3& centre_of_mass_model_m) {
  if (!ground_truth_) return;
  if (exact_shapes_.size() <= id) exact_shapes_.resize(id + 1);
  exact_shapes_[id].emplace(model, centre_of_mass_model_m);
}

void InaccuracyMeter::clear_model(ModelId id) {
  if (id < exact_shapes_.size()) exact_shapes_[id].reset();
}

FrameMetrics InaccuracyMeter::measure(const NarrowPhase& narrowphase, std::span<const EntityState> states,
                                      const Viewing& viewing, std::size_t entity_count) {
  FrameMetrics m;
  reserve_geometric(truth_, std::max(narrowphase.slot_count(), entity_count));
  truth_.resize(narrowphase.slot_count());
  m.nabla_true_m = ground_truth_ ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  m.p_true = ground_truth_ ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    const bool accepted = c.status == CollisionStatus::colliding;
    if (c.interrupted) {
      ++m.interrupted;
    } else {
      ++(accepted ? m.resolved_colliding : m.resolved_not_colliding);
    }
    const bool unresolved_accepted = accepted && c.interrupted;
    if (unresolved_accepted) {
      m.nabla_est_m += c.gap_bound_m;
      m.p_est += c.probability;
    }

    CollisionTruth& t = truth_[slot];
    t = CollisionTruth{};
    if (!ground_truth_) continue;
    const ExactPose pa{states[c.a].position_m, states[c.a].orientation};
    const ExactPose pb{states[c.b].position_m, states[c.b].orientation};
    t.checked = true;
    if (!accepted) {
      // Only whether they touch matters here; the separation is not computed.
      t.separation_m = std::numeric_limits<double>::quiet_NaN();
      t.touching = exact_touching(*exact_shapes_[c.model_a], pa, *exact_shapes_[c.model_b], pb);
      if (t.touching) ++m.missed_collisions;
      continue;
    }
    const ExactContact contact = exact_contact(*exact_shapes_[c.model_a], pa, *exact_shapes_[c.model_b], pb);
    t.touching = contact.touching;
    t.separation_m = contact.separation_m;
    if (!t.touching) ++m.false_collisions;
    if (unresolved_accepted && !t.touching) {
      const Vec3 middle = 0.5 * (contact.closest_a_m + contact.closest_b_m);
      const PerceivedGap p = perceive_gap(viewing.view, viewing.model, viewing.fixation_x_px, viewing.fixation_y_px,
                                          middle, contact.closest_a_m, contact.closest_b_m, 0.0);
      t.gap_deg = p.gap_deg;
      t.probability = p.probability;
      m.nabla_true_m += t.separation_m;
      m.p_true += t.probability;
    }
  }
  return m;
}

}  // namespace fovea
