#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/math.hpp"
#include "response/contact.hpp"
#include "response/response_settings.hpp"

// The impulse response of 004 section 3.5 ("a simplified impulse based method ... given the
// point of collision and the collision direction"), with restitution and Coulomb friction,
// all impulses of a frame computed from the same state and applied together (004 section 4:
// "apply the changes simultaneously by taking account of all colliding objects before any
// changes are applied"). Plain data in, plain data out: the caller builds the bodies from
// its entities and the static scenery, and writes the velocities back.

namespace fovea {

/// One contact point as the solver's passes use it.
struct ImpulseRow {
  Vec3 r_a{0.0}, r_b{0.0};  ///< from each centre of mass to the point
  Vec3 t1{0.0}, t2{0.0};    ///< tangent basis
  double mass_n = 0, mass_t1 = 0, mass_t2 = 0;  ///< 1 / (J M^-1 J^T) along each direction (M split for Jacobi)
  double restitution = 0;   ///< e of the bounce, 0 where the point did not approach fast
  double friction = 0;      ///< Coulomb coefficient: the geometric mean of the two materials'
  double lambda_n = 0, lambda_t1 = 0, lambda_t2 = 0;  ///< accumulated impulses, N s
};

/// What the solver needs of a body, world space. A static body (ground, wall, a static
/// entity) has inverse mass and inverse inertia zero: infinite mass, it never moves.
struct RigidBody {
  Vec3 position_m{0.0};  ///< centre of mass
  Vec3 linear_velocity_mps{0.0};     ///< of the centre of mass, m/s; the solve changes it
  Vec3 angular_velocity_radps{0.0};  ///< world axes, rad/s; the solve changes it
  double inverse_mass_per_kg = 0;    ///< 1 / mass, 1/kg; 0 for a static body
  Mat3 inverse_inertia_world{0.0};  ///< R I_body^-1 R^T, about the centre of mass
  double mass_kg = 0;               ///< for the energy bookkeeping; 0 for static bodies
  Mat3 inertia_world{0.0};          ///< R I_body R^T; zero for static bodies
  double restitution = 0;           ///< the material's, in [0, 1]
  double friction = 0;              ///< the material's Coulomb coefficient, >= 0
};

/// How ImpulseSolver::solve works, as the Response sets it from ResponseSettings.
struct ImpulseSolverSettings {
  ImpulseSolverKind kind = ImpulseSolverKind::gauss_seidel;  ///< Gauss-Seidel or Jacobi passes
  /// Most passes over the contact set (Gauss-Seidel stops after a pass that changed no
  /// impulse: the later ones would change nothing). One pass settles an isolated contact
  /// exactly; in a stack an impulse travels up one body per pass (Jacobi) or more
  /// (Gauss-Seidel), and the warm start carries last frame's impulses over
  /// (docs/response.md, "Iterations").
  int iterations = 16;
  /// Contacts approaching slower than this get no bounce: a body resting under gravity
  /// approaches at |g| dt every frame, and bouncing that back would make it jitter. Also
  /// the speed under which last frame's impulse is carried over (a resting contact).
  double rest_speed_mps = 0.2;  ///< the Response passes max(response.rest_speed_mps, 2 |g| dt)
  /// The share of each contact's overlap (beyond `slop_m`) removed per frame by moving the
  /// bodies apart, without changing their velocities, so no kinetic energy is added.
  double correction_fraction = 0.4;
  /// Overlap left alone: a resting body keeps touching its support instead of hovering.
  double slop_m = 0.005;
};

/// What one solve did.
struct ImpulseSolverStats {
  std::int64_t contact_points = 0;      ///< points of all manifolds
  std::int64_t approaching_points = 0;  ///< of those, where the bodies moved towards each other at the start
  std::int64_t bouncing_points = 0;     ///< of those, approaching faster than the rest speed: they bounce
  std::int64_t warm_started_points = 0; ///< points started from last frame's impulse
  /// Islands whose bounce was scaled down so that the contacts add no kinetic energy.
  std::int64_t bounces_limited = 0;
  /// Islands whose compression passes, not converged, gained energy, and were scaled back
  /// towards the velocities before the contacts (no bounce then).
  std::int64_t compressions_limited = 0;
  /// Kinetic energy the contacts changed, summed over islands, joules: never above 0 (up to
  /// rounding).
  double energy_change_j = 0;
};

/// Solves a frame's contacts in two phases, as a collision has two (Routh; Stronge, Impact
/// Mechanics, chapter 3):
///  1. compression: impulses that stop every contact point approaching, and friction that
///     stops it sliding where the Coulomb cone (the geometric mean of the two coefficients)
///     allows. Passes over the contacts, Gauss-Seidel or Jacobi (settings.kind), below.
///  2. restitution (Poisson's hypothesis): each point that approached faster than
///     rest_speed_mps then gets e times its compression impulse again, e the larger of the
///     two materials' restitutions (a rubber ball bounces on concrete).
/// For one contact this is Newton's law, v_n' = -e v_n. For several, Poisson's form is the
/// one that cannot gain energy: with the compression solved, the bounce at a uniform e
/// gives KE' = KE_c + e^2 (KE_0 - KE_c) <= KE_0. Where contacts differ in e (resting
/// contacts have e = 0) it could, so each island's bounce is scaled down just enough to
/// leave its kinetic energy no higher than before the frame's contacts
/// (stats.bounces_limited counts them). Should the compression passes, not converged,
/// have gained energy themselves (a stale warm start), the island gets no bounce and its
/// compression is scaled back until they have not (stats.compressions_limited). So the
/// contacts never add kinetic energy to any island. Momentum is kept whatever the scales:
/// every impulse acts equally and oppositely on two bodies.
///
/// Simultaneous (004 section 4): the passes work on copies of the velocities, and the
/// frame's impulses are applied to the bodies together at the end. Gauss-Seidel (the
/// default) lets each manifold see the impulses before it in the same pass; Jacobi computes
/// every manifold of a pass from the same velocities, treating a body in k manifolds as
/// having k times its inverse mass (mass splitting, Tonge, Benevolent and Sifakis 2012), so
/// the impulses of a pass add up to the right total instead of k times it. The bounce is
/// applied all at once. Accumulated normal impulses stay >= 0 (contacts
/// push, never pull) and friction stays within the Coulomb cone.
///
/// Writes each point's compression impulses into `manifolds` (the next frame's warm start)
/// and adds to `position_correction_m` (one per body) the move that removes
/// correction_fraction of each overlap.
///
/// Scratch memory is kept between calls: in the steady state a solve allocates nothing.
class ImpulseSolver {
 public:
  /// Solves, changes the bodies' velocities, and returns what it did (see above).
  ImpulseSolverStats solve(std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                           const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m);

