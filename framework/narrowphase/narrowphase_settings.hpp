#pragma once

// Definition structs of the narrow phase (004 section 3.4), with the defaults a config falls
// back on (docs/config.md).

namespace fovea {

/// What happens to a collision still unresolved when the budget runs out (004 section
/// 3.4.1, outcome 4).
enum class InterruptPolicy {
  repulse,         ///< treat it as real: the entities bounce, maybe across a gap (004's choice)
  interpenetrate,  ///< drop it: the entities may pass into each other
};

}  // namespace fovea
