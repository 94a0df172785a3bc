#include "narrowphase/descent_memory.hpp"

#include "core/containers.hpp"
#include "core/thread_pool.hpp"
#include "narrowphase/narrow_phase.hpp"

namespace fovea {

void DescentMemory::remember(const NarrowPhase& narrowphase, std::span<const EntityState> states,
                             const DescentMemory* earlier, bool aged, ThreadPool* pool) {
  if (earlier == nullptr) earlier = this;
  reserve_geometric(by_slot_, narrowphase.slot_count());
  by_slot_.resize(narrowphase.slot_count());
  // Each collision read and written alone (recall reads its own slot only, even when earlier
  // is this memory), in chunks on the threads: the same bytes at any thread count.
  const std::span<const std::uint32_t> order = narrowphase.order();
  for_ranges(pool, order.size(), kCollisionsPerTask, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) remember_one(narrowphase, states, *earlier, aged, order[i]);
  });
}

void DescentMemory::remember_one(const NarrowPhase& narrowphase, std::span<const EntityState> states,
                                 const DescentMemory& earlier, bool aged, std::uint32_t slot) {
  const Collision& c = narrowphase.collision(slot);
  RememberedDescent& r = by_slot_[slot];
  // The tightest pair of earlier frames of the same overlap: any sphere pair bounds the gap
  // at any poses (collision_model.hpp), so the tighter of it and this frame's is kept, and
  // a persistent pair's bound tightens as the budget comes round to it.
  const RememberedDescent* before = earlier.recall(slot, c);
  const bool had_deepest = before != nullptr && before->has_deepest;
  const SpherePairGeometry earlier_pair = had_deepest ? before->deepest : SpherePairGeometry{};
  r = RememberedDescent{};
  r.a = c.a;
  r.b = c.b;
  r.first_frame = c.first_frame;
  // An aged priority is 1 - (1 - f) prod(1 - f before): 1 minus it is the episode's chance of
  // going unnoticed through this frame, when the pair is left unresolved in it.
  if (aged && c.interrupted && c.status == CollisionStatus::colliding && c.priority >= 0) r.unnoticed = 1 - c.priority;
  // This frame's deepest pair, found once: it is the witness below as well. Its geometry is
  // read now, while its nodes exist; an on-demand tree may evict them before next frame.
  SpherePair now;
  const bool has_now = narrowphase.deepest_pair(slot, now);
  r.has_deepest = has_now;
  if (has_now) r.deepest = narrowphase.pair_geometry(slot, now);
  if (had_deepest) {
    if (!has_now ||
        narrowphase.pair_gap_estimate(slot, states, earlier_pair).bound_m <
            narrowphase.pair_gap_estimate(slot, states, r.deepest).bound_m)
      r.deepest = earlier_pair;
    r.has_deepest = true;
  }
  // Coherence's witness is a pair of nodes: whole trees only (the class comment).
  if (narrowphase.is_grown_on_demand(c.model_a) || narrowphase.is_grown_on_demand(c.model_b)) return;
  if (c.interrupted && c.witness == WitnessState::pending) {
    r.has_witness = true;  // the budget ran out on the chain: the same target next frame
    r.witness = c.witness_target;
  } else if ((c.interrupted || c.status == CollisionStatus::colliding) && c.tested_any) {
    r.has_witness = has_now;
    r.witness = now;
  }
}

}  // namespace fovea
