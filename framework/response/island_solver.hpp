#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "response/contact.hpp"
#include "response/impulse_solver.hpp"

// The impulse solve of a frame split into contact islands (docs/scale.md, "The response").
// Plain data in and out, as ImpulseSolver: bodies and manifolds, velocities and corrections.

namespace fovea {

class ThreadPool;

/// Solves a frame's manifolds as ImpulseSolver::solve does over all of them at once, with
/// the same result to the last bit, but island by island: an island is the dynamic bodies
/// (inverse mass > 0) joined by manifolds, rooted at its smallest body index, and a manifold
/// belongs to the island of its dynamic body (it needs one). Each island is solved on its
/// own copies of its bodies, the static ones it touches included, its manifolds in their
/// order and its bodies in ascending order: the order one solve of everything would take
/// them in. Islands share no dynamic body, and a static body never changes (inverse mass
/// 0), so nothing one island does reaches another. On a pool, the islands are solved in
/// parallel; the statistics are summed in island order afterwards, as the single solve sums
/// them.
///
/// Work and memory follow the manifolds: only bodies a manifold names are read, and no loop
/// runs over all of `bodies`. Scratch is kept between calls; in the steady state a solve
/// allocates nothing.
class IslandSolver {
 public:
  /// Writes the velocities of every dynamic body a manifold names back into `bodies`, adds
  /// each one's positional correction to `position_correction_m` (indexed by body; it must
  /// cover every dynamic body, and nothing is written for static ones), and each point's
  /// impulses into `manifolds` (the next frame's warm start).
  ImpulseSolverStats solve(std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                           const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m,
                           ThreadPool* pool = nullptr);

 private:
  /// One island's solve: a task's scratch.
  struct Scratch {
    ImpulseSolver solver;
    std::vector<std::uint32_t> body_ids;  ///< the island's bodies, ascending (solver index -> body)
    std::vector<RigidBody> bodies;
    std::vector<ContactManifold> manifolds;
    std::vector<Vec3> corrections;
  };
  void solve_island(std::size_t island, std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                    const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m, Scratch& scratch);

  std::vector<std::uint32_t> parent_;  ///< by body: union-find, set for the bodies of this call's manifolds
  std::vector<std::uint64_t> keys_;    ///< by manifold: island root << 32 | manifold index, sorted
  std::vector<std::uint32_t> start_;   ///< into keys_, by island, plus the end
  std::vector<ImpulseSolverStats> stats_;  ///< by island
  std::vector<Scratch> scratch_;       ///< one per task
};

}  // namespace fovea
