#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "spheretree/model_depth.hpp"
#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// What decides an octree tree (004 section 3.3.1); the same options and model give the same tree.
struct OctreeBuildOptions {
  int levels = 4;             ///< levels of spheres below the root (004 section 3.3: four)
  bool remove_hidden = true;  ///< drop nodes hidden on all six sides (004 section 3.3.1, last step)
  SphereFit fit = SphereFit::cell;  ///< each node's sphere: 004's around the occupied box, or the less protruding
};

/// Builds the sphere tree of 004 section 3.3.1 by octree subdivision of the voxel model.
///
/// The root cell is the smallest cube holding the grid (side = its longest dimension, in
/// voxels, from the grid's min corner). A cell splits at the middle of each axis longer
/// than one voxel (halves of ceil and floor size when the length is odd), giving up to 8
/// children, kept where they hold an occupied voxel. A branch ends at `levels` or where
/// its cell is a single voxel. Each kept node's sphere is the smallest sphere around the
/// box of the occupied voxels in its cell, r = sqrt(x^2 + y^2 + z^2) / 2 for an x * y * z
/// box, never larger than the cell's circumsphere.
///
/// Hidden nodes: a cell all of whose voxels are occupied and whose six neighbouring slabs
/// are occupied too holds no surface voxel (no occupied voxel with a free face); such a node
/// can never be the first thing touched, and it is removed with its branch. Equivalently, a
/// node is kept only where its cell holds a surface voxel. This is exactly what keeps the
/// coverage guarantee: at every depth, every surface voxel lies wholly inside a sphere of
/// the tree's cut at that depth, and a node's surface voxels inside its children's spheres.
SphereTree build_octree_sphere_tree(const VoxelModel& model, const OctreeBuildOptions& options = {});

// The builder's steps, shared with the on-demand trees of 001 (narrowphase/on_demand_tree.hpp),
// which make the same nodes one branch at a time.

/// What a scan of one octree cell finds.
struct OctreeCellScan {
  bool occupied = false;     ///< holds at least one occupied voxel (else the box is meaningless)
  bool has_surface = false;  ///< holds an occupied voxel with a free face
  IVec3 box_min{0};          ///< the occupied voxels' bounding box, inclusive
  IVec3 box_max{0};          ///< its highest voxel index per axis, inclusive
};

/// An octree cell in voxels, [lo, hi).
struct OctreeCell {
  IVec3 lo{0};  ///< lowest voxel index per axis, inclusive
  IVec3 hi{0};  ///< one past the highest voxel index per axis
};

/// The root cell: the smallest cube holding the grid, from its min corner.
OctreeCell octree_root_cell(const VoxelModel& model);

/// Scans cell [lo, hi) clipped to the grid; `surface` is surface_voxel_mask(model). Cost: the
/// cell's volume.
OctreeCellScan scan_octree_cell(const VoxelModel& model, const std::vector<std::uint8_t>& surface, const OctreeCell& cell);

/// The children of a cell in the builder's order (x fastest, then y, z), split at the middle
/// of each axis longer than one voxel; returns how many there are (1 to 8; a single voxel
/// has none and returns 0).
int split_octree_cell(const OctreeCell& cell, std::array<OctreeCell, 8>& children);

/// Whether a node of `cell` at `depth` is a leaf of a tree of `levels` levels: its branch ends.
inline bool is_octree_leaf(const OctreeCell& cell, int depth, int levels) {
  return depth >= levels || cell.hi - cell.lo == IVec3(1);
}

/// Whether a child cell becomes a node: it holds an occupied voxel and, with hidden nodes
/// removed, a surface voxel (004 section 3.3.1). The whole-tree builder and the on-demand
/// grower (narrowphase/on_demand_tree.cpp) both keep exactly these, so their trees agree.
inline bool keeps_octree_child(const OctreeCellScan& scan, const OctreeBuildOptions& options) {
  return scan.occupied && (!options.remove_hidden || scan.has_surface);
}

/// Refuses what no tree can be built for: a model with no occupied voxel, levels outside
/// [0, 255]. Throws std::invalid_argument.
void check_octree_build(const VoxelModel& model, const OctreeBuildOptions& options);

/// The node's sphere, model space. With SphereFit::cell, the smallest around the scan's
/// occupied box (004). With SphereFit::voxels, of that sphere and the smallest around the
/// corners of the voxels in the cell the node must cover (`surface` voxels, or every occupied
/// one when hidden nodes are kept), the one that protrudes less past the model by `depth`'s
/// bound (the smaller on a tie): the smallest sphere is the tighter around a curved part, but
/// on a flat face it sits in the surface layer and half of it sticks out, where 004's,
/// centred deeper, protrudes less. Both hold every voxel the coverage guarantee needs, and
/// neither exceeds the cell's circumsphere. `depth` is needed for SphereFit::voxels only.
void octree_node_sphere(const VoxelModel& model, const std::vector<std::uint8_t>& surface, const OctreeCell& cell,
                        const OctreeCellScan& scan, const OctreeBuildOptions& options, const ModelDepth* depth,
                        Vec3& centre_m, double& radius_m);

/// Occupied voxels with at least one free face (a face on an empty cell or the grid's edge),
/// as a mask in the model's cell order.
std::vector<std::uint8_t> surface_voxel_mask(const VoxelModel& model);

}  // namespace fovea
