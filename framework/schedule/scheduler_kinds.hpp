#pragma once

// The schedulers there are, one row each: the config's names and choices, the records'
// names, the control panel's list, what the frame prepares before a scheduler runs
// (Scheduler::uses_priority) and the tests' lists are all read from kSchedulerKinds. Adding a
// scheduler is its class in a file of its own (with its factory, declared here), its value
// of SchedulerKind and its row below, its test and its docs line (docs/architecture.md,
// "Where to add").

#include <array>
#include <cstdint>
#include <memory>

#include "core/kind_table.hpp"

namespace fovea {

class Scheduler;
struct ScheduleSettings;

/// The order in which the active collisions are refined (004 section 3.4.3, and the kinds
/// after it: docs/narrowphase.md, "Schedulers"). Each value's row in kSchedulerKinds says
/// what it does.
enum class SchedulerKind {
  round_robin,
  sequential,
  sorted_sequential,
  priority_queues,
  adaptive_queues,
  hybrid,
  oracle,
  eccentricity,
  random,
};

/// Makes a scheduler of one kind from the schedule settings (the queues, band edges and
/// hybrid levels of the kinds that read them) and the run's seed (random's orders). Throws
/// std::invalid_argument for settings the kind cannot work with.
using SchedulerFactory = std::unique_ptr<Scheduler> (*)(const ScheduleSettings& settings, std::uint64_t seed);

// The factories, each in its scheduler's file.
std::unique_ptr<Scheduler> make_round_robin_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // list_order.cpp
std::unique_ptr<Scheduler> make_sequential_scheduler(const ScheduleSettings& settings, std::uint64_t seed);   // list_order.cpp
std::unique_ptr<Scheduler> make_sorted_sequential_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // sequential_by_key.cpp
std::unique_ptr<Scheduler> make_priority_queue_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // priority_queues.cpp
std::unique_ptr<Scheduler> make_adaptive_queue_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // adaptive_queues.cpp
std::unique_ptr<Scheduler> make_hybrid_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // hybrid.cpp
std::unique_ptr<Scheduler> make_oracle_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // baselines.cpp
std::unique_ptr<Scheduler> make_eccentricity_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // baselines.cpp
std::unique_ptr<Scheduler> make_random_scheduler(const ScheduleSettings& settings, std::uint64_t seed);  // baselines.cpp

/// A scheduler kind and what it needs from the frame.
struct SchedulerKindInfo {
  SchedulerKind kind;
  const char* name;  ///< in configs and records
  const char* help;  ///< its order, in one line
  /// Reads what placing the collisions on screen gives (the priority f(e, g), the
  /// eccentricity): the frame places every collision before the run, inside the budget.
  bool uses_priority;
  /// Reads the exact voxel test's verdict (`true_priority`), which only ground truth
  /// computes: needs `ground_truth: true`; the frame sets it before the run, outside the budget.
  bool uses_true_priority;
  /// Carries what it learnt from one frame to the next (a new scheduler, after a live
  /// change, starts afresh); the others' orders depend on the frame alone.
  bool remembers;
  SchedulerFactory make;
};

inline constexpr auto kSchedulerKinds = kind_table<SchedulerKindInfo>({
    {SchedulerKind::round_robin, "round_robin", "one level of every active collision per pass, in list order (Hubbard)",
     false, false, false, make_round_robin_scheduler},
    {SchedulerKind::sequential, "sequential", "each collision to completion in turn, in list order", false, false, false,
     make_sequential_scheduler},
    {SchedulerKind::sorted_sequential, "sorted_sequential", "sorted by perceptual priority each frame, then sequential",
     true, false, false, make_sorted_sequential_scheduler},
    {SchedulerKind::priority_queues, "priority_queues",
     "K queues by priority band, round robin inside, higher queues first", true, false, false,
     make_priority_queue_scheduler},
    {SchedulerKind::adaptive_queues, "adaptive_queues",
     "K queues by priority rank, each as large as last frame resolved; round robin inside", true, false, true,
     make_adaptive_queue_scheduler},
    {SchedulerKind::hybrid, "hybrid",
     "round robin over every collision's first levels, then sequential by refined priority", true, false, false,
     make_hybrid_scheduler},
    {SchedulerKind::oracle, "oracle",
     "sequential by the true p from the exact voxel test (ground truth only): an upper bound", false, true, false,
     make_oracle_scheduler},
    {SchedulerKind::eccentricity, "eccentricity", "sequential by the distance from the fixation alone, nearest first",
     true, false, false, make_eccentricity_scheduler},
    {SchedulerKind::random, "random", "sequential in a seeded random order, a new one each frame", false, false, false,
     make_random_scheduler},
});

/// The row of `kind`; throws std::invalid_argument for a value with none.
const SchedulerKindInfo& scheduler_kind_info(SchedulerKind kind);

}  // namespace fovea
