#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/math.hpp"

// Contact data for the collision response (004 section 3.5), as plain data: what the
// detection's intersecting sphere pairs say about where, and along which direction, two
// bodies touch. The response treats each object "as if they actually were a union of
// spheres" (004 section 3.5), so one pair of intersecting spheres is one contact point.

namespace fovea {

/// Two intersecting spheres, one on each body, world space. `feature` names the pair (the
/// two tree nodes) so the same contact can be recognised in the next frame.
struct SpherePairContact {
  Vec3 centre_a_m{0.0};       ///< a's sphere centre, world space, metres
  double radius_a_m = 0;      ///< a's sphere radius, metres
  Vec3 centre_b_m{0.0};       ///< b's sphere centre, world space, metres
  double radius_b_m = 0;      ///< b's sphere radius, metres
  std::uint64_t feature = 0;  ///< a's tree node index in the high 32 bits, b's in the low (Response::key_of)
};

/// One contact point before points are combined: where, how deep, and along which normal.
struct ContactCandidate {
  Vec3 point_m{0.0};           ///< the contact point, world space, metres
  Vec3 normal{0.0, 1.0, 0.0};  ///< unit, from body a towards body b
  /// Overlap along the normal (> 0 when the shapes overlap; a collision treated as colliding
  /// while its spheres are still apart, 004's repulsion, has depth <= 0).
  double depth_m = 0;
  std::uint64_t feature = 0;  ///< which sphere pair (or wall leaf) gave it, stable across frames
};

/// One point of a contact manifold. The impulses are the solver's, in and out: in, last
/// frame's at the same feature (warm start); out, what this frame's solve accumulated.
struct ContactPoint {
  Vec3 point_m{0.0};          ///< world space, metres
  double depth_m = 0;         ///< its candidate's overlap along that candidate's own normal, metres
  std::uint64_t feature = 0;  ///< its candidate's feature: matches last frame's point for the warm start
  double normal_impulse_ns = 0;   ///< along the manifold's normal, >= 0, newton seconds
  Vec3 friction_impulse_ns{0.0};  ///< in the tangent plane, world axes
};

/// Where and how two bodies touch: one normal for the pair, and up to four points.
struct ContactManifold {
  static constexpr int kMaxPoints = 4;  ///< most points a manifold keeps (combine_contacts chooses them)
  std::uint32_t body_a = 0;  ///< index into the solver's bodies
  std::uint32_t body_b = 0;  ///< index into the solver's bodies; never body_a
  Vec3 normal{0.0, 1.0, 0.0};  ///< unit, pointing from a towards b
  std::array<ContactPoint, kMaxPoints> points{};  ///< the first point_count are used
  int point_count = 0;                            ///< points in use, 1 to kMaxPoints once combined
};

/// One intersecting sphere pair as a contact (004 figure 4): the normal along the line from
/// a's centre to b's; the point C on that line dividing it in the ratio of the radii,
/// |O_a C| : |C O_b| = r_a : r_b; the depth r_a + r_b - |O_a O_b|. Concentric spheres (no
/// line) get the normal +y.
ContactCandidate contact_of(const SpherePairContact& pair);

/// Several contact candidates of the same two bodies as one manifold. The rule
/// (docs/response.md, "One manifold per collision"):
///  - the normal is the mean of the candidates' normals weighted by their depths: deeper
///    pairs say more about the surface between the bodies, and one normal for the pair
///    keeps the impulses of its points from working against each other. Where the
///    weighted normals cancel (pairs on opposite sides), the deepest candidate's normal;
///  - the points are at most four of the candidates': the deepest, then repeatedly the one
///    farthest from those chosen, so the manifold spans the contact area (a box resting on
///    the ground needs its corners, not four points near one of them). Ties keep the
///    earlier candidate, so the result depends only on the order given;
///  - each point keeps its own candidate's depth along its own normal.
/// `kept_features` (last frame's points of the same pair) come right after the deepest,
/// where still candidates: a resting contact keeps its points, and their warm start, from
/// frame to frame instead of hopping between near-equal leaf pairs (which rocks a pile).
/// The deepest always comes first: keeping last frame's points alone once froze a box
/// tipping onto its face on the edge it landed on, and it sank through the floor.
/// `candidates` must not be empty.
ContactManifold combine_contacts(std::span<const ContactCandidate> candidates, std::uint32_t body_a,
                                 std::uint32_t body_b, std::span<const std::uint64_t> kept_features = {});

}  // namespace fovea
