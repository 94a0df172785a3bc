#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "narrowphase/narrow_phase.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"
#include "prioritise/reprioritiser.hpp"
#include "world/entity.hpp"

namespace fovea {

class ThreadPool;

/// What placing a collision on screen needs (004 section 3.4.2): the camera and screen,
/// f(e, g), and the point the viewer fixates this frame.
struct Viewing {
  const View& view;              ///< camera and screen, borrowed: world to px, px to deg
  const PerceptionModel& model;  ///< f(e, g), borrowed: probability 0-1 of seeing a gap
  double fixation_x_px = 0;  ///< from the screen's left edge
  double fixation_y_px = 0;  ///< from the screen's top edge, y down
};

/// Which gap bound a collision is placed from.
enum class GapAt {
  frame_start,      ///< from the entities' centres, before any test: also sets the priority
  deepest_spheres,  ///< from its deepest intersecting spheres now (NarrowPhase::gap_estimate)
};

/// The tighter of `g` (a gap estimate of the collision in `slot`) and the bound from the
/// deepest sphere pair `refined_from` remembers for it, at this frame's poses (`g` when
/// refined_from is null or remembers nothing for it).
GapEstimate tighter_with_memory(const NarrowPhase& narrowphase, std::uint32_t slot, std::span<const EntityState> states,
                                const DescentMemory* refined_from, const GapEstimate& g);

/// Every collision, in list order, at GapAt::frame_start: the priorities a scheduler reads.
/// With `refined_from` (schedule.priorities: refined), a collision that overlapped last frame
/// is placed from the deepest sphere pair that memory holds for it, at this frame's poses,
/// where that bounds the gap more tightly than the entities' centres do.
/// With `pool`, in chunks on its threads: the same bytes.
void perceive_at_frame_start(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                             const DescentMemory* refined_from = nullptr, ThreadPool* pool = nullptr);

/// Sets the priority of each collision in `slots` to f(e, g) (-1 off screen) at the gap
/// estimate `estimate` gives for it, placed exactly as perceive_at_frame_start places; writes
/// no placement. With `pool`, in chunks on its threads (`estimate` is then called from them):
/// the same bytes.
void set_priorities(NarrowPhase& narrowphase, const Viewing& viewing, std::span<const std::uint32_t> slots,
                    const std::function<GapEstimate(std::uint32_t)>& estimate, ThreadPool* pool = nullptr);

/// The Reprioritiser a frame hands its scheduler (prioritise/reprioritiser.hpp): sets the priority
/// of the collisions it asks about to f(e, g) now (-1 off screen), from the tighter of their
/// deepest intersecting spheres so far and, with `refined_from`, the remembered pair; writes
/// no placement. What the hybrid scheduler orders its second part by.
class FramePerception final : public Reprioritiser {
 public:
  /// Borrows this frame's poses, `viewing`'s view and model, and `refined_from` (null: no
  /// memory); all must outlive it.
  FramePerception(std::span<const EntityState> states, const Viewing& viewing, const DescentMemory* refined_from)
      : states_(states), viewing_(viewing), refined_from_(refined_from) {}
  /// Sets each slot's priority to f(e, g) at its tighter gap bound (-1 off screen); writes nothing else.
  void reprioritise(NarrowPhase& narrowphase, std::span<const std::uint32_t> slots) override;

 private:
  std::span<const EntityState> states_;
  Viewing viewing_;
  const DescentMemory* refined_from_;
};

/// Every collision treated as colliding that found an intersecting sphere pair, placed again
/// from its deepest spheres (GapAt::deepest_spheres): where the response will push and, when
/// unresolved, the gap it may leave (004 section 3.4.2). The rest stay where the start of the
/// frame put them. What InaccuracyMeter::measure sums. With `pool`, in chunks on its threads:
/// the same bytes.
void perceive_at_frame_end(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                           ThreadPool* pool = nullptr);

}  // namespace fovea
