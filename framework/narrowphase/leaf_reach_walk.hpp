#pragma once

#include <cstdint>
#include <vector>

#include "narrowphase/collision_model.hpp"
#include "narrowphase/on_demand_tree.hpp"

// The search for the leaf spheres of one tree that touch something outside it (a wall, the
// player's capsule): a depth-first walk pruned on each node's leaf reach. Written once here
// for the wall contacts (response/plane_contact.hpp) and the capsule (capsule_query.hpp),
// which differ only in their test and in what a leaf found does.
//
// Why leaf reach (CollisionModel::leaf_reach_m) and not a node's radius: an octree parent's
// sphere need not hold its children's, so a leaf may bulge out of its parent's sphere
// towards the query; pruning on the radius would miss it (capsule_query.hpp).

namespace fovea {

/// Walks `model` depth first from the root, children in node order (pushed last first, the
/// order of a recursive descent, so the answer is deterministic):
///  - `beyond_reach(node)` is asked once for every node the walk reaches: true when nothing
///    within the node's leaf reach (its own radius for a leaf) can touch, and the walk skips
///    the node and all below it. It is called before the node's children are grown.
///  - `on_leaf(node)` is called for each leaf that is not beyond reach; it returns false to
///    end the walk there (the first touch answers), true to go on (every touch is wanted).
///  - `use_children(node)` is called before an inner node's children are read: it grows
///    them on an on-demand tree (GrowableModel::use_children).
/// `stack` is scratch, reused between calls: no allocation once it has grown to the tree's
/// depth times its branching. Growing may move the model's arrays: the callbacks index them
/// afresh rather than keep references into them.
template <class UseChildren, class BeyondReach, class OnLeaf>
void walk_leaf_reach(const CollisionModel& model, std::vector<std::uint32_t>& stack, UseChildren&& use_children,
                     BeyondReach&& beyond_reach, OnLeaf&& on_leaf) {
  if (model.spheres.empty()) return;
  stack.clear();
  stack.push_back(0);
  while (!stack.empty()) {
    const std::uint32_t node = stack.back();
    stack.pop_back();
    if (beyond_reach(node)) continue;
    if (model.is_leaf(node)) {
      if (!on_leaf(node)) return;
      continue;
    }
    use_children(node);
    for (std::uint32_t k = model.child_count[node]; k-- > 0;) stack.push_back(model.first_child[node] + k);
  }
}

/// The walk on a whole tree: nothing to grow.
template <class BeyondReach, class OnLeaf>
void walk_leaf_reach(const CollisionModel& model, std::vector<std::uint32_t>& stack, BeyondReach&& beyond_reach,
                     OnLeaf&& on_leaf) {
  walk_leaf_reach(model, stack, [](std::uint32_t) {}, beyond_reach, on_leaf);
}

/// The walk on a tree that may be on demand (001): the nodes it goes into grow and are
/// stamped as used.
template <class BeyondReach, class OnLeaf>
void walk_leaf_reach(GrowableModel model, std::vector<std::uint32_t>& stack, BeyondReach&& beyond_reach,
                     OnLeaf&& on_leaf) {
  walk_leaf_reach(*model.model, stack, [&](std::uint32_t node) { model.use_children(node); }, beyond_reach, on_leaf);
}

}  // namespace fovea
