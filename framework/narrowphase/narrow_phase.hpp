#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "narrowphase/collision.hpp"
#include "narrowphase/collision_list.hpp"
#include "narrowphase/collision_model.hpp"
#include "narrowphase/collision_model_table.hpp"
#include "narrowphase/descent_memory.hpp"
#include "narrowphase/narrowphase_settings.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "narrowphase/sphere_hit_pool.hpp"
#include "core/budget.hpp"
#include "world/entity.hpp"

namespace fovea {

class ThreadPool;

struct RotatedTestList;  // narrow_phase.cpp: scratch of the descent's scans

/// The 3D gap bound of a collision and the points it comes from, world space: what the
/// perception model needs to place and weigh the collision (004 section 3.4.2).
struct GapEstimate {
  Vec3 centre_m{0.0};   ///< centre of collision: midpoint of the segment inside both spheres (figure 4)
  Vec3 sphere_a_m{0.0}; ///< centre of the sphere on a's side (a's centre of mass before any test)
  Vec3 sphere_b_m{0.0}; ///< centre of the sphere on b's side (b's centre of mass before any test)
  double slack_m = 0;   ///< both centres' distances to their models (collision_model.hpp)
  double bound_m = 0;   ///< |sphere_a_m - sphere_b_m| + slack_m: no two nearest model points are farther apart
  double radius_a_m = 0;  ///< the spheres' radii (the bounding spheres' before any test)
  double radius_b_m = 0;  ///< b's sphere's radius, m
};

/// What scanning one test list found (NarrowPhase::scan).
struct ScanResult {
  std::uint32_t appended = 0;  ///< hits written to the next level
  std::uint32_t tests = 0;     ///< sphere tests: members scanned, less those pruned to the overlap region
  std::uint32_t scanned = 0;   ///< members gone through: all of them, or up to and including a leaf-leaf hit's
  bool leaf_pair = false;      ///< the last member scanned and the target are intersecting leaves
};

/// Whether NarrowPhase::contact_pairs() descends again from the roots for collision `c`: one
/// resolved colliding below last frame's pair (coherence), whose hits hold one branch only.
inline bool contact_pairs_redescend(const Collision& c) {
  return c.witness == WitnessState::below && !c.interrupted;
}

/// The narrow phase (004 sections 3.3.2 and 3.4): one Collision per overlapping broad-phase
/// pair, and the interruptible "staircase" descent that refines them one level at a time.
///
/// Which collision to refine next is the scheduler's business (schedule/); this class only
/// knows how to refine one. It is built of three parts, each its own class, whose calls it
/// passes on where the frame needs them: the sphere trees (CollisionModelTable), the
/// collisions in list order (CollisionList), and the frame's sphere hits (SphereHitPool).
class NarrowPhase {
 public:
  NarrowPhase() = default;
  /// `models` by ModelId, all whole trees.
  explicit NarrowPhase(std::vector<CollisionModel> models) : models_(std::move(models)) {}

  /// Coherence and pruning (narrowphase_settings.hpp); from the next begin_frame() on.
  /// With prune_to_overlap, every scan of the frame (step() and contact_pairs()) skips the
  /// spheres whose leaves cannot reach the collision's overlap region (003; "Prune to the
  /// overlap region" in docs/narrowphase.md): run to the end, the same status and leaf pair.
  void set_settings(const NarrowPhaseSettings& settings) { settings_ = settings; }
  /// The settings last set (set_settings); a frame runs on those its begin_frame() found.
  const NarrowPhaseSettings& settings() const { return settings_; }

  /// CollisionModelTable::set_model: a model in slot `id`, a whole tree or one grown on
  /// demand with its grower (001). Between frames only.
  void set_model(ModelId id, CollisionModel model, std::unique_ptr<TreeGrower> grower) {
    models_.set_model(id, std::move(model), std::move(grower));
  }
  /// The model in slot `id` and its grower, for those that walk a tree outside the descent
  /// (wall contacts, the player's capsule) and must grow it as they go. Pointers: use it at
  /// once; set_model() of a new slot may move every model.
  GrowableModel growable(ModelId id) { return models_.growable(id); }
  /// CollisionModelTable::evict_idle: frees on-demand branches left idle; between frames.
  /// Returns nodes freed.
  std::int64_t evict_idle(std::int64_t frame) { return models_.evict_idle(frame); }
  /// CollisionModelTable::take_growth_stats: growing and evicting since the last call.
  TreeGrowthStats take_growth_stats() { return models_.take_growth_stats(); }
  /// Whether model `id`'s tree is grown on demand (its nodes may be evicted between frames).
  bool is_grown_on_demand(ModelId id) const { return models_.is_grown_on_demand(id); }
  /// Nodes of the on-demand trees now, the roots included.
  std::int64_t grown_nodes() const { return models_.grown_nodes(); }

