#pragma once

// The descent's guarantee (docs/spheretree.md), checked by exhaustive search with no knowledge
// of how a tree was built: shared by the builders' and the inflater's tests.

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"

namespace fovea::test {

/// A random voxel blob: sides of 1 to `max_side` voxels of 0.05 m (odd sizes included), each
/// voxel occupied with a density drawn from [0.2, 0.9], at least one occupied.
VoxelModel random_voxel_blob(Rng& rng, int max_side);

/// All eight corners of voxel v lie in sphere n of the tree, allowing `relative_tolerance` of
/// its radius for rounding (0: to the last bit); `voxel_size_m` the model's.
bool sphere_holds_voxel(const SphereTree& tree, std::uint32_t n, const IVec3& v, double voxel_size_m,
                        double relative_tolerance = 1e-9);

/// The voxels a tree must cover, by the oracle's own scan of the six neighbours: those with a
/// free face, or every occupied one when `surface_only` is false (hidden nodes kept).
std::vector<IVec3> voxels_to_cover(const VoxelModel& model, bool surface_only);

/// Whether some path of spheres from node n to a leaf holds voxel v at every step.
bool path_to_a_leaf(const SphereTree& tree, std::uint32_t n, const IVec3& v, double voxel_size_m,
                    double relative_tolerance = 1e-9);

/// "" when the descent's guarantee holds: every voxel to cover lies wholly in some sphere of
/// every cut, and along some path of spheres from the root to a leaf each of which holds it (so
/// a descent that follows the spheres holding a contact never loses it). Else the first
/// failure, said.
std::string descent_guarantee_problem(const VoxelModel& model, const SphereTree& tree, bool surface_only,
                                      double relative_tolerance = 1e-9);

}  // namespace fovea::test
