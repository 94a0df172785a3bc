#pragma once

// Definition structs of the collision response (004 section 3.5), with the defaults a config
// falls back on (docs/config.md, docs/response.md).

#include <array>

#include "core/kind_table.hpp"
#include "core/math.hpp"

namespace fovea {

/// How the impulse solver's passes go over the contacts (impulse_solver.hpp). Both compute
/// every impulse of the frame before the world changes, and apply them together.
enum class ImpulseSolverKind {
  gauss_seidel,  ///< each point in turn, seeing the impulses before it in the pass (converges fast)
  jacobi         ///< every point of a pass from the same velocities, with mass splitting
};

/// The solver kinds' names in configs (`response.solver`) and their help.
inline constexpr auto kImpulseSolvers = kind_table<KindName<ImpulseSolverKind>>({
    {ImpulseSolverKind::gauss_seidel, "gauss_seidel",
     "each point in turn, seeing the previous points' impulses (converges fast)"},
    {ImpulseSolverKind::jacobi, "jacobi", "every point of a pass from the same velocities, with mass splitting"},
});

/// The material of the world box's six walls (static planes, infinite mass).
struct WallSettings {
  double restitution = 1.0;  ///< combined with an entity's by the larger of the two
  double friction = 0.5;     ///< combined with an entity's by the geometric mean
};

/// How collisions and walls are answered (config `response`, 004 section 3.5, docs/response.md).
struct ResponseSettings {
  /// false: entity-entity collisions get no response (entities pass through each other, as
  /// in a detection-only study); the walls still hold them in the box.
  bool entity_contacts = true;
  Vec3 gravity_mps2{0.0, 0.0, 0.0};  ///< zero: no gravity
  /// Restitution and friction of every group's material that does not set its own: read by
  /// config/ when it fills the materials; the Response itself uses the materials' values.
  double restitution = 1.0;
  double friction = 0.5;  ///< default Coulomb coefficient, >= 0, of materials that set none (as restitution)
  WallSettings walls;     ///< the world box's walls' material
  ImpulseSolverKind solver = ImpulseSolverKind::gauss_seidel;  ///< how the passes go over the contacts
  /// Passes over the frame's contacts (impulse_solver.hpp, docs/response.md).
  int iterations = 16;
  /// Share of the overlap beyond `slop_m` removed per frame by moving bodies apart.
  double correction_fraction = 0.4;
  double slop_m = 0.005;  ///< overlap left alone, metres
  /// Approach speed below which contacts do not bounce, on top of 2 |g| dt, the floor that
  /// keeps resting bodies from bouncing on their own weight. 0: only that floor, so without
  /// gravity every approach bounces (a slow ball in a gravity-free room keeps bouncing).
  double rest_speed_mps = 0.0;
  /// Most leaf-leaf sphere pairs taken from one resolved collision.
  int max_pairs_per_collision = 256;
};

}  // namespace fovea
