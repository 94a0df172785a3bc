#include "prioritise/perceived_collision.hpp"

#include <optional>

#include "core/thread_pool.hpp"
#include "perception/perceived_gap.hpp"

namespace fovea {
namespace {

/// A collision's start-of-frame priority (004 section 3.4.2): f(e, g) when visible, -1 when
/// off screen, behind the camera, or not a number (only from broken poses), below every
/// visible collision (004: lowest priority).
double start_priority(bool visible, double probability) { return visible && probability >= 0 ? probability : -1.0; }

/// Collisions placed a batch at a time (GapBatch): their gap estimates gathered into the
/// batch, placed together, and written back into each Collision.
class CollisionPlacer {
 public:
  /// `priority_only`: write the priority from the placement, nothing else (a reprioritiser's).
  CollisionPlacer(NarrowPhase& narrowphase, const Viewing& viewing, GapAt at, bool priority_only = false)
      : narrowphase_(narrowphase),
        perceiver_(viewing.view, viewing.model, viewing.fixation_x_px, viewing.fixation_y_px),
        at_start_(at == GapAt::frame_start),
        priority_only_(priority_only) {}

  void add(std::uint32_t slot, const GapEstimate& g) {
    const std::size_t i = batch_.push(g.centre_m, g.sphere_a_m, g.sphere_b_m, g.slack_m);
    slots_[i] = slot;
    bounds_m_[i] = g.bound_m;
    if (batch_.full()) flush();
  }

  void flush() {
    perceiver_.perceive(batch_);
    for (std::size_t i = 0; i < batch_.size; ++i) {
      Collision& c = narrowphase_.collision(slots_[i]);
      if (priority_only_) {
        c.priority = start_priority(batch_.visible[i], batch_.probability[i]);
        continue;
      }
      c.centre_x_px = batch_.centre_x_px[i];
      c.centre_y_px = batch_.centre_y_px[i];
      c.gap_bound_m = bounds_m_[i];
      c.eccentricity_deg = batch_.eccentricity_deg[i];
      c.gap_deg = batch_.gap_deg[i];
      c.visible = batch_.visible[i];
      c.probability = batch_.probability[i];
      if (at_start_) c.priority = start_priority(c.visible, c.probability);
    }
    batch_.clear();
  }

 private:
  NarrowPhase& narrowphase_;
  GapPerceiver perceiver_;
  bool at_start_;
  bool priority_only_;
  GapBatch batch_;
  std::uint32_t slots_[GapBatch::kCapacity];
  double bounds_m_[GapBatch::kCapacity];
};

/// Places each collision of `slots` that `estimate(slot)` gives a gap estimate for (an
/// std::optional<GapEstimate>), in chunks over `pool` (on the caller's thread without one),
/// each chunk with its own CollisionPlacer. GapPerceiver places each gap of a batch by itself,
/// operand for operand, and each collision is written alone, so the chunks change no bit: the
/// same bytes at any thread count (tests/schedule/placement_threads_test.cpp).
template <typename Estimate>
void place_in_chunks(NarrowPhase& narrowphase, const Viewing& viewing, GapAt at, bool priority_only,
                     std::span<const std::uint32_t> slots, ThreadPool* pool, const Estimate& estimate) {
  for_ranges(pool, slots.size(), kCollisionsPerTask, [&](std::size_t begin, std::size_t end) {
    CollisionPlacer placer(narrowphase, viewing, at, priority_only);
    for (std::size_t i = begin; i < end; ++i)
      if (const std::optional<GapEstimate> g = estimate(slots[i])) placer.add(slots[i], *g);
    placer.flush();
  });
}

}  // namespace

GapEstimate tighter_with_memory(const NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                                const DescentMemory* refined_from, const GapEstimate& g) {
  if (refined_from == nullptr) return g;
  const RememberedDescent* last = refined_from->recall(slot, narrowphase.collision(slot));
  if (last == nullptr || !last->has_deepest) return g;
  const GapEstimate refined = narrowphase.pair_gap_estimate(slot, states, last->deepest);
  return refined.bound_m < g.bound_m ? refined : g;
}

void perceive_at_frame_start(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                             const DescentMemory* refined_from, ThreadPool* pool) {
  place_in_chunks(narrowphase, viewing, GapAt::frame_start, false, narrowphase.order(), pool,
                  [&](std::uint32_t slot) -> std::optional<GapEstimate> {
                    return tighter_with_memory(narrowphase, slot, states, refined_from,
                                               narrowphase.initial_gap_estimate(slot, states));
                  });
}

void set_priorities(NarrowPhase& narrowphase, const Viewing& viewing, std::span<const std::uint32_t> slots,
                    const std::function<GapEstimate(std::uint32_t)>& estimate, ThreadPool* pool) {
  // In batches, as at the start of the frame; only the priority is written, the placement the
  // records read stays the start of the frame's.
  place_in_chunks(narrowphase, viewing, GapAt::deepest_spheres, true, slots, pool,
                  [&](std::uint32_t slot) -> std::optional<GapEstimate> { return estimate(slot); });
}

void FramePerception::reprioritise(NarrowPhase& narrowphase, std::span<const std::uint32_t> slots) {
  set_priorities(narrowphase, viewing_, slots, [&](std::uint32_t slot) {
    return tighter_with_memory(narrowphase, slot, states_, refined_from_, narrowphase.gap_estimate(slot, states_));
  });
}

void perceive_at_frame_end(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                           ThreadPool* pool) {
  place_in_chunks(narrowphase, viewing, GapAt::deepest_spheres, false, narrowphase.order(), pool,
                  [&](std::uint32_t slot) -> std::optional<GapEstimate> {
                    const Collision& c = narrowphase.collision(slot);
                    if (c.status != CollisionStatus::colliding || !c.tested_any) return std::nullopt;
                    return narrowphase.gap_estimate(slot, states);
                  });
}

}  // namespace fovea
