#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "narrowphase/narrow_phase.hpp"
#include "response/contact.hpp"
#include "response/impulse_solver.hpp"
#include "response/island_solver.hpp"
#include "response/plane_contact.hpp"
#include "response/response_settings.hpp"
#include "world/entity.hpp"

namespace fovea {
class ThreadPool;
}

namespace fovea {

/// What one frame's response did.
struct ResponseStats {
  std::int64_t contacts = 0;        ///< manifolds: touching entity pairs and entity-wall pairs
  std::int64_t wall_contacts = 0;   ///< of those, against a wall of the box
  std::int64_t contact_points = 0;  ///< points of all manifolds (at most 4 each)
  /// The deepest overlap of any contact point before the solve, metres (0 without contacts):
  /// the sphere overlap the detection left between touching bodies, walls included.
  double deepest_contact_m = 0;
  std::int64_t contact_tests = 0;   ///< sphere tests to finish resolved collisions' contact areas (unbudgeted)
  /// Kinetic energy the contacts changed, joules: never above 0, up to rounding
  /// (ImpulseSolverStats::energy_change_j).
  double energy_change_j = 0;
  std::int64_t bounces_limited = 0; ///< islands whose bounce was scaled down to add no energy
  std::int64_t compressions_limited = 0;  ///< islands whose unconverged compression was scaled back
};

/// The collision response (004 section 3.5): the contacts of the frame's real collisions
/// and of the box walls, one impulse solve over all of them, and the velocities written
/// back. Keeps last frame's impulses per contact feature for the warm start, and scratch.
///
/// Bodies: entity i is body i; wall w (box_walls order) is body entity_count + w.
///
/// Its cost follows the contacts, not the entities (docs/scale.md, "The response"): a
/// body is built only for an entity a manifold touches, an entity far from every wall is
/// passed over by one comparison per wall, and the solve is split into contact islands
/// (dynamic bodies joined by manifolds). Islands share no dynamic body, so solving each
/// apart, its manifolds and bodies in the order the whole solve would take them, gives
/// the whole solve's velocities, corrections and impulses to the last bit; on a pool the
/// islands are solved in parallel, and their statistics summed in island order.
class Response {
 public:
  Response() = default;
  /// A response for the world `box` (its six walls), at a step of `time_step_s` seconds (sets the rest-speed floor).
  Response(const ResponseSettings& settings, const Aabb& box, double time_step_s);

  /// Responds to the collisions the narrow phase treats as colliding and to the walls, at
  /// the entities' current poses: changes the dynamic entities' velocities, and adds to
  /// `correction_m` (by entity) the positional correction to apply before the next step.
  /// Not const on the narrow phase: contacts may grow its on-demand trees (001).
  /// With a pool, the islands are solved on its threads; the result is the same.
  ResponseStats apply(NarrowPhase& narrowphase, std::span<const Entity> entities,
                      std::span<EntityState> states, std::span<Vec3> correction_m, ThreadPool* pool = nullptr);

  /// The manifolds of the last apply(), with their impulses: for tests and overlays.
  std::span<const ContactManifold> manifolds() const { return manifolds_; }
  /// The solver settings in force (rest speed raised for gravity).