 private:
  /// Counts each body's manifolds, joins dynamic bodies touching each other into islands
  /// and records their velocities and kinetic energy before any impulse.
  void find_islands(std::span<const RigidBody> bodies, std::span<const ContactManifold> manifolds);
  /// find_islands(), then one row per contact point: its lever arms, tangents, effective
  /// masses, bounce and warm start, all judged on the velocities before any impulse.
  void prepare(std::span<const RigidBody> bodies, std::span<const ContactManifold> manifolds,
               const ImpulseSolverSettings& settings, ImpulseSolverStats& stats);
  /// Applies last frame's impulses of the resting points, all together and on the true
  /// masses, so a pile starts from the weight it carried.
  void warm_start(std::span<RigidBody> bodies, std::span<const ContactManifold> manifolds) const;
  /// Phase 1, compression: settings.iterations passes, Gauss-Seidel or Jacobi, that drive
  /// every point to stop approaching and, within the Coulomb cone, to stop sliding.
  void solve_compression(std::span<RigidBody> bodies, std::span<const ContactManifold> manifolds,
                         const ImpulseSolverSettings& settings);
  /// Phase 2, restitution: the bounce of each fast point, all at once, scaled per island so
  /// that no island gains kinetic energy (and limit_compression() where the passes did).
  void apply_restitution(std::span<RigidBody> bodies, std::span<const ContactManifold> manifolds,
                         ImpulseSolverStats& stats);
  /// Scales back the compression of islands where it gained energy (see the class comment).
  void limit_compression(std::span<RigidBody> bodies, ImpulseSolverStats& stats);
  /// Writes each point's compression impulses back to its manifold: the next frame's warm start.
  void store_impulses(std::span<ContactManifold> manifolds) const;
  /// Adds the move that removes correction_fraction of each overlap beyond slop_m, shared by
  /// inverse mass; it changes no velocity, so it adds no kinetic energy.
  void correct_positions(std::span<const RigidBody> bodies, std::span<const ContactManifold> manifolds,
                         const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m) const;
  /// Whether body `i` is in an island: dynamic and touched by a manifold.
  bool in_island(std::span<const RigidBody> bodies, std::uint32_t i) const;

  std::vector<ImpulseRow> rows_;
  std::vector<std::uint32_t> first_row_;   ///< by manifold, plus the end
  std::vector<int> manifolds_on_;          ///< by body: how many manifolds touch it
  std::vector<Vec3> dv_, dw_;              ///< by body: a pass's velocity changes, then the bounce's
  std::vector<std::uint32_t> island_of_;   ///< by body: union-find parent, then the island's root
  struct IslandEnergy {
    double before_j = 0;       ///< kinetic energy before any impulse
    double compressed_j = 0;   ///< after the compression
    double linear_j = 0;       ///< sum of v_c . M d over bodies (d: the bounce's change)
    double quadratic_j = 0;    ///< sum of d . M d / 2
    double bounce_scale = 1;
    /// 1, or where the compression gained energy: -1 until limit_compression() sets the
    /// share of it kept.
    double compression_scale = 1;
    double back_linear_j = 0;     ///< sum of v_0 . M D (D: the compression's change)
    double back_quadratic_j = 0;  ///< sum of D . M D / 2
  };
  std::vector<IslandEnergy> islands_;      ///< by root body
  std::vector<Vec3> v0_, w0_;              ///< by body: velocities before any impulse
};

/// One solve with a fresh solver: for tests and one-off uses.
ImpulseSolverStats solve_contacts(std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                                  const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m);

}  // namespace fovea
