#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "narrowphase/collision.hpp"
#include "narrowphase/collision_model.hpp"
#include "narrowphase/descent_memory.hpp"
#include "narrowphase/narrowphase_settings.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "core/budget.hpp"
#include "world/entity.hpp"

namespace fovea {

struct RotatedTestList;  // narrow_phase.cpp: scratch of the descent's scans

/// The 3D gap bound of a collision and the points it comes from, world space: what the
/// perception model needs to place and weigh the collision (004 section 3.4.2).
struct GapEstimate {
  Vec3 centre_m{0.0};   ///< centre of collision: midpoint of the segment inside both spheres (figure 4)
  Vec3 sphere_a_m{0.0}; ///< centre of the sphere on a's side (a's centre of mass before any test)
  Vec3 sphere_b_m{0.0};
  double slack_m = 0;   ///< both centres' distances to their models (collision_model.hpp)
  double bound_m = 0;   ///< |sphere_a_m - sphere_b_m| + slack_m: no two nearest model points are farther apart
  double radius_a_m = 0;  ///< the spheres' radii (the bounding spheres' before any test)
  double radius_b_m = 0;
};

/// What scanning one test list found (NarrowPhase::scan).
struct ScanResult {
  std::uint32_t appended = 0;  ///< hits written to the next level
  std::uint32_t tests = 0;     ///< sphere tests: members scanned, less those pruned to the overlap region
  std::uint32_t scanned = 0;   ///< members gone through: all of them, or up to and including a leaf-leaf hit's
  bool leaf_pair = false;      ///< the last member scanned and the target are intersecting leaves
};

/// The narrow phase (004 sections 3.3.2 and 3.4): one Collision per overlapping broad-phase
/// pair, and the interruptible "staircase" descent that refines them one level at a time.
///
/// Which collision to refine next is the scheduler's business (schedule/); this class only
/// knows how to refine one, and keeps the list of collisions in list order (by entity pair),
/// which is the order round robin and sequential scheduling follow.
///
/// Storage: collisions live in slots that are reused when a pair stops overlapping, and the
/// pair index is merged, not rebuilt. All sphere hits of a frame go to one pool, cleared at
/// the start of the next: a step appends its collision's next level as one contiguous run
/// (no other collision runs until it finishes, or until the budget stops everything). The
/// pool grows geometrically to the largest frame seen, so in the steady state no frame
/// allocates.
class NarrowPhase {
 public:
  NarrowPhase() = default;
  /// `models` by ModelId, all whole trees.
  explicit NarrowPhase(std::vector<CollisionModel> models);

  /// Coherence and pruning (narrowphase_settings.hpp); from the next begin_frame() on.
  /// With prune_to_overlap, every scan of the frame (step() and contact_pairs()) skips the
  /// spheres whose leaves cannot reach the collision's overlap region (003; "Prune to the
  /// overlap region" in docs/narrowphase.md): run to the end, the same status and leaf pair.
  void set_settings(const NarrowPhaseSettings& settings) { settings_ = settings; }
  const NarrowPhaseSettings& settings() const { return settings_; }

  /// Puts a model in slot `id` (growing the table as needed), replacing what was there: a
  /// whole tree with a null `grower`, an on-demand tree with its grower (001). Between
  /// frames only: no collision of the frame may refer to the old model.
  void set_model(ModelId id, CollisionModel model, std::unique_ptr<TreeGrower> grower);
  /// The model in slot `id` and its grower, for those that walk a tree outside the descent
  /// (wall contacts, the player's capsule) and must grow it as they go. Pointers: use it at
  /// once; set_model() of a new slot may move every model.
  GrowableModel growable(ModelId id) { return {&models_[id], growers_[id].get()}; }
  /// Frees the branches of on-demand trees unused for longer than each tree's
  /// evict_after_frames(); `frame` is the frame about to run, which the trees' stamps count
  /// from. Between frames only. Returns nodes freed.
  std::int64_t evict_idle(std::int64_t frame);
  /// What growing and evicting did since the last call, summed over the on-demand trees; a
  /// tree released with its model counts its grown nodes as evicted (roots are neither built
  /// nor evicted: they come and go with their models).
  TreeGrowthStats take_growth_stats();
  /// Whether model `id`'s tree is grown on demand (its nodes may be evicted between frames).
  bool is_grown_on_demand(ModelId id) const { return id < growers_.size() && growers_[id] != nullptr; }
  /// Nodes of the on-demand trees now, the roots included.
  std::int64_t grown_nodes() const;

  /// Brings the collisions in line with the broad phase's current pairs: a new Collision
  /// for each pair that overlaps and had none (its first_frame is `frame`), and the
  /// collision of each pair that no longer overlaps removed.
  void sync(const PairSet& pairs, std::span<const Entity> entities, std::int64_t frame);

