#pragma once

// The two ways every scheduler walks a list of collisions under the budget (004 section
// 3.4.3): round robin, a level of each in turn, and sequential, each to the end. A scheduler
// is an order of collisions and one of these walks, or a sequence of them.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/budget.hpp"
#include "narrowphase/narrow_phase.hpp"

namespace fovea {

/// The collisions still needing work, in list order, into `out`. Scratch lists get room for
/// every collision, so they reach their size in the first frames and stay there.
void collect_active(const NarrowPhase& narrowphase, std::vector<std::uint32_t>& out);

/// Round robin over `active` (Hubbard): each pass takes every collision still active one
/// step down (a level, or coherence's chain), in order, and drops the resolved ones, until
/// none is left, `max_passes` are done or the budget is spent. `active` keeps the
/// collisions still active after the last whole pass (unspecified once the budget ran out).
void round_robin(NarrowPhase& narrowphase, Budget& budget, std::vector<std::uint32_t>& active,
                 int max_passes = std::numeric_limits<int>::max());

/// Each collision of `slots` to completion in turn, until the budget is spent.
void sequential(NarrowPhase& narrowphase, Budget& budget, std::span<const std::uint32_t> slots);

}  // namespace fovea