  /// CollisionList::sync: a new Collision for each pair that started to overlap (its
  /// first_frame `frame`), the collision of each pair that stopped removed.
  void sync(const PairSet& pairs, std::span<const Entity> entities, std::int64_t frame) {
    collisions_.sync(pairs, entities, frame);
  }

  /// Starts every collision's descent from the two roots at the entities' current poses:
  /// all are active again, with no test done. With coherence on (set_settings) and a
  /// `memory` of the last frame, a collision that was resolved colliding then first re-tests
  /// the chain of sphere pairs down to last frame's leaf pair (step()). With `pool`, the
  /// collisions' transforms and overlap regions are worked out on its threads: the same bytes.
  void begin_frame(std::span<const EntityState> states, const DescentMemory* memory = nullptr, ThreadPool* pool = nullptr);

  /// One step of a collision (004 section 3.3.2): tests the sphere hits of its current level
  /// that are left, each target against its test list. Every intersection makes a sphere
  /// hit of the next level: the intersecting member becomes the target and the old target's
  /// children the test list, so the descent alternates between the trees; where the old
  /// target is a leaf, it stays the target and the test list becomes the member's children
  /// (trees of unequal height, 004 section 3.4.1). The budget is asked before each sphere
  /// hit; when it is spent, the step stops where it is and a later call resumes there.
  ///
  /// Outcomes (004 section 3.4.1): a leaf-leaf intersection resolves the collision as
  /// colliding (1); a level with no intersection at all resolves it as not colliding (2);
  /// otherwise it stays active with the next level's hits (3). Returns the status.
  ///
  /// Coherence across frames: a collision handed last frame's deepest pair (begin_frame)
  /// spends its first step on that pair's chain, the sphere pairs a descent from the roots
  /// would test on its way to it, one test each. If all intersect, the descent goes on below
  /// that pair (a leaf pair there is colliding: the descent from the roots would reach it);
  /// at the first that does not, or when nothing below the pair intersects, the descent
  /// starts at the roots. Run to the end it gives the outcome of the descent from the roots.
  CollisionStatus step(std::uint32_t slot, Budget& budget);

  /// Outcome 4: every collision still active is interrupted, and becomes colliding
  /// (repulse) or not colliding (interpenetrate).
  void interrupt(InterruptPolicy policy);

  /// The gap bound of a collision before any sphere test: from the entities' centres of
  /// mass, and their bounding spheres for the centre of collision. Needs nothing of the
  /// descent, so it can be asked at any time (priorities are taken from it).
  GapEstimate initial_gap_estimate(std::uint32_t slot, std::span<const EntityState> states) const;
  /// The gap bound of a collision now: before any sphere pair has been found intersecting,
  /// the initial one; after, from the intersecting pair on the descent's frontier (its
  /// remaining hits, or the last level's once resolved apart) with the smallest bound; for
  /// a collision resolved colliding, from its leaf pair.
  GapEstimate gap_estimate(std::uint32_t slot, std::span<const EntityState> states) const;
  /// The sphere pair gap_estimate() places a collision from, once some pair has been found
  /// intersecting (false before: the roots were never found intersecting).
  bool deepest_pair(std::uint32_t slot, SpherePair& out) const;
  /// The gap bound of a collision from sphere pair `pair` at the current poses: a bound
  /// whatever the poses, since both centres' slacks are added (collision_model.hpp).
  /// pair_gap_estimate of the pair's geometry (pair_geometry), the one code path for both.
  GapEstimate pair_gap_estimate(std::uint32_t slot, std::span<const EntityState> states, const SpherePair& pair) const;
  /// The same from a sphere pair's geometry, which needs no node of either tree: what a
  /// DescentMemory keeps, so a remembered bound survives the eviction of an on-demand tree's
  /// branch. Bit for bit the bound of the pair the geometry was taken from.
  GapEstimate pair_gap_estimate(std::uint32_t slot, std::span<const EntityState> states,
                                const SpherePairGeometry& pair) const;
  /// What pair_gap_estimate() reads of sphere pair `pair`'s two nodes, as the trees hold them now.
  SpherePairGeometry pair_geometry(std::uint32_t slot, const SpherePair& pair) const;

