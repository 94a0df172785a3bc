#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/math.hpp"
#include "narrowphase/collision_model.hpp"
#include "spheretree/octree_builder.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// CollisionModel::child_count of a node whose children are not built yet. Such a node is
/// not a leaf (a leaf has 0); its first_child holds its own index until it is grown.
inline constexpr std::uint8_t kChildrenNotBuilt = 0xff;

/// What growing and evicting did since the last reset_stats().
struct TreeGrowthStats {
  std::int64_t nodes_built = 0;    ///< nodes made by grow()
  std::int64_t nodes_evicted = 0;  ///< nodes freed by evict_idle()
  double build_ms = 0;             ///< wall-clock time inside grow()

  /// Adds `other`'s counts and time: a sum over trees (CollisionModelTable::take_growth_stats).
  TreeGrowthStats& operator+=(const TreeGrowthStats& other) {
    nodes_built += other.nodes_built;
    nodes_evicted += other.nodes_evicted;
    build_ms += other.build_ms;
    return *this;
  }
};

/// An octree sphere tree built as collisions need it: the on-collide sphere trees of 001
/// (Franquesa-Niubo and Rodriguez, "Sphere-trees generation as needed in real time").
///
/// It starts as the root alone. When the descent (or a wall contact, or the player's
/// capsule) needs the children of a node not yet built, grow() makes them, exactly the nodes
/// build_octree_sphere_tree() would make there (the same cells, spheres, order and hidden-node
/// removal), so a descent on a grown tree gives the same outcomes and test counts as one on
/// the whole tree. Each node with built children carries a time stamp, the frame its children
/// were last used (touch()); evict_idle() frees the branches below nodes unused for a while,
/// as 001 does, so a tree's size follows what collisions use.
///
/// The nodes live in the CollisionModel's flat arrays, as a whole tree's do: a node's
/// children are one run of siblings. Freed runs go to free lists by length (1 to 8) and are
/// reused by later growth, so a steady workload stops allocating. Growing never moves an
/// existing node; evicting frees only nodes below the evicted one. Neither may run while a
/// frame's sphere hits still refer to nodes: the narrow phase evicts between frames.
///
/// leaf_reach_m of a node not yet grown is a bound that needs no subtree (on_demand_tree.cpp),
/// tightened to its children's when it is grown; both bound every leaf sphere below it.
class TreeGrower {
 public:
  /// Keeps a copy of `model` to scan. `out` becomes the root alone.
  TreeGrower(const VoxelModel& model, const OctreeBuildOptions& options, const Vec3& centre_of_mass_model_m,
             double bounding_radius_m, CollisionModel& out);

  /// Builds the children of `node`, whose child_count is kChildrenNotBuilt, into `m`, and
  /// stamps the node as used now.
  void grow(CollisionModel& m, std::uint32_t node);
  /// The node's children were used this frame.
  void touch(std::uint32_t node) { last_used_frame_[node] = frame_; }
  /// The frame the stamps of touch() and grow() record.
  void set_frame(std::int64_t frame) { frame_ = frame; }
  /// Frees the branches below every node whose children were last used more than
  /// `idle_frames` frames ago; those nodes go back to kChildrenNotBuilt. Returns nodes freed.
  std::int64_t evict_idle(CollisionModel& m, std::int64_t idle_frames);

  /// The idle time NarrowPhase::evict_idle() gives this tree, frames.
  std::int64_t evict_after_frames() const { return evict_after_frames_; }
  /// Sets it, frames (world.entities[].sphere_tree.evict_after_frames; 120 until set).
  void set_evict_after_frames(std::int64_t frames) { evict_after_frames_ = frames; }

  /// Nodes built and not freed, the root included.
  std::int64_t live_nodes() const { return live_nodes_; }
  /// Nodes built and evicted, and time spent building, since reset_stats().
  const TreeGrowthStats& stats() const { return stats_; }
  /// Zeroes stats(); CollisionModelTable::take_growth_stats calls it after reading them.
  void reset_stats() { stats_ = {}; }

 private:
  /// Appends or reuses a run of `count` nodes; returns its first index.
  std::uint32_t allocate_run(CollisionModel& m, int count);
  /// Writes node `index` for a kept cell.
  void write_node(CollisionModel& m, std::uint32_t index, std::uint32_t parent, const OctreeCell& cell,
                  const OctreeCellScan& scan, int depth);
  /// Frees every run below `node` and marks it not grown.
  void free_below(CollisionModel& m, std::uint32_t node);

  VoxelModel model_;
  std::vector<std::uint8_t> surface_;    ///< surface_voxel_mask(model_)
  std::unique_ptr<ModelDepth> model_depth_;  ///< for fitted spheres (SphereFit::voxels) only
  OctreeBuildOptions options_;
  Vec3 centre_of_mass_model_m_{0.0};
  int leaf_cell_side_voxels_ = 1;        ///< the largest cell a depth-`levels` leaf can have
  // Side tables by node.
  std::vector<OctreeCell> cell_;
  std::vector<std::uint8_t> depth_;
  std::vector<std::int64_t> last_used_frame_;
  std::array<std::vector<std::uint32_t>, 9> free_runs_;  ///< by run length
  std::vector<std::uint32_t> stack_;     ///< scratch for evict_idle
  std::int64_t frame_ = 0;
  std::int64_t evict_after_frames_ = 120;
  std::int64_t live_nodes_ = 0;
  TreeGrowthStats stats_;
};

/// A collision model and, for an on-demand tree, its grower (null for a whole tree).
struct GrowableModel {
  CollisionModel* model = nullptr;  ///< the tree, in the CollisionModelTable
  TreeGrower* grower = nullptr;     ///< grows and stamps `model`'s nodes; null for a whole tree

  /// Makes sure `node`'s children exist (growing them when the tree is on demand) and
  /// stamps them as used. Call before reading first_child / child_count of an inner node.
  void use_children(std::uint32_t node) const {
    if (grower == nullptr) return;
    if (model->child_count[node] == kChildrenNotBuilt) {
      grower->grow(*model, node);
    } else {
      grower->touch(node);
    }
  }
};

}  // namespace fovea
