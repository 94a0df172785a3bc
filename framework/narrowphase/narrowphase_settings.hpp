#pragma once

// Definition structs of the narrow phase (004 section 3.4), with the defaults a config falls
// back on (docs/config.md).

#include <array>

#include "core/kind_table.hpp"

namespace fovea {

/// What happens to a collision still unresolved when the budget runs out (004 section
/// 3.4.1, outcome 4).
enum class InterruptPolicy {
  repulse,        ///< status colliding: the response pushes the pair apart, maybe across a real gap (004)
  interpenetrate  ///< status not_colliding: no response, the pair may pass into each other
};

/// Names and help of the config's `interrupt_policy` (core/kind_table.hpp).
inline constexpr auto kInterruptPolicies = kind_table<KindName<InterruptPolicy>>({
    {InterruptPolicy::repulse, "repulse", "treat it as real: the entities bounce, maybe across a gap (004's choice)"},
    {InterruptPolicy::interpenetrate, "interpenetrate", "drop it: the entities may pass into each other"},
});

/// How the descent saves tests without changing what it finds (docs/narrowphase.md). Both
/// give, run to the end, exactly the outcome of 004's descent from the roots; both are off by
/// default, so a config written before them runs as it did.
struct NarrowPhaseSettings {
  /// Coherence across frames: a pair resolved colliding last frame first re-tests the chain
  /// of sphere pairs down to last frame's leaf pair; where the chain still holds it is
  /// colliding again at the cost of that chain, and where not, it descends from the roots.
  bool coherence = false;
  /// Prune to the overlap region (Smith and Kitamura, 003): a sphere whose leaves cannot
  /// reach the intersection of the boxes around the two trees' leaf spheres (in a's frame)
  /// cannot take part in their contact, and is skipped.
  bool prune_to_overlap = false;
};

}  // namespace fovea
