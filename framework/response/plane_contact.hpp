#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/math.hpp"
#include "narrowphase/collision_model.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "response/contact.hpp"
#include "world/entity.hpp"

namespace fovea {

/// A static half-space wall: points with dot(normal, x) >= offset_m are free, the rest is
/// solid. The normal is unit and points out of the wall, into the world.
struct Plane {
  Vec3 normal{0.0, 1.0, 0.0};  ///< unit, out of the wall into the world
  double offset_m = 0;         ///< dot(normal, x) on the wall's surface, metres
};

/// The six walls of the world box, normals pointing inwards: -x, +x, -y, +y, -z, +z faces
/// in that order (the -y face is the ground under gravity along -y).
std::array<Plane, 6> box_walls(const Aabb& box);

/// The contact candidates of an entity against a wall, from its sphere tree as the
/// response sees any contact (004 section 3.5, "a union of spheres"): every leaf sphere
/// that crosses the plane, found by descending only into nodes whose leaves can reach it
/// (walk_leaf_reach, narrowphase/leaf_reach_walk.hpp). A leaf gives the normal of the
/// plane, the depth r - h (h: its centre's height above the plane), and the point in the
/// middle of its overlap with the wall, where 004 figure 4 puts the point for two equal
/// spheres. `feature` is the leaf's node index.
///
/// Walls are not pairs of the broad phase and are not refined under the detection budget:
/// the descent is cheap (it visits only spheres crossing the plane) and is done in full.
/// An on-demand tree (001) grows where the descent goes. Appends to `out`; `stack` is scratch.
void plane_contacts(GrowableModel model, const EntityState& state, const Plane& plane,
                    std::vector<std::uint32_t>& stack, std::vector<ContactCandidate>& out);

}  // namespace fovea
