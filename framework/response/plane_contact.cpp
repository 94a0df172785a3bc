#include "response/plane_contact.hpp"

#include "narrowphase/leaf_reach_walk.hpp"

namespace fovea {

std::array<Plane, 6> box_walls(const Aabb& box) {
  return {{{Vec3(1, 0, 0), box.min_m.x},
           {Vec3(-1, 0, 0), -box.max_m.x},
           {Vec3(0, 1, 0), box.min_m.y},
           {Vec3(0, -1, 0), -box.max_m.y},
           {Vec3(0, 0, 1), box.min_m.z},
           {Vec3(0, 0, -1), -box.max_m.z}}};
}

void plane_contacts(GrowableModel growable, const EntityState& state, const Plane& plane,
                    std::vector<std::uint32_t>& stack, std::vector<ContactCandidate>& out) {
  const CollisionModel& model = *growable.model;
  // Heights of the tree's centres: h(c) = height_m + dot(n, R c), and dot(n, R c) =
  // dot(R^T n, c), so the normal is turned into the model's frame once.
  const double height_m = glm::dot(plane.normal, state.position_m) - plane.offset_m;  // of the centre of mass
  const Vec3 normal_model = glm::conjugate(state.orientation) * plane.normal;
  const auto height_of = [&](std::uint32_t node) { return height_m + glm::dot(normal_model, model.spheres[node].centre_m); };
  // Nothing below a node reaches further than its leaf reach (collision_model.hpp): the
  // root's test settles most entities at once, a node's prunes the descent.
  walk_leaf_reach(
      growable, stack, [&](std::uint32_t node) { return height_of(node) >= model.leaf_reach_m[node]; },
      [&](std::uint32_t node) {
        const DescentSphere& sphere = model.spheres[node];
        const double h = height_of(node);
        ContactCandidate c;
        c.normal = plane.normal;
        c.depth_m = sphere.radius_m - h;
        const Vec3 centre_m = state.position_m + state.orientation * sphere.centre_m;
        // Along the normal the overlap runs from the sphere's deepest point, c - r n, up to
        // the plane, c - h n; its middle is c - (r + h) / 2 n.
        c.point_m = centre_m - plane.normal * (0.5 * (sphere.radius_m + h));
        c.feature = node;
        out.push_back(c);
        return true;  // every crossing leaf is a contact
      });
}

}  // namespace fovea
