#include "spheretree/sphere_tree.hpp"

namespace fovea {

std::vector<std::uint32_t> SphereTree::cut(int depth) const {
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t n = 0; n < size(); ++n)
    if (level[n] == depth || (level[n] < depth && is_leaf(n))) nodes.push_back(n);
  return nodes;
}

std::string SphereTree::check_layout() const {
  const std::size_t n = size();
  if (n == 0) return "the tree has no nodes";
  if (centre_m.size() != n || first_child.size() != n || child_count.size() != n || level.size() != n)
    return "node arrays differ in length";
  if (level_begin.size() < 2 || level_begin.front() != 0 || level_begin.back() != n) return "level_begin does not span the nodes";
  for (std::size_t l = 0; l + 1 < level_begin.size(); ++l) {
    if (level_begin[l] >= level_begin[l + 1]) return "level " + std::to_string(l) + " is empty";
    for (std::uint32_t i = level_begin[l]; i < level_begin[l + 1]; ++i)
      if (level[i] != l) return "node " + std::to_string(i) + " is stored in level " + std::to_string(l) + " but says " +
                                std::to_string(level[i]);
  }
  if (level_begin[1] != 1) return "level 0 must hold the root alone";
  // Children contiguous, one level down, each node the child of exactly one parent, in order.
  std::uint32_t expected_next_child = 1;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!(radius_m[i] > 0)) return "node " + std::to_string(i) + " has radius <= 0";
    if (child_count[i] == 0) continue;
    if (first_child[i] != expected_next_child) return "children of node " + std::to_string(i) + " are not next in order";
    for (std::uint32_t c = first_child[i]; c < first_child[i] + child_count[i]; ++c)
      if (c >= n || level[c] != level[i] + 1) return "a child of node " + std::to_string(i) + " is not one level below";
    expected_next_child += child_count[i];
  }
  if (expected_next_child != n) return "some nodes have no parent";
  return "";
}

}  // namespace fovea
