#include "metrics/perceived_collision.hpp"

#include "perception/perceived_gap.hpp"

namespace fovea {

namespace {

/// The tighter of `g` and the bound from last frame's deepest pair of the collision, if any.
GapEstimate tighter_with_memory(const NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                                const DescentMemory* refined_from, const GapEstimate& g) {
  if (refined_from == nullptr) return g;
  const RememberedDescent* last = refined_from->recall(slot, narrowphase.collision(slot));
  if (last == nullptr || !last->has_deepest) return g;
  const GapEstimate refined = narrowphase.pair_gap_estimate(slot, states, last->deepest);
  return refined.bound_m < g.bound_m ? refined : g;
}

void perceive_collision(NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                        const Viewing& viewing, GapAt at, const DescentMemory* refined_from) {
  Collision& c = narrowphase.collision(slot);
  const bool at_start = at == GapAt::frame_start;
  const GapEstimate g =
      at_start ? tighter_with_memory(narrowphase, slot, states, refined_from, narrowphase.initial_gap_estimate(slot, states))
               : narrowphase.gap_estimate(slot, states);
  const PerceivedGap p = perceive_gap(viewing.view, viewing.model, viewing.fixation_x_px, viewing.fixation_y_px,
                                      g.centre_m, g.sphere_a_m, g.sphere_b_m, g.slack_m);
  c.centre_x_px = p.centre_x_px;
  c.centre_y_px = p.centre_y_px;
  c.gap_bound_m = g.bound_m;
  c.eccentricity_deg = p.eccentricity_deg;
  c.gap_deg = p.gap_deg;
  c.visible = p.visible;
  c.probability = p.probability;
  if (at_start) c.priority = p.visible && p.probability >= 0 ? p.probability : -1.0;
}

}  // namespace

void perceive_collision(NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                        const Viewing& viewing, GapAt at) {
  perceive_collision(narrowphase, slot, states, viewing, at, nullptr);
}

void perceive_at_frame_start(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                             const DescentMemory* refined_from) {
  for (const std::uint32_t slot : narrowphase.order())
    perceive_collision(narrowphase, slot, states, viewing, GapAt::frame_start, refined_from);
}

double priority_now(const NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                    const Viewing& viewing, const DescentMemory* refined_from) {
  const GapEstimate g =
      tighter_with_memory(narrowphase, slot, states, refined_from, narrowphase.gap_estimate(slot, states));
  const PerceivedGap p = perceive_gap(viewing.view, viewing.model, viewing.fixation_x_px, viewing.fixation_y_px,
                                      g.centre_m, g.sphere_a_m, g.sphere_b_m, g.slack_m);
  return p.visible && p.probability >= 0 ? p.probability : -1.0;
}

void FramePerception::reprioritise(NarrowPhase& narrowphase, std::span<const std::uint32_t> slots) {
  for (const std::uint32_t slot : slots)
    narrowphase.collision(slot).priority = priority_now(narrowphase, slot, states_, viewing_, refined_from_);
}

void perceive_at_frame_end(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing) {
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    if (c.status == CollisionStatus::colliding && c.tested_any)
      perceive_collision(narrowphase, slot, states, viewing, GapAt::deepest_spheres);
  }
}

}  // namespace fovea
