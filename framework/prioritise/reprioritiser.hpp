#pragma once

#include <cstdint>
#include <span>

#include "narrowphase/narrow_phase.hpp"

namespace fovea {

/// Places collisions on screen again, from what their descent has found so far, and sets
/// their priority: what the hybrid scheduler asks half-way through its frame. The schedulers
/// (schedule/, the layer above) call it through this interface; the frame hands them the one
/// that places with the frame's camera, fixation and f(e, g) (FramePerception,
/// prioritise/perceived_collision.hpp), and tests hand them fakes.
class Reprioritiser {
 public:
  virtual ~Reprioritiser() = default;
  /// Sets the `priority` of the collisions in `slots` from their descent so far.
  virtual void reprioritise(NarrowPhase& narrowphase, std::span<const std::uint32_t> slots) = 0;
};

}  // namespace fovea