 private:
  struct CachedPoint {
    std::uint64_t feature = 0;
    double normal_impulse_ns = 0;
    Vec3 friction_impulse_ns{0.0};
  };
  struct CachedManifold {
    std::uint64_t key = 0;  ///< body_a << 32 | body_b
    std::array<CachedPoint, ContactManifold::kMaxPoints> points{};
    int point_count = 0;
  };
  /// A body's id in the warm-start cache: an entity's is its own; a wall's is a fixed id above
  /// every entity id (walls are solver bodies entity_count + w, which moves when entities
  /// are spawned, and their cached impulses must stay theirs).
  std::uint32_t cache_id(std::uint32_t body) const {
    return body < entity_count_ ? body : kFirstWallCacheId + (body - entity_count_);
  }
  static constexpr std::uint32_t kFirstWallCacheId = 0xffffff00u;  ///< above SweepAndPrune::kMaxProxies
  /// Two indices as one ordered key: a manifold's bodies, or a contact's sphere pair (its feature).
  static std::uint64_t key_of(std::uint32_t first, std::uint32_t second) { return std::uint64_t{first} << 32 | second; }
  /// Last frame's manifold of the same two bodies, or null.
  const CachedManifold* cached(std::uint32_t body_a, std::uint32_t body_b) const;
  /// The manifold of `candidates`, with last frame's impulses of the same two bodies as the
  /// warm start.
  ContactManifold manifold_of(std::uint32_t body_a, std::uint32_t body_b,
                              std::span<const ContactCandidate> candidates) const;
  /// The contact candidates of collision `c`'s sphere pairs, at the touched bodies' poses.
  void entity_candidates(const NarrowPhase& narrowphase, const Collision& c, std::span<const EntityState> states,
                         std::span<const SpherePair> pairs, std::vector<ContactCandidate>& out) const;
  /// A task's scratch for the entity pairs' contacts.
  struct ContactScratch {
    std::vector<SpherePair> pairs;
    std::vector<SphereHit> stack;
    std::vector<ContactCandidate> candidates;
  };

  /// apply()'s steps, in order. The bodies array sized for this frame's entities and the
  /// walls, the walls' bodies built, the frame counted.
  void prepare_bodies(std::size_t entity_count);
  /// The entity pairs' manifolds, one per colliding collision in list order, their bodies
  /// touched; returns the sphere tests the contacts took.
  std::int64_t entity_manifolds(NarrowPhase& narrowphase, std::span<const Entity> entities,
                                std::span<const EntityState> states, ThreadPool* pool);
  /// The walls' manifolds after them, entity by entity and wall by wall; returns how many.
  std::int64_t wall_manifolds(NarrowPhase& narrowphase, std::span<const Entity> entities,
                              std::span<const EntityState> states, ThreadPool* pool);
  /// One impulse solve over every manifold, the dynamic entities' velocities written back;
  /// the solver's counts into `stats`.
  void solve(std::span<const Entity> entities, std::span<EntityState> states, std::span<Vec3> correction_m,
             ThreadPool* pool, ResponseStats& stats);
  /// This frame's impulses by body pair and feature, the next frame's warm start.
  void remember_impulses();

  /// Builds entity `id`'s body (and its rotation) the first time this frame a contact needs it.
  void touch(std::uint32_t id, const Entity& entity, const EntityState& state);
  /// Entity `id`'s body and rotation from its entity and state (touch() without the check).
  void build_body(std::uint32_t id, const Entity& entity, const EntityState& state);
  /// How far any leaf sphere of `model` reaches from the entity's centre of mass: |root
  /// centre| + root leaf reach. An entity farther than this from a wall cannot touch it.
  static double reach_of(const CollisionModel& model);

  ResponseSettings settings_;
  ImpulseSolverSettings solver_settings_;
  IslandSolver islands_;
  std::uint32_t entity_count_ = 0;  ///< entity bodies this frame; walls follow
  std::vector<Mat3> rotation_;  ///< by entity, this frame: model axes to world axes (touched ones)
  std::vector<std::uint32_t> body_frame_;  ///< by body: the apply() that last built it (frame_ then)
  std::uint32_t frame_ = 0;                ///< apply() calls so far
  std::vector<double> reach_by_model_m_;      ///< reach_of() by model, this frame
  std::array<Plane, 6> walls_{};
  std::vector<RigidBody> bodies_;
  std::vector<ContactManifold> manifolds_;
  std::vector<CachedManifold> cache_;       ///< last frame's manifolds, sorted by key
  std::vector<CachedManifold> cache_next_;  ///< this frame's, swapped in
  std::vector<ContactCandidate> candidates_;  ///< the walls'
  std::vector<std::uint32_t> contact_slots_;   ///< collisions with an entity manifold, in list order
  std::vector<std::uint32_t> touched_;  ///< entities whose bodies this frame's manifolds name, each once
  std::vector<std::vector<std::uint64_t>> near_walls_;  ///< by chunk: entity << 32 | wall, within reach
  std::vector<ContactScratch> contact_scratch_;  ///< one per chunk
  std::vector<std::uint32_t> node_stack_;
};

}  // namespace fovea
