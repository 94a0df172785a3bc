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
  round_robin,        ///< one level of every active collision per pass (Hubbard)
  sequential,         ///< each collision to its end in turn, in list order
  sorted_sequential,  ///< sequential, highest priority f(e, g) first (004 section 3.4.3)
  priority_queues,    ///< K queues by fixed bands of f(e, g), round robin inside (004 section 3.4.3)
  adaptive_queues,    ///< K queues by priority rank, sized by what last frame resolved
  hybrid,             ///< round robin for hybrid_levels passes, then sequential by refined priority
  oracle,             ///< sequential by the exact voxel test's true priority: a bound, ground truth only
  eccentricity,       ///< sequential by distance from the fixation alone, nearest first
  random,             ///< sequential in a seeded random order, a new one each frame
};

/// Makes a scheduler of one kind from the schedule settings (the queues, band edges and
/// hybrid levels of the kinds that read them) and the run's seed (random's orders). Throws
/// std::invalid_argument for settings the kind cannot work with.
using SchedulerFactory = std::unique_ptr<Scheduler> (*)(const ScheduleSettings& settings, std::uint64_t seed);

// The factories, each in its scheduler's file: list_order.cpp (round robin, sequential),
// sequential_by_key.cpp (sorted sequential), priority_queues.cpp, adaptive_queues.cpp, hybrid.cpp,
// baselines.cpp (oracle, eccentricity, random).
/// Round robin in list order; reads no settings.
std::unique_ptr<Scheduler> make_round_robin_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Sequential in list order; reads no settings.
std::unique_ptr<Scheduler> make_sequential_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Sequential by `priority`, highest first, ties in list order; reads no settings.
std::unique_ptr<Scheduler> make_sorted_sequential_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Priority queues from `queues` and `band_edges`; throws when check_schedule_settings objects.
std::unique_ptr<Scheduler> make_priority_queue_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Adaptive queues from `queues` (band_edges unused); throws for fewer than one queue.
std::unique_ptr<Scheduler> make_adaptive_queue_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Hybrid from `hybrid_levels`; throws when it is negative.
std::unique_ptr<Scheduler> make_hybrid_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Sequential by `true_priority`, highest first; reads no settings.
std::unique_ptr<Scheduler> make_oracle_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Sequential by eccentricity (deg), nearest the fixation first, off screen last; reads no settings.
std::unique_ptr<Scheduler> make_eccentricity_scheduler(const ScheduleSettings& settings, std::uint64_t seed);
/// Sequential by a hash of the pair, the frame and `seed`: a new order each frame, the same per run.
std::unique_ptr<Scheduler> make_random_scheduler(const ScheduleSettings& settings, std::uint64_t seed);

/// A scheduler kind and what it needs from the frame.
struct SchedulerKindInfo {
  SchedulerKind kind;  ///< the scheduler this row describes
  const char* name;  ///< in configs and records
  const char* help;  ///< its order, in one line
  SchedulerFactory make;  ///< makes one from the schedule settings and the run's seed (make_scheduler)
  /// Reads what placing the collisions on screen gives (the priority f(e, g), the
  /// eccentricity): the frame places every collision before the run, inside the budget. Not
  /// the hybrid: it places only what its round-robin passes leave active, through the
  /// reprioritiser the frame hands it, inside the budget; every placement before it would be
  /// paid for and never read.
  bool uses_priority = false;
  /// Reads the exact voxel test's verdict (`true_priority`), which only ground truth
  /// computes: needs `ground_truth: true`; the frame sets it before the run, outside the budget.
  bool uses_true_priority = false;
  /// Carries what it learnt from one frame to the next (a new scheduler, after a live
  /// change, starts afresh); the others' orders depend on the frame alone.
  bool remembers = false;
};

/// Every scheduler, one row each (see the top of this file): names, help, factory, what it reads.
inline constexpr auto kSchedulerKinds = kind_table<SchedulerKindInfo>({
    {.kind = SchedulerKind::round_robin,
     .name = "round_robin",
     .help = "one level of every active collision per pass, in list order (Hubbard)",
     .make = make_round_robin_scheduler},
    {.kind = SchedulerKind::sequential,
     .name = "sequential",
     .help = "each collision to completion in turn, in list order",
     .make = make_sequential_scheduler},
    {.kind = SchedulerKind::sorted_sequential,
     .name = "sorted_sequential",
     .help = "sorted by perceptual priority each frame, then sequential",
     .make = make_sorted_sequential_scheduler,
     .uses_priority = true},
    {.kind = SchedulerKind::priority_queues,
     .name = "priority_queues",
     .help = "K queues by priority band, round robin inside, higher queues first",
     .make = make_priority_queue_scheduler,
     .uses_priority = true},
    {.kind = SchedulerKind::adaptive_queues,
     .name = "adaptive_queues",
     .help = "K queues by priority rank, each as large as last frame resolved; round robin inside",
     .make = make_adaptive_queue_scheduler,
     .uses_priority = true,
     .remembers = true},
    {.kind = SchedulerKind::hybrid,
     .name = "hybrid",
     .help = "round robin over every collision's first levels, then sequential by refined priority",
     .make = make_hybrid_scheduler},  // places only the collisions its first levels leave, itself (its reprioritiser)
    {.kind = SchedulerKind::oracle,
     .name = "oracle",
     .help = "sequential by the true p from the exact voxel test (ground truth only): an upper bound",
     .make = make_oracle_scheduler,
     .uses_true_priority = true},
    {.kind = SchedulerKind::eccentricity,
     .name = "eccentricity",
     .help = "sequential by the distance from the fixation alone, nearest first",
     .make = make_eccentricity_scheduler,
     .uses_priority = true},
    {.kind = SchedulerKind::random,
     .name = "random",
     .help = "sequential in a seeded random order, a new one each frame",
     .make = make_random_scheduler},
});

/// The row of `kind`; throws std::invalid_argument for a value with none.
const SchedulerKindInfo& scheduler_kind_info(SchedulerKind kind);

}  // namespace fovea
