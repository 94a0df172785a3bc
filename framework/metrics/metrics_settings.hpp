#pragma once

// Definition structs of the metrics a run records beside 004's nabla and P (docs/metrics.md),
// with the defaults a config falls back on (docs/config.md).

#include <array>
#include <cstdint>

#include "core/kind_table.hpp"

namespace fovea {

/// Whether a gap must be visible from the eye to count in the visible P columns.
enum class VisibilityKind {
  none,      ///< no visibility test: the *_visible columns are not written
  occlusion  ///< a gap counts where the eye sees one of its ends past the other entities
};

/// The visibility tests' names in configs (`metrics.visibility`) and their help.
inline constexpr auto kVisibilityKinds = kind_table<KindName<VisibilityKind>>({
    {VisibilityKind::none, "none", "no visibility test: the *_visible columns are not written"},
    {VisibilityKind::occlusion, "occlusion",
     "a gap counts where the eye sees one of its two ends past the other entities (metrics/visibility.hpp)"},
});

/// What a run measures beside nabla and P (config `metrics`, docs/metrics.md).
struct MetricsSettings {
  VisibilityKind visibility = VisibilityKind::none;  ///< whether the visible P columns are measured, and how
  /// Suprathreshold P counts only collisions whose f is at least this: below it, f is the
  /// psychometric function's floor, a part no experiment measures (docs/metrics.md).
  double min_f = 0.05;
  /// Frames left out of summary.json's column statistics and of a study's statistics: the
  /// start-up transient, before the collision count and kinetic energy settle.
  std::int64_t warmup_frames = 0;
};

}  // namespace fovea
