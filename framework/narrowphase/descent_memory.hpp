#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "narrowphase/collision.hpp"
#include "world/entity.hpp"

namespace fovea {

class NarrowPhase;
class ThreadPool;

/// What one collision's descent ended with in the last frame (DescentMemory).
struct RememberedDescent {
  EntityId a = 0;  ///< the pair, and the first frame of its overlap: which collision this was
  EntityId b = 0;                 ///< the pair's other entity, b > a
  std::int64_t first_frame = -1;  ///< the overlap's first frame; -1: nothing remembered in this slot
  /// Where coherence starts next frame: the leaf pair of a collision resolved colliding, the
  /// tightest pair of an interrupted one's frontier (or, interrupted on its chain, the pair
  /// that chain was going to). Nothing for one resolved not colliding: below its deepest
  /// pair nothing intersected. Nothing on a tree grown on demand: the pair's nodes may be
  /// evicted before next frame, so coherence runs on whole trees only.
  bool has_witness = false;
  SpherePair witness;  ///< with has_witness: the pair whose chain next frame re-tests first
  /// Some sphere pair was found intersecting in this overlap: `deepest` is the one with the
  /// smallest gap bound at the poses it was last remembered at, this frame's or an earlier one's.
  bool has_deepest = false;
  /// With has_deepest: the pair of the tightest gap bound so far (PriorityGap::refined), as its
  /// spheres' geometry rather than its nodes, so it holds on on-demand trees too
  /// (NarrowPhase::pair_gap_estimate of it).
  SpherePairGeometry deepest;
  /// With aged priorities (`schedule.aging`): the chance the pair's episode of frames accepted
  /// unresolved, up to this one, went unnoticed, prod(1 - f) (metrics/episodes.hpp); 1 when
  /// it was not accepted unresolved this frame, or priorities are not aged.
  double unnoticed = 1;
};

/// One scheduler's memory of its last frame, per collision: where coherence across frames
/// starts (NarrowPhaseSettings::coherence; docs/narrowphase.md, "Coherence across frames")
/// and where a refined priority takes its gap from (PriorityGap::refined). Each scheduler
/// keeps its own: the driver's, and each one the counterfactual evaluation runs on the side,
/// since what a descent reached depends on the budget and the order it was given.
///
/// Plain data by collision slot, checked against the pair and the first frame of its overlap
/// when read, so a slot that now holds another pair, or the same pair overlapping again,
/// answers nothing. On trees grown on demand (001) a node may be evicted and its index reused
/// between frames, so what is kept of a pair for the refined priority is its spheres'
/// geometry (centres in the entities' centre-of-mass frames, radii, gap slacks), never its
/// nodes: the bound next frame is bit for bit the one the nodes would give. The witness of
/// coherence needs the nodes themselves (its chain is re-tested from the roots to them), so
/// collisions on on-demand trees get none: coherence is whole-tree-only.
class DescentMemory {
 public:
  /// Keeps what every collision of `narrowphase` ended with this frame (after interrupt()),
  /// at the frame's poses `states`; the tightest pair so far comes from `earlier`, the memory
  /// of the frame before (null: this one, overwritten as it goes). `aged`: the collisions'
  /// priorities were aged (prioritise/fast_priority.hpp), so an unresolved one's priority is
  /// 1 - its episode's unnoticed chance, kept in `unnoticed`. With `pool`, in chunks on its
  /// threads: the same bytes.
  void remember(const NarrowPhase& narrowphase, std::span<const EntityState> states,
                const DescentMemory* earlier = nullptr, bool aged = false, ThreadPool* pool = nullptr);
  /// What the collision in `slot` ended with last frame, or null when it is new.
  const RememberedDescent* recall(std::uint32_t slot, const Collision& c) const {
    if (slot >= by_slot_.size()) return nullptr;
    const RememberedDescent& r = by_slot_[slot];
    return r.first_frame == c.first_frame && r.a == c.a && r.b == c.b ? &r : nullptr;
  }
  /// Forgets every collision: recall() answers null until the next remember().
  void clear() { by_slot_.clear(); }

 private:
  /// remember()'s work for the collision in `slot`: writes by_slot_[slot] alone.
  void remember_one(const NarrowPhase& narrowphase, std::span<const EntityState> states, const DescentMemory& earlier,
                    bool aged, std::uint32_t slot);

  std::vector<RememberedDescent> by_slot_;
};

}  // namespace fovea
