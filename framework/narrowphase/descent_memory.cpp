#include "narrowphase/descent_memory.hpp"

#include "core/containers.hpp"
#include "narrowphase/narrow_phase.hpp"

namespace fovea {

void DescentMemory::remember(const NarrowPhase& narrowphase) {
  reserve_geometric(by_slot_, narrowphase.slot_count());
  by_slot_.resize(narrowphase.slot_count());
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    RememberedDescent& r = by_slot_[slot];
    r = RememberedDescent{};
    if (narrowphase.is_grown_on_demand(c.model_a) || narrowphase.is_grown_on_demand(c.model_b)) continue;
    r.a = c.a;
    r.b = c.b;
    r.first_frame = c.first_frame;
    r.has_deepest = narrowphase.deepest_pair(slot, r.deepest);
    if (c.interrupted && c.witness == WitnessState::pending) {
      r.has_witness = true;  // the budget ran out on the chain: the same target next frame
      r.witness = c.witness_target;
    } else if (c.interrupted || c.status == CollisionStatus::colliding) {
      r.has_witness = r.has_deepest;
      r.witness = r.deepest;
    }
  }
}

}  // namespace fovea
