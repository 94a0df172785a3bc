#pragma once

#include <cstdint>
#include <span>

#include "narrowphase/narrow_phase.hpp"
#include "prioritise/perceived_collision.hpp"

namespace fovea {

/// How a scheduler's priorities are worked out inside its budget (`schedule.fast_priorities`,
/// `schedule.aging`; docs/narrowphase.md, "What ordering costs").
struct PriorityOptions {
  /// Place the collisions for ordering only, cheaply: the eccentricity and the gap from the
  /// screen's small-angle scale (no atan2, no projection of the gap's ends), so that ordering
  /// costs a fraction of what perceive_at_frame_start does. The records' placements are made
  /// exactly, after the run, outside the budget.
  bool fast = false;
  /// Last frame's memory where refined priorities read it (schedule.priorities: refined), else null.
  const DescentMemory* refined_from = nullptr;
  /// Last frame's memory where priorities are aged (schedule.aging), else null: while a pair
  /// stays accepted unresolved frame after frame, its priority is the chance a viewer notices
  /// the episode if it is left one more frame, 1 - (1 - f) prod(1 - f before) (the clip
  /// observer's rule, metrics/episodes.hpp), not f.
  const DescentMemory* aged_from = nullptr;
  /// The threads the placements run on, in chunks (null: the caller's thread): the same bytes.
  ThreadPool* pool = nullptr;
};

/// Ages the priority f of each collision in `slots` that `memory` remembers accepted
/// unresolved last frame: 1 - (1 - f) times the chance its episode has gone unnoticed so far
/// (RememberedDescent::unnoticed). Off-screen collisions (-1) stay -1.
void age_priorities(NarrowPhase& narrowphase, const DescentMemory& memory, std::span<const std::uint32_t> slots);

/// Sets the priority of every collision in `slots` for ordering, as `options` say, from the
/// tighter of its gap estimate now (`from_deepest`: NarrowPhase::gap_estimate, a hybrid's
/// second part, but not when options.fast; else the frame start's, initial_gap_estimate) and the pair's remembered
/// deepest sphere pair (options.refined_from), aged (options.aged_from). Writes the priority
/// only (-1 off screen, behind the camera or not a number): nothing the records read.
void prioritise_for_order(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                          const PriorityOptions& options, std::span<const std::uint32_t> slots, bool from_deepest);

/// The frame start's priorities for a scheduler that reads them (Scheduler::uses_priority),
/// inside its budget: the fast placement (options.fast), which writes the priority alone, or
/// perceive_at_frame_start's exact one, which the records read too; aged from
/// options.aged_from. What the driver's prioritise stage and an evaluated arm both run.
void prioritise_at_frame_start(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                               const PriorityOptions& options);

/// The Reprioritiser a frame hands its scheduler: prioritise_for_order from the deepest
/// spheres so far (a hybrid's second part). Without fast and aged priorities it places as
/// FramePerception does, exactly.
class OrderPerception final : public Reprioritiser {
 public:
  /// Borrows this frame's poses, `viewing`'s view and model, and the options' memories; all
  /// must outlive it.
  OrderPerception(std::span<const EntityState> states, const Viewing& viewing, const PriorityOptions& options)
      : states_(states), viewing_(viewing), options_(options) {}
  /// prioritise_for_order(..., slots, true).
  void reprioritise(NarrowPhase& narrowphase, std::span<const std::uint32_t> slots) override {
    prioritise_for_order(narrowphase, states_, viewing_, options_, slots, true);
  }

 private:
  std::span<const EntityState> states_;
  Viewing viewing_;
  PriorityOptions options_;
};

}  // namespace fovea