  /// Starts every collision's descent from the two roots at the entities' current poses:
  /// all are active again, with no test done. With coherence on (set_settings) and a
  /// `memory` of the last frame, a collision that was resolved colliding then first re-tests
  /// the chain of sphere pairs down to last frame's leaf pair (step()).
  void begin_frame(std::span<const EntityState> states, const DescentMemory* memory = nullptr);

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
  GapEstimate pair_gap_estimate(std::uint32_t slot, std::span<const EntityState> states, const SpherePair& pair) const;

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
    const Collision& c = collisions_[slot];
    return !redescends(c) && (!c.tested_any || c.interrupted);
  }

  /// Slots of all collisions, in list order (ascending entity pair).
  std::span<const std::uint32_t> order() const { return order_; }
  Collision& collision(std::uint32_t slot) { return collisions_[slot]; }
  const Collision& collision(std::uint32_t slot) const { return collisions_[slot]; }
  std::size_t size() const { return order_.size(); }
  /// The current level's sphere hits of a collision, processed or not.
  std::span<const SphereHit> hits(std::uint32_t slot) const;
  /// The next level's sphere hits made so far.
  std::span<const SphereHit> next_hits(std::uint32_t slot) const;
  /// One more than the largest slot in use: the size of a side table by slot.
  std::size_t slot_count() const { return collisions_.size(); }
  const CollisionModel& model(ModelId id) const { return models_[id]; }
  std::span<const CollisionModel> models() const { return models_; }
  /// Sphere-sphere tests since begin_frame.
  std::int64_t sphere_tests() const { return sphere_tests_; }
  /// Sphere-box checks against the overlap region since begin_frame, by step() (0 unless
  /// pruning, 003): one for each member scanned, tested or pruned, and one for each target.
  /// Not sphere tests: the budget does not count them.
  std::int64_t overlap_checks() const { return overlap_checks_; }

 private:
  /// Whether contact_pairs() descends again from the roots: a collision resolved colliding
  /// below last frame's pair (coherence), whose hits hold one branch only.
  static bool redescends(const Collision& c) { return c.witness == WitnessState::below && !c.interrupted; }
  static constexpr std::uint32_t kNewSlot = 0xffffffffu;
  struct PairSlot {
    ProxyPair pair;
    std::uint32_t slot = 0;
  };

  NarrowPhaseSettings settings_;
  std::vector<CollisionModel> models_;
  std::vector<std::unique_ptr<TreeGrower>> growers_;  // by ModelId; null for whole trees
  std::vector<Collision> collisions_;     // by slot
  std::vector<std::uint32_t> free_slots_;
  std::vector<PairSlot> by_pair_;         // sorted by pair
  std::vector<PairSlot> by_pair_scratch_; // the next by_pair_, swapped in
  std::vector<std::uint32_t> order_;      // slots, in by_pair_ order
  // Every collision's hits this frame: [0, pool_end_). The rest is room, each hit written
  // before it is read: a step scans straight into it, with no resize a hit (step()).
  std::vector<SphereHit> hit_pool_;
  std::uint32_t pool_end_ = 0;
  /// Room for `n` hits past pool_end_ (the pool grows by doubling; pointers into it may move).
  SphereHit* pool_room(std::size_t n);
  void push_hit(SphereHit hit) {
    *pool_room(1) = hit;
    ++pool_end_;
  }

  /// The chain down to last frame's deepest pair, then the first level below it (step()).
  void step_witness(Collision& c, Budget& budget);
  /// The collision's descent again from its roots' hit, after coherence found nothing.
  void restart_at_roots(Collision& c);
  /// Makes the collision's next level end at the end of the pool, so a scan can append to
  /// it: the next level stays one run of the pool.
  void open_next_run(Collision& c);
  /// The descent's scan of one hit (scan_hit in narrow_phase.cpp), growing on-demand trees
  /// where the hit's target or the new hits' test lists need children not built yet.
  /// `rotated`: b's centres of the last test list scanned for collision `c`.
  ScanResult scan(const Collision& c, const SphereHit& hit, RotatedTestList& rotated, SphereHit* out);
  /// What growing trees released with their models did since take_growth_stats(): their
  /// nodes count as evicted.
  TreeGrowthStats released_growth_;
  std::int64_t sphere_tests_ = 0;

  /// Prune to the overlap region (003): whether this frame's scans prune (the setting as
  /// begin_frame found it), and each collision's region, set by begin_frame.
  void set_overlap_regions();
  bool prune_ = false;
  std::int64_t overlap_checks_ = 0;
};

}  // namespace fovea
