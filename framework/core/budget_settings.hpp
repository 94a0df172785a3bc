#pragma once

// Definition structs of the frame's budget (004 section 3.4), with the defaults a config
// falls back on (docs/config.md). In core because the narrow phase spends the budget and the
// schedulers above it hand it on: neither owns it.

#include <cstdint>

namespace fovea {

/// How a frame's collision processing is bounded (004 section 3.4: "a pre-defined target
/// time").
enum class BudgetMode {
  wall,       ///< stop when `ms` of wall-clock time have passed: real time, not reproducible
  work,       ///< stop after `tests` sphere-sphere tests: reproducible to the byte
  unlimited,  ///< never stop: every collision resolved (full resolution, the reference of a study)
  /// `fraction` of the sphere tests full resolution needs this frame, counted by running it
  /// first: only for the counterfactual evaluation (frame/evaluation_settings.hpp), which
  /// runs full resolution anyway; reproducible to the byte.
  fraction,
};

struct BudgetSettings {
  BudgetMode mode = BudgetMode::work;
  double ms = 2.0;               ///< wall budget per frame, milliseconds
  std::int64_t tests = 20000;    ///< work budget per frame, sphere-sphere tests
  double fraction = 0.1;         ///< fraction budget: share of the frame's full-resolution tests
};

/// Config name of a budget mode ("work").
constexpr const char* budget_mode_name(BudgetMode mode) {
  switch (mode) {
    case BudgetMode::wall: return "wall";
    case BudgetMode::work: return "work";
    case BudgetMode::unlimited: return "unlimited";
    case BudgetMode::fraction: return "fraction";
  }
  return "unknown";
}

}  // namespace fovea
