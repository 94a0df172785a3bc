#include "schedule/walks.hpp"

#include "core/containers.hpp"

namespace fovea {

void collect_active(const NarrowPhase& narrowphase, std::vector<std::uint32_t>& out) {
  out.clear();
  reserve_geometric(out, narrowphase.size());
  for (const std::uint32_t slot : narrowphase.order())
    if (narrowphase.collision(slot).status == CollisionStatus::needs_more_work) out.push_back(slot);
}

void round_robin(NarrowPhase& narrowphase, Budget& budget, std::vector<std::uint32_t>& active, int max_passes) {
  for (int pass = 0; pass < max_passes && !active.empty(); ++pass) {
    std::size_t kept = 0;
    for (const std::uint32_t slot : active) {
      if (narrowphase.step(slot, budget) == CollisionStatus::needs_more_work) active[kept++] = slot;
      if (budget.was_exhausted()) return;
    }
    active.resize(kept);
  }
}

void sequential(NarrowPhase& narrowphase, Budget& budget, std::span<const std::uint32_t> slots) {
  for (const std::uint32_t slot : slots) {
    while (narrowphase.step(slot, budget) == CollisionStatus::needs_more_work)
      if (budget.was_exhausted()) return;
  }
}

}  // namespace fovea