  /// The deepest intersecting sphere pairs of a collision treated as colliding, for the
  /// response (004 section 3.5, figures 4 and 5), written to `out`:
  ///  - resolved colliding: every intersecting leaf-leaf pair. The descent stopped at the
  ///    first; the rest are found by finishing it from where it stopped, outside the
  ///    budget (a real collision's contact area), keeping at most `max_pairs`.
  ///  - interrupted and accepted (repulse): the pairs of its frontier, as they are, no test
  ///    added: the deepest level reached where that level was processed, the level above
  ///    where it was not, so the pairs cover the whole region found intersecting.
  ///  - never tested: the two roots, which may not even intersect (004's repulsion).
  /// `stack` is scratch. Returns the sphere tests done.
  /// Not const: finishing a descent may grow on-demand trees.
  std::int64_t contact_pairs(std::uint32_t slot, std::size_t max_pairs, std::vector<SphereHit>& stack,
                             std::vector<SpherePair>& out);
  /// Whether contact_pairs(slot) only reads (an interrupted or never-tested collision: its
  /// frontier as it is, no test): such calls may run on several threads at once, with no
  /// other call into the narrow phase alongside.
  bool contact_pairs_read_only(std::uint32_t slot) const {
    const Collision& c = collisions_.collision(slot);
    return !contact_pairs_redescend(c) && (!c.tested_any || c.interrupted);
  }

  /// Slots of all collisions, in list order (ascending entity pair).
  std::span<const std::uint32_t> order() const { return collisions_.order(); }
  /// The collision in `slot` (one of order()); the reference is good until the next sync().
  Collision& collision(std::uint32_t slot) { return collisions_.collision(slot); }
  /// The collision in `slot`, read-only; good until the next sync().
  const Collision& collision(std::uint32_t slot) const { return collisions_.collision(slot); }
  /// Collisions in the list.
  std::size_t size() const { return collisions_.size(); }
  /// The current level's sphere hits of a collision, processed or not.
  std::span<const SphereHit> hits(std::uint32_t slot) const { return hits_.hits(collisions_.collision(slot)); }
  /// The next level's sphere hits made so far.
  std::span<const SphereHit> next_hits(std::uint32_t slot) const {
    return hits_.next_hits(collisions_.collision(slot));
  }
  /// One more than the largest slot in use: the size of a side table by slot.
  std::size_t slot_count() const { return collisions_.slot_count(); }
  /// The sphere tree of model `id`, as grown so far (CollisionModelTable::model).
  const CollisionModel& model(ModelId id) const { return models_.model(id); }
  /// Every model, by ModelId.
  std::span<const CollisionModel> models() const { return models_.models(); }
  /// Sphere-sphere tests since begin_frame.
  std::int64_t sphere_tests() const { return sphere_tests_; }
  /// Sphere-box checks against the overlap region since begin_frame, by step() (0 unless
  /// pruning, 003): one for each member scanned, tested or pruned, and one for each target.
  /// Not sphere tests: the budget does not count them.
  std::int64_t overlap_checks() const { return overlap_checks_; }

 private:
  /// The descent's scan of one hit (scan_hit in narrow_phase.cpp), growing on-demand trees
  /// where the hit's target or the new hits' test lists need children not built yet.
  /// `rotated`: b's centres of the last test list scanned for collision `c`.
  ScanResult scan(const Collision& c, const SphereHit& hit, RotatedTestList& rotated, SphereHit* out);

  NarrowPhaseSettings settings_;
  CollisionModelTable models_;
  CollisionList collisions_;
  SphereHitPool hits_;
  std::int64_t sphere_tests_ = 0;
  /// Prune to the overlap region (003): whether this frame's scans prune (the setting as
  /// begin_frame found it; begin_frame sets each collision's region).
  bool prune_ = false;
  std::int64_t overlap_checks_ = 0;
};

}  // namespace fovea
