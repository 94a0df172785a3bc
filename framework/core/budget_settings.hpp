#pragma once

// Definition structs of the frame's budget (004 section 3.4), with the defaults a config
// falls back on (docs/config.md). In core because the narrow phase spends the budget and the
// schedulers above it hand it on: neither owns it.

#include <array>
#include <cstdint>

#include "core/kind_table.hpp"

namespace fovea {

/// How a frame's collision processing is bounded (004 section 3.4: "a pre-defined target
/// time").
enum class BudgetMode {
  wall,       ///< stop after BudgetSettings::ms of wall-clock time: real time, not reproducible
  work,       ///< stop after BudgetSettings::tests sphere-sphere tests: reproducible to the byte
  unlimited,  ///< never stop: every collision resolved (full resolution)
  fraction    ///< BudgetSettings::fraction (0-1) of full resolution's tests; evaluation only
};

/// A budget mode and where it may be used.
struct BudgetModeInfo {
  BudgetMode kind;   ///< the mode this row describes
  const char* name;  ///< in configs and records
  const char* help;  ///< one line for the config's docs and the panel's tooltip
  /// A run's own budget may take it (`budget.mode`, the panel); the others are for the
  /// counterfactual evaluation only (`evaluate.budgets`).
  bool runs_a_world;
};

/// The budget modes, one row each (core/kind_table.hpp): names, help, whether a run may use it.
inline constexpr auto kBudgetModes = kind_table<BudgetModeInfo>({
    {BudgetMode::wall, "wall", "stop when `ms` of wall-clock time have passed: real time, not reproducible",
     /*runs_a_world=*/true},
    {BudgetMode::work, "work", "stop after `tests` sphere-sphere tests: reproducible to the byte",
     /*runs_a_world=*/true},
    {BudgetMode::unlimited, "unlimited",
     "never stop: every collision resolved (full resolution, the reference of a study)", /*runs_a_world=*/true},
    // Counted by running full resolution first, which the counterfactual evaluation
    // (frame/evaluation_settings.hpp) does anyway.
    {BudgetMode::fraction, "fraction",
     "`fraction` of the sphere tests full resolution needs this frame: reproducible to the byte",
     /*runs_a_world=*/false},
});

/// How much collision processing a frame may do (config `budget`, 004 section 3.4).
struct BudgetSettings {
  BudgetMode mode = BudgetMode::work;  ///< which of the limits below applies (kBudgetModes); unlimited reads none
  double ms = 2.0;               ///< wall budget per frame, milliseconds from the frame's start_budget stage
  std::int64_t tests = 20000;    ///< work budget per frame, sphere-sphere tests
  double fraction = 0.1;         ///< fraction budget: share (0-1) of the frame's full-resolution tests
};

/// Config name of a budget mode ("work").
constexpr const char* budget_mode_name(BudgetMode mode) { return kind_name(kBudgetModes, mode); }

}  // namespace fovea
