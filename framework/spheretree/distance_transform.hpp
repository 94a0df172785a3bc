#pragma once

#include <cstdint>
#include <vector>

#include "core/math.hpp"

namespace fovea {

/// Exact squared Euclidean distance transform of a 3D lattice (Felzenszwalb and Huttenlocher,
/// "Distance Transforms of Sampled Functions", Theory of Computing 8, 2012): for every point,
/// the squared distance, in lattice steps, to the nearest point marked as a feature.
/// Separable, O(points). Stored x fastest, then y, z, like VoxelModel. Points with no
/// feature anywhere get +infinity.
std::vector<double> squared_distance_transform(const std::vector<std::uint8_t>& is_feature, IVec3 dims);

}  // namespace fovea
