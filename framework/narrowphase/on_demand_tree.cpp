#include "narrowphase/on_demand_tree.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "core/stopwatch.hpp"

namespace fovea {

TreeGrower::TreeGrower(const VoxelModel& model, const OctreeBuildOptions& options, const Vec3& centre_of_mass_model_m,
                       double bounding_radius_m, CollisionModel& out)
    : model_(model),
      surface_(surface_voxel_mask(model)),
      model_depth_(options.fit == SphereFit::voxels ? std::make_unique<ModelDepth>(model) : nullptr),
      options_(options),
      centre_of_mass_model_m_(centre_of_mass_model_m) {
  check_octree_build(model, options);
  const OctreeCell root = octree_root_cell(model);
  // Halving with the larger half (split_octree_cell) leaves ceil(side / 2^d) at depth d.
  leaf_cell_side_voxels_ = root.hi.x;
  for (int d = 0; d < options.levels && leaf_cell_side_voxels_ > 1; ++d) leaf_cell_side_voxels_ = (leaf_cell_side_voxels_ + 1) / 2;

  out = CollisionModel{};
  allocate_run(out, 1);
  write_node(out, 0, 0, root, scan_octree_cell(model_, surface_, root), 0);
  live_nodes_ = 1;
  out.centre_slack_m = distance_to_voxels_m(model_, centre_of_mass_model_m);
  out.bounding_radius_m = bounding_radius_m;
}

std::uint32_t TreeGrower::allocate_run(CollisionModel& m, int count) {
  std::vector<std::uint32_t>& free = free_runs_[static_cast<std::size_t>(count)];
  if (!free.empty()) {
    const std::uint32_t first = free.back();
    free.pop_back();
    return first;
  }
  const auto first = static_cast<std::uint32_t>(m.spheres.size());
  const std::size_t size = first + static_cast<std::size_t>(count);
  m.spheres.resize(size);
  m.first_child.resize(size);
  m.child_count.resize(size);
  m.parent.resize(size);
  m.gap_slack_m.resize(size);
  m.leaf_reach_m.resize(size);
  cell_.resize(size);
  depth_.resize(size);
  last_used_frame_.resize(size);
  return first;
}

void TreeGrower::write_node(CollisionModel& m, std::uint32_t index, std::uint32_t parent, const OctreeCell& cell,
                            const OctreeCellScan& scan, int depth) {
  Vec3 centre_m;
  double radius_m = 0;
  octree_node_sphere(model_, surface_, cell, scan, options_, model_depth_.get(), centre_m, radius_m);
  m.spheres[index] = {centre_m - centre_of_mass_model_m_, radius_m};
  m.gap_slack_m[index] = distance_to_voxels_m(model_, centre_m);
  m.parent[index] = parent;
  const bool leaf = is_octree_leaf(cell, depth, options_.levels);
  m.child_count[index] = leaf ? 0 : kChildrenNotBuilt;
  m.first_child[index] = leaf ? 0 : index;
  // Leaf reach without the subtree: every leaf below has a sphere centred inside an occupied
  // box that lies inside this node's occupied box, its extents at most a leaf cell's (e, per
  // axis, the smaller of the two), its radius at most |e/2| (004's sphere around that box, or a
  // fitted one no larger, SphereFit::voxels). So the farthest corner of this node's occupied box
  // from this centre, plus |e/2|, bounds it. For 004's spheres that corner is |h| away (h: the
  // box's half extents), this node's radius; a fitted sphere's centre and radius are elsewhere.
  if (leaf) {
    m.leaf_reach_m[index] = radius_m;
  } else {
    const double s = model_.voxel_size_m();
    double corner_m = radius_m;
    if (options_.fit != SphereFit::cell) {
      const Vec3 box_lo = Vec3(scan.box_min) * s, box_hi = Vec3(scan.box_max + 1) * s;
      corner_m = glm::length(glm::max(glm::abs(box_lo - centre_m), glm::abs(box_hi - centre_m)));
    }
    const Vec3 occupied_extent(scan.box_max - scan.box_min + 1);
    const Vec3 leaf_extent = glm::min(occupied_extent, Vec3(static_cast<double>(leaf_cell_side_voxels_)));
    m.leaf_reach_m[index] = corner_m + 0.5 * glm::length(leaf_extent) * s;
  }
  cell_[index] = cell;
  depth_[index] = static_cast<std::uint8_t>(depth);
  last_used_frame_[index] = frame_;
}

void TreeGrower::grow(CollisionModel& m, std::uint32_t node) {
  assert(m.child_count[node] == kChildrenNotBuilt);
  Stopwatch clock;
  std::array<OctreeCell, 8> cells;
  std::array<OctreeCellScan, 8> scans;
  std::array<OctreeCell, 8> kept;
  const int candidates = split_octree_cell(cell_[node], cells);
  int count = 0;
  for (int k = 0; k < candidates; ++k) {
    const OctreeCellScan scan = scan_octree_cell(model_, surface_, cells[static_cast<std::size_t>(k)]);
    // The builder's rule (004 section 3.3.1): a child is kept where it holds a voxel, and,
    // with hidden nodes removed, a surface voxel.
    if (!keeps_octree_child(scan, options_)) continue;
    scans[static_cast<std::size_t>(count)] = scan;
    kept[static_cast<std::size_t>(count++)] = cells[static_cast<std::size_t>(k)];
  }
  // A kept node holds a surface voxel (or, without removal, any voxel), so one of its
  // children does: a node that is not a leaf always has a child.
  assert(count > 0);
  const std::uint32_t first = allocate_run(m, count);
  const int depth = depth_[node] + 1;
  for (int k = 0; k < count; ++k) {
    const auto index = first + static_cast<std::uint32_t>(k);
    write_node(m, index, node, kept[static_cast<std::size_t>(k)], scans[static_cast<std::size_t>(k)], depth);
  }
  m.first_child[node] = first;
  m.child_count[node] = static_cast<std::uint8_t>(count);
  // Both bounds hold; the smaller prunes more (the children's may be the looser one).
  m.leaf_reach_m[node] = std::min(m.leaf_reach_m[node], leaf_reach_from_children_m(m, node));
  last_used_frame_[node] = frame_;
  live_nodes_ += count;
  stats_.nodes_built += count;
  stats_.build_ms += clock.elapsed_ms();
}

void TreeGrower::free_below(CollisionModel& m, std::uint32_t node) {
  const std::size_t base = stack_.size();
  stack_.push_back(node);
  while (stack_.size() > base) {
    const std::uint32_t n = stack_.back();
    stack_.pop_back();
    const std::uint8_t count = m.child_count[n];
    if (count == 0 || count == kChildrenNotBuilt) continue;
    const std::uint32_t first = m.first_child[n];
    for (std::uint32_t k = 0; k < count; ++k) stack_.push_back(first + k);
    free_runs_[count].push_back(first);
    live_nodes_ -= count;
    stats_.nodes_evicted += count;
    if (n != node) m.child_count[n] = 0;  // freed: nothing may read it as a parent again
  }
  m.child_count[node] = kChildrenNotBuilt;
  m.first_child[node] = node;
}

std::int64_t TreeGrower::evict_idle(CollisionModel& m, std::int64_t idle_frames) {
  const std::int64_t before = stats_.nodes_evicted;
  stack_.clear();
  stack_.push_back(0);
  while (!stack_.empty()) {
    const std::uint32_t n = stack_.back();
    stack_.pop_back();
    const std::uint8_t count = m.child_count[n];
    if (count == 0 || count == kChildrenNotBuilt) continue;
    if (frame_ - last_used_frame_[n] > idle_frames) {
      free_below(m, n);
      continue;
    }
    for (std::uint32_t k = 0; k < count; ++k) stack_.push_back(m.first_child[n] + k);
  }
  return stats_.nodes_evicted - before;
}

}  // namespace fovea
